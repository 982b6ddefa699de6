package model

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/landmark-ml/landmark/approx/meka"
	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// sparseClassification draws n sparse points in d dimensions, each
// coordinate non-zero with probability density (standard normal values);
// every 17th row is empty (the zero vector, valid input). Labels are three
// classes from the sign pattern of two fixed sparse directions, so the
// classes overlap and the SVMs have bounded and free support vectors.
func sparseClassification(rng *rand.Rand, n, d int, density float64) (*datasets.CSR, []float64) {
	indptr := []int{0}
	var indices []int32
	var values []float64
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		var a, b float64
		for j := 0; j < d && i%17 != 0; j++ {
			if rng.Float64() < density {
				v := rng.NormFloat64()
				indices = append(indices, int32(j))
				values = append(values, v)
				if j%3 == 0 {
					a += v
				}
				if j%5 == 1 {
					b += v
				}
			}
		}
		indptr = append(indptr, len(values))
		switch {
		case a > 0.3:
			y[i] = 1
		case b > 0:
			y[i] = 2
		default:
			y[i] = 3
		}
	}
	x, err := datasets.NewCSR(n, d, indptr, indices, values)
	if err != nil {
		panic(err)
	}
	return x, y
}

// csrOf returns the CSR form of a dense matrix (its non-zeros).
func csrOf(t testing.TB, x *mat.Dense) *datasets.CSR {
	n, d := x.Dims()
	indptr := []int{0}
	var indices []int32
	var values []float64
	for i := 0; i < n; i++ {
		for j, v := range x.RawRowView(i) {
			if v != 0 {
				indices = append(indices, int32(j))
				values = append(values, v)
			}
		}
		indptr = append(indptr, len(values))
	}
	c, err := datasets.NewCSR(n, d, indptr, indices, values)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// maxAbsDiff returns max |a−b| over two equally shaped matrices.
func maxAbsDiff(a, b *mat.Dense) float64 {
	var m float64
	ra, rb := a.RawMatrix(), b.RawMatrix()
	for i := 0; i < ra.Rows; i++ {
		for j := 0; j < ra.Cols; j++ {
			m = math.Max(m, math.Abs(ra.Data[i*ra.Stride+j]-rb.Data[i*rb.Stride+j]))
		}
	}
	return m
}

// decisionsAgree fits two copies of est, one on the sparse and one on the
// dense form of the same data, and checks that their decision values on the
// test set, given sparse and dense, agree to tol, as do the same after a
// save/load round trip; and that each saved file keeps its fit's support
// vectors in their format (sparse rows for the sparse fit), so a loaded
// model's decision values are bit-identical to its fit's.
func svmSparseDense(t *testing.T, mk func() *SVM, xs *datasets.CSR, y []float64, ts *datasets.CSR, tol float64) {
	t.Helper()
	ctx := context.Background()
	xd, td := xs.ToDense(), ts.ToDense()
	sp, de := mk(), mk()
	if err := sp.Fit(ctx, xs, y); err != nil {
		t.Fatal(err)
	}
	if err := de.Fit(ctx, xd, y); err != nil {
		t.Fatal(err)
	}
	if _, ok := sp.fit.dec.sv.(kernel.Sparse); !ok && !sp.fit.dec.empty {
		t.Fatal("a sparse fit should keep sparse support vectors")
	}
	is := sp.Info()
	id := de.Info()
	if is.SV != id.SV {
		t.Fatalf("support vectors: sparse %d, dense %d", is.SV, id.SV)
	}
	for k := range is.Tasks {
		if is.Tasks[k].SV != id.Tasks[k].SV || math.Abs(is.Tasks[k].Objective-id.Tasks[k].Objective) > 1e-9*math.Abs(id.Tasks[k].Objective) {
			t.Fatalf("task %d: sparse %+v, dense %+v", k, is.Tasks[k], id.Tasks[k])
		}
	}
	want, err := de.DecisionFunction(td)
	if err != nil {
		t.Fatal(err)
	}
	var bufs [2]bytes.Buffer
	for i, m := range []*SVM{sp, de} {
		if err := Save(&bufs[i], m); err != nil {
			t.Fatal(err)
		}
	}
	models := []*SVM{sp, de}
	for i := range bufs {
		l, err := Load(bytes.NewReader(bufs[i].Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		ls := l.(*SVM)
		if _, isSparse := ls.fit.dec.sv.(kernel.Sparse); isSparse != (i == 0) {
			t.Fatalf("loaded %s fit has support vectors %T", [2]string{"sparse", "dense"}[i], ls.fit.dec.sv)
		}
		for _, x := range []mat.Matrix{ts, td} {
			a, err1 := models[i].DecisionFunction(x)
			b, err2 := ls.DecisionFunction(x)
			if err1 != nil || err2 != nil || !sameBits(a.RawMatrix().Data, b.RawMatrix().Data) {
				t.Fatalf("loaded %s fit on %T: decision values not bit-identical to the fit's (%v, %v)", [2]string{"sparse", "dense"}[i], x, err1, err2)
			}
		}
		models = append(models, ls)
	}
	t.Logf("saved: sparse fit %d bytes, dense fit %d", bufs[0].Len(), bufs[1].Len())
	var worst float64
	for mi, m := range models {
		for _, x := range []mat.Matrix{ts, td} {
			got, err := m.DecisionFunction(x)
			if err != nil {
				t.Fatal(err)
			}
			d := maxAbsDiff(got, want)
			if d > tol {
				t.Fatalf("model %d (sparse fit, dense fit, loaded sparse, loaded dense) on %T: decision values differ by %g", mi, x, d)
			}
			worst = math.Max(worst, d)
		}
	}
	t.Logf("max |sparse − dense| decision value: %.3g", worst)
}

// TestSVMSparseMatchesDense: the tolerance 1e-10 on decision values.
// The two fits see kernel values that differ in the last bits (merge vs
// matrix-vector product). At the default tolerance 1e-3 that is enough to
// send SMO down a different path (seen: 613 against 604 iterations, both
// stopping somewhere within 1e-3 of optimal), so the fits here are solved to
// Tol = 1e-11, where both are the optimum and agree to round-off.
func TestSVMSparseMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	x, y := sparseClassification(rng, 300, 60, 0.1)
	xt, _ := sparseClassification(rng, 80, 60, 0.1)
	for _, tc := range []struct {
		name string
		mk   func() *SVM
	}{
		{"gaussian-ovo", func() *SVM { return &SVM{C: 4, Kernel: kernel.Gaussian{Gamma: 0.1}, Tol: 1e-11} }},
		{"laplacian-ovr-noshrink", func() *SVM {
			return &SVM{C: 2, Kernel: kernel.Laplacian{Gamma: 0.1}, Tol: 1e-11, Multiclass: OneVsRest, NoShrinking: true}
		}},
		{"poly-nobias-smallcache", func() *SVM {
			return &SVM{C: 1, Kernel: kernel.Polynomial{Degree: 2, Gamma: 0.2, Coef0: 1}, Tol: 1e-11, NoBias: true, CacheBytes: 4096}
		}},
		{"linear", func() *SVM { return &SVM{C: 0.5, Kernel: kernel.Linear{}, Tol: 1e-11} }},
		{"sigmoid", func() *SVM { return &SVM{C: 2, Kernel: kernel.Sigmoid{Gamma: 0.1, Coef0: -0.5}, Tol: 1e-11} }},
	} {
		t.Run(tc.name, func(t *testing.T) { svmSparseDense(t, tc.mk, x, y, xt, 1e-10) })
	}
}

// TestSVMSparseSatimage: the same on a satimage subset (600 training, 200
// test rows, features scaled to [−1, 1], 6 classes, C = 4, γ = 1, Tol 1e-11;
// the values are dense but given as CSR of their non-zeros).
func TestSVMSparseSatimage(t *testing.T) {
	tr, te := readSatimage(t)
	xs := csrOf(t, mat.DenseCopyOf(tr.X.Slice(0, 600, 0, tr.Dim())))
	ts := csrOf(t, mat.DenseCopyOf(te.X.Slice(0, 200, 0, te.Dim())))
	svmSparseDense(t, func() *SVM { return &SVM{C: 4, Kernel: kernel.Gaussian{Gamma: 1}, Tol: 1e-11} }, xs, tr.Y[:600], ts, 1e-10)
}

// TestSparseColumnsMulVec compares the sparse kernel columns' block product
// (used by the solver's gradient reconstruction) with the dense one.
func TestSparseColumnsMulVec(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	x, _ := sparseClassification(rng, 90, 30, 0.2)
	rows, cols := []int{3, 0, 17, 40, 89}, []int{1, 2, 34, 35, 88, 60}
	v := []float64{1, -2, 0.5, 3, -1, 0.25}
	for _, k := range []kernel.Kernel{kernel.Gaussian{Gamma: 0.2}, kernel.Laplacian{Gamma: 0.2}} {
		want, got := make([]float64, len(rows)), make([]float64, len(rows))
		if err := newKernelColumns(k, x.ToDense(), 1).MulVec(context.Background(), rows, cols, v, want); err != nil {
			t.Fatal(err)
		}
		if err := newKernelColumns(k, x, 3).MulVec(context.Background(), rows, cols, v, got); err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-12 {
				t.Fatalf("%v row %d: sparse %v dense %v", k, i, got[i], want[i])
			}
		}
	}
}

// badSparse is a kernel.Sparse whose arrays are not checked on construction.
type badSparse struct {
	mat.Matrix
	indptr  []int
	indices []int32
	values  []float64
}

func (b badSparse) CSR() ([]int, []int32, []float64) { return b.indptr, b.indices, b.values }

// TestSVMSparseBadInput: a non-zero beyond the training dimension and a
// repeated index are errors; fewer declared columns (a test file whose last
// columns are all zero) and empty rows are fine.
func TestSVMSparseBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	x, y := sparseClassification(rng, 120, 20, 0.2)
	s := &SVM{C: 1, Kernel: kernel.Gaussian{Gamma: 0.2}}
	if err := s.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	// A non-zero beyond the training dimension is accepted (a coordinate
	// where every training row is zero; TestBeyondTrainingDimension checks
	// the values).
	wide, _ := datasets.NewCSR(2, 25, []int{0, 1, 2}, []int32{3, 21}, []float64{1, 1})
	if _, err := s.Predict(wide); err != nil {
		t.Fatalf("non-zero at column 21 of a 20-column model: %v", err)
	}
	wideOK, _ := datasets.NewCSR(2, 25, []int{0, 1, 1}, []int32{3}, []float64{1})
	narrow, _ := datasets.NewCSR(2, 5, []int{0, 1, 1}, []int32{3}, []float64{1})
	a, err := s.Predict(wideOK)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Predict(narrow)
	if err != nil {
		t.Fatal(err)
	}
	dense := mat.NewDense(2, 20, nil)
	dense.Set(0, 3, 1)
	c, _ := s.Predict(dense)
	for i := range a {
		if a[i] != c[i] || b[i] != c[i] {
			t.Fatalf("row %d: %v %v %v", i, a[i], b[i], c[i])
		}
	}
	dup := badSparse{Matrix: mat.NewDense(1, 20, nil), indptr: []int{0, 2}, indices: []int32{4, 4}, values: []float64{1, 2}}
	if _, err := s.Predict(dup); !errors.Is(err, ErrInput) {
		t.Fatalf("repeated index: %v", err)
	}
	if err := (&SVM{}).Fit(context.Background(), dup, []float64{1}); !errors.Is(err, ErrInput) {
		t.Fatalf("repeated index in training data: %v", err)
	}
	nan := badSparse{Matrix: mat.NewDense(1, 20, nil), indptr: []int{0, 1}, indices: []int32{4}, values: []float64{math.NaN()}}
	if _, err := s.Predict(nan); !errors.Is(err, ErrInput) {
		t.Fatalf("NaN: %v", err)
	}
	if err := s.Fit(context.Background(), x, y[:5]); !errors.Is(err, ErrInput) {
		t.Fatalf("short y: %v", err)
	}
}

// krrSparseDense fits two copies of mk(), exact KRR, one on CSR x and one
// on its dense copy, and checks that the sparse fit keeps its training rows
// sparse, that both load back as the same dense-center predictor (the files
// differ only in the fit's planned memory, recorded in its info), and that
// the decision values of all four models (sparse fit, dense fit, and each
// loaded) on the test rows, given sparse and dense, agree to 1e-10 (the
// issue's tolerance; both solve the same well-conditioned system, whose
// kernel matrices differ in the last bits).
func krrSparseDense(t *testing.T, mk func() *KRR, x *datasets.CSR, y []float64, xt *datasets.CSR) {
	t.Helper()
	sp, de := mk(), mk()
	if err := sp.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	if err := de.Fit(context.Background(), x.ToDense(), y); err != nil {
		t.Fatal(err)
	}
	if _, ok := sp.Predictor().(*sparseExpansion); !ok {
		t.Fatalf("sparse fit predictor %T", sp.Predictor())
	}
	want, err := de.DecisionFunction(xt.ToDense())
	if err != nil {
		t.Fatal(err)
	}
	var bufs [2]bytes.Buffer
	models := []*KRR{sp, de}
	for i, m := range models[:2] {
		if err := Save(&bufs[i], m); err != nil {
			t.Fatal(err)
		}
		l, err := Load(bytes.NewReader(bufs[i].Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		models = append(models, l.(*KRR))
	}
	for i, m := range models[2:] {
		_, isSparse := m.Predictor().(*sparseExpansion)
		_, isDense := m.Predictor().(*KernelExpansion)
		if isSparse != (i == 0) || isDense != (i == 1) {
			t.Fatalf("loaded %s fit's predictor is %T", [2]string{"sparse", "dense"}[i], m.Predictor())
		}
		for _, xx := range []mat.Matrix{xt, xt.ToDense()} {
			a, err1 := models[i].DecisionFunction(xx)
			b, err2 := m.DecisionFunction(xx)
			if err1 != nil || err2 != nil || !sameBits(a.RawMatrix().Data, b.RawMatrix().Data) {
				t.Fatalf("loaded %s fit on %T: decision values not bit-identical to the fit's (%v, %v)", [2]string{"sparse", "dense"}[i], xx, err1, err2)
			}
		}
	}
	var worst float64
	for mi, m := range models {
		for _, xx := range []mat.Matrix{xt, xt.ToDense()} {
			got, err := m.DecisionFunction(xx)
			if err != nil {
				t.Fatal(err)
			}
			d := maxAbsDiff(got, want)
			if d > 1e-10 {
				t.Fatalf("model %d (sparse fit, dense fit, loaded sparse, loaded dense) on %T: differs by %g", mi, xx, d)
			}
			worst = math.Max(worst, d)
		}
	}
	t.Logf("max |sparse − dense| decision value: %.3g", worst)
}

// TestKRRSparseMatchesDense: exact KRR fitted on CSR and on the dense copy
// (krrSparseDense, λn = 0.3) for regression and multi-class, and a non-zero
// beyond the training dimension refused at predict time.
func TestKRRSparseMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	x, y := sparseClassification(rng, 150, 40, 0.15)
	xt, _ := sparseClassification(rng, 50, 40, 0.15)
	yr := make([]float64, len(y))
	for i := range y {
		yr[i] = y[i] + 0.1*float64(i%7)
	}
	for _, tc := range []struct {
		name string
		k    kernel.Kernel
		task Task
		y    []float64
	}{
		{"gaussian-regression", kernel.Gaussian{Gamma: 0.1}, Regression, yr},
		{"laplacian-multiclass", kernel.Laplacian{Gamma: 0.1}, Classification, y},
		{"poly-regression", kernel.Polynomial{Degree: 2, Gamma: 0.1, Coef0: 1}, Regression, yr},
	} {
		t.Run(tc.name, func(t *testing.T) {
			krrSparseDense(t, func() *KRR { return &KRR{Kernel: tc.k, Lambda: 2e-3, Task: tc.task} }, x, tc.y, xt)
		})
	}
	wide, _ := datasets.NewCSR(1, 50, []int{0, 1}, []int32{45}, []float64{1})
	sp := &KRR{Kernel: kernel.Gaussian{Gamma: 0.1}, Lambda: 1e-3}
	if err := sp.Fit(context.Background(), x, yr); err != nil {
		t.Fatal(err)
	}
	// Column 45 is zero on every training row: the Gaussian values are
	// exp(−0.1·1²) times those of the empty row.
	got, err := sp.DecisionFunction(wide)
	if err != nil {
		t.Fatalf("non-zero at column 45 of a 40-column model: %v", err)
	}
	empty, _ := datasets.NewCSR(1, 40, []int{0, 0}, nil, nil)
	base, err := sp.DecisionFunction(empty)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got.At(0, 0)-math.Exp(-0.1)*base.At(0, 0)) > 1e-15*math.Abs(base.At(0, 0)) {
		t.Fatalf("beyond d: %v, want exp(−0.1)·%v", got.At(0, 0), base.At(0, 0))
	}
}

// TestKRRSparseSatimage: exact KRR (multi-class, one-vs-rest targets) on a
// satimage subset (500 training, 200 test rows, features scaled to
// [−1, 1]) given as CSR and dense: decision values equal to 1e-10.
func TestKRRSparseSatimage(t *testing.T) {
	tr, te := readSatimage(t)
	xs := csrOf(t, mat.DenseCopyOf(tr.X.Slice(0, 500, 0, tr.Dim())))
	ts := csrOf(t, mat.DenseCopyOf(te.X.Slice(0, 200, 0, te.Dim())))
	sp := &KRR{Kernel: kernel.Gaussian{Gamma: 0.5}, Lambda: 1e-4, Task: Classification}
	de := &KRR{Kernel: kernel.Gaussian{Gamma: 0.5}, Lambda: 1e-4, Task: Classification}
	if err := sp.Fit(context.Background(), xs, tr.Y[:500]); err != nil {
		t.Fatal(err)
	}
	if err := de.Fit(context.Background(), xs.ToDense(), tr.Y[:500]); err != nil {
		t.Fatal(err)
	}
	a, err := sp.DecisionFunction(ts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := de.DecisionFunction(ts.ToDense())
	if err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(a, b); d > 1e-10 {
		t.Fatalf("decision values differ by %g", d)
	}
}

// bkaSparseDense fits BKA-SVM on CSR and on its dense copy and checks the
// same partition and decision values (global and local) to 1e-10, on sparse
// and dense test rows, also after a save/load round trip. The cluster
// problems are solved to 1e-11 so that both fits reach the optimum (see
// TestSVMSparseMatchesDense).
func bkaSparseDense(t *testing.T, mk func() *BKASVM, xs *datasets.CSR, y []float64, ts *datasets.CSR) {
	t.Helper()
	ctx := context.Background()
	sp, de := mk(), mk()
	if err := sp.Fit(ctx, xs, y); err != nil {
		t.Fatal(err)
	}
	if err := de.Fit(ctx, xs.ToDense(), y); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sp.Partition().Labels, de.Partition().Labels) {
		t.Fatal("partitions differ")
	}
	for _, pred := range []string{LocalPrediction, GlobalPrediction} {
		sp.Prediction, de.Prediction = pred, pred
		want, err := de.DecisionFunction(ts.ToDense())
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Save(&buf, sp); err != nil {
			t.Fatal(err)
		}
		l, err := Load(&buf)
		if err != nil {
			t.Fatal(err)
		}
		var worst float64
		for mi, m := range []*BKASVM{sp, de, l.(*BKASVM)} {
			for _, x := range []mat.Matrix{ts, ts.ToDense()} {
				got, err := m.DecisionFunction(x)
				if err != nil {
					t.Fatal(err)
				}
				d := maxAbsDiff(got, want)
				if d > 1e-10 {
					t.Fatalf("%s model %d (sparse, dense, loaded sparse) on %T: differs by %g", pred, mi, x, d)
				}
				worst = math.Max(worst, d)
			}
		}
		t.Logf("%s prediction: max |sparse − dense| decision value %.3g", pred, worst)
	}
}

func TestBKASVMSparseMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	x, y := sparseClassification(rng, 300, 60, 0.1)
	xt, _ := sparseClassification(rng, 80, 60, 0.1)
	bkaSparseDense(t, func() *BKASVM {
		return &BKASVM{C: 4, Kernel: kernel.Gaussian{Gamma: 0.1}, Clusters: 4, Seed: 2, Tol: 1e-11}
	}, x, y, xt)
	bkaSparseDense(t, func() *BKASVM {
		return &BKASVM{C: 4, Kernel: kernel.Gaussian{Gamma: 0.1}, Clusters: 3, Sketch: 8, Seed: 2, Tol: 1e-11, Refine: true}
	}, x, y, xt)
}

// TestBKASVMSparseSatimage: the same on a satimage subset (600 / 200 rows,
// 6 classes, 8 clusters).
func TestBKASVMSparseSatimage(t *testing.T) {
	tr, te := readSatimage(t)
	xs := csrOf(t, mat.DenseCopyOf(tr.X.Slice(0, 600, 0, tr.Dim())))
	ts := csrOf(t, mat.DenseCopyOf(te.X.Slice(0, 200, 0, te.Dim())))
	bkaSparseDense(t, func() *BKASVM {
		return &BKASVM{C: 4, Kernel: kernel.Gaussian{Gamma: 1}, Clusters: 8, Seed: 2, Tol: 1e-11}
	}, xs, tr.Y[:600], ts)
}

// mekaSparseDense fits KRR on MEKA on CSR and on its dense copy and checks
// the same partition and decision values to 1e-10 (sparse and dense test
// rows, and after a save/load round trip).
func mekaSparseDense(t *testing.T, mk func() *KRR, xs *datasets.CSR, y []float64, ts *datasets.CSR) {
	t.Helper()
	ctx := context.Background()
	sp, de := mk(), mk()
	if err := sp.Fit(ctx, xs, y); err != nil {
		t.Fatal(err)
	}
	if err := de.Fit(ctx, xs.ToDense(), y); err != nil {
		t.Fatal(err)
	}
	ps, pd := sp.Predictor().(*MEKAExpansion), de.Predictor().(*MEKAExpansion)
	if !slices.Equal(ps.MEKA.Partition().Labels, pd.MEKA.Partition().Labels) || ps.MEKA.Rank() != pd.MEKA.Rank() {
		t.Fatal("partitions or ranks differ")
	}
	want, err := de.DecisionFunction(ts.ToDense())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Save(&buf, sp); err != nil {
		t.Fatal(err)
	}
	l, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var worst float64
	for mi, m := range []*KRR{sp, de, l.(*KRR)} {
		for _, x := range []mat.Matrix{ts, ts.ToDense()} {
			got, err := m.DecisionFunction(x)
			if err != nil {
				t.Fatal(err)
			}
			d := maxAbsDiff(got, want)
			if d > 1e-10 {
				t.Fatalf("model %d (sparse, dense, loaded sparse) on %T: differs by %g", mi, x, d)
			}
			worst = math.Max(worst, d)
		}
	}
	t.Logf("max |sparse − dense| decision value: %.3g", worst)
}

// TestMEKASparseMatchesDense: KRR on MEKA (Woodbury solve, 3 clusters of
// rank 20) on the synthetic sparse set, the 1e-10.
func TestMEKASparseMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	x, y := sparseClassification(rng, 300, 60, 0.1)
	xt, _ := sparseClassification(rng, 80, 60, 0.1)
	mekaSparseDense(t, func() *KRR {
		return &KRR{Kernel: kernel.Gaussian{Gamma: 0.1}, Lambda: 1e-3, Task: Classification, Seed: 3,
			Approx: &MEKAKRR{Options: meka.Options{Clusters: 3, Rank: 20}}}
	}, x, y, xt)
}

// TestMEKASparseSatimage: the same on a satimage subset (800 / 200 rows,
// 4 clusters of rank 30).
func TestMEKASparseSatimage(t *testing.T) {
	tr, te := readSatimage(t)
	xs := csrOf(t, mat.DenseCopyOf(tr.X.Slice(0, 800, 0, tr.Dim())))
	ts := csrOf(t, mat.DenseCopyOf(te.X.Slice(0, 200, 0, te.Dim())))
	mekaSparseDense(t, func() *KRR {
		return &KRR{Kernel: kernel.Gaussian{Gamma: 0.5}, Lambda: 1e-4, Task: Classification, Seed: 3,
			Approx: &MEKAKRR{Options: meka.Options{Clusters: 4, Rank: 30}}}
	}, xs, tr.Y[:800], ts)
}

// TestSVMSparseProbability: Platt scaling's cross-validated fits run on
// sparse rows; probabilities from the sparse and dense fits (solved to
// 1e-11) agree to 1e-8 (Platt's Newton iterations stop when the gradient is
// below 1e-5 and the multi-class coupling at 0.005/k, so the outputs can
// agree less tightly than the decision values; 1e-8 held here).
func TestSVMSparseProbability(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	x, y := sparseClassification(rng, 200, 40, 0.15)
	xt, _ := sparseClassification(rng, 40, 40, 0.15)
	mk := func() *SVM {
		return &SVM{C: 2, Kernel: kernel.Gaussian{Gamma: 0.1}, Tol: 1e-11, Probability: true, Seed: 4}
	}
	sp, de := mk(), mk()
	if err := sp.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	if err := de.Fit(context.Background(), x.ToDense(), y); err != nil {
		t.Fatal(err)
	}
	a, err := sp.PredictProba(xt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := de.PredictProba(xt.ToDense())
	if err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(a, b); d > 1e-8 {
		t.Fatalf("probabilities differ by %g", d)
	}
}

// The mnist check for the estimators the Nyström test does not
// cover: each fits on readMNISTSubset (600 training rows, ten classes,
// pixels / 255, density ≈ 0.19, so the kernels' sparse paths see genuinely
// sparse rows) given as CSR and as its dense copy, and the decision values
// on the 200 test rows agree to 1e-10 (the tolerance), given sparse
// and dense, also after a save/load round trip. σ = 5 (γ = 0.02) as in
// TestNystromSparseMNIST.

// TestSVMSparseMNIST: exact SVM, one-vs-one over 45 class pairs, C = 4,
// solved to Tol 1e-11 (see TestSVMSparseMatchesDense for why).
func TestSVMSparseMNIST(t *testing.T) {
	xs, y, ts := readMNISTSubset(t)
	svmSparseDense(t, func() *SVM { return &SVM{C: 4, Kernel: kernel.GaussianSigma(5), Tol: 1e-11} }, xs, y, ts, 1e-10)
}

// TestKRRSparseMNIST: exact KRR, one-vs-rest targets, λ = 1e-3 (λn = 0.6,
// so the system's condition number is below ~10³ and the kernels' last-bit
// differences stay near 1e-13 in the solution).
func TestKRRSparseMNIST(t *testing.T) {
	xs, y, ts := readMNISTSubset(t)
	krrSparseDense(t, func() *KRR { return &KRR{Kernel: kernel.GaussianSigma(5), Lambda: 1e-3, Task: Classification} }, xs, y, ts)
}

// TestBKASVMSparseMNIST: BKA-SVM with 4 clusters, C = 4, Tol 1e-11: the
// same partition and decision values (local and global prediction).
func TestBKASVMSparseMNIST(t *testing.T) {
	xs, y, ts := readMNISTSubset(t)
	bkaSparseDense(t, func() *BKASVM {
		return &BKASVM{C: 4, Kernel: kernel.GaussianSigma(5), Clusters: 4, Seed: 2, Tol: 1e-11}
	}, xs, y, ts)
}

// TestMEKASparseMNIST: KRR on MEKA, 4 clusters of rank 30, λ = 1e-4 (as
// on satimage): the same partition, ranks and decision values.
func TestMEKASparseMNIST(t *testing.T) {
	xs, y, ts := readMNISTSubset(t)
	mekaSparseDense(t, func() *KRR {
		return &KRR{Kernel: kernel.GaussianSigma(5), Lambda: 1e-4, Task: Classification, Seed: 3,
			Approx: &MEKAKRR{Options: meka.Options{Clusters: 4, Rank: 30}}}
	}, xs, y, ts)
}

// savedSparseDense fits mk() on CSR x and on its dense copy, saves both with
// Save and checks that both files load back to models whose decision values
// on xt, given as CSR and dense, equal the dense fit's to 1e-10 (the issue's
// tolerance). It returns the two fitted models and their files.
func savedSparseDense(t *testing.T, mk func() fitDecider, x *datasets.CSR, y []float64, xt *datasets.CSR) (sp, de fitDecider, fs, fd []byte) {
	t.Helper()
	ctx := context.Background()
	sp, de = mk(), mk()
	if err := sp.Fit(ctx, x, y); err != nil {
		t.Fatal(err)
	}
	if err := de.Fit(ctx, x.ToDense(), y); err != nil {
		t.Fatal(err)
	}
	var bufs [2]bytes.Buffer
	for i, m := range []fitDecider{sp, de} {
		if err := Save(&bufs[i], m.(Estimator)); err != nil {
			t.Fatal(err)
		}
	}
	fs, fd = bufs[0].Bytes(), bufs[1].Bytes()
	want, err := de.DecisionFunction(xt.ToDense())
	if err != nil {
		t.Fatal(err)
	}
	var worst float64
	for fi, f := range [][]byte{fs, fd} {
		l, err := Load(bytes.NewReader(f))
		if err != nil {
			t.Fatal(err)
		}
		for _, xx := range []mat.Matrix{xt, xt.ToDense()} {
			got, err := l.(fitDecider).DecisionFunction(xx)
			if err != nil {
				t.Fatal(err)
			}
			d := maxAbsDiff(got, want)
			if d > 1e-10 {
				t.Fatalf("loaded %s fit on %T: decision values differ from the dense fit's by %g", [2]string{"sparse", "dense"}[fi], xx, d)
			}
			worst = math.Max(worst, d)
		}
	}
	t.Logf("files of %d and %d bytes, %d bytes differ; loaded models' max |decision − dense fit's| %.3g", len(fs), len(fd), bytesDiffer(fs, fd), worst)
	return sp, de, fs, fd
}

// bytesDiffer counts the positions at which a and b differ, plus the
// difference of their lengths.
func bytesDiffer(a, b []byte) int {
	n := max(len(a), len(b)) - min(len(a), len(b))
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			n++
		}
	}
	return n
}

// TestSavedFalkonBKAMEKASparseDense: a model saved after a fit on CSR and
// one saved after a fit on the dense copy are interchangeable. Why the
// bytes may differ:
//
//   - Falkon's file records the run as well as the model: the phase
//     timings and each iteration's elapsed time (which differ between any
//     two fits) and the memory plan, which counts the input as it was given
//     (CSR arrays, not n·d) and the sparse engine's scratch; integers are
//     varints, so even the lengths differ by a few bytes. With those set
//     equal the files are identical byte for byte when the engine expands
//     the sparse row blocks to dense (density 0.3 here, above its 0.08
//     switch): the arithmetic is then the dense path's. Below the switch
//     (SparseRegression, density 0.04) x·c is summed over the non-zeros
//     only, so kernel values, and through CG the coefficients, differ in the
//     last bits, and only the predictions are compared.
//   - BKA-SVM's cluster duals use kernel columns from sparse rows (merged
//     dot products), and MEKA's bases and link blocks come from the
//     engine's sparse path: both differ from the dense fit's in the last
//     bits (dual coefficients by ~1e-10 at Tol 1e-11, objectives and
//     violations in their last digits), so their files differ in those
//     floats; the partitions, support-vector counts and ranks are the same
//     (checked). BKA-SVM's file keeps the sparse fit's support vectors as
//     sparse rows, so it is much smaller (checked); MEKA's records its phase
//     timings (cluster, basis, link, eigen) as varints, so its length may
//     differ by a byte or two.
func TestSavedFalkonBKAMEKASparseDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	x, y := sparseClassification(rng, 300, 60, 0.1)
	xt, _ := sparseClassification(rng, 80, 60, 0.1)
	t.Run("falkon-dense-blocks", func(t *testing.T) {
		x3, y3 := sparseClassification(rng, 300, 60, 0.3)
		xt3, _ := sparseClassification(rng, 80, 60, 0.3)
		sp, de, fs, fd := savedSparseDense(t, func() fitDecider {
			return &Falkon{Kernel: kernel.Gaussian{Gamma: 0.05}, Lambda: 1e-4, M: 60, Task: Classification, Seed: 3, MaxIter: 200, Tol: 1e-13}
		}, x3, y3, xt3)
		fsp, fde := sp.(*Falkon), de.(*Falkon)
		if ps, pd := fsp.fit.info.Plan, fde.fit.info.Plan; ps.Data >= pd.Data {
			t.Fatalf("memory plan counts %d bytes of CSR input, %d of dense: the CSR arrays should be smaller at density 0.3", ps.Data, pd.Data)
		}
		if bytes.Equal(fs, fd) {
			return
		}
		for _, f := range []*Falkon{fsp, fde} {
			i := &f.fit.info
			i.SampleTime, i.PrecondTime, i.SolveTime = 0, 0, 0
			for h := range i.History {
				i.History[h].Elapsed = 0
			}
		}
		fsp.fit.info.Plan = fde.fit.info.Plan
		var a, b bytes.Buffer
		if err := Save(&a, fsp); err != nil {
			t.Fatal(err)
		}
		if err := Save(&b, fde); err != nil {
			t.Fatal(err)
		}
		if d := bytesDiffer(a.Bytes(), b.Bytes()); d != 0 {
			t.Fatalf("with timings and memory plan set equal, the Falkon files still differ in %d bytes", d)
		}
		t.Logf("with timings and memory plan set equal: identical files of %d bytes", a.Len())
	})
	t.Run("falkon-axpy", func(t *testing.T) {
		xs, ys, err := datasets.SparseRegression(400, 300, 12, rng)
		if err != nil {
			t.Fatal(err)
		}
		xts, _, err := datasets.SparseRegression(80, 300, 12, rng)
		if err != nil {
			t.Fatal(err)
		}
		savedSparseDense(t, func() fitDecider {
			return &Falkon{Kernel: kernel.Gaussian{Gamma: 1.0 / 24}, Lambda: 1e-4, M: 60, Seed: 3, MaxIter: 200, Tol: 1e-13}
		}, xs, ys, xts)
	})
	t.Run("bka-svm", func(t *testing.T) {
		sp, de, fs, fd := savedSparseDense(t, func() fitDecider {
			return &BKASVM{C: 4, Kernel: kernel.Gaussian{Gamma: 0.1}, Clusters: 4, Seed: 2, Tol: 1e-11}
		}, x, y, xt)
		is := sp.(*BKASVM).Info()
		id := de.(*BKASVM).Info()
		if !slices.Equal(sp.(*BKASVM).Partition().Labels, de.(*BKASVM).Partition().Labels) || is.SV != id.SV {
			t.Fatalf("partitions or support vectors differ (%d, %d)", is.SV, id.SV)
		}
		// At density 0.1 a support vector takes about 6·9 + 1 bytes as a
		// sparse row against 60·8 dense; the partition (dense centroids in
		// both) and the coefficients are the same size.
		if len(fs) >= len(fd)/3 {
			t.Fatalf("saved sizes: sparse fit %d bytes, dense fit %d; want the sparse fit's below a third", len(fs), len(fd))
		}
	})
	t.Run("meka-krr", func(t *testing.T) {
		sp, de, _, _ := savedSparseDense(t, func() fitDecider {
			return &KRR{Kernel: kernel.Gaussian{Gamma: 0.1}, Lambda: 1e-3, Task: Classification, Seed: 3, Approx: &MEKAKRR{Options: meka.Options{Clusters: 3, Rank: 20}}}
		}, x, y, xt)
		ms, md := sp.(*KRR).Predictor().(*MEKAExpansion).MEKA, de.(*KRR).Predictor().(*MEKAExpansion).MEKA
		if !slices.Equal(ms.Partition().Labels, md.Partition().Labels) || ms.Rank() != md.Rank() {
			t.Fatal("partitions or ranks differ")
		}
	})
}
