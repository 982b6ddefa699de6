package model

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/approx/meka"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// conformanceContract checks the estimator contract of contract.go on est,
// fitted on c with test predictions p1:
//   - Info has one shape: a method without arguments returning one struct,
//     the zero value before Fit and a non-zero one after;
//   - a failed Fit keeps the previous model: after a refused fit (NaN in X,
//     nil and cancelled contexts, a MemoryLimit of 1 byte, and for
//     classifiers a continuous y) the predictions are the same bits and
//     Info is unchanged;
//   - the Progress callback (a ProgressFunc) is called, does not change the
//     model, and stops the fit: the error wraps ErrStopped and the
//     callback's error, the callback is not called again, and a fitted
//     estimator keeps its model;
//   - PredictProba: ErrNotFitted before Fit, ErrInput without Probability
//     and for regression; with Probability, one row per test row and one
//     column per class, entries in [0, 1], rows summing to 1 within 1e-12
//     (k additions of numbers ≤ 1 after a division by their sum), the
//     same values on a refit and for subsets of rows, and for KRR and
//     Falkon (softmax calibration) Predict's label with the largest
//     probability;
//   - MultiOutput: PredictMulti's only column is Predict after Fit; FitMulti
//     on y as one column predicts the same bits as Fit; FitMulti on [y, 2y]
//     predicts [f, 2f] (the ridge solutions are linear in y) within 1e-9 of
//     the largest prediction; PredictMulti is ErrInput after a
//     classification fit;
//   - Predict, DecisionFunction, PredictProba, Info and Classes called from
//     four goroutines at once give the serial results (run with -race).
func conformanceContract(t *testing.T, newEstimator func() Estimator, est Estimator, c conformanceCase, p1 []float64) {
	t.Helper()
	ctx := context.Background()
	conformanceInfo(t, newEstimator(), est)
	conformanceKeeps(t, est, c, p1)
	conformanceProgress(t, newEstimator, est, c, p1)
	conformanceProba(t, newEstimator, est, c, p1)
	if mo, ok := est.(MultiOutput); ok {
		conformanceMulti(t, newEstimator, mo, c, p1)
	}
	conformanceConcurrent(t, est, c)
	// The checks above leave est fitted on c as it was.
	if err := est.Fit(ctx, c.x, c.y); err != nil {
		t.Fatalf("refit: %v", err)
	}
}

// infoOf calls est's Info method.
func infoOf(t *testing.T, est Estimator) any {
	t.Helper()
	m := reflect.ValueOf(est).MethodByName("Info")
	if !m.IsValid() || m.Type().NumIn() != 0 || m.Type().NumOut() != 1 || m.Type().Out(0).Kind() != reflect.Struct {
		t.Fatalf("%T has no Info() T method with T a struct", est)
	}
	return m.Call(nil)[0].Interface()
}

func conformanceInfo(t *testing.T, fresh, fitted Estimator) {
	t.Helper()
	if !reflect.ValueOf(infoOf(t, fresh)).IsZero() {
		t.Errorf("Info before Fit is %+v, want the zero value", infoOf(t, fresh))
	}
	if reflect.ValueOf(infoOf(t, fitted)).IsZero() {
		t.Errorf("Info after Fit is the zero value")
	}
}

// sameInfo compares two Info values field by field through their printed
// form, so that NaN fields (SVMTaskInfo.Negative of one-vs-rest) compare
// equal.
func sameInfo(a, b any) bool { return fmt.Sprintf("%+v", a) == fmt.Sprintf("%+v", b) }

// resourcesOf returns a pointer to est's embedded Resources.
func resourcesOf(t *testing.T, est Estimator) *Resources {
	t.Helper()
	f := reflect.ValueOf(est).Elem().FieldByName("Resources")
	if !f.IsValid() || f.Type() != reflect.TypeOf(Resources{}) {
		t.Fatalf("%T does not embed Resources", est)
	}
	return f.Addr().Interface().(*Resources)
}

func conformanceKeeps(t *testing.T, est Estimator, c conformanceCase, p1 []float64) {
	t.Helper()
	info := infoOf(t, est)
	same := func(what string) {
		t.Helper()
		if p, err := est.Predict(c.xTest); err != nil || !slices.Equal(p, p1) {
			t.Errorf("after a failed Fit (%s) the predictions changed (err %v)", what, err)
		}
		if got := infoOf(t, est); !sameInfo(got, info) {
			t.Errorf("after a failed Fit (%s) Info changed", what)
		}
	}
	nanX := mat.DenseCopyOf(c.x)
	nanX.Set(2, 0, math.NaN())
	if err := est.Fit(context.Background(), nanX, c.y); !errors.Is(err, ErrInput) {
		t.Errorf("Fit with NaN: err = %v, want ErrInput", err)
	}
	same("NaN in X")
	var nilCtx context.Context
	if err := est.Fit(nilCtx, c.x, c.y); !errors.Is(err, ErrInput) {
		t.Errorf("Fit with a nil context: err = %v, want ErrInput", err)
	}
	same("nil context")
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := est.Fit(cctx, c.x, c.y); !errors.Is(err, context.Canceled) {
		t.Errorf("Fit with a cancelled context: err = %v, want context.Canceled", err)
	}
	same("cancelled context")
	res := resourcesOf(t, est)
	res.MemoryLimit = 1
	if err := est.Fit(context.Background(), c.x, c.y); !errors.Is(err, ErrMemory) {
		t.Errorf("Fit within 1 byte: err = %v, want ErrMemory", err)
	}
	res.MemoryLimit = 0
	same("memory limit")
	if c.classification && !c.unsupervised {
		cont := slices.Clone(c.y)
		cont[0] = 0.5
		if err := est.Fit(context.Background(), c.x, cont); !errors.Is(err, ErrInput) {
			t.Errorf("Fit on a continuous y: err = %v, want ErrInput", err)
		}
		same("continuous y")
	}
}

// progressField returns a pointer to est's Progress field, nil when it is
// not a ProgressFunc.
func progressField(est Estimator) *ProgressFunc {
	f := reflect.ValueOf(est).Elem().FieldByName("Progress")
	if !f.IsValid() || f.Type() != reflect.TypeOf(ProgressFunc(nil)) {
		return nil
	}
	return f.Addr().Interface().(*ProgressFunc)
}

var errHalt = errors.New("halt")

func conformanceProgress(t *testing.T, newEstimator func() Estimator, est Estimator, c conformanceCase, p1 []float64) {
	t.Helper()
	ctx := context.Background()
	fresh := newEstimator()
	pf := progressField(fresh)
	if pf == nil {
		t.Errorf("%T has no Progress field of type ProgressFunc", fresh)
		return
	}
	var seen []Progress
	*pf = func(p Progress) error {
		seen = append(seen, p)
		return nil
	}
	if err := fresh.Fit(ctx, c.x, c.y); err != nil {
		t.Fatalf("Fit with a progress callback: %v", err)
	}
	if len(seen) == 0 {
		t.Errorf("the progress callback was never called")
	}
	for _, p := range seen {
		if p.Stage == "" || p.Done < 0 || p.Total > 0 && p.Done > p.Total || p.Elapsed < 0 {
			t.Errorf("progress report %+v", p)
		}
	}
	if p, err := fresh.Predict(c.xTest); err != nil || !slices.Equal(p, p1) {
		t.Errorf("a progress callback changed the predictions (err %v)", err)
	}
	// Stop at the first report, unfitted and fitted.
	for _, e := range []Estimator{newEstimator(), est} {
		calls := 0
		pf := progressField(e)
		*pf = func(Progress) error {
			calls++
			return errHalt
		}
		err := e.Fit(ctx, c.x, c.y)
		*pf = nil
		if !errors.Is(err, ErrStopped) || !errors.Is(err, errHalt) || calls != 1 {
			t.Errorf("Fit stopped by its callback: err = %v after %d calls, want ErrStopped and the callback's error after 1", err, calls)
		}
	}
	if p, err := est.Predict(c.xTest); err != nil || !slices.Equal(p, p1) {
		t.Errorf("a stopped Fit changed the predictions of the fitted estimator (err %v)", err)
	}
}

// setProbability sets est's Probability field.
func setProbability(t *testing.T, est Estimator, on bool) {
	t.Helper()
	f := reflect.ValueOf(est).Elem().FieldByName("Probability")
	if !f.IsValid() || f.Kind() != reflect.Bool {
		t.Fatalf("%T has no Probability field", est)
	}
	f.SetBool(on)
}

func conformanceProba(t *testing.T, newEstimator func() Estimator, est Estimator, c conformanceCase, p1 []float64) {
	t.Helper()
	ctx := context.Background()
	cl, ok := est.(Classifier)
	if !ok {
		if c.classification {
			t.Fatalf("%T is not a Classifier", est)
		}
		return // a regression-only estimator (SVR) gives no scores or probabilities
	}
	if _, err := newEstimator().(Classifier).PredictProba(c.xTest); !errors.Is(err, ErrNotFitted) {
		t.Errorf("PredictProba before Fit: err = %v, want ErrNotFitted", err)
	}
	if on := reflect.ValueOf(est).Elem().FieldByName("Probability"); !on.IsValid() || !on.Bool() {
		if _, err := cl.PredictProba(c.xTest); !errors.Is(err, ErrInput) {
			t.Errorf("PredictProba without Probability: err = %v, want ErrInput", err)
		}
		if !on.IsValid() {
			return // an estimator without probabilities (OneClassSVM)
		}
	}
	withP := newEstimator()
	setProbability(t, withP, true)
	if !c.classification {
		if cl.Classes() != nil {
			t.Errorf("Classes of a regression fit = %v, want nil", cl.Classes())
		}
		if err := withP.Fit(ctx, c.x, c.y); !errors.Is(err, ErrInput) {
			t.Errorf("Fit of a regression with Probability: err = %v, want ErrInput", err)
		}
		return
	}
	if err := withP.Fit(ctx, c.x, c.y); err != nil {
		t.Fatalf("Fit with Probability: %v", err)
	}
	pc := withP.(Classifier)
	classes := pc.Classes()
	want := slices.Clone(c.y)
	slices.Sort(want)
	if want = slices.Compact(want); !slices.Equal(classes, want) {
		t.Errorf("Classes = %v, want %v", classes, want)
	}
	proba, err := pc.PredictProba(c.xTest)
	if err != nil {
		t.Fatalf("PredictProba: %v", err)
	}
	nt, _ := c.xTest.Dims()
	if r, k := proba.Dims(); r != nt || k != len(classes) {
		t.Fatalf("PredictProba is %d×%d, want %d×%d", r, k, nt, len(classes))
	}
	pred, err := withP.Predict(c.xTest)
	if err != nil {
		t.Fatal(err)
	}
	_, argmaxMust := withP.(*KRR)
	if _, ok := withP.(*Falkon); ok {
		argmaxMust = true
	}
	for i := range nt {
		row := proba.RawRowView(i)
		var sum float64
		for _, v := range row {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("row %d: probability %v", i, v)
			}
			sum += v
		}
		if math.Abs(sum-1) > 1e-12 {
			t.Errorf("row %d sums to %v", i, sum)
		}
		best := 0
		for j, v := range row {
			if v > row[best] {
				best = j
			}
		}
		if argmaxMust && row[slices.Index(classes, pred[i])] != row[best] {
			t.Errorf("row %d: Predict's label %v is not the most probable (%v)", i, pred[i], row)
		}
	}
	again := newEstimator()
	setProbability(t, again, true)
	if err := again.Fit(ctx, c.x, c.y); err != nil {
		t.Fatal(err)
	}
	if p2, err := again.(Classifier).PredictProba(c.xTest); err != nil || !mat.Equal(p2, proba) {
		t.Errorf("a second fit with Probability gives other probabilities (err %v)", err)
	}
	sub := mat.DenseCopyOf(c.xTest.Slice(3, 11, 0, c.xTest.RawMatrix().Cols))
	ps, err := pc.PredictProba(sub)
	if err != nil {
		t.Fatal(err)
	}
	// The decision values of a subset agree to 1e-12 relative (BLAS
	// grouping); a sigmoid or softmax moves them by at most its slope
	// (≤ β or |A|, below 1e3 here) times that.
	if !mat.EqualApprox(ps, proba.Slice(3, 11, 0, len(classes)), 1e-9) {
		t.Errorf("PredictProba of rows 3…10 differs from those rows of the full set")
	}
}

func conformanceMulti(t *testing.T, newEstimator func() Estimator, est MultiOutput, c conformanceCase, p1 []float64) {
	t.Helper()
	ctx := context.Background()
	if c.classification {
		if _, err := est.PredictMulti(c.xTest); !errors.Is(err, ErrInput) {
			t.Errorf("PredictMulti after a classification fit: err = %v, want ErrInput", err)
		}
		return
	}
	pm, err := est.PredictMulti(c.xTest)
	if err != nil {
		t.Fatal(err)
	}
	if _, k := pm.Dims(); k != 1 || !slices.Equal(mat.Col(nil, 0, pm), p1) {
		t.Errorf("PredictMulti after Fit: %d columns, first equal to Predict: %v", k, slices.Equal(mat.Col(nil, 0, pm), p1))
	}
	n := len(c.y)
	one := newEstimator().(MultiOutput)
	if err := one.FitMulti(ctx, c.x, mat.NewDense(n, 1, slices.Clone(c.y))); err != nil {
		t.Fatalf("FitMulti: %v", err)
	}
	if p, err := one.Predict(c.xTest); err != nil || !slices.Equal(p, p1) {
		t.Errorf("FitMulti on y as one column predicts differently from Fit (err %v)", err)
	}
	two := mat.NewDense(n, 2, nil)
	for i, v := range c.y {
		two.Set(i, 0, v)
		two.Set(i, 1, 2*v)
	}
	m2 := newEstimator().(MultiOutput)
	if err := m2.FitMulti(ctx, c.x, two); err != nil {
		t.Fatalf("FitMulti on two columns: %v", err)
	}
	pm2, err := m2.PredictMulti(c.xTest)
	if err != nil {
		t.Fatal(err)
	}
	if r, k := pm2.Dims(); r != len(p1) || k != 2 {
		t.Fatalf("PredictMulti is %d×%d, want %d×2", r, k, len(p1))
	}
	scale := 1.0
	for _, v := range p1 {
		scale = math.Max(scale, math.Abs(v))
	}
	for i, v := range p1 {
		if a, b := pm2.At(i, 0), pm2.At(i, 1); math.Abs(a-v) > 1e-9*scale || math.Abs(b-2*v) > 2e-9*scale {
			t.Fatalf("row %d: FitMulti([y, 2y]) predicts (%v, %v), want (%v, %v)", i, a, b, v, 2*v)
		}
	}
}

func conformanceConcurrent(t *testing.T, est Estimator, c conformanceCase) {
	t.Helper()
	// A regression-only estimator (SVR) has no DecisionFunction or Classes:
	// its Predict serves as both.
	cl, ok := est.(Classifier)
	if !ok {
		if c.classification {
			t.Fatalf("%T is not a Classifier", est)
		}
		cl = regressorScores{est}
	}
	p, err := est.Predict(c.xTest)
	if err != nil {
		t.Fatal(err)
	}
	d, err := cl.DecisionFunction(c.xTest)
	if err != nil {
		t.Fatal(err)
	}
	info, classes := infoOf(t, est), cl.Classes()
	var wg sync.WaitGroup
	errs := make([]string, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 3 {
				pg, err1 := est.Predict(c.xTest)
				dg, err2 := cl.DecisionFunction(c.xTest)
				if err1 != nil || err2 != nil || !slices.Equal(pg, p) || !mat.Equal(dg, d) {
					errs[g] = "Predict or DecisionFunction differ"
				}
				if !sameInfo(infoOf(t, est), info) || !slices.Equal(cl.Classes(), classes) {
					errs[g] = "Info or Classes differ"
				}
			}
		}()
	}
	wg.Wait()
	for g, e := range errs {
		if e != "" {
			t.Errorf("goroutine %d: %s from the serial results", g, e)
		}
	}
}

// Every method of this package that takes a context refuses a nil one with
// ErrInput naming it, never a panic: the backends' FitKRR and the feature
// mappers' FitMap, beside the estimators' Fit (conformanceRefusals).
func TestNilContextBackends(t *testing.T) {
	c := conformanceRegression(41)
	var nilCtx context.Context
	rng := rand.New(rand.NewPCG(1, 2))
	k := kernel.Gaussian{Gamma: 1}
	p := KRRProblem{Kernel: k, X: c.x, Y: mat.NewDense(len(c.y), 1, c.y), Lambda: 1e-3, Rng: rng}
	for name, b := range map[string]KRRApprox{
		"exact": ExactKRR{}, "nystrom": NystromKRR{M: 10}, "meka": &MEKAKRR{Options: meka.Options{Rank: 3, Clusters: 2}},
		"features": FeatureRidge{Features: RFFFeatures{RFF: approx.RFF{Features: 10}}},
	} {
		if _, _, err := b.FitKRR(nilCtx, p); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "nil context") {
			t.Errorf("%s FitKRR with a nil context: err = %v, want ErrInput naming it", name, err)
		}
	}
	for name, f := range map[string]FeatureMapper{
		"nystrom": NystromFeatures{M: 10}, "rff": RFFFeatures{RFF: approx.RFF{Features: 10}},
		"meka": MEKAFeatures{MEKA: MEKAKRR{Options: meka.Options{Rank: 3, Clusters: 2}}}, "fixed": FixedFeatures{},
	} {
		if _, err := f.FitMap(nilCtx, c.x, k, rng); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "nil context") {
			t.Errorf("%s FitMap with a nil context: err = %v, want ErrInput naming it", name, err)
		}
	}
	for name, e := range map[string]MultiOutput{"krr": &KRR{Lambda: 1e-3}, "falkon": &Falkon{Lambda: 1e-3}} {
		if err := e.FitMulti(nilCtx, c.x, mat.NewDense(len(c.y), 1, c.y)); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "nil context") {
			t.Errorf("%s FitMulti with a nil context: err = %v, want ErrInput naming it", name, err)
		}
	}
}

// regressorScores gives a regression-only Estimator the Classifier methods
// conformanceConcurrent calls: DecisionFunction is Predict as one column,
// Classes nil.
type regressorScores struct{ Estimator }

func (r regressorScores) Classes() []float64 { return nil }

func (r regressorScores) DecisionFunction(x mat.Matrix) (*mat.Dense, error) {
	p, err := r.Predict(x)
	if err != nil {
		return nil, err
	}
	return mat.NewDense(len(p), 1, p), nil
}

func (r regressorScores) PredictProba(mat.Matrix) (*mat.Dense, error) {
	return nil, ErrInput
}
