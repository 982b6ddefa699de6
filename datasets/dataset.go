package datasets

import (
	"os"
	"path/filepath"

	"gonum.org/v1/gonum/mat"
)

// Dataset is a dense design matrix with one target or label per row.
type Dataset struct {
	// Name identifies the data (a file name or a bundled name).
	Name string
	// X holds one sample per row (n×d).
	X *mat.Dense
	// Y holds the regression target or class label of each row.
	Y []float64
}

// Len returns the number of samples.
func (d *Dataset) Len() int { return len(d.Y) }

// Dim returns the number of features.
func (d *Dataset) Dim() int {
	_, c := d.X.Dims()
	return c
}

// SharedPath returns the path of a file in the project's shared dataset folder
// (../shared/datasets beside the repository, or $LANDMARK_SHARED_DATA) and
// whether it exists. Tests and benchmarks use it to find real data and skip
// cleanly when it is absent.
func SharedPath(name string) (string, bool) {
	var dirs []string
	if d := os.Getenv("LANDMARK_SHARED_DATA"); d != "" {
		dirs = append(dirs, d)
	}
	if wd, err := os.Getwd(); err == nil {
		for dir := wd; ; dir = filepath.Dir(dir) {
			dirs = append(dirs, filepath.Join(dir, "shared", "datasets"), filepath.Join(filepath.Dir(dir), "shared", "datasets"))
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
	}
	return "", false
}
