package kernel

import (
	"math"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// This file is the engine's path for sparse X (CSR rows) against dense
// centers C. Op keeps its structure — row blocks on all workers, per-worker
// scratch, the fixed-order reductions — and only the step that forms the
// dot products x·c_j of a block changes:
//
//   - Low density (below sparseDenseFrom): C is stored transposed, d×mp
//     (row k holds feature k of every center, zero-padded to the panel
//     width), so each non-zero x_k of a row adds x_k·Cᵀ[k] to the row's
//     M dot products with one contiguous axpy; a row costs nnz(x)·M
//     multiply-adds and never touches its zeros. Summation runs over the
//     non-zeros in column order, fixed whatever the scheduling.
//   - High density: the block's rows are expanded to dense and go through
//     the dense path's packed tile kernels (which beat the scattered axpys
//     when most of each row is non-zero, as on mnist).
//
// Either way, the kernel values then come from the same code as the dense
// path (‖x‖² + ‖c‖² − 2x·c and the vectorized exp for the Gaussian), with
// ‖x‖² summed over the non-zeros only. The Laplacian kernel uses the L1 merge
// ‖x − c‖₁ = Σ_k |c_k| + Σ_{k∈nz(x)} (|x_k − c_k| − |c_k|) on the transposed
// centers. Options.Float32 does not apply to sparse X (products run in
// float64).

// sparseDenseFrom is the density (non-zeros / (n·d)) from which the engine
// expands row blocks of sparse X to dense instead of accumulating axpys over
// the transposed centers. An axpy over Cᵀ[k] streams M doubles from memory
// per non-zero, while the dense tile kernel reuses a packed panel from L1
// over 8 rows. BenchmarkSparseMulTMul (Gaussian MulTMul, n = 4,000,
// M = 2,000, d = 784, 2-core AVX-512 machine at load 9.7) took, axpy vs
// dense blocks: 0.19 vs 0.38 s at density 0.05, 0.43 vs 0.39 s at 0.1,
// 0.79 vs 0.41 s at 0.2 (all-dense 0.38 s): they break even near 0.09.
// mnist (≈ 0.19) is on the dense side.
const sparseDenseFrom = 0.08

// denseFrom is the threshold in use: sparseDenseFrom, changed only by
// benchmarks that time both modes at one density.
var denseFrom = sparseDenseFrom

// sparsePlan is the part of a plan for sparse X.
type sparsePlan struct {
	indptr  []int
	indices []int32
	values  []float64
	// dense says row blocks are expanded to dense and use the dense kernels.
	dense bool
	ct    []float64 // Cᵀ, d×mp, zero-padded (not with dense)
	l1    []float64 // Laplacian: Σ_k |c_j[k]| for each center j, length mp
}

// initSparse records the CSR arrays of X and chooses dense or sparse blocks.
func (p *plan) initSparse(x Sparse) {
	indptr, indices, values := x.CSR()
	n, d := x.Dims()
	sp := &sparsePlan{indptr: indptr, indices: indices, values: values}
	_, lap := p.k.(Laplacian)
	// The Laplacian expands dense-enough blocks too when its L1 tiles can
	// run (l1.go): at d = 54 they beat the sparse merge 5–8× at densities
	// 0.05–0.5, at d = 784 2.2× at 0.1 and 3.8× at 0.2 (docs/performance.md,
	// "Laplacian kernel in SIMD").
	if _, ok := p.k.(dotForm); (ok || (lap && bestAccel != accelPortable)) && n > 0 && d > 0 {
		nnz := float64(indptr[n] - indptr[0])
		sp.dense = nnz >= denseFrom*float64(n)*float64(d)
	}
	if _, ok := p.k.(dotForm); !ok && !lap {
		sp.dense = true // other kernels: Block on dense rows
	}
	p.sp = sp
}

// rowNorms writes ‖x_i‖² (summed over the non-zeros in column order) into dst.
func (sp *sparsePlan) rowNorms(dst []float64) {
	for i := range dst {
		var s float64
		for _, v := range sp.values[sp.indptr[i]:sp.indptr[i+1]] {
			s += v * v
		}
		dst[i] = s
	}
}

// packSparse stores Cᵀ (and, for the Laplacian, Σ_k |c_j[k]|) when the
// sparse blocks need them.
func (p *plan) packSparse() {
	sp := p.sp
	if sp.dense {
		return
	}
	sp.ct = make([]float64, p.d*p.mp)
	// Transposed in strips of 8 centers, so that each write fills 8
	// consecutive doubles (one cache line) of a row of Cᵀ while 8 rows of C
	// are read in order: a center-by-center copy touches a new line of Cᵀ
	// per entry, ≈ 12 ns each at d = 50,000 (measured), and dominated
	// Nyström transforms of wide sparse data.
	const strip = 8
	for j0 := 0; j0 < p.m; j0 += strip {
		j1 := min(j0+strip, p.m)
		for k := 0; k < p.d; k++ {
			dst := sp.ct[k*p.mp+j0 : k*p.mp+j1]
			for j := range dst {
				dst[j] = p.c.Data[(j0+j)*p.c.Stride+k]
			}
		}
	}
	if _, ok := p.k.(Laplacian); ok {
		sp.l1 = make([]float64, p.mp)
		for j := 0; j < p.m; j++ {
			var s float64
			for _, v := range p.c.Data[j*p.c.Stride : j*p.c.Stride+p.d] {
				s += math.Abs(v)
			}
			sp.l1[j] = s
		}
	}
}

// denseRows expands rows [r0, r1) of X into w.xd and returns them as a
// (r1−r0)×d matrix.
func (sp *sparsePlan) denseRows(w *work, r0, r1, d int) blas64.General {
	rows := r1 - r0
	if len(w.xd) < rows*d {
		w.xd = make([]float64, rows*d)
	}
	xd := w.xd[:rows*d]
	clear(xd)
	for i := 0; i < rows; i++ {
		row := xd[i*d : (i+1)*d]
		for q := sp.indptr[r0+i]; q < sp.indptr[r0+i+1]; q++ {
			row[sp.indices[q]] = sp.values[q]
		}
	}
	return blas64.General{Rows: rows, Cols: d, Stride: d, Data: xd}
}

// sparseDots writes x_i·c_j into w.blk (stride mp, the padding getting
// zeros) for the rows of X[r0:r1]: one axpy over Cᵀ[k] per non-zero x_k.
func (p *plan) sparseDots(w *work, r0, r1 int) {
	sp, mp := p.sp, p.mp
	for i := r0; i < r1; i++ {
		out := w.blk[(i-r0)*mp : (i-r0+1)*mp]
		clear(out)
		for q := sp.indptr[i]; q < sp.indptr[i+1]; q++ {
			k, v := int(sp.indices[q]), sp.values[q]
			ck := sp.ct[k*mp : (k+1)*mp]
			switch w.acc {
			case accelAVX512:
				axpyAVX512(mp, v, &ck[0], &out[0])
			case accelAVX2:
				axpyAVX2(mp, v, &ck[0], &out[0])
			default:
				axpy(v, ck, out)
			}
		}
	}
}

// sparseKernelBlock forms K(X[r0:r1], C) into kb for kernels that are not
// functions of dot products: the Laplacian by its L1 merge over Cᵀ, any
// other kernel by its Block on the rows expanded to dense.
func (p *plan) sparseKernelBlock(w *work, r0, r1 int, kb blas64.General) {
	rows, m, mp := r1-r0, p.m, p.mp
	if rows == 0 || m == 0 {
		return
	}
	sp := p.sp
	lap, ok := p.k.(Laplacian)
	if !ok || sp.dense {
		var dst, xs, cs mat.Dense
		dst.SetRawMatrix(kb)
		xs.SetRawMatrix(sp.denseRows(w, r0, r1, p.d))
		cs.SetRawMatrix(p.c)
		p.k.Block(&dst, &xs, &cs)
		return
	}
	ng := -lap.Gamma
	for i := r0; i < r1; i++ {
		out := w.blk[(i-r0)*mp : (i-r0)*mp+m]
		copy(out, sp.l1[:m])
		for q := sp.indptr[i]; q < sp.indptr[i+1]; q++ {
			k, v := int(sp.indices[q]), sp.values[q]
			ck := sp.ct[k*mp : k*mp+m]
			for j, c := range ck {
				out[j] += math.Abs(v-c) - math.Abs(c)
			}
		}
		for j, s := range out {
			out[j] = expNeg(ng * math.Max(s, 0))
		}
	}
}

// sparseScratchBytes is ScratchBytes for sparse X: per worker one block of K
// and (dense blocks) the expanded and packed rows, the reductions' partial
// sums, the row norms, and what the plan keeps of C (packed panels or Cᵀ).
// The CSR arrays of X belong to the caller and are not counted.
func (o *Op) sparseScratchBytes(t int) int64 {
	n, m := o.Dims()
	d := int64(o.dim())
	b := o.BlockRows()
	mp := int64(roundUp(m, panelCols))
	w := o.scratchWorkers()
	seg := int64(segments((n+b-1)/b, int(mp)*t))
	if s, ok := o.panelScratchBytes(t); ok {
		return s
	}
	return 8*(seg*mp*int64(t)+mp*(d+2)+int64(n)) + w*(o.workBytes(t)+blockPackBytes(b, m, t)) + callBytes
}

// sparseDenseBlocks reports whether the Op expands blocks of its sparse X to
// dense (the choice initSparse makes).
func (o *Op) sparseDenseBlocks() bool {
	var p plan
	p.k = o.k
	p.initSparse(o.sx)
	return p.sp.dense
}
