package datasets

import (
	"github.com/landmark-ml/landmark/internal/hugemem"
	"gonum.org/v1/gonum/mat"
)

// newDense returns a zeroed rows×cols matrix whose data are advised onto
// transparent huge pages when large (hugemem.Float64s), as numpy advises
// every large array. X is read on every pass of a fit; in 4 KiB pages its
// reading cost the kernel engine 100–260 ms of CPU a pass at n = 100,000,
// d = 784 against 37–47 ms in 2 MiB pages (machine E; docs/performance.md,
// "New Ops' costs: X's norms, the Strassen operands, X's pages").
func newDense(rows, cols int) *mat.Dense {
	return mat.NewDense(rows, cols, hugemem.Float64s(rows*cols))
}
