package experiments

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/landmark-ml/landmark/datasets"
	"gonum.org/v1/gonum/mat"
)

// resolvePath finds a data file: absolute paths as is, relative paths against
// dir (the spec's folder), then the working directory, then the shared
// dataset folder (datasets.SharedPath).
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
	return "", fmt.Errorf("data file %q not found (looked in %s, the working directory and the shared dataset folder)", p, dir)
}

// readFile reads a data file in the given (or inferred) format.
func readFile(path, format string) (*datasets.Dataset, error) {
	if format == "" {
		format = "libsvm"
		base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(path, ".gz"), ".bz2"), ".xz")
		if strings.HasSuffix(base, ".csv") {
			format = "csv"
		}
	}
	switch format {
	case "libsvm":
		return datasets.ReadLIBSVMFile(path)
	}
	return nil, fmt.Errorf("%w: format %s is not readable in this build yet (libsvm is)", ErrSpec, format)
}

// padCols returns x widened with zero columns to d (LIBSVM omits zeros, so a
// file whose largest feature index is smaller has those features at zero).
func padCols(x *mat.Dense, d int) *mat.Dense {
	r, c := x.Dims()
	if c >= d {
		return x
	}
	out := mat.NewDense(r, d, nil)
	out.Slice(0, r, 0, c).(*mat.Dense).Copy(x)
	return out
}

// rows gathers the given rows of x and y into new storage.
func rows(x *mat.Dense, y []float64, idx []int) (*mat.Dense, []float64) {
	_, d := x.Dims()
	xs := mat.NewDense(len(idx), d, nil)
	ys := make([]float64, len(idx))
	for i, r := range idx {
		xs.SetRow(i, x.RawRowView(r))
		ys[i] = y[r]
	}
	return xs, ys
}

// scaler standardizes columns with statistics of one (training) matrix:
// x ↦ (x − mean)/std, a constant column only centred.
type scaler struct{ mean, std []float64 }

func fitScaler(x *mat.Dense) scaler {
	n, d := x.Dims()
	s := scaler{mean: make([]float64, d), std: make([]float64, d)}
	for i := 0; i < n; i++ {
		for j, v := range x.RawRowView(i) {
			s.mean[j] += v
		}
	}
	for j := range s.mean {
		s.mean[j] /= float64(n)
	}
	for i := 0; i < n; i++ {
		for j, v := range x.RawRowView(i) {
			dv := v - s.mean[j]
			s.std[j] += dv * dv
		}
	}
	for j := range s.std {
		s.std[j] = math.Sqrt(s.std[j] / float64(n))
		if s.std[j] == 0 {
			s.std[j] = 1
		}
	}
	return s
}

// apply standardizes x in place.
func (s scaler) apply(x *mat.Dense) {
	n, _ := x.Dims()
	for i := 0; i < n; i++ {
		row := x.RawRowView(i)
		for j := range row {
			row[j] = (row[j] - s.mean[j]) / s.std[j]
		}
	}
}

// meanStd returns the mean and (population) standard deviation of v, the std
// replaced by 1 when it is zero.
func meanStd(v []float64) (mean, std float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		std += (x - mean) * (x - mean)
	}
	std = math.Sqrt(std / float64(len(v)))
	if std == 0 {
		std = 1
	}
	return mean, std
}
