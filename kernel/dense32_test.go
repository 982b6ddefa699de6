package kernel

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/internal/check"
	"gonum.org/v1/gonum/mat"
)

// An Op on float32 storage (Dense32) is the Float32-mode Op on the float64
// matrix holding the same (float32-representable) values, bit for bit: the
// rows are packed from the float32 values instead of rounded float64 ones,
// and the norms are the float64 rows' own. Checked for every product, one
// and several right-hand sides, d = 20 (AVX-512's all-float32 single-vector
// path) and d = 300 (two blocks of features), on every path this CPU runs,
// with Options.Float32 unset on the Dense32 side (float32 storage implies
// it). The Laplacian, not a dot-product kernel, works on a float64 copy:
// again the float64 Op's bits.
func TestDense32MatchesRoundedFloat64(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 32))
	for _, d := range []int{20, 300} {
		x64 := randDense(r, 77, d)
		x64.Apply(func(_, _ int, v float64) float64 { return float64(float32(v)) }, x64)
		x32, err := Dense32Of(x64)
		if err != nil {
			t.Fatal(err)
		}
		c := randDense(r, 21, d)
		for _, k := range []Kernel{Gaussian{Gamma: 0.5 / float64(d)}, Polynomial{Gamma: 1 / float64(d), Coef0: 1, Degree: 2}, Laplacian{Gamma: 0.1}} {
			_, dot := k.(dotForm)
			for _, a := range accels() {
				restore := setAccel(a)
				want := NewOp(k, x64, c, Options{Float32: dot, BlockRows: 16})
				got := NewOp(k, x32, c, Options{BlockRows: 16})
				for _, tc := range []int{1, 10} {
					v, u := randDense(r, 21, tc), randDense(r, 77, tc)
					for name, f := range map[string]func(*Op) (*mat.Dense, error){
						"Block": func(o *Op) (*mat.Dense, error) {
							m := mat.NewDense(77, 21, nil)
							return m, o.Block(context.Background(), m)
						},
						"Mul": func(o *Op) (*mat.Dense, error) {
							m := mat.NewDense(77, tc, nil)
							return m, o.Mul(context.Background(), m, v)
						},
						"MulT": func(o *Op) (*mat.Dense, error) {
							m := mat.NewDense(21, tc, nil)
							return m, o.MulT(context.Background(), m, u)
						},
						"MulTMul": func(o *Op) (*mat.Dense, error) {
							m := mat.NewDense(21, tc, nil)
							return m, o.MulTMul(context.Background(), m, v)
						},
					} {
						g, err1 := f(got)
						w, err2 := f(want)
						if err1 != nil || err2 != nil {
							t.Fatal(err1, err2)
						}
						if !mat.Equal(g, w) {
							t.Errorf("%v d=%d %v t=%d %s: float32 storage differs from float32 mode on float64 rows", k, d, a, tc, name)
						}
					}
				}
				restore()
			}
		}
	}
}

func TestDense32BadInput(t *testing.T) {
	for _, tc := range []struct {
		r, c, n int
	}{{0, 3, 0}, {2, 3, 5}, {2, -1, 0}} {
		if _, err := NewDense32(tc.r, tc.c, make([]float32, tc.n)); !errors.Is(err, ErrShape) || !errors.Is(err, check.ErrInput) {
			t.Errorf("NewDense32(%d, %d, %d values): err = %v, want ErrShape and ErrInput", tc.r, tc.c, tc.n, err)
		}
	}
	if _, err := Dense32Of(&mat.Dense{}); !errors.Is(err, ErrShape) {
		t.Errorf("Dense32Of(empty): err = %v", err)
	}
	m, err := NewDense32(2, 3, []float32{1, 2, 3, 4, float32(math.Inf(1)), 6})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.CheckFinite("X"); !errors.Is(err, check.ErrInput) || !strings.Contains(err.Error(), "X[1,1]") {
		t.Errorf("CheckFinite: %v, want X[1,1] named", err)
	}
	if got := fmt.Sprint(m.At(1, 2), m.Rows(1, 2).At(0, 0), m.Bytes()); got != "6 4 24" {
		t.Errorf("At, Rows, Bytes: %s", got)
	}
	if r, c := m.T().Dims(); r != 3 || c != 2 {
		t.Errorf("T is %d×%d", r, c)
	}
}
