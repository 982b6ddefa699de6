package experiments

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/model"
)

// writeSparseSet writes a binary classification LIBSVM file of n rows over
// d columns with nnz non-zeros a row (density nnz/d) and returns its folder.
func writeSparseSet(t *testing.T, n, d, nnz int) string {
	t.Helper()
	x, y, err := datasets.SparseRegression(n, d, nnz, rand.New(rand.NewPCG(4, 5)))
	if err != nil {
		t.Fatal(err)
	}
	for i := range y {
		y[i] = math.Copysign(1, y[i])
	}
	dir := t.TempDir()
	if err := datasets.WriteLIBSVMSparseFile(filepath.Join(dir, "data.svm"), x, y); err != nil {
		t.Fatal(err)
	}
	return dir
}

const sparseSpec = `name: sparse
dataset: {path: data.svm, test_fraction: 0.25STORAGE}
task: binary
estimator:
  type: svm
  kernel: {type: gaussian, gamma: 0.05}
  tol: 1.0e-11
grid:
  c: [2]
cv: {folds: 2}
seed: 3
`

// TestStorageAutoSparse: a LIBSVM file of density 0.05 < SparseDensity is
// held sparse by default and dense with storage: dense; the two fits (SVM
// solved to 1e-11, so both reach the optimum) predict the same labels and
// the same decision values to 1e-10 (the tolerance).
func TestStorageAutoSparse(t *testing.T) {
	dir := writeSparseSet(t, 200, 100, 5)
	fits := map[string]*FitResult{}
	for _, st := range []string{"", ", storage: dense", ", storage: sparse"} {
		res, err := Fit(context.Background(), decodeIn(t, strings.Replace(sparseSpec, "STORAGE", st, 1), dir))
		if err != nil {
			t.Fatal(err)
		}
		fits[st] = res
	}
	if r := fits[""]; r.Storage != StorageSparse || !strings.Contains(r.StorageReason, "density 0.05 < 0.1") || math.Abs(r.Density-0.05) > 1e-12 {
		t.Fatalf("auto: storage %q (%s), density %v", r.Storage, r.StorageReason, r.Density)
	}
	if r := fits[", storage: dense"]; r.Storage != StorageDense || r.StorageReason != "" {
		t.Fatalf("dense: storage %q (%s)", r.Storage, r.StorageReason)
	}
	if r := fits[", storage: sparse"]; r.Storage != StorageSparse || r.StorageReason != "" {
		t.Fatalf("sparse: storage %q (%s)", r.Storage, r.StorageReason)
	}
	xs, _, err := datasets.ReadLIBSVMSparseFile(context.Background(), filepath.Join(dir, "data.svm"), 0)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := fits[""].Estimator.(*model.SVM).DecisionFunction(xs)
	b, _ := fits[", storage: dense"].Estimator.(*model.SVM).DecisionFunction(xs.ToDense())
	for i := 0; i < 200; i++ {
		if d := math.Abs(a.At(i, 0) - b.At(i, 0)); d > 1e-10 {
			t.Fatalf("row %d: sparse fit %v, dense fit %v", i, a.At(i, 0), b.At(i, 0))
		}
	}
	if fits[""].Test[0].Mean != fits[", storage: dense"].Test[0].Mean {
		t.Fatalf("test scores differ: %v vs %v", fits[""].Test, fits[", storage: dense"].Test)
	}
}

// TestStorageAutoSparseNoExtension: a LIBSVM file named as the LIBSVM site
// names them (no extension, here "a9a") is recognised by its content and held
// sparse as data.svm is.
func TestStorageAutoSparseNoExtension(t *testing.T) {
	dir := writeSparseSet(t, 200, 100, 5)
	if err := os.Rename(filepath.Join(dir, "data.svm"), filepath.Join(dir, "a9a")); err != nil {
		t.Fatal(err)
	}
	spec := strings.Replace(strings.Replace(sparseSpec, "STORAGE", "", 1), "data.svm", "a9a", 1)
	res, err := Fit(context.Background(), decodeIn(t, spec, dir))
	if err != nil {
		t.Fatal(err)
	}
	if res.Storage != StorageSparse || !strings.Contains(res.StorageReason, "density 0.05 < 0.1") {
		t.Fatalf("storage %q (%s), want sparse by density", res.Storage, res.StorageReason)
	}
}

// TestStorageAutoDense: at density 0.5 ≥ SparseDensity, or with a scaling
// that moves zeros, auto holds X dense and says why; unknown storages and
// sparse with minmax are spec errors naming the key.
func TestStorageAutoDense(t *testing.T) {
	dir := writeSparseSet(t, 60, 10, 5)
	res, err := Fit(context.Background(), decodeIn(t, strings.Replace(sparseSpec, "STORAGE", "", 1), dir))
	if err != nil {
		t.Fatal(err)
	}
	if res.Storage != StorageDense || !strings.Contains(res.StorageReason, "density 0.5 ≥ 0.1") {
		t.Fatalf("storage %q (%s)", res.Storage, res.StorageReason)
	}
	res, err = Fit(context.Background(), decodeIn(t, strings.Replace(sparseSpec, "STORAGE", ", scale: minmax", 1), dir))
	if err != nil {
		t.Fatal(err)
	}
	if res.Storage != StorageDense || !strings.Contains(res.StorageReason, "scale minmax") {
		t.Fatalf("storage %q (%s)", res.Storage, res.StorageReason)
	}
	for st, want := range map[string]string{
		", storage: spares":                `unknown storage "spares" (did you mean "sparse"?`,
		", storage: sparse, scale: minmax": "storage sparse cannot be combined with scale minmax",
	} {
		_, err := Decode(strings.NewReader(strings.Replace(sparseSpec, "STORAGE", st, 1)), dir)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "line 2") {
			t.Errorf("%s: %v, want %q at line 2", st, err, want)
		}
	}
}
