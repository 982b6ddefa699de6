package kernel

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// SparseBlock writes K(X, C) into dst (rows(X)×rows(C)) for sparse rows X and
// dense centers C without densifying X. Dot-product kernels (Gaussian,
// polynomial, linear) use ‖x‖² + ‖c‖² − 2x·c with x·c summed over x's
// non-zeros only; the Laplacian kernel uses
// ‖x−c‖₁ = Σ_j |c_j| + Σ_{k∈nz(x)} (|x_k − c_k| − |c_k|), so the zeros of x
// cost nothing per center beyond the precomputed Σ_j |c_j|. Every sum runs in
// a fixed order (row by row, non-zeros in column order), so the result does
// not depend on scheduling. Other kernels get the scalar Eval on a dense copy
// of each row. This is the serial reference for the sparse engine path
// (sparse_engine.go), which Op uses for Sparse X.
func SparseBlock(k Kernel, dst *mat.Dense, x Sparse, c *mat.Dense) error {
	if k == nil || dst == nil || x == nil || c == nil {
		return fmt.Errorf("%w: sparse block needs a kernel, dst, X and C", ErrParam)
	}
	n, d := x.Dims()
	m, dc := c.Dims()
	if rd, cd := dst.Dims(); d != dc || rd != n || cd != m {
		return fmt.Errorf("%w: sparse block: X %d×%d, C %d×%d, dst %d×%d", ErrParam, n, d, m, dc, rd, cd)
	}
	indptr, indices, values := x.CSR()
	rc := c.RawMatrix()
	crow := func(j int) []float64 { return rc.Data[j*rc.Stride : j*rc.Stride+d] }
	switch kk := k.(type) {
	case Laplacian:
		l1 := make([]float64, m)
		for j := range l1 {
			var s float64
			for _, v := range crow(j) {
				s += math.Abs(v)
			}
			l1[j] = s
		}
		for i := 0; i < n; i++ {
			out := dst.RawRowView(i)
			for j := range out {
				cj := crow(j)
				s := l1[j]
				for p := indptr[i]; p < indptr[i+1]; p++ {
					cv := cj[indices[p]]
					s += math.Abs(values[p]-cv) - math.Abs(cv)
				}
				out[j] = expNeg(-kk.Gamma * math.Max(s, 0))
			}
		}
		return nil
	case dotForm:
		var cc []float64
		if kk.needsNorms() {
			cc = make([]float64, m)
			norms(cc, c)
		}
		for i := 0; i < n; i++ {
			out := dst.RawRowView(i)
			var xx float64
			for p := indptr[i]; p < indptr[i+1]; p++ {
				xx += values[p] * values[p]
			}
			for j := range out {
				cj := crow(j)
				var s float64
				for p := indptr[i]; p < indptr[i+1]; p++ {
					s += values[p] * cj[indices[p]]
				}
				out[j] = s
			}
			kk.fromDots(out, xx, cc)
		}
		return nil
	default:
		row := make([]float64, d)
		for i := 0; i < n; i++ {
			DenseRow(row, x, i)
			out := dst.RawRowView(i)
			for j := range out {
				out[j] = k.Eval(row, crow(j))
			}
		}
		return nil
	}
}
