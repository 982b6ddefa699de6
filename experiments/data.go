package experiments

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// resolvePath finds a data file: "~/" is the home folder (as pandas and the
// shell read it), absolute paths as is, relative paths against
// dir (the spec's folder), then the working directory, then the shared
// dataset folder (datasets.SharedPath, then a shared/datasets folder beside
// dir or one of its parents).
func resolvePath(dir, p string) (string, error) {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		// The shell expands ~ on the command line, not in YAML; pandas'
		// read_csv expands it too.
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("data file %q: %w", p, err)
		}
		p = filepath.Join(home, rest)
	}
	if filepath.IsAbs(p) || p == datasets.Stdin {
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
	if hint := datasets.URLHint(p); hint != "" {
		return "", errors.New(hint)
	}
	return "", fmt.Errorf("data file %q not found (looked in %s, the working directory and the shared dataset folder)", p, dir)
}

// rows gathers the given rows of x (dense, float32 or *datasets.CSR) and y
// into new storage of the same kind.
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
	if x32, ok := xm.(*kernel.Dense32); ok {
		_, d := x32.Dims()
		data := make([]float32, len(idx)*d)
		for i, r := range idx {
			copy(data[i*d:(i+1)*d], x32.RawRow(r))
		}
		xs, err := kernel.NewDense32(len(idx), d, data)
		if err != nil {
			panic(err) // idx are rows of x, drawn by the runner: not empty
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

// rowsInPlace is rows for ascending idx, done in the runner's own x and y:
// a dense x gets row idx[i] moved to row i and becomes a view of its first
// len(idx) rows (the whole array stays allocated: matrixBytes counts it),
// y is compacted the same way. Sparse and float32 x go through rows: the
// float32 training rows are copied out, so that the whole array, garbage
// once the test rows are out too, does not stay beside them through the
// fit (a copy of half the size of float64 X, made before the fit's
// buffers exist).
func rowsInPlace(xm mat.Matrix, y []float64, idx []int) (mat.Matrix, []float64) {
	x, ok := xm.(*mat.Dense)
	if !ok || !slices.IsSorted(idx) {
		return rows(xm, y, idx)
	}
	_, d := x.Dims()
	for i, r := range idx {
		if i != r { // r > i: row r is not overwritten before it is moved
			copy(x.RawRowView(i), x.RawRowView(r))
			y[i] = y[r]
		}
	}
	return x.Slice(0, len(idx), 0, d), y[:len(idx):len(idx)]
}

// widened returns float32 rows (kernel.Dense32) as float64 ones (each
// value exactly), other x as it is.
func widened(x mat.Matrix) mat.Matrix {
	x32, ok := x.(*kernel.Dense32)
	if !ok {
		return x
	}
	n, d := x32.Dims()
	out := mat.NewDense(n, d, nil)
	for i := range n {
		row := out.RawRowView(i)
		for j, v := range x32.RawRow(i) {
			row[j] = float64(v)
		}
	}
	return out
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

// Scaling is a fitted feature scaling: Standardizer, MinMax or ColumnScaler
// statistics of the training rows (all nil: none).
type Scaling struct {
	// Standardize holds the standardization statistics, when used.
	Standardize *datasets.Standardizer `json:"standardize,omitempty"`
	// MinMax holds the min–max statistics, when used.
	MinMax *datasets.MinMax `json:"minmax,omitempty"`
	// Columns holds the factors of a scaling without centering (maxabs or
	// std), when used; it keeps sparse X sparse.
	Columns *datasets.ColumnScaler `json:"columns,omitempty"`
}

// Name is the scaling's YAML name: standardize, minmax, maxabs or std;
// "none" for none.
func (s Scaling) Name() string {
	switch {
	case s.Standardize != nil:
		return scaleStandardize
	case s.MinMax != nil:
		return scaleMinMax
	case s.Columns != nil:
		return s.Columns.Kind
	}
	return "none"
}

// KeepsSparse reports whether the scaling maps zeros to zeros (none, or a
// column scaling), so that sparse X can stay sparse through Apply.
func (s Scaling) KeepsSparse() bool { return s.Standardize == nil && s.MinMax == nil }

// Transform applies the scaling to x (a new matrix; x itself when none).
func (s Scaling) Transform(x *mat.Dense) (*mat.Dense, error) {
	switch {
	case s.Standardize != nil:
		return s.Standardize.Transform(x)
	case s.MinMax != nil:
		return s.MinMax.Transform(x)
	case s.Columns != nil:
		t, err := s.Columns.Transform(x)
		if err != nil {
			return nil, err
		}
		return t.(*mat.Dense), nil
	}
	return x, nil
}

// Apply applies the scaling to x of any form: sparse x (kernel.Sparse)
// stays as it is without a scaling, becomes a scaled *datasets.CSR with a
// column scaling and goes through a dense copy otherwise; other x is
// scaled as a dense copy. x itself is never modified.
func (s Scaling) Apply(x mat.Matrix) (mat.Matrix, error) {
	if sp, ok := x.(kernel.Sparse); ok && s.KeepsSparse() {
		if s.Columns == nil {
			return x, nil
		}
		c, ok := sp.(*datasets.CSR)
		if !ok {
			var err error
			if c, err = csrOf(sp); err != nil {
				return nil, err
			}
		}
		return s.Columns.Transform(c)
	}
	xd := kernel.DenseOf(x)
	if xd == nil || xd.IsEmpty() {
		return nil, fmt.Errorf("%w: X is empty", datasets.ErrInput)
	}
	if s.Standardize == nil && s.MinMax == nil && s.Columns == nil {
		return xd, nil
	}
	return s.Transform(mat.DenseCopyOf(xd))
}

// csrOf copies a kernel.Sparse into a checked *datasets.CSR.
func csrOf(sp kernel.Sparse) (*datasets.CSR, error) {
	r, c := sp.Dims()
	indptr, indices, values := sp.CSR()
	return datasets.NewCSR(r, c, slices.Clone(indptr), slices.Clone(indices), slices.Clone(values))
}

// scaleUsed describes the feature scaling a fit applies for the spec's
// scale kind ("" for none) on sparse or dense X, for the run's report.
func scaleUsed(kind string, sparse bool) string {
	switch kind {
	case scaleStandardize:
		if sparse {
			return "std (standardize on sparse X: each feature divided by its training standard deviation, not centred, so zeros stay zeros)"
		}
		return "standardize (each feature centred on its training mean and divided by its standard deviation)"
	case scaleMinMax:
		return "minmax (each feature mapped to [−1, 1] by its training range)"
	case scaleMaxAbs:
		return "maxabs (each feature divided by its largest training |x|, not centred)"
	case scaleStd:
		return "std (each feature divided by its training standard deviation, not centred)"
	}
	return ""
}

// sameMatrix reports whether a and b are the same dense or CSR matrix (the
// training rows scored as themselves).
func sameMatrix(a, b mat.Matrix) bool {
	switch a := a.(type) {
	case *mat.Dense:
		b, ok := b.(*mat.Dense)
		return ok && a == b
	case *datasets.CSR:
		b, ok := b.(*datasets.CSR)
		return ok && a == b
	case *kernel.Dense32:
		b, ok := b.(*kernel.Dense32)
		return ok && a == b
	}
	return false
}

// scaleFeatures fits the spec's feature scaling on xtr and applies it to
// xtr and xva (returned as new matrices: one, returned twice, when xva is xtr);
// "" leaves them as they are.
// Sparse data (*datasets.CSR) take the scalings that keep zeros: maxabs,
// std, and standardize read as std; minmax is refused.
func scaleFeatures(kind string, xtrM, xvaM mat.Matrix) (mat.Matrix, mat.Matrix, Scaling, error) {
	var sc Scaling
	if kind == "" {
		return xtrM, xvaM, sc, nil
	}
	if x32, ok := xtrM.(*kernel.Dense32); ok {
		return scaleFeatures32(kind, x32, xvaM)
	}
	_, s1 := xtrM.(*datasets.CSR)
	_, s2 := xvaM.(*datasets.CSR)
	if (s1 || s2) && kind == scaleStandardize {
		kind = scaleStd
	}
	if kind == scaleMaxAbs || kind == scaleStd {
		sc.Columns = &datasets.ColumnScaler{Kind: kind}
		if err := sc.Columns.Fit(xtrM); err != nil {
			return nil, nil, sc, err
		}
		a, err := sc.Columns.Transform(xtrM)
		if err != nil {
			return nil, nil, sc, err
		}
		if sameMatrix(xtrM, xvaM) {
			return a, a, sc, nil
		}
		b, err := sc.Columns.Transform(xvaM)
		if err != nil {
			return nil, nil, sc, err
		}
		return a, b, sc, nil
	}
	if s1 || s2 {
		return nil, nil, sc, fmt.Errorf("%w: scale %s needs dense data (it would fill in the zeros of sparse data; use scale: maxabs or std, or storage: dense)", ErrSpec, kind)
	}
	xtr, xva := xtrM.(*mat.Dense), xvaM.(*mat.Dense)
	sc, err := fitScaling(kind, xtr)
	if err != nil {
		return nil, nil, sc, err
	}
	a, err := sc.Transform(xtr)
	if err != nil {
		return nil, nil, sc, err
	}
	if xva == xtr {
		return a, a, sc, nil // scoring the training rows: one scaled copy
	}
	b, err := sc.Transform(xva)
	if err != nil {
		return nil, nil, sc, err
	}
	return a, b, sc, nil
}

// fitScaling fits the feature scaling kind (standardize, minmax, maxabs or
// std) on the dense training rows x, in float64.
func fitScaling(kind string, x *mat.Dense) (Scaling, error) {
	var sc Scaling
	var fit func(*mat.Dense) error
	switch kind {
	case scaleMaxAbs, scaleStd:
		sc.Columns = &datasets.ColumnScaler{Kind: kind}
		return sc, sc.Columns.Fit(x)
	case scaleStandardize:
		sc.Standardize = &datasets.Standardizer{}
		fit = sc.Standardize.Fit
	case scaleMinMax:
		sc.MinMax = &datasets.MinMax{}
		fit = sc.MinMax.Fit
	default:
		return sc, fmt.Errorf("%w: unknown scale %q", ErrSpec, kind)
	}
	return sc, fit(x)
}

// scaleInPlace applies the fitted scaling sc to dense x in place: the
// values Scaling.Transform would return (the scalers' TransformInPlace),
// without a second matrix.
func scaleInPlace(sc Scaling, x *mat.Dense) error {
	if s := sc.inPlace(); s != nil {
		return s.TransformInPlace(x)
	}
	return nil
}

// inPlaceScaler is what the three scalers of a Scaling (datasets'
// Standardizer, MinMax and ColumnScaler) share: scaling float64 or float32
// rows in place.
type inPlaceScaler interface {
	TransformInPlace(x *mat.Dense) error
	TransformInPlace32(x *kernel.Dense32) error
}

// inPlace returns the fitted scaler of sc, nil when there is none.
func (sc Scaling) inPlace() inPlaceScaler {
	switch {
	case sc.Standardize != nil:
		return sc.Standardize
	case sc.MinMax != nil:
		return sc.MinMax
	case sc.Columns != nil:
		return sc.Columns
	}
	return nil
}

// fitScaling32 is fitScaling on float32 rows (datasets' Fit32 methods):
// the statistics in float64, computed from the float32 values.
func fitScaling32(kind string, x *kernel.Dense32) (Scaling, error) {
	var sc Scaling
	switch kind {
	case scaleMaxAbs, scaleStd:
		sc.Columns = &datasets.ColumnScaler{Kind: kind}
		return sc, sc.Columns.Fit(x)
	case scaleStandardize:
		sc.Standardize = &datasets.Standardizer{}
		return sc, sc.Standardize.Fit32(x)
	case scaleMinMax:
		sc.MinMax = &datasets.MinMax{}
		return sc, sc.MinMax.Fit32(x)
	}
	return sc, fmt.Errorf("%w: unknown scale %q", ErrSpec, kind)
}

// scaleInPlace32 is scaleInPlace on float32 rows: each value becomes
// float32 of the float64 value the scaling gives (a value beyond float32's
// range is an error).
func scaleInPlace32(sc Scaling, x *kernel.Dense32) error {
	if s := sc.inPlace(); s != nil {
		return s.TransformInPlace32(x)
	}
	return nil
}

// scaleFeatures32 is scaleFeatures for float32 training rows (read with
// f32): a float32 copy of them scaled in place with the scaling fitted on
// them (fitScaling32), and a scaled float64 copy of the dense rows xva
// (the copy of xtr itself, returned twice, when xva is xtr).
func scaleFeatures32(kind string, xtr *kernel.Dense32, xvaM mat.Matrix) (mat.Matrix, mat.Matrix, Scaling, error) {
	sc, err := fitScaling32(kind, xtr)
	if err != nil {
		return nil, nil, sc, err
	}
	xva, dense := xvaM.(*mat.Dense)
	if !dense && !sameMatrix(xtr, xvaM) {
		return nil, nil, sc, fmt.Errorf("%w: scale %s: float32 training rows with %T rows to score", ErrSpec, kind, xvaM)
	}
	n, d := xtr.Dims()
	data := make([]float32, 0, n*d)
	for i := range n {
		data = append(data, xtr.RawRow(i)...)
	}
	a, err := kernel.NewDense32(n, d, data)
	if err != nil {
		return nil, nil, sc, err
	}
	if err := scaleInPlace32(sc, a); err != nil {
		return nil, nil, sc, err
	}
	if !dense {
		return a, a, sc, nil
	}
	b := mat.DenseCopyOf(xva)
	if err := scaleInPlace(sc, b); err != nil {
		return nil, nil, sc, err
	}
	return a, b, sc, nil
}

// oneClassFolds warns, for binary labels y, of the cross-validation test
// folds (cv: one list of folds per repeat) that hold one class only,
// where auc is undefined (scikit-learn's roc_auc_score refuses such a
// fold; its StratifiedKFold warns of a class with fewer rows than folds):
// which folds, what it does to the CV auc, and the folds or the
// stratification that would avoid it; "" when every test fold holds both
// classes. name names a label.
func oneClassFolds(y []float64, cv [][]datasets.Fold, stratified bool, name func(float64) string) string {
	var bad []string
	total := 0
	for rep, fs := range cv {
		for j, f := range fs {
			total++
			one := true
			for _, i := range f.Test[1:] {
				if y[i] != y[f.Test[0]] {
					one = false
					break
				}
			}
			if !one {
				continue
			}
			s := strconv.Itoa(j + 1)
			if len(cv) > 1 {
				s += " of repeat " + strconv.Itoa(rep+1)
			}
			bad = append(bad, s)
		}
	}
	if len(bad) == 0 {
		return ""
	}
	k := len(cv[0])
	cc := datasets.ClassCounts(y)
	least := cc[0]
	for _, c := range cc[1:] {
		if c.Count < least.Count {
			least = c
		}
	}
	var fix string
	switch {
	case least.Count < 2:
		fix = fmt.Sprintf("the least populated class, %s, has %d row: no cross-validation tests on it in every fold", name(least.Label), least.Count)
	case least.Count < k:
		fix = fmt.Sprintf("the least populated class, %s, has %d rows for %d folds: cv: {folds: %d} keeps it in every test fold", name(least.Label), least.Count, k, least.Count)
	case !stratified:
		fix = "stratified folds (cv: {stratified: true}) keep both classes in every test fold"
	}
	if fix != "" {
		fix = "; " + fix
	}
	return fmt.Sprintf("warning: cross-validation: %d of %d test folds (fold%s %s) hold one class only: auc is undefined there, so every point's CV auc is undefined (NaN in results.csv), as scikit-learn's roc_auc_score refuses such a fold%s", len(bad), total, plural(len(bad)), strings.Join(bad, ", "), fix)
}

// pick returns w's elements at idx (nil for nil w): the sample weights of
// the rows rows(x, y, idx) picks.
func pick(w []float64, idx []int) []float64 {
	if w == nil {
		return nil
	}
	out := make([]float64, len(idx))
	for i, r := range idx {
		out[i] = w[r]
	}
	return out
}

// weightSum is Σw, or n for nil w: the rows alpha = λ·n counts.
func weightSum(w []float64, n int) float64 {
	if w == nil {
		return float64(n)
	}
	return floats.Sum(w)
}
