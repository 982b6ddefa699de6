package model

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// conformanceCase is one data set for checkConformance.
type conformanceCase struct {
	name string
	// x, y is the training set; xTest has the same number of columns.
	x     *mat.Dense
	y     []float64
	xTest *mat.Dense
	// classification says y holds class labels: predictions must be labels
	// seen in training, and a single-class y must be rejected.
	classification bool
	// unsupervised says the estimator does not use y's values (the
	// one-class SVM): only y's length is checked, so NaN in y, a single
	// class and a continuous y are not refused.
	unsupervised bool
}

// conformanceRegression is a smooth 3-d regression problem: 60 training and
// 25 test points, y = sin(2x₀) + x₁² − x₂ + small noise.
func conformanceRegression(seed uint64) conformanceCase {
	rng := rand.New(rand.NewPCG(seed, 1))
	f := func(r []float64) float64 { return math.Sin(2*r[0]) + r[1]*r[1] - r[2] }
	x, y := conformancePoints(rng, 60, 3, 0.01, f)
	xt, _ := conformancePoints(rng, 25, 3, 0.01, f)
	return conformanceCase{name: "regression", x: x, y: y, xTest: xt}
}

// conformanceBinary is a two-class problem with labels 3 and 7 (not ±1, so
// the label mapping is exercised): the class is the sign of x₀ + x₁.
func conformanceBinary(seed uint64) conformanceCase {
	rng := rand.New(rand.NewPCG(seed, 2))
	f := func(r []float64) float64 {
		if r[0]+r[1] > 0 {
			return 7
		}
		return 3
	}
	x, y := conformancePoints(rng, 60, 2, 0, f)
	xt, _ := conformancePoints(rng, 25, 2, 0, f)
	return conformanceCase{name: "binary", x: x, y: y, xTest: xt, classification: true}
}

// conformanceMulticlass has three classes 0, 1, 2 given by the angle of (x₀, x₁).
func conformanceMulticlass(seed uint64) conformanceCase {
	rng := rand.New(rand.NewPCG(seed, 3))
	f := func(r []float64) float64 {
		a := math.Atan2(r[1], r[0]) + math.Pi // [0, 2π]
		return math.Min(2, math.Floor(a/(2*math.Pi/3)))
	}
	x, y := conformancePoints(rng, 90, 2, 0, f)
	xt, _ := conformancePoints(rng, 30, 2, 0, f)
	return conformanceCase{name: "multiclass", x: x, y: y, xTest: xt, classification: true}
}

// conformanceOutliers is a one-class problem: 60 training and 25 test points
// uniform in [−1, 1]², labelled +1 inside the disc of radius 0.8 and −1
// outside it (LIBSVM's convention for a one-class file: +1 normal), labels
// the estimator does not use but predicts from.
func conformanceOutliers(seed uint64) conformanceCase {
	rng := rand.New(rand.NewPCG(seed, 4))
	f := func(r []float64) float64 {
		if math.Hypot(r[0], r[1]) < 0.8 {
			return 1
		}
		return -1
	}
	x, y := conformancePoints(rng, 60, 2, 0, f)
	xt, _ := conformancePoints(rng, 25, 2, 0, f)
	return conformanceCase{name: "outliers", x: x, y: y, xTest: xt, classification: true, unsupervised: true}
}

// conformancePoints draws n points uniformly in [−1, 1]^d and labels them with
// f plus Gaussian noise of standard deviation noise.
func conformancePoints(rng *rand.Rand, n, d int, noise float64, f func([]float64) float64) (*mat.Dense, []float64) {
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		r := x.RawRowView(i)
		for j := range r {
			r[j] = 2*rng.Float64() - 1
		}
		y[i] = f(r)
		if noise > 0 {
			y[i] += noise * rng.NormFloat64()
		}
	}
	return x, y
}

// conformanceWeighted checks FitWeighted on est, fitted on c with Fit to
// the predictions p1: nil weights and weights all 1 give p1 to the bit
// (C·1, √1, λ·Σ1 = λn and the engine's weighted pass with weights 1 are
// exact); the configuration and the caller's weights are unchanged; bad
// weights are ErrInput and keep the fitted model; other weights change
// the model (weights 1 and 0.01 on alternate rows: C_i = C/100 bounds the
// SVMs' dual variables below their values on these sets, and KRR's and
// Falkon's weights are not all equal).
func conformanceWeighted(t *testing.T, newEstimator func() Estimator, est WeightedEstimator, c conformanceCase, p1 []float64) {
	t.Helper()
	ctx := context.Background()
	n := len(c.y)
	ones, alt := make([]float64, n), make([]float64, n)
	for i := range ones {
		ones[i], alt[i] = 1, 1-0.99*float64(i%2)
	}
	if err := est.FitWeighted(ctx, c.x, c.y, ones); errors.Is(err, ErrInput) && (strings.Contains(err.Error(), "does not take sample") || strings.Contains(err.Error(), "Probability with sample weights")) {
		// A configuration that refuses weights (MEKA, Probability) says
		// so, and keeps the model.
		if p, err := est.Predict(c.xTest); err != nil || !slices.Equal(p, p1) {
			t.Errorf("a FitWeighted refused for its configuration changed the model (err %v)", err)
		}
		return
	}
	for _, w := range [][]float64{nil, ones} {
		if err := est.FitWeighted(ctx, c.x, c.y, w); err != nil {
			t.Fatalf("FitWeighted (%d weights): %v", len(w), err)
		}
		if p, err := est.Predict(c.xTest); err != nil || !slices.Equal(p, p1) {
			t.Errorf("FitWeighted with %d weights of 1 predicts differently from Fit (err %v)", len(w), err)
		}
	}
	conformanceConfigUnchanged(t, newEstimator(), est)
	for _, bad := range [][]float64{ones[:n-1], append([]float64{-1}, ones[1:]...), append([]float64{math.NaN()}, ones[1:]...), make([]float64, n)} {
		if err := est.FitWeighted(ctx, c.x, c.y, bad); !errors.Is(err, ErrInput) {
			t.Errorf("FitWeighted with bad weights %v…: err = %v, want ErrInput", bad[:min(2, len(bad))], err)
		}
	}
	if p, err := est.Predict(c.xTest); err != nil || !slices.Equal(p, p1) {
		t.Errorf("a refused FitWeighted changed the model (err %v)", err)
	}
	keep := slices.Clone(alt)
	if err := est.FitWeighted(ctx, c.x, c.y, alt); err != nil {
		t.Fatalf("FitWeighted: %v", err)
	}
	if !slices.Equal(alt, keep) {
		t.Error("FitWeighted modified the caller's weights")
	}
	if dec, ok := est.(Classifier); ok && dec.Classes() != nil {
		d1, err := dec.DecisionFunction(c.xTest)
		if err != nil {
			t.Fatal(err)
		}
		if err := est.Fit(ctx, c.x, c.y); err != nil {
			t.Fatal(err)
		}
		d0, _ := dec.DecisionFunction(c.xTest)
		if mat.Equal(d0, d1) {
			t.Error("weights 1 and 0.01 give the unweighted decision values")
		}
	} else {
		p, _ := est.Predict(c.xTest)
		if slices.Equal(p, p1) {
			t.Error("weights 1 and 0.01 give the unweighted predictions")
		}
	}
	if err := est.Fit(ctx, c.x, c.y); err != nil {
		t.Fatal(err)
	}
}

// checkConformance runs the contract every Estimator must meet on each case:
//   - Predict before Fit fails with ErrNotFitted;
//   - Fit leaves the configuration alone: after Fit, the estimator's exported
//     fields are reflect.DeepEqual to those of a fresh, unfitted estimator
//     from newEstimator (so newEstimator must build equal configurations);
//   - fitting twice, and fitting a second fresh estimator, give exactly the
//     same predictions (determinism: all randomness comes from a seed);
//   - predicting a subset of rows gives that part of the full prediction
//     (to 1e-12 relative for regression: only the summation grouping of the
//     BLAS may differ; exactly for labels);
//   - predictions have one finite value per row, and class labels seen in
//     training for classification;
//   - bad input is rejected with ErrInput: nil, empty, NaN and Inf in X, NaN
//     in y, length mismatch, a single class for classification (y's values
//     only where the estimator uses them), and at predict time the wrong
//     number of columns or NaN;
//   - Fit with a cancelled context fails with context.Canceled;
//   - the estimator contract (conformanceContract): Info's shape, a failed
//     Fit keeping the previous model, progress callbacks that stop a fit,
//     PredictProba, PredictMulti, concurrent prediction.
//   - saved models (conformanceSaved): Load(Save(m)) predicts as m, and
//     refits on the same data to m's predictions, bit for bit.
//
// newEstimator must return a new estimator with its own configuration each
// call (no shared pointers that Fit could modify).
func checkConformance(t *testing.T, newEstimator func() Estimator, cases ...conformanceCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			conformanceOne(t, newEstimator, c)
		})
	}
}

func conformanceOne(t *testing.T, newEstimator func() Estimator, c conformanceCase) {
	ctx := context.Background()
	est := newEstimator()
	conformanceRefusals(t, est, c)
	if _, err := est.Predict(c.xTest); !errors.Is(err, ErrNotFitted) {
		t.Errorf("Predict before Fit: err = %v, want ErrNotFitted", err)
	}
	if err := est.Fit(ctx, c.x, c.y); err != nil {
		t.Fatalf("Fit: %v", err)
	}
	conformanceConfigUnchanged(t, newEstimator(), est)

	p1, err := est.Predict(c.xTest)
	if err != nil {
		t.Fatalf("Predict: %v", err)
	}
	nt, _ := c.xTest.Dims()
	if len(p1) != nt {
		t.Fatalf("Predict returned %d values for %d rows", len(p1), nt)
	}
	for i, v := range p1 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("prediction %d is %v", i, v)
		}
		if c.classification && !slices.Contains(c.y, v) {
			t.Fatalf("prediction %d is %v, not a training label", i, v)
		}
	}

	// Determinism: refit the same estimator, and fit a fresh one.
	if err := est.Fit(ctx, c.x, c.y); err != nil {
		t.Fatalf("second Fit: %v", err)
	}
	if p2, err := est.Predict(c.xTest); err != nil || !slices.Equal(p1, p2) {
		t.Errorf("refit changed the predictions (err %v)", err)
	}
	other := newEstimator()
	if err := other.Fit(ctx, c.x, c.y); err != nil {
		t.Fatalf("Fit of a fresh estimator: %v", err)
	}
	if p3, err := other.Predict(c.xTest); err != nil || !slices.Equal(p1, p3) {
		t.Errorf("a fresh estimator with the same configuration predicts differently (err %v)", err)
	}

	conformanceContract(t, newEstimator, est, c, p1)
	conformanceSaved(t, est, c, p1)
	if we, ok := est.(WeightedEstimator); ok {
		conformanceWeighted(t, newEstimator, we, c, p1)
	}

	// Subsets of rows.
	scale := 0.0
	for _, v := range p1 {
		scale = math.Max(scale, math.Abs(v))
	}
	for _, r := range [][2]int{{0, 1}, {3, 11}, {nt - 7, nt}} {
		sub := c.xTest.Slice(r[0], r[1], 0, c.xTest.RawMatrix().Cols).(*mat.Dense)
		ps, err := est.Predict(mat.DenseCopyOf(sub))
		if err != nil {
			t.Fatalf("Predict rows %v: %v", r, err)
		}
		for i, v := range ps {
			w := p1[r[0]+i]
			if c.classification && v != w || !c.classification && math.Abs(v-w) > 1e-12*math.Max(scale, 1) {
				t.Errorf("row %d predicted alone (rows %v) = %v, in the full set = %v", r[0]+i, r, v, w)
			}
		}
	}

	// Bad input at predict time.
	_, d := c.x.Dims()
	if _, err := est.Predict(mat.NewDense(2, d+1, nil)); !errors.Is(err, ErrInput) {
		t.Errorf("Predict with %d columns instead of %d: err = %v, want ErrInput", d+1, d, err)
	}
	bad := mat.DenseCopyOf(c.xTest)
	bad.Set(1, 0, math.NaN())
	if _, err := est.Predict(bad); !errors.Is(err, ErrInput) {
		t.Errorf("Predict with NaN: err = %v, want ErrInput", err)
	}
	if _, err := est.Predict(nil); !errors.Is(err, ErrInput) {
		t.Errorf("Predict(nil): err = %v, want ErrInput", err)
	}

	// Bad input at fit time.
	n := len(c.y)
	withX := func(i, j int, v float64) *mat.Dense {
		x := mat.DenseCopyOf(c.x)
		x.Set(i, j, v)
		return x
	}
	nanY := slices.Clone(c.y)
	nanY[n/2] = math.NaN()
	badFits := []struct {
		name string
		x    *mat.Dense
		y    []float64
	}{
		{"nil X", nil, c.y},
		{"empty X", &mat.Dense{}, nil},
		{"NaN in X", withX(n/3, d-1, math.NaN()), c.y},
		{"+Inf in X", withX(0, 0, math.Inf(1)), c.y},
		{"short y", c.x, c.y[:n-1]},
		{"long y", c.x, append(slices.Clone(c.y), c.y[0])},
	}
	if !c.unsupervised {
		badFits = append(badFits, struct {
			name string
			x    *mat.Dense
			y    []float64
		}{"NaN in y", c.x, nanY})
	}
	if c.classification && !c.unsupervised {
		one := slices.Repeat([]float64{c.y[0]}, n)
		badFits = append(badFits, struct {
			name string
			x    *mat.Dense
			y    []float64
		}{"single class", c.x, one})
	}
	for _, b := range badFits {
		if err := newEstimator().Fit(ctx, b.x, b.y); !errors.Is(err, ErrInput) {
			t.Errorf("Fit with %s: err = %v, want ErrInput", b.name, err)
		}
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := newEstimator().Fit(cctx, c.x, c.y); !errors.Is(err, context.Canceled) {
		t.Errorf("Fit with a cancelled context: err = %v, want context.Canceled", err)
	}
}

// conformanceConfigUnchanged compares the exported fields of two estimators of
// the same struct type.
func conformanceConfigUnchanged(t *testing.T, fresh, fitted Estimator) {
	t.Helper()
	a, b := reflect.ValueOf(fresh), reflect.ValueOf(fitted)
	if a.Type() != b.Type() {
		t.Fatalf("newEstimator returned %v then %v", a.Type(), b.Type())
	}
	for a.Kind() == reflect.Pointer {
		a, b = a.Elem(), b.Elem()
	}
	if a.Kind() != reflect.Struct {
		return
	}
	for i := 0; i < a.NumField(); i++ {
		f := a.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		if !reflect.DeepEqual(a.Field(i).Interface(), b.Field(i).Interface()) {
			t.Errorf("Fit changed config field %s: %#v, was %#v", f.Name, b.Field(i).Interface(), a.Field(i).Interface())
		}
	}
}

// conformanceRefusals checks the input every estimator refuses with an error
// wrapping ErrInput, never a panic: a nil context, and for classifiers a y
// that scikit-learn's check_classification_targets would call continuous
// (non-integer values) or that has more distinct integer values than
// max(20, n/2), the rule of NewLabels.
func conformanceRefusals(t *testing.T, est Estimator, c conformanceCase) {
	t.Helper()
	var nilCtx context.Context
	if err := est.Fit(nilCtx, c.x, c.y); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "nil context") {
		t.Errorf("Fit with a nil context: err = %v, want ErrInput naming the nil context", err)
	}
	if !c.classification || c.unsupervised {
		return
	}
	n := len(c.y)
	cont := make([]float64, n) // i + 0.5: n distinct non-integer values
	many := make([]float64, n) // i: n distinct integers, more than max(20, n/2) for n ≥ 42
	for i := range cont {
		cont[i] = float64(i) + 0.5
		many[i] = float64(i)
	}
	if n <= 40 {
		t.Fatalf("case %s has %d rows; the many-valued check needs more than 40", c.name, n)
	}
	for _, r := range []struct {
		name string
		y    []float64
		want string
	}{
		{"continuous", cont, "non-integer values such as 0.5"},
		{"many-valued", many, "more than max(20, 0.5·rows) = " + strconv.Itoa(n/2)},
	} {
		err := est.Fit(context.Background(), c.x, r.y)
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "classification targets look continuous") || !strings.Contains(err.Error(), r.want) {
			t.Errorf("Fit on %s y: err = %v, want ErrInput with %q", r.name, err, r.want)
		}
	}
}

// conformanceSaved checks issue 23's saved-model contract on a fitted
// estimator: the loaded model predicts p1 bit for bit, and refitting it on
// the training data gives p1 again — the configuration (sampler, backend and
// their options) travels with the file. An estimator whose configuration
// holds a type the format cannot carry must say so: Unsaved lists it and a
// refit fails with ErrNotSaved.
func conformanceSaved(t *testing.T, est Estimator, c conformanceCase, p1 []float64) {
	t.Helper()
	var buf bytes.Buffer
	if err := Save(&buf, est); err != nil {
		t.Fatalf("Save: %v", err)
	}
	loaded, err := Load(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if p, err := loaded.Predict(c.xTest); err != nil || !slices.Equal(p, p1) {
		t.Errorf("the loaded model predicts differently from the saved one (err %v)", err)
	}
	err = loaded.Fit(context.Background(), c.x, c.y)
	if missing := Unsaved(loaded); len(missing) > 0 {
		if !errors.Is(err, ErrNotSaved) {
			t.Errorf("refit of a loaded model missing %v: err = %v, want ErrNotSaved", missing, err)
		}
		return
	}
	if err != nil {
		t.Fatalf("refit of the loaded model: %v", err)
	}
	if p, err := loaded.Predict(c.xTest); err != nil || !slices.Equal(p, p1) {
		t.Errorf("the loaded model refits to different predictions (err %v): its configuration did not round-trip", err)
	}
}
