package experiments

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	"github.com/landmark-ml/landmark/datasets"
	"gonum.org/v1/gonum/mat"
)

// resolvePath finds a data file: absolute paths as is, relative paths against
// dir (the spec's folder), then the working directory, then the shared
// dataset folder (datasets.SharedPath, then a shared/datasets folder beside
// dir or one of its parents).
func resolvePath(dir, p string) (string, error) {
	if filepath.IsAbs(p) {
		return p, nil
	}
	for _, c := range []string{filepath.Join(dir, p), p} {
		if _, err := os.Stat(c); err == nil {
			return c, nil
		}
	}
	if sp, ok := datasets.SharedPath(p); ok {
		return sp, nil
	}
	// SharedPath looks beside the working directory; a spec outside the
	// repository's tree still finds the shared folder beside its own.
	if abs, err := filepath.Abs(dir); err == nil {
		for d := abs; ; d = filepath.Dir(d) {
			for _, c := range []string{filepath.Join(d, "shared", "datasets", p), filepath.Join(filepath.Dir(d), "shared", "datasets", p)} {
				if _, err := os.Stat(c); err == nil {
					return c, nil
				}
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return "", fmt.Errorf("data file %q not found (looked in %s, the working directory and the shared dataset folder)", p, dir)
}

// rows gathers the given rows of x (dense or *datasets.CSR) and y into new
// storage of the same kind.
func rows(xm mat.Matrix, y []float64, idx []int) (mat.Matrix, []float64) {
	ys := make([]float64, len(idx))
	for i, r := range idx {
		ys[i] = y[r]
	}
	if c, ok := xm.(*datasets.CSR); ok {
		xs, err := c.Rows(idx)
		if err != nil {
			panic(err) // idx are rows of x, drawn by the runner
		}
		return xs, ys
	}
	x := xm.(*mat.Dense)
	_, d := x.Dims()
	xs := mat.NewDense(len(idx), d, nil)
	for i, r := range idx {
		xs.SetRow(i, x.RawRowView(r))
	}
	return xs, ys
}

// subsample returns m random rows of 0…n−1, sorted (all rows when m ≤ 0 or m ≥ n).
func subsample(n, m int, rng *rand.Rand) []int {
	if m <= 0 || m >= n {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	idx := rng.Perm(n)[:m]
	slices.Sort(idx)
	return idx
}

// folds draws k cross-validation folds (datasets.StratifiedKFold when
// stratified, else datasets.KFold).
func folds(y []float64, k int, stratified bool, rng *rand.Rand) ([]datasets.Fold, error) {
	if stratified {
		return datasets.StratifiedKFold(y, k, rng)
	}
	return datasets.KFold(len(y), k, rng)
}

// Scaling is a fitted feature scaling: Standardizer or MinMax statistics of
// the training rows (both nil: none).
type Scaling struct {
	// Standardize holds the standardization statistics, when used.
	Standardize *datasets.Standardizer `json:"standardize,omitempty"`
	// MinMax holds the min–max statistics, when used.
	MinMax *datasets.MinMax `json:"minmax,omitempty"`
}

// Transform applies the scaling to x (a new matrix; x itself when none).
func (s Scaling) Transform(x *mat.Dense) (*mat.Dense, error) {
	switch {
	case s.Standardize != nil:
		return s.Standardize.Transform(x)
	case s.MinMax != nil:
		return s.MinMax.Transform(x)
	}
	return x, nil
}

// scaleFeatures fits the spec's feature scaling on xtr and applies it to
// xtr and xva (returned as new matrices); "" leaves them as they are.
func scaleFeatures(kind string, xtrM, xvaM mat.Matrix) (mat.Matrix, mat.Matrix, Scaling, error) {
	var sc Scaling
	var fit func(*mat.Dense) error
	if kind == "" {
		return xtrM, xvaM, sc, nil
	}
	_, s1 := xtrM.(*datasets.CSR)
	_, s2 := xvaM.(*datasets.CSR)
	if s1 || s2 {
		return nil, nil, sc, fmt.Errorf("%w: scale %s needs dense data (it would fill in the zeros of sparse data; use storage: dense)", ErrSpec, kind)
	}
	xtr, xva := xtrM.(*mat.Dense), xvaM.(*mat.Dense)
	switch kind {
	case scaleStandardize:
		sc.Standardize = &datasets.Standardizer{}
		fit = sc.Standardize.Fit
	case scaleMinMax:
		sc.MinMax = &datasets.MinMax{}
		fit = sc.MinMax.Fit
	default:
		return nil, nil, sc, fmt.Errorf("%w: unknown scale %q", ErrSpec, kind)
	}
	if err := fit(xtr); err != nil {
		return nil, nil, sc, err
	}
	a, err := sc.Transform(xtr)
	if err != nil {
		return nil, nil, sc, err
	}
	b, err := sc.Transform(xva)
	if err != nil {
		return nil, nil, sc, err
	}
	return a, b, sc, nil
}
