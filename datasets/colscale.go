package datasets

import (
	"fmt"
	"math"

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
	// Factors are the fitted per-column multipliers.
	Factors []float64 `json:"factors"`
}

// Fit computes the column factors of x: a *CSR from its non-zeros, any
// other mat.Matrix from its dense form. x must be non-empty and finite.
func (c *ColumnScaler) Fit(x mat.Matrix) error {
	if c.Kind != ScaleMaxAbs && c.Kind != ScaleStd {
		return fmt.Errorf("%w: unknown column scaling %q (want %s or %s)", ErrInput, c.Kind, ScaleMaxAbs, ScaleStd)
	}
	if x == nil {
		return fmt.Errorf("%w: X is nil", ErrInput)
	}
	var n, d int
	var each func(visit func(j int, v float64))
	if s, ok := x.(*CSR); ok {
		if s == nil {
			return fmt.Errorf("%w: X is nil", ErrInput)
		}
		n, d = s.Dims()
		for p, v := range s.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: X has a non-finite value %v at column %d", ErrInput, v, s.Indices[p])
			}
		}
		each = func(visit func(j int, v float64)) {
			for p, j := range s.Indices {
				if s.Values[p] != 0 { // stored zeros count as the dense path's zeros
					visit(int(j), s.Values[p])
				}
			}
		}
	} else {
		xd := kernel.DenseOf(x)
		if err := check.Matrix("X", xd); err != nil {
			return err
		}
		n, d = xd.Dims()
		raw := xd.RawMatrix()
		each = func(visit func(j int, v float64)) {
			for i := range n {
				for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+d] {
					if v != 0 {
						visit(j, v)
					}
				}
			}
		}
	}
	if n == 0 || d == 0 {
		return fmt.Errorf("%w: X is empty", ErrInput)
	}
	f := make([]float64, d)
	switch c.Kind {
	case ScaleMaxAbs:
		each(func(j int, v float64) { f[j] = math.Max(f[j], math.Abs(v)) })
		for j, m := range f {
			if m == 0 {
				f[j] = 1
			} else {
				f[j] = 1 / m
			}
		}
	case ScaleStd:
		// The corrected two-pass variance of columnStats, with the z zeros
		// of a column added as one term: (Σ(x−μ)² − (Σ(x−μ))²/n)/n.
		sum := make([]float64, d)
		nnz := make([]int, d)
		first := make([]float64, d)
		constant := make([]bool, d)
		each(func(j int, v float64) {
			if nnz[j] == 0 {
				first[j], constant[j] = v, true
			} else if v != first[j] {
				constant[j] = false
			}
			sum[j] += v
			nnz[j]++
		})
		mean := make([]float64, d)
		for j := range mean {
			mean[j] = sum[j] / float64(n)
		}
		ss := make([]float64, d)
		dev := make([]float64, d)
		each(func(j int, v float64) {
			e := v - mean[j]
			ss[j] += e * e
			dev[j] += e
		})
		for j := range f {
			z := float64(n - nnz[j])
			if nnz[j] == 0 || (z == 0 && constant[j]) {
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
	}
	c.Factors = f
	return nil
}

// Transform returns x with column j multiplied by Factors[j]: a new *CSR
// for a *CSR (same non-zero structure), else a new *mat.Dense. x must have
// as many columns as the training data.
func (c *ColumnScaler) Transform(x mat.Matrix) (mat.Matrix, error) {
	if c.Factors == nil {
		return nil, ErrNotFitted
	}
	if x == nil {
		return nil, fmt.Errorf("%w: X is nil", ErrInput)
	}
	if s, ok := x.(*CSR); ok {
		if s == nil {
			return nil, fmt.Errorf("%w: X is nil", ErrInput)
		}
		return s.ScaleColumns(c.Factors)
	}
	xd := kernel.DenseOf(x)
	if err := check.Cols(xd, len(c.Factors)); err != nil {
		return nil, err
	}
	return mapColumns(xd, func(j int, v float64) float64 { return v * c.Factors[j] }), nil
}
