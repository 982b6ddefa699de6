package datasets

import (
	"fmt"
	"math"

	"github.com/landmark-ml/landmark/kernel"
)

// The scalers on float32 rows (a *kernel.Dense32, data read with
// ReadOptions.Float32): the statistics are computed in float64 from the
// float32 values, with the float64 methods' arithmetic in their order, and
// the scaled values are computed in float64 and rounded to float32. Data
// whose values float32 holds exactly (integers below 2²⁴, such as covtype's
// or MNIST's) therefore get the statistics of the float64 rows bit for bit,
// and the scaled rows are float32 of the float64 scaled rows; other data
// are rounded once before the scaling and once after.

// rows32 returns x's row i widened to float64 in a buffer that the next
// call reuses.
func rows32(x *kernel.Dense32) func(i int) []float64 {
	_, c := x.Dims()
	buf := make([]float64, c)
	return func(i int) []float64 {
		for j, v := range x.RawRow(i) {
			buf[j] = float64(v)
		}
		return buf
	}
}

// check32 checks that x is a non-empty finite float32 matrix with d columns
// (any number when d < 0).
func check32(x *kernel.Dense32, d int) error {
	if x == nil {
		return fmt.Errorf("datasets: %w: X is empty", ErrInput)
	}
	if err := x.CheckFinite("X"); err != nil {
		return checked(err)
	}
	if _, c := x.Dims(); d >= 0 && c != d {
		return fmt.Errorf("datasets: %w: X has %d columns, the model was fitted on %d", ErrInput, c, d)
	}
	return nil
}

// mapColumns32 sets x[i,j] = float32(f(j, x[i,j])) in place. A value whose
// rounding is an infinity is an error (wrapping ErrFloat32Range) naming
// it; x is then partly transformed.
func mapColumns32(x *kernel.Dense32, f func(j int, v float64) float64) error {
	n, _ := x.Dims()
	for i := range n {
		row := x.RawRow(i)
		for j, v := range row {
			w := f(j, float64(v))
			row[j] = float32(w)
			if math.IsInf(float64(row[j]), 0) {
				return fmt.Errorf("datasets: %w: X[%d,%d] = %g scaled is %g: %w", ErrInput, i, j, v, w, ErrFloat32Range)
			}
		}
	}
	return nil
}

// Fit32 is Fit on float32 rows, without a float64 copy of them.
func (s *Standardizer) Fit32(x *kernel.Dense32) error {
	if err := check32(x, -1); err != nil {
		return err
	}
	n, c := x.Dims()
	s.Mean, s.Std, _, _ = columnStatsOf(n, c, rows32(x))
	return nil
}

// TransformInPlace32 is TransformInPlace on float32 rows: each value
// becomes float32 of its float64 Transform.
func (s *Standardizer) TransformInPlace32(x *kernel.Dense32) error {
	if s.Mean == nil {
		return ErrNotFitted
	}
	if err := check32(x, len(s.Mean)); err != nil {
		return err
	}
	return mapColumns32(x, s.value)
}

// Fit32 is Fit on float32 rows, without a float64 copy of them.
func (m *MinMax) Fit32(x *kernel.Dense32) error {
	if _, _, err := m.bounds(); err != nil {
		return err
	}
	if err := check32(x, -1); err != nil {
		return err
	}
	n, c := x.Dims()
	_, _, m.Min, m.Max = columnStatsOf(n, c, rows32(x))
	return nil
}

// TransformInPlace32 is TransformInPlace on float32 rows: each value
// becomes float32 of its float64 Transform.
func (m *MinMax) TransformInPlace32(x *kernel.Dense32) error {
	if m.Min == nil || len(m.Max) != len(m.Min) {
		return ErrNotFitted
	}
	if err := check32(x, len(m.Min)); err != nil {
		return err
	}
	lo, hi, err := m.bounds()
	if err != nil {
		return err
	}
	return mapColumns32(x, m.mapper(lo, hi))
}

// TransformInPlace32 is TransformInPlace on float32 rows: each value
// becomes float32 of its float64 product with the column's factor. (Fit
// takes a *kernel.Dense32 as it is, without a float64 copy.)
func (c *ColumnScaler) TransformInPlace32(x *kernel.Dense32) error {
	switch {
	case c.Factors == nil:
		return ErrNotFitted
	case c.Columns != nil:
		return fmt.Errorf("datasets: %w: a column scaling fitted on wide sparse data (%d columns) applies to sparse data only", ErrInput, c.Dim)
	}
	if err := check32(x, len(c.Factors)); err != nil {
		return err
	}
	return mapColumns32(x, c.value)
}
