package model

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// precomputedRows returns the kernel rows of kernel.Precomputed for k: the
// training rows [i | K(x_i, X)] (serials 1…n) and the query rows
// [0 | K(q, X)], computed by k.Block.
func precomputedRows(k kernel.Kernel, x, q *mat.Dense) (train, query *mat.Dense) {
	n, _ := x.Dims()
	m, _ := q.Dims()
	kxx, kqx := mat.NewDense(n, n, nil), mat.NewDense(m, n, nil)
	k.Block(kxx, x, x)
	k.Block(kqx, q, x)
	train, query = mat.NewDense(n, n+1, nil), mat.NewDense(m, n+1, nil)
	for i := range n {
		train.Set(i, 0, float64(i+1))
		copy(train.RawRowView(i)[1:], kxx.RawRowView(i))
	}
	for i := range m {
		copy(query.RawRowView(i)[1:], kqx.RawRowView(i))
	}
	return train, query
}

// TestPrecomputedIsTheKernel: an estimator fitted on the precomputed
// Gaussian kernel rows is the one fitted on the points with the Gaussian
// kernel — the same dual problem, entry for entry — for C-SVC (two classes,
// and three one-vs-one, whose sub-problems take subsets of the rows and keep
// their serials), C-SVC with Platt probabilities (five folds of rows),
// ε-SVR, the one-class SVM and exact KRR. Predictions on query rows agree
// to 1e-9: the kernel values agree to a few ulps (the engine's expanded
// ‖x‖² + ‖c‖² − 2x·c against Block's), and the solvers run to 1e-10. The
// same holds for the kernel rows given as CSR, and after Save and Load.
func TestPrecomputedIsTheKernel(t *testing.T) {
	ctx := context.Background()
	g := kernel.Gaussian{Gamma: 0.4}
	x, y := nuBlobs(90, 0.45, 21)
	q, _ := nuBlobs(30, 0.5, 22)
	m3 := conformanceMulticlass(23)
	yr := make([]float64, 90)
	for i := range yr {
		yr[i] = math.Sin(2*x.At(i, 0)) + 0.3*x.At(i, 1)
	}
	pc := kernel.Precomputed{}
	for _, c := range []struct {
		name string
		est  func(k kernel.Kernel) Estimator
		x, q *mat.Dense
		y    []float64
	}{
		{"svm", func(k kernel.Kernel) Estimator { return &SVM{Kernel: k, C: 3, Tol: 1e-10} }, x, q, y},
		{"svm three classes", func(k kernel.Kernel) Estimator { return &SVM{Kernel: k, C: 3, Tol: 1e-10} }, m3.x, m3.x, m3.y},
		{"svm probability", func(k kernel.Kernel) Estimator { return &SVM{Kernel: k, C: 3, Tol: 1e-10, Probability: true, Seed: 5} }, x, q, y},
		{"svr", func(k kernel.Kernel) Estimator { return &SVR{Kernel: k, C: 3, Epsilon: 0.1, Tol: 1e-10} }, x, q, yr},
		{"one-class svm", func(k kernel.Kernel) Estimator { return &OneClassSVM{Kernel: k, Nu: 0.3, Tol: 1e-10} }, x, q, nil},
		{"krr", func(k kernel.Kernel) Estimator { return &KRR{Kernel: k, Lambda: 1e-3} }, x, q, yr},
	} {
		p, pq := precomputedRows(g, c.x, c.q)
		want := c.est(g)
		if err := want.Fit(ctx, c.x, c.y); err != nil {
			t.Fatalf("%s gaussian: %v", c.name, err)
		}
		wp, err := want.Predict(c.q)
		if err != nil {
			t.Fatal(err)
		}
		ps, err := datasets.CSRFromDense(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, form := range []struct {
			name string
			x    mat.Matrix
		}{{"dense", p}, {"csr", ps}} {
			got := c.est(pc)
			if err := got.Fit(ctx, form.x, c.y); err != nil {
				t.Fatalf("%s %s: %v", c.name, form.name, err)
			}
			gp, err := got.Predict(pq)
			if err != nil {
				t.Fatalf("%s %s predict: %v", c.name, form.name, err)
			}
			for i := range wp {
				if math.Abs(gp[i]-wp[i]) > 1e-9*math.Max(1, math.Abs(wp[i])) {
					t.Fatalf("%s %s row %d: precomputed %.12g, gaussian %.12g", c.name, form.name, i, gp[i], wp[i])
				}
			}
			if pr, ok := got.(interface {
				PredictProba(mat.Matrix) (*mat.Dense, error)
			}); ok && c.name == "svm probability" {
				a, _ := pr.PredictProba(pq)
				b, _ := want.(*SVM).PredictProba(c.q)
				if d := maxAbsDiff(a, b); d > 1e-9 {
					t.Errorf("%s %s: probabilities differ by %.3g", c.name, form.name, d)
				}
			}
			var buf bytes.Buffer
			if err := Save(&buf, got); err != nil {
				t.Fatalf("%s %s save: %v", c.name, form.name, err)
			}
			back, err := Load(&buf)
			if err != nil {
				t.Fatalf("%s %s load: %v", c.name, form.name, err)
			}
			bp, err := back.Predict(pq)
			if err != nil {
				t.Fatal(err)
			}
			for i := range gp {
				if bp[i] != gp[i] {
					t.Fatalf("%s %s row %d: loaded model %v, fitted %v", c.name, form.name, i, bp[i], gp[i])
				}
			}
		}
	}
}

// TestPrecomputedRefusals: training rows without valid serial numbers are
// refused with the row named; the estimators that need the kernel at points
// of their own refuse the precomputed kernel; a query row's column 0 is not
// read.
func TestPrecomputedRefusals(t *testing.T) {
	ctx := context.Background()
	x, y := nuBlobs(40, 0.5, 24)
	p, pq := precomputedRows(kernel.Gaussian{Gamma: 0.5}, x, x)
	pc := kernel.Precomputed{}
	for _, serial := range []float64{0, 41, 2.5, -1} {
		bad := mat.DenseCopyOf(p)
		bad.Set(7, 0, serial)
		err := (&SVM{Kernel: pc}).Fit(ctx, bad, y)
		if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "row 7 has serial number") {
			t.Errorf("serial %g: err = %v, want ErrInput naming row 7", serial, err)
		}
	}
	for _, est := range []Estimator{&Falkon{Kernel: pc, Lambda: 1e-3, M: 10}, &BKASVM{Kernel: pc}, &KRR{Kernel: pc, Lambda: 1e-3, Approx: NystromKRR{M: 10}}} {
		if err := est.Fit(ctx, p, y); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "precomputed kernel") {
			t.Errorf("%T: err = %v, want ErrInput refusing the precomputed kernel", est, err)
		}
	}
	s := &SVM{Kernel: pc, C: 2}
	if err := s.Fit(ctx, p, y); err != nil {
		t.Fatal(err)
	}
	a, _ := s.DecisionFunction(pq)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 40 {
		pq.Set(i, 0, rng.NormFloat64()) // LIBSVM's "0:?": any value
	}
	b, _ := s.DecisionFunction(pq)
	if !mat.Equal(a, b) {
		t.Error("a query row's column 0 changed its decision value")
	}
}
