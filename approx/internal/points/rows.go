package points

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// Chunk is the number of rows of a kernel matrix formed at a time by Exact
// on sparse data (and by approx's quality measures): dense chunk×n blocks
// keep memory at O(Chunk·n) whatever the number of rows asked for.
const Chunk = 64

// PlanChunk is the number of rows the memory plans count as worked on at
// once (the score estimators' chunks, k-means's distance blocks); the
// engines' own blocks are smaller, so the plans are upper bounds.
const PlanChunk = 2048

// Data returns x as the samplers read it: a sparse matrix as it is,
// anything else as a *mat.Dense (kernel.DenseOf).
func Data(x mat.Matrix) mat.Matrix {
	if s, ok := x.(kernel.Sparse); ok {
		return s
	}
	return kernel.DenseOf(x)
}

// Check validates X as returned by Data: a dense matrix with check.Matrix,
// a sparse one by CheckSparse.
func Check(x mat.Matrix) error {
	if s, ok := x.(kernel.Sparse); ok {
		return CheckSparse(s, 0)
	}
	return check.Matrix("X", x.(*mat.Dense))
}

// CheckSparse checks that sparse X is non-empty with consistent CSR arrays,
// column indices strictly ascending within a row and inside the declared
// dimension (a repeated index is an error), and finite values; d, when
// positive, must equal the declared number of columns. An empty row is the
// zero vector.
func CheckSparse(x kernel.Sparse, d int) error {
	n, c := x.Dims()
	if n <= 0 || c <= 0 {
		return fmt.Errorf("%w: X is empty (%d×%d)", check.ErrInput, n, c)
	}
	if d > 0 && c != d {
		return fmt.Errorf("%w: X has %d columns, want %d", check.ErrInput, c, d)
	}
	indptr, indices, values := x.CSR()
	if len(indptr) != n+1 || indptr[0] != 0 || indptr[n] != len(indices) || len(indices) != len(values) {
		return fmt.Errorf("%w: X: sparse arrays inconsistent (rows %d, indptr %d, indices %d, values %d)",
			check.ErrInput, n, len(indptr), len(indices), len(values))
	}
	for i := 0; i < n; i++ {
		if indptr[i+1] < indptr[i] {
			return fmt.Errorf("%w: X: row pointers decrease at row %d", check.ErrInput, i)
		}
		prev := int32(-1)
		for p := indptr[i]; p < indptr[i+1]; p++ {
			j := indices[p]
			if j <= prev || int(j) >= c {
				return fmt.Errorf("%w: X row %d: column %d after %d (columns must ascend, below %d)", check.ErrInput, i, j, prev, c)
			}
			if v := values[p]; math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: X[%d,%d] is %v", check.ErrInput, i, j, v)
			}
			prev = j
		}
	}
	return nil
}

// Gather returns a new dense matrix holding the rows idx of x (dense,
// float32 (*kernel.Dense32) or sparse), in that order.
func Gather(x mat.Matrix, idx []int) *mat.Dense {
	if len(idx) == 0 {
		return &mat.Dense{}
	}
	_, d := x.Dims()
	out := mat.NewDense(len(idx), d, nil)
	if s, ok := x.(kernel.Sparse); ok {
		for i, r := range idx {
			kernel.DenseRow(out.RawRowView(i), s, r)
		}
		return out
	}
	if x32, ok := x.(*kernel.Dense32); ok {
		for i, r := range idx {
			row := out.RawRowView(i)
			for j, v := range x32.RawRow(r) {
				row[j] = float64(v)
			}
		}
		return out
	}
	xd := x.(*mat.Dense)
	for i, r := range idx {
		out.SetRow(i, xd.RawRowView(r))
	}
	return out
}

// Landmarks returns the rows idx of x as landmarks: for sparse x a CSR copy
// of those rows (kernel.SubsetRows), or its dense copy when at least a
// quarter of its entries are non-zero (kernel.PreferDenseCenters); for dense
// x a dense copy (Gather).
func Landmarks(x mat.Matrix, idx []int) mat.Matrix {
	s, ok := x.(kernel.Sparse)
	if !ok {
		return Gather(x, idx)
	}
	sub := kernel.SubsetRows(s, idx)
	if len(idx) > 0 && kernel.PreferDenseCenters(sub) {
		return kernel.DenseOf(sub)
	}
	return sub
}

// Block writes K(X_idx, Z) into dst for the rows idx of x and dense points
// z: the kernel's Block on a dense copy of the rows, or kernel.SparseBlock on
// the sparse rows (no dense copy). The shapes must agree (a panic
// otherwise: they are the calling package's own).
func Block(k kernel.Kernel, dst *mat.Dense, x mat.Matrix, idx []int, z *mat.Dense) {
	if xs, ok := x.(kernel.Sparse); ok {
		if err := kernel.SparseBlock(k, dst, kernel.SubsetRows(xs, idx), z); err != nil {
			panic(err)
		}
		return
	}
	k.Block(dst, Gather(x, idx), z)
}

// Exact writes the exact kernel rows k(x_i, X), i in idx, into dst
// (len(idx)×n). Dense x: one engine block between the gathered rows and x.
// Sparse x: the rows are taken as CSR centers (Landmarks) Chunk at a time,
// and the engine's sparse path forms K(X, points) (n×chunk), whose
// transpose is copied into dst; the kernel is symmetric, so the two agree to
// round-off (the sparse path forms ‖x‖² + ‖c‖² − 2x·c from the non-zeros;
// nothing of size chunk·d is allocated). workers is the engine's (0:
// GOMAXPROCS).
func Exact(ctx context.Context, k kernel.Kernel, x mat.Matrix, idx []int, dst *mat.Dense, workers int) error {
	s, sparse := x.(kernel.Sparse)
	opt := kernel.Options{Workers: workers}
	if !sparse {
		return kernel.NewOp(k, Gather(x, idx), x.(*mat.Dense), opt).Block(ctx, dst)
	}
	n, _ := x.Dims()
	for c0 := 0; c0 < len(idx); c0 += Chunk {
		chunk := idx[c0:min(c0+Chunk, len(idx))]
		t := mat.NewDense(n, len(chunk), nil)
		if err := kernel.NewOp(k, s, Landmarks(x, chunk), opt).Block(ctx, t); err != nil {
			return err
		}
		dst.Slice(c0, c0+len(chunk), 0, n).(*mat.Dense).Copy(t.T())
	}
	return nil
}

// Iota returns 0, 1, …, n−1.
func Iota(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// Sample returns m distinct indices of [0, n) drawn uniformly, sorted. It
// runs a partial Fisher–Yates shuffle of a virtual identity array,
// remembering only the swapped positions, so it costs O(m) memory and time
// whatever n is. The map is only looked up, never iterated, so the result
// depends on rng alone.
func Sample(n, m int, rng *rand.Rand) []int {
	swapped := make(map[int]int, 2*m)
	at := func(i int) int {
		if v, ok := swapped[i]; ok {
			return v
		}
		return i
	}
	idx := make([]int, m)
	for i := 0; i < m; i++ {
		j := i + rng.IntN(n-i)
		vi, vj := at(i), at(j)
		idx[i] = vj
		swapped[j] = vi
		swapped[i] = vj
	}
	slices.Sort(idx)
	return idx
}
