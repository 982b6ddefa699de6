package model

import (
	"fmt"
	"math"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/approx/meka"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// Test-time features the training data never used (issue 20, item 4). A
// sparse test row with a non-zero at a column j ≥ d, the training
// dimension, is read as LIBSVM reads it: column j is a coordinate in which
// every training row is zero. The model then computes what it would with the
// training data zero-padded to the test data's width: with x = (x_in, x_out)
// split at column d and c a center (zero beyond d),
//
//	x·c = x_in·c                             (linear, polynomial)
//	‖x − c‖² = ‖x_in − c‖² + ‖x_out‖²        (Gaussian)
//	‖x − c‖₁ = ‖x_in − c‖₁ + ‖x_out‖₁        (Laplacian)
//
// so k(x, c) = k(x_in, c)·s(x) with s = 1 for the dot-product kernels,
// exp(−γ‖x_out‖²) for the Gaussian and exp(−γ‖x_out‖₁) for the Laplacian:
// one factor a row, the same for every center. A decision K(x, C)·W + b
// becomes s ⊙ (K(x_in, C)·W) + b, so the predictors run on x_in (d
// columns, a copy of the non-zeros below d) and scale their rows before the
// bias. Other kernels have no such factor and refuse such rows, as do the
// random-Fourier-feature maps (their frequencies were drawn in d dimensions).

// beyondInput splits validated sparse rows x for a model fitted on d
// columns: in holds the non-zeros below column d (x itself, or a view with
// d columns, when nothing lies beyond), and scale the row factors s of the
// kernel k (nil when every factor is 1: no row has a non-zero beyond d, or
// the kernel is a dot-product kernel). A kernel without a known factor is an
// error when some row needs one.
func beyondInput(x kernel.Sparse, d int, k kernel.Kernel) (in kernel.Sparse, scale []float64, err error) {
	n, c := x.Dims()
	indptr, indices, values := x.CSR()
	far := 0
	for _, j := range indices[indptr[0]:indptr[n]] {
		if int(j) >= d {
			far++
		}
	}
	if far == 0 {
		if c != d {
			return kernel.SparseWithCols(x, d), nil, nil
		}
		return x, nil, nil
	}
	var g float64
	var l1 bool
	switch kk := k.(type) {
	case kernel.Gaussian:
		g = kk.Gamma
	case kernel.Laplacian:
		g, l1 = kk.Gamma, true
	case kernel.Polynomial, kernel.Sigmoid, kernel.Linear:
	default:
		return nil, nil, fmt.Errorf("%w: X has %d non-zeros at columns at or beyond the training dimension %d, and kernel %v has no known value there (the Gaussian, Laplacian, polynomial, sigmoid and linear kernels do)", ErrInput, far, d, k)
	}
	nnz := indptr[n] - indptr[0] - far
	ip, ix, iv := make([]int, n+1), make([]int32, 0, nnz), make([]float64, 0, nnz)
	if g != 0 {
		scale = make([]float64, n)
	}
	for i := 0; i < n; i++ {
		var s float64 // Σ v² or Σ |v| over the row's columns ≥ d, in column order
		for p := indptr[i]; p < indptr[i+1]; p++ {
			if j, v := indices[p], values[p]; int(j) < d {
				ix, iv = append(ix, j), append(iv, v)
			} else if l1 {
				s += math.Abs(v)
			} else {
				s += v * v
			}
		}
		ip[i+1] = len(iv)
		if scale != nil {
			scale[i] = math.Exp(-g * s)
		}
	}
	return kernel.NewCSRRows(d, ip, ix, iv), scale, nil
}

// predictInput is exactInput for prediction with the kernel k of a model
// fitted on d columns: sparse x may hold non-zeros beyond column d
// (beyondInput), other x must have d columns. It returns the rows to
// predict and the row factors to apply to K(x, C)·W (nil: none).
func predictInput(xIn mat.Matrix, d int, k kernel.Kernel) (mat.Matrix, []float64, error) {
	s, ok := xIn.(kernel.Sparse)
	if !ok {
		x, err := exactInput(xIn, nil, d)
		return x, nil, err
	}
	xs, err := checkSparse(s, 0)
	if err != nil {
		return nil, nil, err
	}
	return beyondInput(xs, d, k)
}

// scaleRows multiplies row i of m by scale[i] (nothing for a nil scale).
func scaleRows(m *mat.Dense, scale []float64) {
	if scale == nil {
		return
	}
	raw := m.RawMatrix()
	for i, s := range scale {
		row := raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols]
		for j := range row {
			row[j] *= s
		}
	}
}

// predKernel is the kernel of a KRR predictor (nil when unknown).
func predKernel(pred KRRPredictor) kernel.Kernel {
	switch p := pred.(type) {
	case *KernelExpansion:
		return p.Kernel
	case *sparseExpansion:
		return p.dec.k
	case *MEKAExpansion:
		return p.MEKA.Kernel()
	case *LinearFeatures:
		switch m := p.Map.(type) {
		case *approx.NystromMap:
			return m.Kernel
		case *meka.Map:
			return m.Kernel()
		}
	}
	return nil
}

// linearInKernel reports whether pred's decision is K(x, C)·W for some
// centers C (so that beyondInput's row factors apply to it): the kernel
// expansions, MEKA, and feature maps built from kernel columns (Nyström,
// MEKA), not random Fourier features.
func linearInKernel(pred KRRPredictor) bool {
	switch p := pred.(type) {
	case *KernelExpansion, *sparseExpansion, *MEKAExpansion:
		return true
	case *LinearFeatures:
		switch p.Map.(type) {
		case *approx.NystromMap, *meka.Map:
			return true
		}
	}
	return false
}
