package kernel

import (
	"fmt"
	"math"

	"github.com/landmark-ml/landmark/internal/check"
	"gonum.org/v1/gonum/mat"
)

// Dense32 is a dense row-major matrix of float32 values: data held in half
// the memory of a *mat.Dense. It is a mat.Matrix (At returns the float32
// value exactly, as a float64), and the engine reads it without a float64
// copy: an Op with a *Dense32 X and a dot-product kernel (Gaussian,
// polynomial, linear) and dense centers runs in Float32 mode whatever
// Options.Float32 says, packing its rows straight from the float32 values,
// which is what Float32 mode does with float64 rows after rounding them; the
// squared norms are those of the float32 values, in float64. With any other
// kernel, or sparse centers, the Op works on a float64 copy (DenseOf).
type Dense32 struct {
	rows, cols int
	data       []float32
}

// ErrShape is wrapped by NewDense32 and Dense32Of when the data does not
// have rows·cols values or a dimension is not positive. It wraps
// check.ErrInput (model.ErrInput).
var ErrShape = check.Sentinel("kernel: bad matrix shape", check.ErrInput)

// NewDense32 returns the rows×cols matrix whose row i is
// data[i·cols:(i+1)·cols]; it uses data, without a copy.
func NewDense32(rows, cols int, data []float32) (*Dense32, error) {
	if rows < 1 || cols < 1 || len(data) != rows*cols {
		return nil, fmt.Errorf("%w: %d values for %d×%d", ErrShape, len(data), rows, cols)
	}
	return &Dense32{rows: rows, cols: cols, data: data}, nil
}

// ErrFloat32Range is wrapped by the error for a finite value whose
// rounding to float32 is an infinity: a magnitude beyond math.MaxFloat32
// (≈ 3.4028235e38) by more than half its last place. It wraps
// check.ErrInput (model.ErrInput); datasets.ErrFloat32Range is the same
// sentinel, so one errors.Is finds the refusal wherever X was narrowed.
var ErrFloat32Range = check.Sentinel("value beyond float32's range", check.ErrInput)

// Dense32Of returns x with every value rounded to float32 (x must be
// non-empty; a Sparse x is expanded row by row). A *Dense32 is returned as
// it is. A finite value beyond float32's range is an error wrapping
// ErrFloat32Range that names its row and column (0-based), never a silent
// infinity; NaN and ±Inf are kept (the callers' finiteness checks refuse
// them). Tiny values lose precision as float32 does: below float32's
// smallest normal (≈ 1.2e-38) they become subnormal, below half its
// smallest subnormal (≈ 1.4e-45) zero; that underflow is not an error.
func Dense32Of(x mat.Matrix) (*Dense32, error) {
	if d, ok := x.(*Dense32); ok {
		return d, nil
	}
	if x == nil {
		return nil, fmt.Errorf("%w: nil matrix", ErrShape)
	}
	r, c := x.Dims()
	if r < 1 || c < 1 {
		return nil, fmt.Errorf("%w: %d×%d", ErrShape, r, c)
	}
	out := &Dense32{rows: r, cols: c, data: make([]float32, r*c)}
	row := make([]float64, c)
	for i := range r {
		switch v := x.(type) {
		case *mat.Dense:
			row = v.RawRowView(i)
		case Sparse:
			DenseRow(row, v, i)
		default:
			mat.Row(row, i, v)
		}
		for j, f := range row {
			v := float32(f)
			if math.IsInf(float64(v), 0) && !math.IsInf(f, 0) {
				return nil, float32RangeError(i, j, f)
			}
			out.data[i*c+j] = v
		}
	}
	return out, nil
}

// CheckFloat32Range returns the error Dense32Of would give for x: one
// wrapping ErrFloat32Range that names the first row and column (0-based)
// whose finite value rounds to an infinity in float32, or nil. It is for
// callers that keep x in float64 but round it later (float32 passes,
// float32 shards), so that the refusal comes before the work.
func CheckFloat32Range(x *mat.Dense) error {
	n, _ := x.Dims()
	for i := range n {
		for j, f := range x.RawRowView(i) {
			if math.IsInf(float64(float32(f)), 0) && !math.IsInf(f, 0) {
				return float32RangeError(i, j, f)
			}
		}
	}
	return nil
}

// float32RangeError is the refusal of f at row i, column j.
func float32RangeError(i, j int, f float64) error {
	return fmt.Errorf("kernel: %w: row %d, column %d: %g rounds to an infinity in float32 (beyond ±%g)", ErrFloat32Range, i, j, f, math.MaxFloat32)
}

// Dims returns the numbers of rows and columns.
func (m *Dense32) Dims() (int, int) { return m.rows, m.cols }

// At returns the value at row i, column j (panicking outside the matrix,
// as gonum's matrices do).
func (m *Dense32) At(i, j int) float64 {
	if uint(i) >= uint(m.rows) || uint(j) >= uint(m.cols) {
		panic(mat.ErrIndexOutOfRange)
	}
	return float64(m.data[i*m.cols+j])
}

// T returns the transpose (a view).
func (m *Dense32) T() mat.Matrix { return mat.Transpose{Matrix: m} }

// RawRow returns row i, sharing the matrix's storage.
func (m *Dense32) RawRow(i int) []float32 { return m.data[i*m.cols : (i+1)*m.cols] }

// Bytes is the size of the values, 4·rows·cols.
func (m *Dense32) Bytes() int64 { return 4 * int64(m.rows) * int64(m.cols) }

// CheckFinite returns an error wrapping check.ErrInput that names the
// first NaN or infinite value.
func (m *Dense32) CheckFinite(name string) error {
	for k, v := range m.data {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("%w: %s[%d,%d] is %v", check.ErrInput, name, k/m.cols, k%m.cols, v)
		}
	}
	return nil
}

// Rows returns rows [r0, r1) as a *Dense32 sharing the storage.
func (m *Dense32) Rows(r0, r1 int) *Dense32 {
	return &Dense32{rows: r1 - r0, cols: m.cols, data: m.data[r0*m.cols : r1*m.cols]}
}

// runs32 reports whether an Op with kernel k, this X and centers c reads X
// in float32: a dot-product kernel and dense centers.
func runs32(k Kernel, sparseC bool) bool {
	_, dot := k.(dotForm)
	return dot && !sparseC
}
