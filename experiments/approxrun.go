package experiments

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/approx/meka"
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
	// axis rank overrides it.
	Rank int `yaml:"rank,omitempty" json:"rank,omitempty"`
	// Clusters is c for meka and bka (default 10); a grid axis clusters overrides it.
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

// approxMethod is one row of the approximation table: build returns the
// approximation of the kernel matrix of x and the bytes its representation
// of K̃ on x holds.
type approxMethod struct {
	name    string
	summary string
	// usesM says whether the method takes the sample size m.
	usesM bool
	build func(ctx context.Context, x mat.Matrix, k kernel.Kernel, p approxParams, rng *rand.Rand) (approx.RowApproximator, int64, error)
}

// approxParams are one grid point's settings of an approximation run.
type approxParams struct {
	m, rank, clusters int
	qr                bool
}

// nystromMethod is Nyström from a sampler's landmarks (standard rank-k, or
// QR rank-k when p.qr), K̃ represented by φ(X) (8·n·r bytes).
func nystromMethod(s approx.Sampler) func(context.Context, mat.Matrix, kernel.Kernel, approxParams, *rand.Rand) (approx.RowApproximator, int64, error) {
	return func(ctx context.Context, x mat.Matrix, k kernel.Kernel, p approxParams, rng *rand.Rand) (approx.RowApproximator, int64, error) {
		lm, err := s.Sample(ctx, x, k, p.m, rng)
		if err != nil {
			return nil, 0, err
		}
		fm, err := approx.Nystrom{Rank: p.rank, QR: p.qr}.Fit(ctx, x, k, lm)
		if err != nil {
			return nil, 0, err
		}
		return featureRows(ctx, fm, x)
	}
}

func featureRows(ctx context.Context, f approx.FeatureMap, x mat.Matrix) (approx.RowApproximator, int64, error) {
	fr, err := approx.NewFeatureRows(ctx, f, x)
	if err != nil {
		return nil, 0, err
	}
	n, _ := x.Dims()
	return fr, 8 * int64(n) * int64(f.Dim()), nil
}

// approxMethods is the approximation table, sorted by name. Every Nyström
// sampler also appears with a -qr suffix: the best rank-k approximation from
// the same landmarks (Pourkamali-Anaraki & Becker, Alg. 2).
var approxMethods = func() []approxMethod {
	var t []approxMethod
	for _, s := range samplers {
		b := nystromMethod(s.s)
		t = append(t, approxMethod{name: s.name, summary: "Nyström on " + s.summary + "; standard rank-k truncation", usesM: true, build: b})
		t = append(t, approxMethod{name: s.name + "-qr", summary: "Nyström on " + s.summary + "; best rank-k via QR (Pourkamali-Anaraki & Becker, Alg. 2)", usesM: true,
			build: func(ctx context.Context, x mat.Matrix, k kernel.Kernel, p approxParams, rng *rand.Rand) (approx.RowApproximator, int64, error) {
				p.qr = true
				return b(ctx, x, k, p, rng)
			}})
	}
	t = append(t,
		approxMethod{name: "bka", summary: "block kernel approximation: exact blocks of a k-means partition (Si, Hsieh & Dhillon)", build: func(ctx context.Context, x mat.Matrix, k kernel.Kernel, p approxParams, rng *rand.Rand) (approx.RowApproximator, int64, error) {
			b, err := meka.FitBKA(ctx, x, k, meka.BKAOptions{Clusters: p.clusters}, rng)
			if err != nil {
				return nil, 0, err
			}
			return b, b.Bytes(), nil
		}},
		approxMethod{name: "meka", summary: "MEKA with total rank m = clusters × k (Si, Hsieh & Dhillon, Alg. 1)", usesM: true, build: func(ctx context.Context, x mat.Matrix, k kernel.Kernel, p approxParams, rng *rand.Rand) (approx.RowApproximator, int64, error) {
			r := p.m / p.clusters
			if r < 1 {
				return nil, 0, fmt.Errorf("%w: meka: m = %d is below clusters = %d (rank per cluster m/clusters < 1)", ErrSpec, p.m, p.clusters)
			}
			mk, err := meka.Fit(ctx, x, k, meka.Options{Rank: r, Clusters: p.clusters}, rng)
			if err != nil {
				return nil, 0, err
			}
			return mk, mk.Bytes(), nil
		}},
		approxMethod{name: "rff", summary: "random Fourier features, m features (Rahimi & Recht)", usesM: true, build: func(ctx context.Context, x mat.Matrix, k kernel.Kernel, p approxParams, rng *rand.Rand) (approx.RowApproximator, int64, error) {
			_, d := x.Dims()
			f, err := approx.RFF{Features: p.m}.Fit(k, d, rng)
			if err != nil {
				return nil, 0, err
			}
			return featureRows(ctx, f, x)
		}},
	)
	slices.SortFunc(t, func(a, b approxMethod) int { return strings.Compare(a.name, b.name) })
	return t
}()

// ApproximationNames returns the approximation methods an approximation run
// may list, sorted, each with a one-line summary.
func ApproximationNames() [][2]string {
	out := make([][2]string, len(approxMethods))
	for i, m := range approxMethods {
		out[i] = [2]string{m.name, m.summary}
	}
	return out
}

func approxMethodByName(name string) (approxMethod, bool) {
	for _, m := range approxMethods {
		if m.name == name {
			return m, true
		}
	}
	return approxMethod{}, false
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
	names := make([]string, len(approxMethods))
	for i, m := range approxMethods {
		names[i] = m.name
	}
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
	for _, k := range sortedKeys(s.Grid) {
		if !slices.Contains(approxGridAxes, k) {
			return s.errAt(fmt.Sprintf("unknown grid parameter %q for an approximation run%s (known: %s)", k, DidYouMean(k, approxGridAxes), strings.Join(approxGridAxes, ", ")), "grid", k)
		}
		o := Option{Name: k, Kind: KindInt, HasMin: true, Min: 1}
		switch k {
		case "gamma", "sigma":
			o = Option{Name: k, Kind: KindFloat, MinOpen: true}
		case "coef0", "rank":
			o = Option{Name: k, Kind: KindFloat, HasMin: true}
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
	am, _ := approxMethodByName(pr.Method)
	ks := a.Kernel
	ap := approxParams{rank: a.Rank, clusters: a.Clusters}
	if ap.clusters == 0 {
		ap.clusters = 10
	}
	for _, q := range p[1:] {
		switch q.Name {
		case "m":
			ap.m = int(q.Value)
		case "rank":
			ap.rank = int(q.Value)
		case "clusters":
			ap.clusters = int(q.Value)
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
		ra, bytes, err := am.build(ctx, r.x, k, ap, rand.New(rand.NewPCG(seed, 1)))
		dt := time.Since(t0).Seconds()
		peak := w.Stop()
		if err != nil {
			if ctx.Err() != nil {
				return pr, ctx.Err()
			}
			pr.Error = err.Error()
			pr.Fits = 0
			pr.Metrics = nanSummaries2(ms)
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

func nanSummaries2(names []string) []Summary {
	out := make([]Summary, len(names))
	for i, n := range names {
		out[i] = Summary{Name: n, Mean: math.NaN(), Std: math.NaN()}
	}
	return out
}
