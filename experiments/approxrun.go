package experiments

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// ApproximationSpec configures an approximation-only experiment: no
// estimator, a list of kernel approximation methods, each built for every grid
// point (m, rank, clusters, gamma…) and scored by how close K̃ is to K.
type ApproximationSpec struct {
	// Kernel is the kernel; grid values of gamma or sigma override its own.
	Kernel kernel.Spec `yaml:"kernel" json:"kernel"`
	// Methods are names from ApproximationNames().
	Methods []string `yaml:"methods" json:"methods"`
	// Measures are frobenius (‖K − K̃‖_F/‖K‖_F, estimated on sampled rows)
	// and spectral (‖K − K̃‖₂/‖K‖₂ on a random subset, Musco & Musco's
	// protocol); default both.
	Measures []string `yaml:"measures,omitempty" json:"measures,omitempty"`
	// Rank is the target rank k of the Nyström methods (0: keep all); a grid
	// axis rank overrides it. meka's rank is m: m/clusters in each cluster.
	Rank int `yaml:"rank,omitempty" json:"rank,omitempty"`
	// Clusters is c for meka (default 10) and bka (default 64); a grid axis
	// clusters overrides it.
	Clusters int `yaml:"clusters,omitempty" json:"clusters,omitempty"`
	// Rows is the number of rows of K the Frobenius error is estimated on
	// (0: min(n, 1000)).
	Rows int `yaml:"rows,omitempty" json:"rows,omitempty"`
	// Subset is the number of points of the spectral error (0: min(n, 2000)).
	Subset int `yaml:"subset,omitempty" json:"subset,omitempty"`
}

// The error measures of approximation runs.
const (
	MeasureFrobenius = "frobenius"
	MeasureSpectral  = "spectral"
)

// featureRows holds φ(X) of a map as K̃'s rows (8·n·r bytes): the measures
// of a run read many rows, each then one product instead of a pass over X.
func featureRows(ctx context.Context, f approx.FeatureMap, x mat.Matrix) (approx.RowApproximator, int64, error) {
	fr, err := approx.NewFeatureRows(ctx, f, x)
	if err != nil {
		return nil, 0, err
	}
	n, _ := x.Dims()
	return fr, 8 * int64(n) * int64(f.Dim()), nil
}

// approxGridAxes are the grid axes of approximation runs.
var approxGridAxes = []string{"clusters", "coef0", "degree", "gamma", "m", "rank", "sigma"}

func (s *Spec) validateApproximation() error {
	a := s.Approximation
	if s.Estimator.Type != "" || s.Estimator.Kernel.Type != "" || len(s.Estimator.Options) > 0 {
		return s.errAt("an experiment has an estimator or an approximation block, not both", "estimator")
	}
	if s.CV.Folds != 0 || s.CV.Metric != "" {
		return s.errAt("approximation runs have no cross-validation", "cv")
	}
	if s.Task != "" {
		return s.errAt("approximation runs have no task", "task")
	}
	if len(a.Methods) == 0 {
		return s.errAt("approximation needs a list of methods", "approximation", "methods")
	}
	names := approxMethodNames()
	needM := false
	for i, m := range a.Methods {
		am, ok := approxMethodByName(m)
		if !ok {
			return s.errAt(fmt.Sprintf("unknown approximation %q%s (known: %s)", m, DidYouMean(m, names), strings.Join(names, ", ")), "approximation", "methods", fmt.Sprintf("[%d]", i))
		}
		if slices.Contains(a.Methods[:i], m) {
			return s.errAt(fmt.Sprintf("method %s listed twice", m), "approximation", "methods", fmt.Sprintf("[%d]", i))
		}
		needM = needM || am.usesM
	}
	for i, m := range a.Measures {
		if m != MeasureFrobenius && m != MeasureSpectral {
			return s.errAt(fmt.Sprintf("unknown measure %q (want frobenius or spectral)", m), "approximation", "measures", fmt.Sprintf("[%d]", i))
		}
	}
	if a.Rank < 0 || a.Clusters < 0 || a.Rows < 0 || a.Subset < 0 {
		return s.errAt("rank, clusters, rows and subset must be ≥ 0", "approximation")
	}
	if err := s.validateKernel(a.Kernel, "approximation"); err != nil {
		return err
	}
	if a.Kernel.Type == "precomputed" {
		return s.errAt("an approximation run does not take a precomputed kernel: its methods pick or make centers of their own", "approximation", "kernel", "type")
	}
	for _, k := range sortedKeys(s.Grid) {
		if !slices.Contains(approxGridAxes, k) {
			return s.errAt(fmt.Sprintf("unknown grid parameter %q for an approximation run%s (known: %s)", k, DidYouMean(k, approxGridAxes), strings.Join(approxGridAxes, ", ")), "grid", k)
		}
		o := Option{Name: k, Kind: KindInt, HasMin: true, Min: 1}
		switch k {
		case "gamma", "sigma":
			o = Option{Name: k, Kind: KindFloat, MinOpen: true}
		case "rank":
			o = Option{Name: k, Kind: KindFloat, HasMin: true}
		case "coef0": // c₀ ≥ 0 but for the sigmoid kernel, as in an estimator's grid
			o = Option{Name: k, Kind: KindFloat, HasMin: a.Kernel.Type != "sigmoid"}
		}
		if len(s.Grid[k]) == 0 {
			return s.errAt("empty list of values", "grid", k)
		}
		for i, v := range s.Grid[k] {
			if err := o.check(v); err != nil {
				return s.errAt(err.Error(), "grid", k, fmt.Sprintf("[%d]", i))
			}
		}
	}
	if needM && !hasKey(s.Grid, "m") {
		return s.errAt("approximation runs need a grid of m (landmarks, features or total rank)", "grid")
	}
	return nil
}

// measures resolves the measures of an approximation run.
func (a *ApproximationSpec) measures() []string {
	if len(a.Measures) == 0 {
		return []string{MeasureFrobenius, MeasureSpectral}
	}
	return a.Measures
}

// approxPoints enumerates method × grid points of an approximation run; methods
// that do not take m (bka) get one point per setting of the other axes.
func (s *Spec) approxPoints() []Point {
	var out []Point
	seen := map[string]bool{}
	for _, m := range s.Approximation.Methods {
		am, _ := approxMethodByName(m)
		for _, p := range s.Grid.Points() {
			q := Point{}
			for _, v := range p {
				if v.Name == "m" && !am.usesM {
					continue
				}
				q = append(q, v)
			}
			q = append(Point{{Name: "method:" + m}}, q...)
			if !seen[q.Key()] {
				seen[q.Key()] = true
				out = append(out, q)
			}
		}
	}
	return out
}

// method returns the method name of an approximation point.
func (p Point) method() string {
	if len(p) > 0 && strings.HasPrefix(p[0].Name, "method:") {
		return strings.TrimPrefix(p[0].Name, "method:")
	}
	return ""
}

// evalApprox builds the method of point p once per repeat and measures its errors.
func (r *runner) evalApprox(ctx context.Context, idx, total int, p Point) (PointResult, error) {
	a := r.s.Approximation
	pr := PointResult{Index: idx, Key: p.Key(), Params: p, Method: p.method()}
	ks := a.Kernel
	ap := ApproxParams{Rank: a.Rank, Clusters: a.Clusters}
	for _, q := range p[1:] {
		switch q.Name {
		case "m":
			ap.M = int(q.Value)
		case "rank":
			ap.Rank = int(q.Value)
		case "clusters":
			ap.Clusters = int(q.Value)
		default:
			setKernelField(&ks, q.Name, q.Value)
		}
	}
	k, err := kernel.New(ks)
	if err != nil {
		return pr, err
	}
	ms := a.measures()
	scores := make([][]float64, len(ms))
	var buildSum float64
	r.pointStarted()
	for rep := 0; rep < r.repeats; rep++ {
		r.emit(Event{Kind: EventFold, Point: idx, Points: total, Key: pr.Key, Folds: 1, Repeat: rep, Repeats: r.repeats})
		seed := fitSeed(r.s.Seed, rep, 0)
		w := startMemWatch()
		t0 := time.Now()
		ra, bytes, err := r.buildApprox(ctx, pr.Method, k, ap, rand.New(rand.NewPCG(seed, 1)))
		dt := time.Since(t0).Seconds()
		peak := w.Stop()
		if err != nil {
			if ctx.Err() != nil {
				return pr, ctx.Err()
			}
			pr.Error = err.Error()
			pr.Fits = 0
			pr.Metrics = nanSummaries(ms)
			return pr, nil
		}
		for i, m := range ms {
			var v float64
			mrng := rand.New(rand.NewPCG(seed, 2+uint64(i)))
			switch m {
			case MeasureFrobenius:
				v, err = approx.RelFrobeniusError(ctx, r.x, k, ra, a.Rows, mrng)
			case MeasureSpectral:
				var sp approx.Spectral
				sp, err = approx.SpectralError(ctx, r.x, k, ra, a.Subset, mrng)
				v = sp.Error / sp.Norm
			}
			if err != nil {
				if ctx.Err() != nil {
					return pr, ctx.Err()
				}
				return pr, fmt.Errorf("%s error of %s: %w", m, pr.Key, err)
			}
			scores[i] = append(scores[i], v)
		}
		buildSum += dt
		pr.PeakBytes = max(pr.PeakBytes, peak)
		pr.Bytes = bytes
		pr.Fits++
		r.foldDone(Event{Point: idx, Points: total, Key: pr.Key, Folds: 1, Repeat: rep, Repeats: r.repeats})
	}
	for i, m := range ms {
		mean, std := sampleMeanStd(scores[i])
		pr.Metrics = append(pr.Metrics, Summary{Name: m, Mean: mean, Std: std})
	}
	pr.FitSeconds = buildSum / float64(pr.Fits)
	return pr, nil
}

// buildApprox builds one approximation of a run: a feature map's φ(X) is
// held (featureRows), meka's and bka's structures answer rows themselves.
func (r *runner) buildApprox(ctx context.Context, method string, k kernel.Kernel, p ApproxParams, rng *rand.Rand) (approx.RowApproximator, int64, error) {
	a, err := BuildApproximation(ctx, method, r.x, k, p, rng)
	if err != nil {
		return nil, 0, err
	}
	if a.Map != nil {
		return featureRows(ctx, a.Map, r.x)
	}
	return a.Rows, a.Bytes, nil
}

// ApproxData is the data of an approximation build as an approximation run
// holds it: read, subsampled and scaled.
type ApproxData struct {
	// X is *mat.Dense or *datasets.CSR (kernel.Sparse).
	X mat.Matrix
	// Storage is StorageDense or StorageSparse; StorageWhy says why auto
	// chose it ("" when the spec named the storage).
	Storage, StorageWhy string
	// Density is the share of non-zero entries of the data as read.
	Density float64
}

// LoadApproximationData reads the dataset block of the approximation spec s
// as Run does: its storage rule (a LIBSVM file kept sparse below
// SparseDensity unless the scaling moves zeros), subsample and scaling,
// after checking the spec.
func LoadApproximationData(ctx context.Context, s *Spec) (*ApproxData, error) {
	if s == nil || s.Approximation == nil {
		return nil, fmt.Errorf("%w: not an approximation spec", ErrSpec)
	}
	r, err := newRunnerContext(ctx, s, Options{})
	if err != nil {
		return nil, err
	}
	return &ApproxData{X: r.x, Storage: r.storage, StorageWhy: r.storageWhy, Density: r.density}, nil
}
