package experiments

// The held-out test of a run: the selected point refitted on the whole
// training set (along its λ chain with warm starts) and scored on the
// test set.

import (
	"context"

	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// refitRows are the training and test rows test's refits take: copies of
// dense rows without a feature scaling (the fit's own, which falkon's
// float32_storage may replace by float32 rows), the runner's rows
// themselves with one, whose scaled copies are the fit's (a copy before
// scaling would be garbage as soon as made, 8·n·d bytes outside the plan).
func (r *runner) refitRows() (mat.Matrix, mat.Matrix) {
	if r.s.Dataset.scale() != "" {
		return r.x, r.xTest
	}
	return copyX(r.x), copyX(r.xTest)
}

// test refits point p on the whole training set and scores it on the test
// set. With warm starts the refit walks p's λ chain (pts) from its start, as
// cross-validation did, so the test score is that of the model selected.
func (r *runner) test(ctx context.Context, p Point, pts []Point) (*TestResult, error) {
	r.emit(Event{Kind: EventRefit, Key: p.Key()})
	seed := fitSeed(r.s.Seed, 1<<20, 0)
	var from model.Estimator
	if r.warm {
		for _, q := range pts {
			if q.Key() == p.Key() {
				break
			}
			if chainKey(q) != chainKey(p) {
				continue
			}
			xf, xt := r.refitRows()
			fs, err := r.fitScoreWith(ctx, q, xf, r.y, xt, r.yTest, fitOpts{seed: seed, from: from, pathKey: "all", w: r.w})
			if err != nil {
				return nil, err
			}
			from = fs.est
		}
	}
	xf, xt := r.refitRows()
	fs, err := r.fitScoreWith(ctx, p, xf, r.y, xt, r.yTest, fitOpts{seed: seed, from: from, pathKey: "all", w: r.w})
	if err != nil {
		return nil, err
	}
	t := &TestResult{NTrain: len(r.y), NTest: len(r.yTest), FitSeconds: fs.fit, PredictSeconds: fs.predict, PeakBytes: fs.peak, Gamma: fs.gamma}
	for i, m := range r.metrics {
		t.Metrics = append(t.Metrics, Summary{Name: m.Name, Mean: fs.scores[i]})
	}
	return t, nil
}
