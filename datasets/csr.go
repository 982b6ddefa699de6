package datasets

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// CSR is a sparse matrix in compressed sparse row form: row i holds the
// values Values[Indptr[i]:Indptr[i+1]] at the 0-based column indices
// Indices[Indptr[i]:Indptr[i+1]], strictly increasing within a row. An empty
// row is the zero vector. Storage is about 12 bytes per non-zero (a float64
// value and an int32 index) plus one int per row.
//
// CSR implements mat.Matrix, so it can be passed wherever Landmark takes data
// X, and kernel.Sparse, through which the kernel package recognizes it.
// Estimators that have no sparse path yet work on a dense copy (kernel.DenseOf).
type CSR struct {
	Indptr  []int
	Indices []int32
	Values  []float64
	rows    int
	cols    int
}

var (
	_ mat.Matrix    = (*CSR)(nil)
	_ kernel.Sparse = (*CSR)(nil)
)

// NewCSR returns the rows×cols CSR matrix with the given arrays, after
// checking them: len(indptr) = rows+1, indptr starts at 0 and never
// decreases, indices ascend strictly within each row and lie in [0, cols),
// and every value is finite. The slices are used, not copied.
func NewCSR(rows, cols int, indptr []int, indices []int32, values []float64) (*CSR, error) {
	if rows <= 0 || cols <= 0 {
		return nil, fmt.Errorf("datasets: %w: csr dimensions %d×%d must be positive", ErrInput, rows, cols)
	}
	if len(indptr) != rows+1 || indptr[0] != 0 || indptr[rows] != len(indices) || len(indices) != len(values) {
		return nil, fmt.Errorf("datasets: %w: csr arrays inconsistent (rows %d, indptr %d, indices %d, values %d)",
			ErrInput, rows, len(indptr), len(indices), len(values))
	}
	for i := 0; i < rows; i++ {
		if indptr[i+1] < indptr[i] {
			return nil, fmt.Errorf("datasets: %w: csr indptr decreases at row %d", ErrInput, i)
		}
		prev := int32(-1)
		for p := indptr[i]; p < indptr[i+1]; p++ {
			j := indices[p]
			switch {
			case j == prev:
				return nil, fmt.Errorf("datasets: %w: csr row %d: column %d repeated", ErrInput, i, j)
			case j < prev:
				return nil, fmt.Errorf("datasets: %w: csr row %d: column %d after %d, columns must ascend", ErrInput, i, j, prev)
			case int(j) >= cols:
				return nil, fmt.Errorf("datasets: %w: csr row %d: column %d beyond the dimension %d", ErrInput, i, j, cols)
			}
			if v := values[p]; math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("datasets: %w: csr row %d column %d: value %v is not finite", ErrInput, i, j, v)
			}
			prev = j
		}
	}
	return &CSR{Indptr: indptr, Indices: indices, Values: values, rows: rows, cols: cols}, nil
}

// Dims returns the numbers of rows and columns.
func (m *CSR) Dims() (r, c int) { return m.rows, m.cols }

// At returns the element at row i, column j (a binary search in row i).
func (m *CSR) At(i, j int) float64 {
	if i < 0 || i >= m.rows || j < 0 || j >= m.cols {
		panic(mat.ErrIndexOutOfRange)
	}
	lo, hi := m.Indptr[i], m.Indptr[i+1]
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if int(m.Indices[mid]) < j {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < m.Indptr[i+1] && int(m.Indices[lo]) == j {
		return m.Values[lo]
	}
	return 0
}

// T returns the implicit transpose.
func (m *CSR) T() mat.Matrix { return mat.Transpose{Matrix: m} }

// CSR returns the row pointers, column indices and values (kernel.Sparse).
func (m *CSR) CSR() (indptr []int, indices []int32, values []float64) {
	return m.Indptr, m.Indices, m.Values
}

// NNZ is the number of stored entries.
func (m *CSR) NNZ() int { return len(m.Values) }

// Density is NNZ / (rows·cols).
func (m *CSR) Density() float64 { return float64(m.NNZ()) / (float64(m.rows) * float64(m.cols)) }

// RowNorms writes ‖x_i‖² of every row into dst (len rows) and returns it; a
// nil dst is allocated.
func (m *CSR) RowNorms(dst []float64) []float64 {
	if dst == nil {
		dst = make([]float64, m.rows)
	}
	for i := 0; i < m.rows; i++ {
		var s float64
		for _, v := range m.Values[m.Indptr[i]:m.Indptr[i+1]] {
			s += v * v
		}
		dst[i] = s
	}
	return dst
}

// Rows returns a new CSR with the rows idx of m, in that order (repeats
// allowed). It is an error for idx to be empty or out of range.
func (m *CSR) Rows(idx []int) (*CSR, error) {
	if len(idx) == 0 {
		return nil, fmt.Errorf("datasets: %w: csr row subset is empty", ErrInput)
	}
	nnz := 0
	for _, i := range idx {
		if i < 0 || i >= m.rows {
			return nil, fmt.Errorf("datasets: %w: csr row %d out of range [0, %d)", ErrInput, i, m.rows)
		}
		nnz += m.Indptr[i+1] - m.Indptr[i]
	}
	out := &CSR{Indptr: make([]int, 1, len(idx)+1), Indices: make([]int32, 0, nnz), Values: make([]float64, 0, nnz), rows: len(idx), cols: m.cols}
	for _, i := range idx {
		out.Indices = append(out.Indices, m.Indices[m.Indptr[i]:m.Indptr[i+1]]...)
		out.Values = append(out.Values, m.Values[m.Indptr[i]:m.Indptr[i+1]]...)
		out.Indptr = append(out.Indptr, len(out.Values))
	}
	return out, nil
}

// ToDense returns a dense copy (rows·cols·8 bytes).
func (m *CSR) ToDense() *mat.Dense { return kernel.DenseOf(m) }

// ReadLIBSVMSparse reads LIBSVM/svmlight text from r into a CSR matrix and
// labels without forming a dense matrix; the file format, dim and errors are
// those of ReadLIBSVM (a repeated index within a row is a *ParseError with
// its line, an index above a positive dim too). Empty rows are valid.
func ReadLIBSVMSparse(ctx context.Context, r io.Reader, dim int) (*CSR, []float64, error) {
	return ReadLIBSVMSparseWith(ctx, r, ReadOptions{Dim: dim})
}

// ReadLIBSVMSparseWith is ReadLIBSVMSparse with options: Dim, ZeroBased,
// AllowUnlabelled (the labels are then nil for a file whose rows start with
// index:value), MaxRows, Progress and Float32 (a value beyond float32's
// range is a *ParseError; the values stay float64); the others do not
// apply to LIBSVM.
func ReadLIBSVMSparseWith(ctx context.Context, r io.Reader, opt ReadOptions) (*CSR, []float64, error) {
	opt.sparse = true
	s, d, err := parseLIBSVM(ctx, r, opt)
	if err != nil {
		return nil, nil, err
	}
	if s.at != nil {
		return s.placedCSR(d), s.labels(), nil
	}
	return s.csr(d), s.labels(), nil
}

// csr assembles the parsed rows into a CSR matrix with d columns.
func (s *sparseRows) csr(d int) *CSR {
	n := len(s.y)
	m := &CSR{Indptr: make([]int, n+1), Indices: make([]int32, s.n), Values: make([]float64, s.n), rows: n, cols: d}
	copy(m.Indptr, s.start)
	for e := 0; e < s.n; e++ {
		c, o := e>>chunkBits, e&(1<<chunkBits-1)
		m.Indices[e] = s.idx[c][o] - 1
		m.Values[e] = s.val[c][o]
	}
	return m
}

// ForModel returns m read for a model fitted on d columns: m itself with d
// declared columns when every stored index is below d (a test file whose
// largest index is smaller than the training file's shares m's arrays), and
// m unchanged otherwise, together with the number of rows holding a non-zero
// at a column ≥ d and the number of such distinct columns — coordinates in
// which every training row is zero, which the estimators accept for sparse
// data as LIBSVM does. It takes memory ∝ the non-zeros beyond d.
func (m *CSR) ForModel(d int) (x *CSR, rows, cols int) {
	var far []int32
	for i := 0; i < m.rows; i++ {
		hit := false
		for _, j := range m.Indices[m.Indptr[i]:m.Indptr[i+1]] {
			if int(j) >= d {
				far, hit = append(far, j), true
			}
		}
		if hit {
			rows++
		}
	}
	if rows == 0 {
		if m.cols == d {
			return m, 0, 0
		}
		return &CSR{Indptr: m.Indptr, Indices: m.Indices, Values: m.Values, rows: m.rows, cols: d}, 0, 0
	}
	slices.Sort(far)
	return m, rows, len(slices.Compact(far))
}
