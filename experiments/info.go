package experiments

import (
	"slices"

	"github.com/landmark-ml/landmark/model"
)

// FitInfo extracts the numbers worth tabulating from a fitted estimator,
// the info columns of a run's results: the centers M and CG iterations of
// FALKON ("centers", "iterations"), the rank of KRR's system ("rank"), the
// support vectors of the SVMs and SVR ("support_vectors", svm-train's nSV),
// and the training rows a one-class SVM puts outside ("training_outliers").
// Unknown estimators give nil.
func FitInfo(est model.Estimator) map[string]float64 {
	switch e := est.(type) {
	case *model.Falkon:
		in := e.Info()
		return map[string]float64{"centers": float64(in.M), "iterations": float64(in.Iterations)}
	case *model.KRR:
		return map[string]float64{"rank": float64(e.Info().Rank)}
	case *model.SVM:
		return map[string]float64{"support_vectors": float64(e.Info().SV)}
	case *model.BKASVM:
		return map[string]float64{"support_vectors": float64(e.Info().SV)}
	case *model.OneClassSVM:
		in := e.Info()
		return map[string]float64{"support_vectors": float64(in.SV), "training_outliers": float64(in.Outliers)}
	case *model.SVR:
		in := map[string]float64{"support_vectors": float64(e.Info().SV)}
		if e.Probability {
			in["laplace_sigma"] = e.Info().Sigma
		}
		return in
	}
	return nil
}

// addInfo accumulates the fit information of one fit into sums.
func addInfo(sums map[string]float64, in map[string]float64) {
	for k, v := range in {
		sums[k] += v
	}
}

// meanInfo divides accumulated sums by the number of fits (nil when empty).
func meanInfo(sums map[string]float64, fits int) map[string]float64 {
	if len(sums) == 0 || fits == 0 {
		return nil
	}
	out := make(map[string]float64, len(sums))
	for _, k := range sortedKeys(sums) {
		out[k] = sums[k] / float64(fits)
	}
	return out
}

// infoKeys returns the sorted info keys present in any point.
func infoKeys(pts []PointResult) []string {
	var keys []string
	for _, p := range pts {
		for k := range p.Info {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return keys
}
