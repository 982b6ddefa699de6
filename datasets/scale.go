package datasets

import (
	"errors"
	"fmt"
	"math"

	"github.com/landmark-ml/landmark/internal/check"
	"gonum.org/v1/gonum/mat"
)

// ErrNotFitted is returned by a scaler's Transform or Inverse before Fit.
var ErrNotFitted = errors.New("datasets: scaler not fitted")

// columnStats returns each column's mean, population standard deviation
// (divided by n, as scikit-learn's StandardScaler), minimum and maximum.
// The variance is the corrected two-pass formula (Σ(x−μ)² − (Σ(x−μ))²/n)/n,
// and the mean gets the same correction, μ + Σ(x−μ)/n.
func columnStats(x *mat.Dense) (mean, std, lo, hi []float64) {
	n, c := x.Dims()
	raw := x.RawMatrix()
	return columnStatsOf(n, c, func(i int) []float64 { return raw.Data[i*raw.Stride : i*raw.Stride+c] })
}

// columnStatsOf is columnStats of the n rows of c values that row returns
// (row i may reuse the slice it returned for row i−1).
func columnStatsOf(n, c int, row func(i int) []float64) (mean, std, lo, hi []float64) {
	mean = make([]float64, c)
	std = make([]float64, c)
	lo = make([]float64, c)
	hi = make([]float64, c)
	copy(lo, row(0))
	copy(hi, lo)
	for i := range n {
		for j, v := range row(i) {
			mean[j] += v
			lo[j] = math.Min(lo[j], v)
			hi[j] = math.Max(hi[j], v)
		}
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	dev := make([]float64, c)
	for i := range n {
		for j, v := range row(i) {
			e := v - mean[j]
			std[j] += e * e
			dev[j] += e
		}
	}
	for j := range std {
		if lo[j] == hi[j] {
			std[j] = 0 // exactly constant: no round-off residue
			continue
		}
		std[j] = math.Sqrt(math.Max(0, (std[j]-dev[j]*dev[j]/float64(n))/float64(n)))
		mean[j] += dev[j] / float64(n) // second-pass correction of the mean's round-off
	}
	return mean, std, lo, hi
}

// Standardizer centres each feature on its training mean and divides by its
// training standard deviation (population form, divided by n). A constant
// column (all training values equal) has Std 0 and is only centred, so it
// becomes all zeros on the training data instead of NaN. Fit on training
// data, then Transform training and test data alike.
type Standardizer struct {
	// Mean and Std are the fitted per-column statistics.
	Mean, Std []float64
}

// Fit computes the column means and standard deviations of x. Statistics
// that overflow float64 (values of magnitude about 1e154 and up) are an
// error wrapping ErrInput, and s is left as it was.
func (s *Standardizer) Fit(x *mat.Dense) error {
	if err := checked(check.Matrix("X", x)); err != nil {
		return err
	}
	mean, std, _, _ := columnStats(x)
	if err := statsFinite(mean, std); err != nil {
		return err
	}
	s.Mean, s.Std = mean, std
	return nil
}

// statsFinite refuses column statistics that overflowed float64: a sum or a
// sum of squares beyond ±1.8e308 (values of magnitude about 1e154 and up)
// would give an infinite mean or standard deviation, which Transform turns
// into zeros or NaN.
func statsFinite(mean, std []float64) error {
	for j := range mean {
		if math.IsInf(mean[j], 0) || math.IsNaN(mean[j]) || math.IsInf(std[j], 0) || math.IsNaN(std[j]) {
			return fmt.Errorf("datasets: %w: column %d: mean %g, standard deviation %g overflow float64; rescale the column",
				ErrInput, j, mean[j], std[j])
		}
	}
	return nil
}

func (s *Standardizer) ready(x *mat.Dense) error {
	if s.Mean == nil {
		return ErrNotFitted
	}
	return checked(check.Cols(x, len(s.Mean)))
}

// Transform returns a new matrix with (x − Mean)/Std in each column (x − Mean
// where Std is 0).
func (s *Standardizer) Transform(x *mat.Dense) (*mat.Dense, error) {
	if err := s.ready(x); err != nil {
		return nil, err
	}
	return mapColumns(x, s.value), nil
}

// TransformInPlace is Transform writing into x itself: the same values,
// without a second matrix.
func (s *Standardizer) TransformInPlace(x *mat.Dense) error {
	if err := s.ready(x); err != nil {
		return err
	}
	mapColumnsTo(x, x, s.value)
	return nil
}

// value is Transform's value of v in column j.
func (s *Standardizer) value(j int, v float64) float64 {
	if s.Std[j] == 0 {
		return v - s.Mean[j]
	}
	return (v - s.Mean[j]) / s.Std[j]
}

// Inverse undoes Transform: x·Std + Mean.
func (s *Standardizer) Inverse(x *mat.Dense) (*mat.Dense, error) {
	if err := s.ready(x); err != nil {
		return nil, err
	}
	return mapColumns(x, func(j int, v float64) float64 {
		if s.Std[j] == 0 {
			return v + s.Mean[j]
		}
		return v*s.Std[j] + s.Mean[j]
	}), nil
}

// mapColumns returns a new matrix with f(j, x[i,j]) in each entry.
func mapColumns(x *mat.Dense, f func(j int, v float64) float64) *mat.Dense {
	n, c := x.Dims()
	return mapColumnsTo(newDense(n, c), x, f)
}

// mapColumnsTo sets out[i,j] = f(j, x[i,j]) and returns out, which has x's
// shape and may be x itself.
func mapColumnsTo(out, x *mat.Dense, f func(j int, v float64) float64) *mat.Dense {
	n, c := x.Dims()
	src, dst := x.RawMatrix(), out.RawMatrix()
	for i := range n {
		row := dst.Data[i*dst.Stride : i*dst.Stride+c]
		for j, v := range src.Data[i*src.Stride : i*src.Stride+c] {
			row[j] = f(j, v)
		}
	}
	return out
}

// MinMax maps each feature linearly so that its training minimum goes to
// Lower and its training maximum to Upper, as LIBSVM's svm-scale does. The
// zero value scales to [−1, 1] (svm-scale's default); set Lower 0, Upper 1
// for [0, 1]. Test values outside the training range land outside
// [Lower, Upper] (they are not clipped). A constant column maps to the middle
// of the range, (Lower+Upper)/2 (svm-scale drops such features, i.e. writes
// 0, which is the same for the default range).
type MinMax struct {
	// Lower and Upper bound the output range; both zero means −1 and 1.
	Lower, Upper float64
	// Min and Max are the fitted per-column training extremes.
	Min, Max []float64
}

// bounds resolves the output range.
func (m *MinMax) bounds() (lo, hi float64, err error) {
	lo, hi = m.Lower, m.Upper
	if lo == 0 && hi == 0 {
		lo, hi = -1, 1
	}
	if !(lo < hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return 0, 0, fmt.Errorf("datasets: %w: min-max range [%g, %g] is empty or infinite", ErrInput, m.Lower, m.Upper)
	}
	return lo, hi, nil
}

// Fit records each column's minimum and maximum.
func (m *MinMax) Fit(x *mat.Dense) error {
	if _, _, err := m.bounds(); err != nil {
		return err
	}
	if err := checked(check.Matrix("X", x)); err != nil {
		return err
	}
	_, _, m.Min, m.Max = columnStats(x)
	return nil
}

func (m *MinMax) ready(x *mat.Dense) (lo, hi float64, err error) {
	if m.Min == nil || len(m.Max) != len(m.Min) {
		return 0, 0, ErrNotFitted
	}
	if lo, hi, err = m.bounds(); err != nil {
		return 0, 0, err
	}
	return lo, hi, checked(check.Cols(x, len(m.Min)))
}

// Transform returns a new matrix with every column mapped to the range.
func (m *MinMax) Transform(x *mat.Dense) (*mat.Dense, error) {
	f, err := m.value(x)
	if err != nil {
		return nil, err
	}
	return mapColumns(x, f), nil
}

// TransformInPlace is Transform writing into x itself: the same values,
// without a second matrix.
func (m *MinMax) TransformInPlace(x *mat.Dense) error {
	f, err := m.value(x)
	if err != nil {
		return err
	}
	mapColumnsTo(x, x, f)
	return nil
}

// value checks x and returns Transform's value of v in column j.
func (m *MinMax) value(x *mat.Dense) (func(j int, v float64) float64, error) {
	lo, hi, err := m.ready(x)
	if err != nil {
		return nil, err
	}
	return m.mapper(lo, hi), nil
}

// mapper is Transform's value of v in column j for the range [lo, hi].
func (m *MinMax) mapper(lo, hi float64) func(j int, v float64) float64 {
	mid := (lo + hi) / 2
	return func(j int, v float64) float64 {
		if m.Max[j] == m.Min[j] {
			return mid
		}
		return lo + (hi-lo)*(v-m.Min[j])/(m.Max[j]-m.Min[j])
	}
}

// Inverse undoes Transform (a constant column comes back as its training value).
func (m *MinMax) Inverse(x *mat.Dense) (*mat.Dense, error) {
	lo, hi, err := m.ready(x)
	if err != nil {
		return nil, err
	}
	return mapColumns(x, func(j int, v float64) float64 {
		if m.Max[j] == m.Min[j] {
			return m.Min[j]
		}
		return m.Min[j] + (m.Max[j]-m.Min[j])*(v-lo)/(hi-lo)
	}), nil
}

// TargetScaler standardizes a regression target: (y − Mean)/Std on the way
// in, y·Std + Mean on the way back (predictions in original units). A constant
// target has Std 0 and is only centred. The zero value is the identity, and a
// scaler rebuilt from saved Mean and Std behaves as the fitted one.
type TargetScaler struct {
	// Mean and Std are the fitted statistics (population standard deviation).
	Mean, Std float64
}

// Fit computes the mean and standard deviation of y (an error wrapping
// ErrInput if they overflow float64, as Standardizer.Fit).
func (t *TargetScaler) Fit(y []float64) error {
	if len(y) == 0 {
		return fmt.Errorf("datasets: %w: empty target", ErrInput)
	}
	if err := checked(check.Vector("y", y, len(y))); err != nil {
		return err
	}
	mean, std, _, _ := columnStats(columnOf(y))
	if err := statsFinite(mean, std); err != nil {
		return err
	}
	t.Mean, t.Std = mean[0], std[0]
	return nil
}

// Transform returns the standardized copy of y.
func (t *TargetScaler) Transform(y []float64) []float64 {
	out := make([]float64, len(y))
	for i, v := range y {
		out[i] = v - t.Mean
		if t.Std != 0 {
			out[i] /= t.Std
		}
	}
	return out
}

// Inverse maps standardized values back to the original units.
func (t *TargetScaler) Inverse(y []float64) []float64 {
	out := make([]float64, len(y))
	for i, v := range y {
		if t.Std != 0 {
			v *= t.Std
		}
		out[i] = v + t.Mean
	}
	return out
}

// columnOf views y as an n×1 matrix (sharing its memory).
func columnOf(y []float64) *mat.Dense { return mat.NewDense(len(y), 1, y) }
