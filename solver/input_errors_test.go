package solver

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/internal/check"
	"gonum.org/v1/gonum/mat"
)

// The solvers' entry points refuse bad arguments with errors wrapping
// ErrInput (model.ErrInput): a nil context (CG, PCG, SolveSMO, SolveDCD,
// CholeskyBlocked), a nil operator, a bad CG tolerance or iteration count.
// Before 2026-11-27 the nil context panicked at the first cancellation check
// and the three CG errors were plain errors errors.Is did not match.
func TestSolverInputErrors(t *testing.T) {
	var nilCtx context.Context
	ctx := context.Background()
	eye := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	op := OperatorFunc{N: 2, F: func(_ context.Context, dst, x *mat.Dense) error { dst.Copy(x); return nil }}
	b, x := mat.NewDense(2, 1, []float64{1, 1}), mat.NewDense(2, 1, nil)
	prob := SVMProblem{K: &denseK{k: [][]float64{{1, 0}, {0, 1}}}, Y: []float64{1, -1}, C: []float64{1, 1}}
	calls := map[string]func() error{
		"cg nil context":  func() error { _, err := CG(nilCtx, op, b, x, Options{}); return err },
		"pcg nil context": func() error { _, err := PCG(nilCtx, op, nil, b, x, Options{}); return err },
		"smo nil context": func() error { _, err := SolveSMO(nilCtx, prob, SVMOptions{}); return err },
		"dcd nil context": func() error { _, err := SolveDCD(nilCtx, prob, SVMOptions{}); return err },
		"cholesky nil context": func() error {
			_, err := CholeskyBlocked(nilCtx, mat.DenseCopyOf(eye), CholOptions{}, nil)
			return err
		},
		"cg nil operator":   func() error { _, err := CG(ctx, nil, b, x, Options{}); return err },
		"cg tolerance":      func() error { _, err := CG(ctx, op, b, x, Options{Tol: -1}); return err },
		"cg max iterations": func() error { _, err := CG(ctx, op, b, x, Options{MaxIter: -1}); return err },
	}
	for name, call := range calls {
		err := func() (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = errors.New("panic")
				}
			}()
			return call()
		}()
		if !errors.Is(err, check.ErrInput) {
			t.Errorf("%s: err = %v, want ErrInput", name, err)
		} else if strings.HasSuffix(name, "nil context") && !strings.Contains(err.Error(), "nil context") {
			t.Errorf("%s: err = %v, want it to name the nil context", name, err)
		}
	}
}
