package model

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/approx/meka"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// beyondData returns sparse training rows (n×d, about 4 non-zeros a row,
// labels in {0, 1, 2} from a rule on the first columns) and test rows with
// d+extra columns, every other test row holding non-zeros beyond column d.
func beyondData(n, d, extra int, rng *rand.Rand) (train *kernel.CSRRows, y []float64, test *kernel.CSRRows) {
	gen := func(rows, cols int, wide bool) *kernel.CSRRows {
		ip := []int{0}
		var ix []int32
		var iv []float64
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				in := j < d
				p := 4.0 / float64(d)
				if !in {
					if !wide || i%2 == 1 {
						continue
					}
					p = 0.5
				}
				if rng.Float64() < p {
					ix, iv = append(ix, int32(j)), append(iv, rng.NormFloat64())
				}
			}
			ip = append(ip, len(iv))
		}
		return kernel.NewCSRRows(cols, ip, ix, iv)
	}
	train = gen(n, d, false)
	test = gen(n/2, d+extra, true)
	y = make([]float64, n)
	for i := range y {
		a, b := train.At(i, 0)+train.At(i, 1)+train.At(i, 2), train.At(i, 3)+train.At(i, 4)
		switch {
		case a > b+0.2:
			y[i] = 2
		case a < b-0.2:
			y[i] = 1
		}
	}
	return train, y, test
}

// padded returns the dense form of x with cols columns (zeros beyond x's).
func padded(x kernel.Sparse, cols int) *mat.Dense {
	n, _ := x.Dims()
	out := mat.NewDense(n, cols, nil)
	ip, ix, iv := x.CSR()
	for i := 0; i < n; i++ {
		for p := ip[i]; p < ip[i+1]; p++ {
			out.Set(i, int(ix[p]), iv[p])
		}
	}
	return out
}

type beyondModel interface {
	Fit(ctx context.Context, x mat.Matrix, y []float64) error
	DecisionFunction(x mat.Matrix) (*mat.Dense, error)
}

// TestBeyondTrainingDimension: test rows with non-zeros at columns the
// training data never reached are predicted as the same estimator fitted on
// the training data zero-padded to the test width, dense, predicts them
// (issue 20, item 4: LIBSVM's reading). Each estimator and kernel is fitted
// twice with the same seed — on the 60×30 CSR rows, and on their dense copy
// padded to 38 columns — and the sparse model's decision values on the
// 38-column CSR test rows must equal the dense padded model's on the dense
// test rows to 1e-10 relative to the largest value (the issue-12 sparse vs
// dense tolerance; the two fits differ only in rounding: summation order of
// the sparse and dense kernels, exp(a)·exp(b) against exp(a+b)).
func TestBeyondTrainingDimension(t *testing.T) {
	const n, d, extra = 60, 30, 8
	rng := rand.New(rand.NewPCG(20, 4))
	xs, y, xt := beyondData(n, d, extra, rng)
	ybin := make([]float64, n)
	for i, v := range y {
		ybin[i] = min(v, 1)
	}
	xd, xtd := padded(xs, d+extra), padded(xt, d+extra)
	g, lap := kernel.Gaussian{Gamma: 0.3}, kernel.Laplacian{Gamma: 0.2}
	poly, lin := kernel.Polynomial{Gamma: 0.5, Coef0: 1, Degree: 2}, kernel.Linear{}
	cases := []struct {
		name string
		new  func() beyondModel
		y    []float64
	}{
		{"svm gaussian", func() beyondModel { return &SVM{Kernel: g, C: 10, Tol: 1e-11} }, ybin},
		{"svm laplacian ovo", func() beyondModel { return &SVM{Kernel: lap, C: 10, Tol: 1e-11} }, y},
		{"svm polynomial", func() beyondModel { return &SVM{Kernel: poly, C: 1, Tol: 1e-11} }, ybin},
		{"bka-svm gaussian local", func() beyondModel {
			return &BKASVM{Kernel: g, C: 10, Clusters: 3, Tol: 1e-11, Seed: 3}
		}, ybin},
		{"bka-svm gaussian global", func() beyondModel {
			return &BKASVM{Kernel: g, C: 10, Clusters: 3, Tol: 1e-11, Seed: 3, Prediction: GlobalPrediction}
		}, ybin},
		{"exact krr gaussian", func() beyondModel { return &KRR{Kernel: g, Lambda: 1e-3} }, y},
		{"exact krr laplacian", func() beyondModel { return &KRR{Kernel: lap, Lambda: 1e-3} }, y},
		{"exact krr linear", func() beyondModel { return &KRR{Kernel: lin, Lambda: 1e-2} }, y},
		{"nystrom krr gaussian", func() beyondModel { return &KRR{Kernel: g, Lambda: 1e-3, Approx: NystromKRR{M: 20}, Seed: 5} }, y},
		{"meka krr gaussian", func() beyondModel {
			return &KRR{Kernel: g, Lambda: 1e-3, Approx: &MEKAKRR{Options: meka.Options{Clusters: 2, Rank: 8}}, Seed: 5}
		}, y},
		{"nystrom features gaussian", func() beyondModel {
			return &KRR{Kernel: g, Lambda: 1e-3, Approx: FeatureRidge{Features: NystromFeatures{M: 20}}, Seed: 5}
		}, y},
		{"falkon gaussian", func() beyondModel { return &Falkon{Kernel: g, Lambda: 1e-4, M: 20, Seed: 5, Tol: 1e-13, MaxIter: 200} }, y},
		{"falkon laplacian", func() beyondModel {
			return &Falkon{Kernel: lap, Lambda: 1e-4, M: 20, Seed: 5, Tol: 1e-13, MaxIter: 200}
		}, y},
		{"falkon polynomial", func() beyondModel {
			return &Falkon{Kernel: poly, Lambda: 1e-4, M: 20, Seed: 5, Tol: 1e-13, MaxIter: 200}
		}, y},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sp, de := c.new(), c.new()
			if err := sp.Fit(ctx, xs, c.y); err != nil {
				t.Fatal(err)
			}
			if err := de.Fit(ctx, xd, c.y); err != nil {
				t.Fatal(err)
			}
			got, err := sp.DecisionFunction(xt)
			if err != nil {
				t.Fatal(err)
			}
			want, err := de.DecisionFunction(xtd)
			if err != nil {
				t.Fatal(err)
			}
			scale := mat.Norm(want, math.Inf(1))
			var worst float64
			r, cc := want.Dims()
			for i := 0; i < r; i++ {
				for j := 0; j < cc; j++ {
					worst = math.Max(worst, math.Abs(got.At(i, j)-want.At(i, j)))
				}
			}
			if worst > 1e-10*math.Max(scale, 1) {
				t.Errorf("decision values differ by %.3g (largest %.3g)", worst, scale)
			}
			// The wide rows matter: dropping their far columns changes
			// the Gaussian and Laplacian values (a factor exp(−γ‖x_out‖)).
			if _, ok := c.new().(*SVM); ok && c.name == "svm gaussian" {
				trimmed, _, _ := beyondInput(xt, d, g)
				alt, err := sp.DecisionFunction(trimmed)
				if err != nil {
					t.Fatal(err)
				}
				if mat.EqualApprox(alt, got, 1e-6) {
					t.Error("the columns beyond d changed nothing: the test does not exercise them")
				}
			}
		})
	}
}

// TestBeyondTrainingDimensionRefused: random Fourier features (frequencies
// drawn in d dimensions) and kernels without a known factor refuse test
// rows with non-zeros beyond d, naming the dimension; rows that merely
// declare more columns are accepted.
func TestBeyondTrainingDimensionRefused(t *testing.T) {
	const n, d, extra = 40, 20, 5
	xs, y, xt := beyondData(n, d, extra, rand.New(rand.NewPCG(7, 8)))
	ctx := context.Background()
	rff := &KRR{Kernel: kernel.Gaussian{Gamma: 0.3}, Lambda: 1e-3, Approx: FeatureRidge{Features: RFFFeatures{RFF: approx.RFF{Features: 30}}}, Seed: 1}
	if err := rff.Fit(ctx, xs, y); err != nil {
		t.Fatal(err)
	}
	_, err := rff.DecisionFunction(xt)
	if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "beyond the training dimension 20") {
		t.Errorf("rff: %v", err)
	}
	// Only the rows without far non-zeros (the odd ones): accepted.
	ip, _, _ := xt.CSR()
	var odd []int
	for i := 1; i < len(ip)-1; i += 2 {
		odd = append(odd, i)
	}
	if _, err := rff.DecisionFunction(kernel.SubsetRows(xt, odd)); err != nil {
		t.Errorf("rff on rows within the training columns: %v", err)
	}
	if _, _, err := beyondInput(xt, d, otherKernel{}); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "no known value") {
		t.Errorf("custom kernel: %v", err)
	}
}

// otherKernel is a kernel the beyond-d factor does not know.
type otherKernel struct{ kernel.Linear }

func (otherKernel) String() string { return "other" }
