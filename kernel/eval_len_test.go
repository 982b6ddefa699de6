package kernel

import (
	"fmt"
	"strings"
	"testing"
)

// Eval panics on vectors of different lengths, in both orders, as Block and
// Diag do and gonum's floats functions do. Before 2026-11-27 every kernel's
// Eval(x, y) with len(y) > len(x) read only len(x) values of y and returned
// a value (Gaussian{1}.Eval([1], [1, 5]) = 1, ignoring the 5), and panicked
// with an index error only the other way round.
func TestEvalPanicsOnLengthMismatch(t *testing.T) {
	short, long := []float64{1}, []float64{1, 5}
	for _, k := range []Kernel{Gaussian{Gamma: 1}, Laplacian{Gamma: 1}, Polynomial{Gamma: 1, Degree: 2, Coef0: 1}, Sigmoid{Gamma: 1, Coef0: -1}, Linear{}} {
		for _, order := range [][2][]float64{{short, long}, {long, short}} {
			msg := func() (msg string) {
				defer func() {
					if r := recover(); r != nil {
						msg, _ = r.(string)
					}
				}()
				v := k.Eval(order[0], order[1])
				return fmt.Sprintf("returned %g", v)
			}()
			if !strings.Contains(msg, "lengths") {
				t.Errorf("%s.Eval(len %d, len %d): %q, want a panic naming the lengths", k, len(order[0]), len(order[1]), msg)
			}
		}
	}
}
