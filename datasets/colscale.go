package datasets

import (
	"fmt"
	"math"
	"slices"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// The kinds of ColumnScaler.
const (
	// ScaleMaxAbs divides each feature by its largest absolute training
	// value (scikit-learn's MaxAbsScaler), so values land in [−1, 1].
	ScaleMaxAbs = "maxabs"
	// ScaleStd divides each feature by its training standard deviation
	// (population form, divided by n) without centering (scikit-learn's
	// StandardScaler(with_mean=False)).
	ScaleStd = "std"
)

// ColumnScaler multiplies each feature by a factor fitted on training rows,
// without centering or shifting, so that zeros stay zeros and sparse (CSR)
// data stay sparse with the same non-zero structure. Kind is ScaleMaxAbs
// (factor 1/max|x|) or ScaleStd (factor 1/σ, with σ² the population
// variance of the column, its zeros included). A column that is zero
// everywhere (maxabs) or constant (std) keeps factor 1, as in
// scikit-learn. Fit on training data, then Transform training and test data
// alike.
//
// Dense and CSR data holding the same numbers give the same factors bit for
// bit: both visit the non-zeros in row order and count the zeros apart
// (adding a zero changes no floating-point sum), and Transform multiplies
// each entry by its column's factor in both forms.
type ColumnScaler struct {
	// Kind is ScaleMaxAbs or ScaleStd.
	Kind string `json:"kind"`
	// Factors are the fitted per-column multipliers: one per column of the
	// training data, or, when Columns is set, one per entry of Columns.
	Factors []float64 `json:"factors"`
	// Columns, when set, lists the 0-based columns Factors belong to, in
	// ascending order: the sparse form Fit uses for CSR data with more than
	// WideColumns columns, holding only the columns with a non-zero
	// training value, so that the factors take memory ∝ the non-zeros. Every
	// other column has factor 1 — exactly the factor the dense form gives a
	// column that is zero on every training row (maxabs and std alike, as
	// scikit-learn's MaxAbsScaler and StandardScaler(with_mean=False) leave
	// an all-zero column at scale 1).
	Columns []int32 `json:"columns,omitempty"`
	// Dim is the number of columns of the training data (set with Columns).
	Dim int `json:"dim,omitempty"`
}

// Factor returns the factor of column j (1 for a column beyond the training
// data's, a coordinate in which every training row is zero).
func (c *ColumnScaler) Factor(j int) float64 {
	if c.Columns != nil {
		if k, ok := slices.BinarySearch(c.Columns, int32(j)); ok && j <= math.MaxInt32 {
			return c.Factors[k]
		}
		return 1
	}
	if j < len(c.Factors) {
		return c.Factors[j]
	}
	return 1
}

// Fit computes the column factors of x: a *CSR from its non-zeros, any
// other mat.Matrix from its dense form. x must be non-empty and finite.
func (c *ColumnScaler) Fit(x mat.Matrix) error {
	if c.Kind != ScaleMaxAbs && c.Kind != ScaleStd {
		return fmt.Errorf("datasets: %w: unknown column scaling %q (want %s or %s)", ErrInput, c.Kind, ScaleMaxAbs, ScaleStd)
	}
	if x == nil {
		return fmt.Errorf("datasets: %w: X is nil", ErrInput)
	}
	var nz nonZeros
	var err error
	if s, ok := x.(*CSR); ok {
		err = nz.sparse(s)
	} else {
		err = nz.dense(x)
	}
	if err != nil {
		return err
	}
	if nz.n == 0 || nz.d == 0 {
		return fmt.Errorf("datasets: %w: X is empty", ErrInput)
	}
	d := nz.d
	if nz.cols != nil {
		d = len(nz.cols) // the statistics' slots
	}
	var f []float64
	switch c.Kind {
	case ScaleMaxAbs:
		f = maxAbsFactors(nz, d)
	case ScaleStd:
		f = stdFactors(nz, d)
	}
	c.Factors, c.Columns, c.Dim = f, nz.cols, 0
	if nz.cols != nil {
		c.Dim = nz.d
	}
	return nil
}

// nonZeros visits the non-zero values of a matrix by statistics slot: the
// column, or for a wide CSR the column's rank among those with a non-zero
// (cols).
type nonZeros struct {
	n, d int
	cols []int32 // the sparse form's columns (nil: dense form)
	each func(visit func(j int, v float64))
}

// sparse sets z to the non-zeros of s (stored zeros count as the dense
// path's zeros).
func (z *nonZeros) sparse(s *CSR) error {
	if s == nil {
		return fmt.Errorf("datasets: %w: X is nil", ErrInput)
	}
	z.n, z.d = s.Dims()
	for p, v := range s.Values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("datasets: %w: X has a non-finite value %v at column %d", ErrInput, v, s.Indices[p])
		}
	}
	slot := func(p int) int { return int(s.Indices[p]) }
	if z.d > WideColumns {
		// Wide: statistics for the columns with a non-zero only.
		cols := make([]int32, 0, len(s.Indices))
		for p, j := range s.Indices {
			if s.Values[p] != 0 {
				cols = append(cols, j)
			}
		}
		slices.Sort(cols)
		cols = slices.Clip(slices.Compact(cols))
		z.cols = cols
		slot = func(p int) int { k, _ := slices.BinarySearch(cols, s.Indices[p]); return k }
	}
	z.each = func(visit func(j int, v float64)) {
		for p, v := range s.Values {
			if v != 0 {
				visit(slot(p), v)
			}
		}
	}
	return nil
}

// dense sets z to the non-zeros of x's dense form, which must be finite.
func (z *nonZeros) dense(x mat.Matrix) error {
	if x32, ok := x.(*kernel.Dense32); ok {
		// Float32 rows, visited as they are: no float64 copy.
		if err := check32(x32, -1); err != nil {
			return err
		}
		n, d := x32.Dims()
		z.n, z.d = n, d
		z.each = func(visit func(j int, v float64)) {
			for i := range n {
				for j, v := range x32.RawRow(i) {
					if v != 0 {
						visit(j, float64(v))
					}
				}
			}
		}
		return nil
	}
	xd := kernel.DenseOf(x)
	if err := checked(check.Matrix("X", xd)); err != nil {
		return err
	}
	n, d := xd.Dims()
	z.n, z.d = n, d
	raw := xd.RawMatrix()
	z.each = func(visit func(j int, v float64)) {
		for i := range n {
			for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+d] {
				if v != 0 {
					visit(j, v)
				}
			}
		}
	}
	return nil
}

// maxAbsFactors is 1/max|x_j| per slot (1 for an all-zero column).
func maxAbsFactors(nz nonZeros, d int) []float64 {
	f := make([]float64, d)
	nz.each(func(j int, v float64) { f[j] = math.Max(f[j], math.Abs(v)) })
	for j, m := range f {
		if m == 0 {
			f[j] = 1
		} else {
			f[j] = 1 / m
		}
	}
	return f
}

// stdFactors is 1/sd per slot, the corrected two-pass variance of
// columnStats with the z zeros of a column added as one term:
// (Σ(x−μ)² − (Σ(x−μ))²/n)/n; 1 for a zero or constant column.
func stdFactors(nz nonZeros, d int) []float64 {
	n := nz.n
	f := make([]float64, d)
	sum := make([]float64, d)
	cnt := make([]int, d)
	first := make([]float64, d)
	constant := make([]bool, d)
	nz.each(func(j int, v float64) {
		if cnt[j] == 0 {
			first[j], constant[j] = v, true
		} else if v != first[j] {
			constant[j] = false
		}
		sum[j] += v
		cnt[j]++
	})
	mean := make([]float64, d)
	for j := range mean {
		mean[j] = sum[j] / float64(n)
	}
	ss := make([]float64, d)
	dev := make([]float64, d)
	nz.each(func(j int, v float64) {
		e := v - mean[j]
		ss[j] += e * e
		dev[j] += e
	})
	for j := range f {
		z := float64(n - cnt[j])
		if cnt[j] == 0 || (z == 0 && constant[j]) {
			f[j] = 1 // zero or constant column: exactly no spread
			continue
		}
		ss[j] += z * mean[j] * mean[j]
		dev[j] -= z * mean[j]
		sd := math.Sqrt(math.Max(0, (ss[j]-dev[j]*dev[j]/float64(n))/float64(n)))
		if sd == 0 {
			f[j] = 1
		} else {
			f[j] = 1 / sd
		}
	}
	return f
}

// Transform returns x with column j multiplied by its factor (Factor): a
// new *CSR for a *CSR (same non-zero structure; any number of columns, those
// beyond the training data's keep factor 1), else a new *mat.Dense, which
// must have as many columns as the training data and a dense-form scaler.
func (c *ColumnScaler) Transform(x mat.Matrix) (mat.Matrix, error) {
	if c.Factors == nil {
		return nil, ErrNotFitted
	}
	if x == nil {
		return nil, fmt.Errorf("datasets: %w: X is nil", ErrInput)
	}
	if s, ok := x.(*CSR); ok {
		if s == nil {
			return nil, fmt.Errorf("datasets: %w: X is nil", ErrInput)
		}
		if c.Columns == nil && s.cols == len(c.Factors) {
			return s.ScaleColumns(c.Factors)
		}
		// The sparse form, or a CSR with another number of columns (a
		// test file; a column beyond the training data's has factor 1).
		out := &CSR{Indptr: slices.Clone(s.Indptr), Indices: slices.Clone(s.Indices), Values: make([]float64, len(s.Values)), rows: s.rows, cols: s.cols}
		for p, j := range s.Indices {
			out.Values[p] = s.Values[p] * c.Factor(int(j))
		}
		return out, nil
	}
	if c.Columns != nil {
		return nil, fmt.Errorf("datasets: %w: a column scaling fitted on wide sparse data (%d columns) applies to sparse data only", ErrInput, c.Dim)
	}
	xd := kernel.DenseOf(x)
	if err := checked(check.Cols(xd, len(c.Factors))); err != nil {
		return nil, err
	}
	return mapColumns(xd, c.value), nil
}

// TransformInPlace is Transform of dense x writing into x itself: the same
// values, without a second matrix. It needs a dense-form scaler.
func (c *ColumnScaler) TransformInPlace(x *mat.Dense) error {
	switch {
	case c.Factors == nil:
		return ErrNotFitted
	case x == nil:
		return fmt.Errorf("datasets: %w: X is nil", ErrInput)
	case c.Columns != nil:
		return fmt.Errorf("datasets: %w: a column scaling fitted on wide sparse data (%d columns) applies to sparse data only", ErrInput, c.Dim)
	}
	if err := checked(check.Cols(x, len(c.Factors))); err != nil {
		return err
	}
	mapColumnsTo(x, x, c.value)
	return nil
}

// value is the dense Transform's value of v in column j.
func (c *ColumnScaler) value(j int, v float64) float64 { return v * c.Factors[j] }
