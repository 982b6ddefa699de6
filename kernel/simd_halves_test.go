package kernel

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestHalfPanels: on the AVX2 path the centers are packed as halves of 8
// (plan.half) and the tiles read them with gemmHalvesAVX2; the products
// must have the bits of the same tiles on d×16 panels (gemmAVX2, which an
// AVX2 worker uses on a plan prepared on another path): blocks of 13 rows
// (panels of 6, 6 and 1 rows: heights 6 and 1; 11 rows: 6 and 5; 10: 6
// and 4; 9: 6 and 3; 8: 6 and 2), d from 1 to beyond kBlock (several
// feature blocks, the later ones added into c), M not a multiple of 16.
// A plan packed as halves and used by another path's workers (portable,
// AVX-512) falls back to gonum's product on C: checked against the
// explicit kernel matrix.
func TestHalfPanels(t *testing.T) {
	if bestAccel < accelAVX2 {
		t.Skip("no AVX2")
	}
	r := rand.New(rand.NewPCG(21, 22))
	ctx := context.Background()
	for _, s := range []struct{ n, m, d, b int }{
		{40, 19, 1, 13}, {37, 33, 7, 11}, {50, 47, 54, 10}, {23, 40, 300, 9}, {31, 16, 530, 8},
	} {
		x, c, v := randDense(r, s.n, s.d), randDense(r, s.m, s.d), randDense(r, s.m, 1)
		for _, k := range []Kernel{Linear{}, Gaussian{Gamma: 0.5 / float64(s.d)}} {
			opt := Options{BlockRows: s.b}
			half := NewOp(k, x, c, opt)
			restore := setAccel(accelAVX2)
			half.prepare()
			restore()
			whole := NewOp(k, x, c, opt)
			restore = setAccel(accelPortable)
			whole.prepare()
			restore()
			if !half.plan.half || whole.plan.half {
				t.Fatalf("%+v: half = %v, %v: want true, false", s, half.plan.half, whole.plan.half)
			}
			var got [2][2]*mat.Dense
			restore = setAccel(accelAVX2)
			for i, op := range []*Op{half, whole} {
				got[i] = [2]*mat.Dense{mat.NewDense(s.n, s.m, nil), mat.NewDense(s.m, 1, nil)}
				if err := op.Block(ctx, got[i][0]); err != nil {
					t.Fatal(err)
				}
				if err := op.MulTMul(ctx, got[i][1], v); err != nil {
					t.Fatal(err)
				}
			}
			restore()
			for p := range got[0] {
				if !mat.Equal(got[0][p], got[1][p]) {
					t.Errorf("%v %+v: product %d: halves and d×16 panels differ", k, s, p)
				}
			}
			want := naive(k, x, c)
			for _, a := range accels() {
				if a == accelAVX2 {
					continue
				}
				restore = setAccel(a)
				fb := mat.NewDense(s.n, s.m, nil)
				err := half.Block(ctx, fb)
				restore()
				if err != nil {
					t.Fatal(err)
				}
				if !mat.EqualApprox(fb, want, 1e-12*math.Max(1, mat.Norm(want, math.Inf(1)))) {
					t.Errorf("%v %+v: %v workers on a plan of halves differ from the explicit K", k, s, a)
				}
			}
		}
	}
}
