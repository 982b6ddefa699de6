package experiments

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// writeIntegerData writes n rows of d integer features (as covtype's and
// MNIST's: values float32 holds exactly; a third of them zero, so that a
// LIBSVM file is sparse text but dense by the storage rule) and a binary
// label to dir/name, and returns the path.
func writeIntegerData(t *testing.T, dir, name string, n, d int, seed uint64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		s := 0.0
		for j := range d {
			if rng.IntN(3) > 0 {
				x.Set(i, j, float64(rng.IntN(2000)-1000+50*j))
			}
			s += x.At(i, j)
		}
		y[i] = float64(int(s) & 1)
	}
	p := filepath.Join(dir, name)
	if err := datasets.WriteFile(p, &datasets.Dataset{X: x, Y: y}, datasets.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	return p
}

// fitOwnedRows runs FitWith's runner on spec text y (float32_storage
// substituted for %v) up to the end of fitOwned, and returns the runner
// (r.x: the training rows the fit got, scaled; r.xTest the test rows),
// the fit and the rows' type as loaded.
func fitOwnedRows(t *testing.T, dir, y string, f32 bool) (*runner, *model.Falkon, mat.Matrix) {
	t.Helper()
	s, err := Decode(strings.NewReader(fmt.Sprintf(y, f32)), dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := newRunnerMode(context.Background(), s, Options{}, runMode{fit: true})
	if err != nil {
		t.Fatal(err)
	}
	loaded := r.x
	fs, _, err := r.fitOwned(t.Context(), s.Grid.Points()[0], fitSeed(s.Seed, 1<<20, 0))
	if err != nil {
		t.Fatal(err)
	}
	return r, fs.est.(*model.Falkon), loaded
}

// FitWith's float32_storage reads dense X straight into float32: the rows
// are a *kernel.Dense32 as loaded (no float64 X made), and after the split
// and the scaling in place they are float32 of the float64 path's rows,
// exactly, for data float32 holds exactly (integers, as covtype and
// MNIST): the scaling statistics are then those of the float64 values bit
// for bit (datasets.Standardizer.Fit32). The test rows are float64 and
// equal the float64 path's (float64 of float32 of them for other data); the fit is the one model.Falkon makes with
// Float32Storage from the float64 path's rows (which it rounds itself),
// bit for bit — the result FitWith gave before it read float32. Three
// routes: CSV and standardize (the CSV reader), LIBSVM and standardize
// (the dense LIBSVM reader, covtype's route), LIBSVM with maxabs and a test
// file (read as CSR, dense by density, then rounded row by row: MNIST's
// route); and a CSV of decimals without scaling, whose float32 rows are
// float32 of the float64 rows exactly too (one rounding of each value).
func TestFitFloat32ReadEqualsRoundedFloat64(t *testing.T) {
	dir := t.TempDir()
	csvInt := writeIntegerData(t, dir, "int.csv", 500, 6, 1)
	svmInt := writeIntegerData(t, dir, "int.libsvm", 500, 6, 2)
	svmTest := writeIntegerData(t, dir, "int.t", 120, 6, 3)
	csvDec := writeRegressionCSV(t, dir, "dec.csv", 300, 4, 4)
	est := "estimator: {type: falkon, kernel: {type: gaussian, gamma: 1e-6}, lambda: 1e-4, m: 30, max_iter: 5, float32_storage: %v}\nseed: 7\n"
	for _, c := range []struct {
		name, data, task string
		exact            bool
	}{
		{"csv standardize", "dataset: {path: " + csvInt + ", test_fraction: 0.2, standardize: true}\n", "binary", true},
		{"libsvm standardize", "dataset: {path: " + svmInt + ", test_fraction: 0.25, standardize: true}\n", "binary", true},
		{"libsvm maxabs", "dataset: {path: " + svmInt + ", test_path: " + svmTest + ", scale: maxabs}\n", "binary", true},
		{"csv decimals", "dataset: {path: " + csvDec + ", test_fraction: 0.2}\n", "regression", false},
	} {
		y := "name: f32\n" + c.data + "task: " + c.task + "\n" + est
		r64, f64, _ := fitOwnedRows(t, dir, y, false)
		r32, f32, loaded := fitOwnedRows(t, dir, y, true)
		if _, ok := loaded.(*kernel.Dense32); !ok {
			t.Fatalf("%s: X loaded as %T, want float32 rows", c.name, loaded)
		}
		x64, x32 := r64.x.(*mat.Dense), r32.x.(*kernel.Dense32)
		n, d := x64.Dims()
		if n32, d32 := x32.Dims(); n32 != n || d32 != d || !bitsEqual(r32.y, r64.y) {
			t.Fatalf("%s: %d×%d float32 rows, %d×%d float64, or other labels", c.name, n32, d32, n, d)
		}
		for i := range n {
			for j, v := range x32.RawRow(i) {
				if w := x64.At(i, j); math.Float32bits(v) != math.Float32bits(float32(w)) {
					t.Fatalf("%s: row %d col %d: %v, want float32(%v)", c.name, i, j, v, w)
				}
			}
		}
		// The test rows (scaled in float64) are the float64 path's when
		// float32 holds the values read; the unscaled rows split off the
		// float32 rows read are those values in float64.
		t64, t32 := r64.xTest.(*mat.Dense), r32.xTest.(*mat.Dense)
		want := t64.RawMatrix().Data
		if !c.exact {
			want = nil
			for _, v := range t64.RawMatrix().Data {
				want = append(want, float64(float32(v)))
			}
		}
		if !bitsEqual(t32.RawMatrix().Data, want) {
			t.Errorf("%s: test rows differ", c.name)
		}
		if !c.exact {
			continue
		}
		g := &model.Falkon{Kernel: kernel.Gaussian{Gamma: 1e-6}, Lambda: 1e-4, M: 30, MaxIter: 5, Float32Storage: true, Task: model.Classification,
			Seed: fitSeed(7, 1<<20, 0), Resources: f32.Resources}
		if err := g.Fit(t.Context(), x64, r64.y); err != nil {
			t.Fatal(err)
		}
		if !bitsEqual(f32.Solution().Coef.RawMatrix().Data, g.Solution().Coef.RawMatrix().Data) {
			t.Errorf("%s: the fit on float32 rows read differs from Float32Storage's own rounding", c.name)
		}
		if bitsEqual(f32.Solution().Coef.RawMatrix().Data, f64.Solution().Coef.RawMatrix().Data) {
			t.Errorf("%s: float32 and float64 fits equal: the comparison tells nothing", c.name)
		}
	}
}

// A finite value beyond float32's range in a file fitted with
// float32_storage is an error naming the file and its line (a spec error
// on dataset.path, as every malformed line), through each
// reader route (CSV; dense LIBSVM for standardize; LIBSVM read as CSR and
// made dense); the float64 fit reads the same file (it fails later, or
// not, on the value itself, not at the read).
func TestFitFloat32OverflowNamesLine(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "big.csv")
	svmPath := filepath.Join(dir, "big.libsvm")
	var csv, svm strings.Builder
	csv.WriteString("a,b,y\n")
	for i := range 40 {
		v := fmt.Sprint(i)
		if i == 30 {
			v = "1e39"
		}
		fmt.Fprintf(&csv, "%d,%s,%d\n", i%7, v, i%2)
		fmt.Fprintf(&svm, "%d 1:%d 2:%s\n", i%2, i%7+1, v)
	}
	for p, text := range map[string]string{csvPath: csv.String(), svmPath: svm.String()} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		path, scale string
		line        int
	}{{csvPath, "standardize", 32}, {svmPath, "standardize", 31}, {svmPath, "maxabs", 31}} {
		y := fmt.Sprintf("name: big\ndataset: {path: %s, scale: %s}\ntask: binary\nestimator: {type: falkon, kernel: {type: gaussian, gamma: 0.1}, lambda: 1e-4, m: 5, max_iter: 2, float32_storage: true}\n", c.path, c.scale)
		s, err := Decode(strings.NewReader(y), dir)
		if err != nil {
			t.Fatal(err)
		}
		_, err = FitWith(t.Context(), s, FitOptions{})
		want := fmt.Sprintf("%s: line %d:", c.path, c.line)
		if !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `"1e39" is beyond float32's range`) {
			t.Errorf("%s %s: err = %v, want %q and 1e39 beyond float32's range", c.path, c.scale, err, want)
		}
		s.Estimator.Options["float32_storage"] = false
		if _, err := newRunnerMode(context.Background(), s, Options{}, runMode{fit: true}); err != nil {
			t.Errorf("%s %s: the float64 read failed: %v", c.path, c.scale, err)
		}
	}
}

// Cross-validation and the refit with float32_storage on float32 rows read
// (each fold's training rows a float32 copy scaled in place, the
// validation and test rows float64) score, on integer data, exactly as on
// float64 rows read, where each fold's scaled float64 rows are rounded to
// float32 (the path before float32 reads, still that of bundled sets and
// shards): same fold scores and coefficients, same refit test scores, bit
// for bit, with standardize (the in-place fold scaling) and without (the
// refit's rows taken as they are).
func TestRunFloat32ReadEqualsFloat64Read(t *testing.T) {
	dir := t.TempDir()
	path := writeIntegerData(t, dir, "int.csv", 600, 5, 9)
	for _, scale := range []string{"standardize", ""} {
		y := fmt.Sprintf(`name: cv32
dataset: {path: %s, test_fraction: 0.2, scale: %q}
task: binary
estimator: {type: falkon, kernel: {type: gaussian, gamma: 1e-6}, lambda: 1e-4, m: 25, max_iter: 5, float32_storage: true}
cv: {folds: 3}
seed: 4
`, path, scale)
		var rs [2]*runner
		for k := range rs {
			s, err := Decode(strings.NewReader(y), dir)
			if err != nil {
				t.Fatal(err)
			}
			if rs[k], err = newRunner(s, Options{}); err != nil {
				t.Fatal(err)
			}
		}
		if _, ok := rs[0].x.(*kernel.Dense32); !ok {
			t.Fatalf("%q: X read as %T, want float32 rows", scale, rs[0].x)
		}
		rs[1].x = widened(rs[1].x) // as float64 rows read
		p := rs[0].s.Grid.Points()[0]
		for f := range rs[0].cv[0] {
			var frs [2]FoldResult
			var ests [2]model.Estimator
			for k, r := range rs {
				var err error
				if frs[k], ests[k], err = r.evalFold(t.Context(), 0, 1, p, 0, f, nil); err != nil || frs[k].Error != "" {
					t.Fatalf("%q fold %d: %v %s", scale, f, err, frs[k].Error)
				}
			}
			a, b := ests[0].(*model.Falkon).Solution().Coef.RawMatrix().Data, ests[1].(*model.Falkon).Solution().Coef.RawMatrix().Data
			if !bitsEqual(a, b) || fmt.Sprint(frs[0].Scores) != fmt.Sprint(frs[1].Scores) {
				t.Errorf("%q fold %d: scores %v, float64 rows read %v", scale, f, frs[0].Scores, frs[1].Scores)
			}
		}
		var trs [2]*TestResult
		for k, r := range rs {
			var err error
			if trs[k], err = r.test(t.Context(), p, []Point{p}); err != nil {
				t.Fatal(err)
			}
		}
		if fmt.Sprint(trs[0].Metrics) != fmt.Sprint(trs[1].Metrics) {
			t.Errorf("%q refit: test scores %v, float64 rows read %v", scale, trs[0].Metrics, trs[1].Metrics)
		}
	}
}

// A training set given as shards is read into float32 with
// float32_storage, shard by shard (the float64 X never whole): the rows
// are float32 of the float64 rows exactly, and a finite value beyond
// float32's range is an error naming its shard, its row there and in X,
// and its column.
func TestFitFloat32Shards(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 7))
	const n, d = 300, 4
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range d {
			x.Set(i, j, rng.NormFloat64()/3)
		}
		y[i] = x.At(i, 0) + 0.1*rng.NormFloat64()
	}
	spec := func(dir string) *Spec {
		if _, err := shard.WriteDir(dir, x, y, 70, false); err != nil {
			t.Fatal(err)
		}
		s, err := Decode(strings.NewReader(fmt.Sprintf(`name: sh
dataset: {path: %s}
task: regression
estimator: {type: falkon, kernel: {type: gaussian, gamma: 0.5}, lambda: 1e-4, m: 20, max_iter: 3, float32_storage: true}
`, filepath.Join(dir, shard.ManifestName))), dir)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	r, err := newRunnerMode(context.Background(), spec(t.TempDir()), Options{}, runMode{fit: true})
	if err != nil {
		t.Fatal(err)
	}
	x32, ok := r.x.(*kernel.Dense32)
	if !ok {
		t.Fatalf("X read as %T, want float32 rows", r.x)
	}
	for i := range n {
		for j, v := range x32.RawRow(i) {
			if math.Float32bits(v) != math.Float32bits(float32(x.At(i, j))) || r.y[i] != y[i] {
				t.Fatalf("row %d col %d: %v, want float32(%v)", i, j, v, x.At(i, j))
			}
		}
	}
	x.Set(250, 2, 1e39) // shard 3 holds rows 210–279
	_, err = FitWith(t.Context(), spec(t.TempDir()), FitOptions{})
	if err == nil || !strings.Contains(err.Error(), "shard-00003.lmks: row 40 (row 250 of X), column 2: value beyond float32's range: 1e+39") {
		t.Errorf("err = %v, want the shard, row 40 (250 of X), column 2 beyond float32's range", err)
	}
}
