// Package linalg holds dense linear algebra the numerical packages share and
// gonum does not provide in the form they need: a thin QR factorization
// built from matrix products (CholeskyQR2) with a Householder fallback.
package linalg

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// ThinQR overwrites b (n×k, n ≥ k) with the Q of its thin QR factorization
// and returns R (k×k, upper triangular). It runs CholeskyQR2 (two rounds of
// BᵀB = RᵀR, B ← BR⁻¹), which is made of matrix products and orthonormal to
// round-off when cond(B) ≲ 1e7 (Fukaya et al., 2014), and falls back to
// Householder QR when a Cholesky factorization fails.
func ThinQR(b *mat.Dense) *mat.Dense {
	k := b.RawMatrix().Cols
	saved := mat.DenseCopyOf(b)
	r := mat.NewDense(k, k, nil)
	for i := 0; i < k; i++ {
		r.Set(i, i, 1)
	}
	for round := 0; round < 2; round++ {
		ri, ok := cholQRStep(b)
		if !ok {
			b.Copy(saved)
			return householderQR(b)
		}
		r.Mul(ri, r)
	}
	return r
}

// cholQRStep sets b ← b R⁻¹ with RᵀR = bᵀb and returns R.
func cholQRStep(b *mat.Dense) (*mat.Dense, bool) {
	raw := b.RawMatrix()
	k := raw.Cols
	g := blas64.General{Rows: k, Cols: k, Stride: k, Data: make([]float64, k*k)}
	blas64.Gemm(blas.Trans, blas.NoTrans, 1, raw, raw, 0, g)
	tri, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: k, Stride: k, Data: g.Data})
	if !ok {
		return nil, false
	}
	for i := 0; i < k; i++ {
		if !(tri.Data[i*k+i] > 0) || math.IsInf(tri.Data[i*k+i], 0) {
			return nil, false
		}
	}
	blas64.Trsm(blas.Right, blas.NoTrans, 1, tri, raw)
	r := mat.NewDense(k, k, nil)
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			r.Set(i, j, tri.Data[i*k+j])
		}
	}
	return r, true
}

// householderQR overwrites b with the Q of its Householder QR and returns R.
func householderQR(b *mat.Dense) *mat.Dense {
	raw := b.RawMatrix()
	n, k := raw.Rows, raw.Cols
	tau := make([]float64, k)
	work := make([]float64, 1)
	lapack64.Geqrf(raw, tau, work, -1)
	work = make([]float64, int(work[0]))
	lapack64.Geqrf(raw, tau, work, len(work))
	r := mat.NewDense(k, k, nil)
	for i := 0; i < k; i++ {
		for j := i; j < k; j++ {
			r.Set(i, j, raw.Data[i*raw.Stride+j])
		}
	}
	work = make([]float64, 1)
	lapack64.Orgqr(raw, tau, work, -1)
	work = make([]float64, max(int(work[0]), n))
	lapack64.Orgqr(raw, tau, work, len(work))
	return r
}
