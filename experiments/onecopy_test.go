package experiments

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// writeRegressionCSV writes n rows of d features (a smooth target plus
// noise) to dir/name (CSV, or LIBSVM by the name) and returns the path.
func writeRegressionCSV(t *testing.T, dir, name string, n, d int, seed uint64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 9))
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range d {
			x.Set(i, j, 3*rng.NormFloat64()+float64(j))
		}
		y[i] = math.Sin(x.At(i, 0)) + 0.1*rng.NormFloat64()
	}
	p := filepath.Join(dir, name)
	if err := datasets.WriteFile(p, &datasets.Dataset{X: x, Y: y}, datasets.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	return p
}

// A falkon fit from YAML (standardize, with and without float32_storage)
// is the Go API's fit on the same rows bit for bit: FitWith scales its own
// rows in place; with float32_storage it reads the training file into
// float32 (datasets.ReadOptions.Float32) and standardizes those rows in
// place (statistics in float64 from the float32 values: Standardizer.Fit32,
// TransformInPlace32), which the Go fit below does by hand; without, the
// Go fit gets the standardized float64 rows (Transform's copy). The
// coefficients, the centers and the test predictions (float64 test rows,
// scaled with the fitted statistics) are compared by their bits. The Go
// fit takes the YAML estimator's Resources: the runner caps the fit at the
// memory limit less the data it holds beside it.
func TestFitFalkonYAMLEqualsGoAPI(t *testing.T) {
	dir := t.TempDir()
	trainPath := writeRegressionCSV(t, dir, "train.csv", 600, 5, 1)
	testPath := writeRegressionCSV(t, dir, "test.csv", 200, 5, 2)
	tr, err := datasets.ReadFile(trainPath, datasets.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	te, err := datasets.ReadFile(testPath, datasets.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var sc datasets.Standardizer
	if err := sc.Fit(tr.X); err != nil {
		t.Fatal(err)
	}
	xs, _ := sc.Transform(tr.X)
	xts, _ := sc.Transform(te.X)
	for _, f32 := range []bool{false, true} {
		y := fmt.Sprintf(`name: eq
dataset: {path: %s, test_path: %s, standardize: true}
task: regression
estimator: {type: falkon, kernel: {type: gaussian, gamma: 0.3}, lambda: 1e-4, m: 40, max_iter: 8, float32_storage: %v}
seed: 3
`, trainPath, testPath, f32)
		s, err := Decode(strings.NewReader(y), dir)
		if err != nil {
			t.Fatal(err)
		}
		res, err := FitWith(t.Context(), s, FitOptions{})
		if err != nil {
			t.Fatal(err)
		}
		yf := res.Estimator.(*model.Falkon)
		g := &model.Falkon{Kernel: kernel.Gaussian{Gamma: 0.3}, Lambda: 1e-4, M: 40, MaxIter: 8, Float32Storage: f32, Task: model.Regression,
			Seed: fitSeed(3, 1<<20, 0), Resources: yf.Resources}
		var xg mat.Matrix = xs
		xts := xts
		if f32 {
			tr32, err := datasets.ReadFile(trainPath, datasets.ReadOptions{Float32: true})
			if err != nil {
				t.Fatal(err)
			}
			var sc32 datasets.Standardizer
			if err := sc32.Fit32(tr32.X32); err != nil {
				t.Fatal(err)
			}
			if err := sc32.TransformInPlace32(tr32.X32); err != nil {
				t.Fatal(err)
			}
			xg = tr32.X32
			if xts, err = sc32.Transform(te.X); err != nil {
				t.Fatal(err)
			}
		}
		if err := g.Fit(t.Context(), xg, tr.Y); err != nil {
			t.Fatal(err)
		}
		a, b := yf.Solution(), g.Solution()
		if !bitsEqual(a.Coef.RawMatrix().Data, b.Coef.RawMatrix().Data) || !mat.Equal(a.Centers, b.Centers) {
			t.Fatalf("float32_storage %v: YAML and Go fits differ (coefficients or centers)", f32)
		}
		py, err := res.Predict(te.X)
		if err != nil {
			t.Fatal(err)
		}
		pg, err := g.Predict(xts)
		if err != nil {
			t.Fatal(err)
		}
		if !bitsEqual(py, pg) {
			t.Errorf("float32_storage %v: test predictions differ", f32)
		}
		// The run's own score of the test rows is that of these predictions.
		if m, ok := res.TestMetric("rmse"); !ok || math.Float64bits(m.Mean) != math.Float64bits(testRMSE(pg, te.Y)) {
			t.Errorf("float32_storage %v: test rmse %v, want %v", f32, m.Mean, testRMSE(pg, te.Y))
		}
	}
}

func bitsEqual(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

func testRMSE(p, y []float64) float64 {
	var s float64
	for i := range p {
		s += (p[i] - y[i]) * (p[i] - y[i])
	}
	return math.Sqrt(s / float64(len(p)))
}

// liveHeap is the heap's live bytes after two collections (the second
// empties the sync.Pools, which keep their contents through one).
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// An in-memory fit holds one copy of X (issue 25 item 6; lead's count of
// three). X here is 25,000 × 40 float64 = 8 MB read from CSV, split 80/20,
// standardized, fitted by falkon (M = 50: its own memory is a few hundred
// kB). The live heap after a collection, measured at the runner's stages
// (stageHook) and at the fit's first CG iteration, may grow from "loaded"
// (X as read) to "fit" by the test rows' copy (0.2 X; the training rows
// are moved up in place and standardized in place) and by less than X/8
// more in the fit; before this change it grew by a scaled copy of the
// training rows (0.8 X) at "fit". With float32_storage X is read into
// float32: at "loaded" the heap holds at least 0.4 X less than the float64
// read's (the float32 rows are 0.5 X smaller, less the difference of the
// CSV reader's growing arrays' slack; before, the rows were read into
// float64, as without float32_storage, and rounded beside them), at "fit"
// at most 0.15 X more (0.4 X float32 training rows copied
// out, the 0.2 X float64 test rows, where the 0.5 X array read was), and the
// fit makes no float32 copy of its own (before: 0.8 X scaled + 0.4 X
// float32 on top of X's 1.0).
func TestFitHoldsOneCopyOfX(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap of a 25,000-row fit")
	}
	dir := t.TempDir()
	const n, d = 25000, 40
	path := writeRegressionCSV(t, dir, "x.csv", n, d, 4)
	xBytes := int64(8 * n * d)
	var load64 int64
	for _, f32 := range []bool{false, true} {
		y := fmt.Sprintf(`name: onecopy
dataset: {path: %s, test_fraction: 0.2, standardize: true}
task: regression
estimator: {type: falkon, kernel: {type: gaussian, gamma: 0.05}, lambda: 1e-4, m: 50, max_iter: 2, float32_storage: %v}
`, path, f32)
		s, err := Decode(strings.NewReader(y), dir)
		if err != nil {
			t.Fatal(err)
		}
		live := map[string]int64{}
		stageHook = func(stage string) { live[stage] = liveHeap() }
		res, err := FitWith(t.Context(), s, FitOptions{Progress: func(e Event) {
			if _, ok := live["iteration"]; !ok && e.Kind == EventIteration {
				live["iteration"] = liveHeap()
			}
		}})
		stageHook = nil
		if err != nil {
			t.Fatal(err)
		}
		load, fit, iter := live["loaded"], live["fit"], live["iteration"]
		if !f32 {
			load64 = load
		}
		if want := map[bool]int64{false: xBytes, true: xBytes / 2}[f32]; load < want || fit == 0 || iter == 0 {
			t.Fatalf("stages %v: want X (%d bytes) live at loaded, and the fit's stages", live, want)
		}
		plan := res.Estimator.(*model.Falkon).Info().Plan
		t.Logf("float32_storage %v: live at loaded %d, fit %+d, first iteration %+d (X %d bytes; plan %+v)", f32, load, fit-load, iter-fit, xBytes, plan)
		// What the fit keeps live through its iterations (the engine's
		// scratch is pooled, and emptied by liveHeap's collections) is
		// its centers, K_MM and factors, ≈ 0.25 MB here: X/8 (1 MB) is
		// far from that and far below a float32 copy of the training
		// rows (0.4 X, 3.2 MB).
		if iter-fit > xBytes/8 {
			t.Errorf("float32_storage %v: the fit added %d bytes, its plan beside the data is %d (X is %d): a copy of X", f32, iter-fit, plan.Total-plan.Data, xBytes)
		}
		switch {
		case !f32 && fit-load > xBytes/5+xBytes/20:
			t.Errorf("float64: %d bytes more at the fit than as read (X %d): want only the test rows' copy (%d)", fit-load, xBytes, xBytes/5)
		case f32 && load > load64-xBytes*2/5:
			t.Errorf("float32_storage: %d bytes live as read, the float64 read %d (X %d): want float32 rows read, half the size", load, load64, xBytes)
		case f32 && fit-load > xBytes/10+xBytes/20:
			t.Errorf("float32_storage: %d bytes more at the fit than as read (X %d): want the training rows' float32 copy and the float64 test rows where the float32 array was (%d)", fit-load, xBytes, xBytes/10)
		}
	}
}

// The in-place split leaves the training rows as a view of the array read;
// the memory the runner reports holding (matrixBytes, taken off the fit's
// memory cap) counts the whole array, and float32 rows at 4 bytes a value.
func TestRowsInPlaceAndHeldBytes(t *testing.T) {
	x := mat.NewDense(5, 2, []float64{0, 1, 10, 11, 20, 21, 30, 31, 40, 41})
	y := []float64{0, 1, 2, 3, 4}
	xv, yv := rowsInPlace(x, y, []int{1, 3, 4})
	if !mat.Equal(xv, mat.NewDense(3, 2, []float64{10, 11, 30, 31, 40, 41})) || !slices.Equal(yv, []float64{1, 3, 4}) {
		t.Fatalf("rows 1, 3, 4: %v, %v", mat.Formatted(xv), yv)
	}
	if got := matrixBytes(xv); got != 8*10 {
		t.Errorf("matrixBytes of the 3-row view = %d, want the array's 80", got)
	}
	x32, _ := kernel.Dense32Of(xv)
	if got := matrixBytes(x32); got != 4*6 {
		t.Errorf("matrixBytes of 3×2 float32 = %d, want 24", got)
	}
	// Unsorted indices (never drawn by the runner) fall back to a copy.
	x2 := mat.NewDense(3, 1, []float64{0, 1, 2})
	if xc, _ := rowsInPlace(x2, []float64{0, 1, 2}, []int{2, 0}); !mat.Equal(xc, mat.NewDense(2, 1, []float64{2, 0})) || x2.At(0, 0) != 0 {
		t.Errorf("unsorted: %v, x now %v", mat.Formatted(xc), mat.Formatted(x2))
	}
}

// FitWith's float32_storage reads X into float32 within the cap that the
// float64 read exceeds: 100,000 × 10 values are 8 MB in float64, read
// through 8.4 MB of chunks and 1.0 MB of targets' chunks, a peak of 17.4
// MB over a 10 MB cap (the reader refuses them with model.ErrMemory), and
// 4 MB in float32, a read's peak of 9.2 MB (4.2 MB of chunks, the
// targets', X), beside which falkon then plans about 2.5 MB at M = 20 (its
// engine's scratch and block buffers). (Before, the float64 rows were read
// and the float32 copy made beside them.) Cross-validation (run) still
// reads float64 rows and makes each fold's float32 copy, so the same cap
// refuses it.
func TestFitFloat32ReadWithinCap(t *testing.T) {
	dir := t.TempDir()
	path := writeRegressionCSV(t, dir, "x.csv", 100000, 10, 8)
	spec := func(f32 bool, cv string) *Spec {
		s, err := Decode(strings.NewReader(fmt.Sprintf(`name: cap
dataset: {path: %s}
task: regression
estimator: {type: falkon, kernel: {type: gaussian, gamma: 0.1}, lambda: 1e-4, m: 20, max_iter: 3, float32_storage: %v, memory_limit: 10000000}
%s`, path, f32, cv)), dir)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if _, err := FitWith(t.Context(), spec(false, ""), FitOptions{}); !errors.Is(err, model.ErrMemory) {
		t.Errorf("float64: err = %v, want ErrMemory", err)
	}
	res, err := FitWith(t.Context(), spec(true, ""), FitOptions{})
	if err != nil {
		t.Fatalf("float32_storage: %v", err)
	}
	if res.NTrain != 100000 {
		t.Errorf("float32_storage: %d rows fitted", res.NTrain)
	}
	r, err := newRunner(spec(true, "cv: {folds: 2}\n"), Options{})
	if err != nil {
		t.Fatalf("cross-validation: %v", err)
	}
	if _, ok := r.x.(*kernel.Dense32); !ok {
		t.Errorf("cross-validation: X read as %T, want float32 rows", r.x)
	}
}

// In cross-validation a fold's training rows are the fit's own copy: with
// float32_storage and float64 rows (a bundled set, shards) they are handed
// to falkon as float32 rows (the float64
// ones dropped) and the fit is the one falkon makes rounding them itself,
// bit for bit: same coefficients, same validation scores. The second fit
// is given rows the runner holds (r.x; no scaling, so they reach the fit
// as they are), which it never converts.
func TestFoldFloat32RowsEqualFalkonRounding(t *testing.T) {
	dir := t.TempDir()
	path := writeRegressionCSV(t, dir, "x.csv", 9000, 6, 11)
	s, err := Decode(strings.NewReader(fmt.Sprintf(`name: folds
dataset: {path: %s}
task: regression
estimator: {type: falkon, kernel: {type: gaussian, gamma: 0.02}, lambda: 1e-4, m: 30, max_iter: 6, float32_storage: true}
cv: {folds: 3}
`, path)), dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := newRunner(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The rows as a bundled set or shards give them: float64 (a CSV
	// file is read into float32 for float32_storage).
	r.x = widened(r.x)
	fold := r.cv[0][0]
	xtr, ytr := rows(r.x, r.y, fold.Train)
	xva, yva := rows(r.x, r.y, fold.Test)
	p := s.Grid.Points()[0]
	a, err := r.fitScoreWith(t.Context(), p, xtr, ytr, xva, yva, fitOpts{seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	xtr2, _ := rows(r.x, r.y, fold.Train)
	r.x = xtr2 // rows the runner holds: passed as float64, rounded by falkon
	b, err := r.fitScoreWith(t.Context(), p, xtr2, ytr, xva, yva, fitOpts{seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	fa, fb := a.est.(*model.Falkon), b.est.(*model.Falkon)
	if !bitsEqual(fa.Solution().Coef.RawMatrix().Data, fb.Solution().Coef.RawMatrix().Data) || !bitsEqual(a.scores, b.scores) {
		t.Errorf("fold fit on float32 rows differs from falkon's own rounding: scores %v vs %v", a.scores, b.scores)
	}
	// The first fit got float32 rows: its plan's data is the float32 rows
	// (4 bytes a value), the second's also counts the caller's float64
	// rows beside falkon's float32 copy (8 more).
	n, d := xtr.Dims()
	if da, db := fa.Info().Plan.Data, fb.Info().Plan.Data; db-da != 8*int64(n*d) {
		t.Errorf("plan data %d (fold) and %d (held rows): want the float64 rows' %d bytes apart", da, db, 8*n*d)
	}
}

// A CV fold's rows are the fit's own copies: a dense scaling is applied to
// them in place (owned), with the fit and the validation scores those of
// the scaled copies scaleFeatures makes, bit for bit, for each dense
// scaling.
func TestFoldScaledInPlace(t *testing.T) {
	dir := t.TempDir()
	path := writeRegressionCSV(t, dir, "x.csv", 400, 4, 12)
	for _, scale := range []string{"standardize", "minmax", "maxabs", "std"} {
		s, err := Decode(strings.NewReader(fmt.Sprintf(`name: folds
dataset: {path: %s, scale: %s}
task: regression
estimator: {type: falkon, kernel: {type: gaussian, gamma: 0.2}, lambda: 1e-4, m: 30, max_iter: 6}
cv: {folds: 3}
`, path, scale)), dir)
		if err != nil {
			t.Fatal(err)
		}
		r, err := newRunner(s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		fold, p := r.cv[0][1], s.Grid.Points()[0]
		var fits []fitScores
		for _, owned := range []bool{false, true} {
			xtr, ytr := rows(r.x, r.y, fold.Train)
			xva, yva := rows(r.x, r.y, fold.Test)
			before := mat.DenseCopyOf(xtr.(*mat.Dense))
			fs, err := r.fitScoreWith(t.Context(), p, xtr, ytr, xva, yva, fitOpts{seed: 5, owned: owned})
			if err != nil {
				t.Fatal(err)
			}
			if changed := !mat.Equal(before, xtr); changed != owned {
				t.Errorf("%s: owned %v, the fold's rows changed: %v", scale, owned, changed)
			}
			fits = append(fits, fs)
		}
		a, b := fits[0].est.(*model.Falkon), fits[1].est.(*model.Falkon)
		if !bitsEqual(a.Solution().Coef.RawMatrix().Data, b.Solution().Coef.RawMatrix().Data) || !bitsEqual(fits[0].scores, fits[1].scores) {
			t.Errorf("%s: in place %v, copies %v", scale, fits[1].scores, fits[0].scores)
		}
	}
}

// Falkon's plan counts the rows it fits on (FalkonPlan.Data), so the
// runner takes off its cap only what it holds beside them. 600 rows × 5
// read from a LIBSVM file (dense: 24,000 bytes, an array of exactly that
// size; a CSV read's array has the slack of its growth, which the runner
// counts too), test_fraction 0.2: the fit gets the first
// 480 rows of the array read (19,200 bytes, counted by its plan); beside
// them the runner holds the rest of that array (4,800) and the 120 test
// rows' copy (4,800): the estimator's MemoryLimit is the cap less 9,600.
func TestFalkonCapCountsRowsOnce(t *testing.T) {
	dir := t.TempDir()
	path := writeRegressionCSV(t, dir, "x.libsvm", 600, 5, 13)
	s, err := Decode(strings.NewReader(fmt.Sprintf(`name: cap
dataset: {path: %s, test_fraction: 0.2}
task: regression
estimator: {type: falkon, kernel: {type: gaussian, gamma: 0.1}, lambda: 1e-4, m: 20, max_iter: 3, memory_limit: 50000000}
`, path)), dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := FitWith(t.Context(), s, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	f := res.Estimator.(*model.Falkon)
	if f.MemoryLimit != 50000000-9600 || f.Info().Plan.Data < 19200 {
		t.Errorf("MemoryLimit %d, plan data %d: want 50,000,000 − 9,600 beside rows the plan counts (19,200)", f.MemoryLimit, f.Info().Plan.Data)
	}
}
