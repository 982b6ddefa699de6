package cluster

import (
	"context"
	"math"

	"github.com/landmark-ml/landmark/internal/parallel"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// k-means on sparse rows (kernel.Sparse, such as datasets.CSR) with dense
// centroids: the squared distance of a row x to a centroid c is
// ‖x‖² + ‖c‖² − 2x·c with x·c summed over x's non-zeros only (a gather from
// the dense centroid), so an assignment costs nnz(x) per centroid instead of
// d, and X is never densified. The means are accumulated from the non-zeros.
// In sketch mode each sparse row is projected to the p-dimensional sketch
// space from its non-zeros (Σ_k x_k R[:, k]) and the rest runs dense.

// kmSpace is the clustered sample of kmLloyd: dense rows or sparse rows.
type kmSpace interface {
	Dims() (r, c int)
	// nearest is kmNearest on these rows against dense centroids c.
	nearest(ctx context.Context, lab []int, dist []float64, c *mat.Dense) error
	// means is kmMeans on these rows.
	means(c *mat.Dense, lab []int)
	// copyRow writes row i, densified, into dst (len d).
	copyRow(dst []float64, i int)
	// dots sets dots[i] = x_i·v for every row, in parallel chunks.
	dots(ctx context.Context, dst, v []float64) error
	// sqNorms returns ‖x_i‖² for every row.
	sqNorms() []float64
}

// denseKM is a dense sample.
type denseKM struct{ x *mat.Dense }

func (s denseKM) Dims() (int, int) { return s.x.Dims() }
func (s denseKM) nearest(ctx context.Context, lab []int, dist []float64, c *mat.Dense) error {
	return kmNearest(ctx, lab, dist, s.x, nil, c)
}
func (s denseKM) means(c *mat.Dense, lab []int) { kmMeans(c, s.x, lab) }
func (s denseKM) copyRow(dst []float64, i int)  { copy(dst, s.x.RawRowView(i)) }
func (s denseKM) sqNorms() []float64 {
	n, _ := s.x.Dims()
	sn := make([]float64, n)
	for i := range sn {
		r := s.x.RawRowView(i)
		sn[i] = kmDot(r, r)
	}
	return sn
}

// dots computes one matrix-vector product per chunk of 1024 rows (each
// row's value does not depend on the chunking).
func (s denseKM) dots(ctx context.Context, dst, v []float64) error {
	n, d := s.x.Dims()
	const chunk = 1024
	sr := s.x.RawMatrix()
	return parallel.For(ctx, (n+chunk-1)/chunk, 0, func(_, b int) {
		r0, r1 := b*chunk, min((b+1)*chunk, n)
		blk := blas64.General{Rows: r1 - r0, Cols: d, Stride: sr.Stride, Data: sr.Data[r0*sr.Stride:]}
		blas64.Gemv(blas.NoTrans, 1, blk, blas64.Vector{N: d, Inc: 1, Data: v}, 0, blas64.Vector{N: r1 - r0, Inc: 1, Data: dst[r0:r1]})
	})
}

// sparseKM is a sparse sample.
type sparseKM struct{ x kernel.Sparse }

func (s sparseKM) Dims() (int, int) { return s.x.Dims() }
func (s sparseKM) nearest(ctx context.Context, lab []int, dist []float64, c *mat.Dense) error {
	return kmNearestSparse(ctx, lab, dist, s.x, c)
}
func (s sparseKM) means(c *mat.Dense, lab []int) { kmMeansSparse(c, s.x, lab) }
func (s sparseKM) copyRow(dst []float64, i int)  { kernel.DenseRow(dst, s.x, i) }
func (s sparseKM) sqNorms() []float64 {
	n, _ := s.x.Dims()
	indptr, _, values := s.x.CSR()
	sn := make([]float64, n)
	for i := range sn {
		var t float64
		for _, v := range values[indptr[i]:indptr[i+1]] {
			t += v * v
		}
		sn[i] = t
	}
	return sn
}
func (s sparseKM) dots(ctx context.Context, dst, v []float64) error {
	n, _ := s.x.Dims()
	indptr, indices, values := s.x.CSR()
	const chunk = 1024
	return parallel.For(ctx, (n+chunk-1)/chunk, 0, func(_, b int) {
		for i := b * chunk; i < min((b+1)*chunk, n); i++ {
			var t float64
			for p := indptr[i]; p < indptr[i+1]; p++ {
				t += values[p] * v[indices[p]]
			}
			dst[i] = t
		}
	})
}

// kmNearestSparse is kmNearest for sparse rows x and dense centroids c
// (ties to the lowest index). Rows are processed in fixed blocks; each row's
// result depends only on the row.
func kmNearestSparse(ctx context.Context, lab []int, dist []float64, x kernel.Sparse, c *mat.Dense) error {
	n, _ := x.Dims()
	k, _ := c.Dims()
	cn := make([]float64, k)
	for j := range cn {
		r := c.RawRowView(j)
		cn[j] = kmDot(r, r)
	}
	indptr, indices, values := x.CSR()
	nb := (n + assignRows - 1) / assignRows
	return parallel.For(ctx, nb, 0, func(_, b int) {
		for i := b * assignRows; i < min((b+1)*assignRows, n); i++ {
			idx, val := indices[indptr[i]:indptr[i+1]], values[indptr[i]:indptr[i+1]]
			xx := kmDot(val, val)
			best, bv := 0, math.Inf(1)
			for j := 0; j < k; j++ {
				cj := c.RawRowView(j)
				var t float64
				for p, col := range idx {
					t += val[p] * cj[col]
				}
				if e := xx + cn[j] - 2*t; e < bv {
					best, bv = j, e
				}
			}
			lab[i] = best
			if dist != nil {
				dist[i] = max(bv, 0)
			}
		}
	})
}

// kmMeansSparse is kmMeans for sparse rows: each centroid is the sum of its
// members' non-zeros (in row order) over their count, summed in place.
func kmMeansSparse(c *mat.Dense, x kernel.Sparse, lab []int) {
	cnt := kmStartMeans(c, lab)
	indptr, indices, values := x.CSR()
	for i, l := range lab {
		acc := c.RawRowView(l)
		for p := indptr[i]; p < indptr[i+1]; p++ {
			acc[indices[p]] += values[p]
		}
	}
	kmEndMeans(c, cnt)
}

// kmProjectSparse writes sk·x for the sparse row x into dst (len p):
// Σ_k x_k sk[:, k] over the non-zeros in column order.
func kmProjectSparse(dst []float64, sk *mat.Dense, idx []int32, val []float64) {
	clear(dst)
	raw := sk.RawMatrix()
	for q, c := range idx {
		v := val[q]
		for r := range dst {
			dst[r] += v * raw.Data[r*raw.Stride+int(c)]
		}
	}
}

// kmSketchSparse projects the rows rowsIdx of x (all when nil) into a dense
// s×p matrix.
func kmSketchSparse(x kernel.Sparse, sk *mat.Dense, rowsIdx []int) *mat.Dense {
	n, _ := x.Dims()
	p, _ := sk.Dims()
	if rowsIdx != nil {
		n = len(rowsIdx)
	}
	out := mat.NewDense(n, p, nil)
	indptr, indices, values := x.CSR()
	for r := 0; r < n; r++ {
		i := r
		if rowsIdx != nil {
			i = rowsIdx[r]
		}
		kmProjectSparse(out.RawRowView(r), sk, indices[indptr[i]:indptr[i+1]], values[indptr[i]:indptr[i+1]])
	}
	return out
}
