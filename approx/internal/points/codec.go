package points

import (
	"math"

	"github.com/landmark-ml/landmark/internal/binfmt"
	"github.com/landmark-ml/landmark/internal/kernelbin"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// Encode writes a dense matrix of rows in the original feature space
// (k-means centroids, MEKA's landmark rows) as a CSR field when that field
// is smaller than the dense one, as it is for centroids and rows of sparse
// data, else as a dense field. Only entries whose bit pattern is +0 are left
// out of the CSR field, so the rows read back bit for bit (Decode). Both
// sizes are computed exactly before anything is written; the CSR arrays,
// built only when they win, hold fewer bytes than the dense matrix.
func Encode(e *binfmt.Enc, m *mat.Dense) error {
	if m == nil || m.IsEmpty() {
		e.Dense(m)
		return nil
	}
	r, c := m.Dims()
	if int64(c) > binfmt.MaxCSRCols {
		e.Dense(m)
		return nil
	}
	// The fields share the kind byte and the row and column counts; the
	// dense one then holds 8rc bytes, the CSR one the non-zero count, the
	// row counts, the index gaps and 8 bytes a value.
	nnz, size := 0, 0
	for i := 0; i < r; i++ {
		k, prev := 0, -1
		for j, v := range m.RawRowView(i) {
			if math.Float64bits(v) != 0 {
				size += uvarintLen(uint64(j-prev-1)) + 8
				prev = j
				k++
			}
		}
		size += uvarintLen(uint64(k))
		nnz += k
	}
	size += uvarintLen(uint64(nnz))
	if int64(size) >= 8*int64(r)*int64(c) {
		e.Dense(m)
		return nil
	}
	indptr := make([]int, 1, r+1)
	indices := make([]int32, 0, nnz)
	values := make([]float64, 0, nnz)
	for i := 0; i < r; i++ {
		for j, v := range m.RawRowView(i) {
			if math.Float64bits(v) != 0 {
				indices = append(indices, int32(j))
				values = append(values, v)
			}
		}
		indptr = append(indptr, len(values))
	}
	return e.CSR(c, indptr, indices, values)
}

// uvarintLen is the length of v as an unsigned varint.
func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// Decode reads a matrix written by Encode (or, in files before format
// version 3 and for dense rows, by Enc.Dense) as a dense matrix that must be
// present, finite and of the given shape (a negative dimension means any).
func Decode(d *binfmt.Dec, what string, rows, cols int) *mat.Dense {
	m := kernelbin.ReadData(d, what, rows, cols)
	if d.Err() != nil || m == nil {
		return nil
	}
	return kernel.DenseOf(m)
}

// Finite reports whether every entry of m is finite.
func Finite(m *mat.Dense) bool {
	r, c := m.Dims()
	for i := 0; i < r; i++ {
		for _, v := range m.RawRowView(i)[:c] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
	}
	return true
}
