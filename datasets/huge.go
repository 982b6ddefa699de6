package datasets

import (
	"fmt"
	"math"

	"github.com/landmark-ml/landmark/internal/hugemem"
	"gonum.org/v1/gonum/mat"
)

// NewDense returns a zeroed rows×cols matrix for X built by the caller, its
// data allocated as the package's readers allocate theirs: on Linux, a
// matrix of 4 MiB or more is advised onto transparent huge pages
// (MADV_HUGEPAGE), as numpy advises its large arrays; elsewhere, or with
// LANDMARK_HUGEPAGES=0, it is an ordinary mat.NewDense. Fill it (Set,
// SetRow, RawMatrix().Data) and pass it to Fit or Predict: every pass of a
// fit reads all of X, and on a host that ages its memory (machine E of
// docs/performance.md) the kernel engine read X from 4 KiB pages at 2–5
// times the cost of 2 MiB ones ("New Ops' costs: X's norms, the Strassen
// operands, X's pages"). The values and results are the same either way.
//
// rows or cols below 1 are an ErrInput error (mat.NewDense panics on
// them), and a matrix of more than math.MaxInt bytes an ErrMemory one.
func NewDense(rows, cols int) (*mat.Dense, error) {
	if rows < 1 || cols < 1 {
		return nil, fmt.Errorf("%w: a %d×%d matrix: rows and columns must be at least 1", ErrInput, rows, cols)
	}
	if rows > math.MaxInt/8/cols {
		return nil, fmt.Errorf("%w: a %d×%d matrix of float64 is over math.MaxInt bytes", ErrMemory, rows, cols)
	}
	return newDense(rows, cols), nil
}

// newDense is NewDense for dimensions the package has checked.
func newDense(rows, cols int) *mat.Dense {
	return mat.NewDense(rows, cols, hugemem.Float64s(rows*cols))
}
