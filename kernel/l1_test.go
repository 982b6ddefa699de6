package kernel

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// l1Shapes are ragged shapes for the Laplacian's SIMD path: n, M and d not
// multiples of the 8×16 tile, d = 1, M = 1, n < 8, blocks of 9, 13 and 72
// rows (b; 0 = automatic), and d ≥ 256.
var l1Shapes = []struct{ n, m, d, b int }{
	{37, 19, 1, 0}, {101, 33, 3, 9}, {64, 16, 8, 16}, {53, 47, 17, 0}, {29, 21, 300, 13}, {5, 1, 2, 0},
	{40, 32, 54, 8}, {3, 50, 54, 0},
	// d ≥ 256: with AVX2, groups of 8 panels (l1GroupPanels) and the rest,
	// in one block of 150 rows (18 whole panels and 6 rows) and in blocks
	// of 72 (9 panels).
	{150, 40, 260, 0}, {100, 40, 256, 72},
}

// scalarL1 is Laplacian.Eval's sum: Σ_k |x[k] − y[k]| in the order k = 0, 1, ….
func scalarL1(x, y []float64) float64 {
	var s float64
	for i, v := range x {
		s += math.Abs(v - y[i])
	}
	return s
}

// TestL1TileSums checks the register tiles' distance sums bit for bit
// against the scalar loop: both add |x[k] − c[k]| in feature order (the
// tiles by an FMA by 1.0, which rounds the same sum once), and |c − x| (what the tiles compute) equals |x − c| exactly because
// rounding to nearest is symmetric. scale = −½ is exact (a power of two).
func TestL1TileSums(t *testing.T) {
	if bestAccel == accelPortable {
		t.Skip("no AVX2 or AVX-512 on this CPU")
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, a := range accels()[1:] {
		for _, s := range l1Shapes {
			x, c := randDense(r, s.n, s.d), randDense(r, s.m, s.d)
			// Mixed magnitudes so that the order of the additions matters.
			for i := range x.RawMatrix().Data {
				x.RawMatrix().Data[i] *= math.Pow(10, float64(i%7-3))
			}
			mp := roundUp(s.m, l1Cols)
			cp := make([]float64, mp*max(s.d, 1))
			packL1Centers(cp, c.RawMatrix())
			rp := roundUp(s.n, l1Rows)
			ap := make([]float64, rp*max(s.d, 1))
			packL1Rows(ap, x.RawMatrix(), 0, s.n)
			out := make([]float64, l1Rows*mp)
			for ip := 0; ip < s.n; ip += l1Rows {
				for jp := 0; jp < mp; jp += l1Cols {
					l1Tile(a, s.d, ap[ip*s.d:], cp[jp*s.d:], out[jp:], mp)
				}
				for i := ip; i < min(ip+l1Rows, s.n); i++ {
					for j := 0; j < s.m; j++ {
						want := -0.5 * scalarL1(x.RawRowView(i), c.RawRowView(j))
						if got := out[(i-ip)*mp+j]; got != want {
							t.Fatalf("%v %+v: sum (%d, %d) = %v, scalar %v", a, s, i, j, got, want)
						}
					}
				}
			}
		}
	}
}

// laplacianBound is the error allowed between a SIMD kernel value and
// Laplacian.Eval's math.Exp(−γ·s) for the same (bit-identical) sum s, with
// x = −γ·s: the row map's own bound against math.Exp of its argument (4 +
// 2|x| units of 2^−53 relative, TestExpRowSIMD), plus the rounding of −γ·s
// in Eval (|x|·2^−53 relative) and math.Exp's error (under 1 ulp, counted
// as 2·2^−53), plus 2^−1073 absolute for subnormal results.
func laplacianBound(x, want float64) float64 {
	return (6+3*math.Abs(x))*0x1p-53*want + 0x1p-1073
}

// TestLaplacianSIMD compares every way the engine forms the Laplacian kernel
// (Op.Block, the products Mul, MulT, MulTMul with one and several columns,
// and Laplacian.Block) on the SIMD paths with Laplacian.Eval on ragged shapes:
// the kernel values within laplacianBound, the products (SIMD and portable)
// within 1e-12 of those computed from Eval's kernel matrix. Run under
// LANDMARK_SIMD=avx2 and =portable too (then fewer paths exist).
func TestLaplacianSIMD(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ctx := context.Background()
	for _, a := range accels() {
		for _, s := range l1Shapes {
			name := fmt.Sprintf("%v/n=%d,m=%d,d=%d,b=%d", a, s.n, s.m, s.d, s.b)
			x, c := randDense(r, s.n, s.d), randDense(r, s.m, s.d)
			k := Laplacian{Gamma: 1.5 / float64(s.d)}
			v1, v3, u1 := randDense(r, s.m, 1), randDense(r, s.m, 3), randDense(r, s.n, 1)
			res := func(acc accel) [6]*mat.Dense {
				defer setAccel(acc)()
				op := NewOp(k, x, c, Options{BlockRows: s.b})
				out := [6]*mat.Dense{mat.NewDense(s.n, s.m, nil), mat.NewDense(s.m, 1, nil), mat.NewDense(s.m, 3, nil),
					mat.NewDense(s.n, 3, nil), mat.NewDense(s.m, 1, nil), mat.NewDense(s.n, 1, nil)}
				for _, err := range []error{op.Block(ctx, out[0]), op.MulTMul(ctx, out[1], v1), op.MulTMul(ctx, out[2], v3),
					op.Mul(ctx, out[3], v3), op.MulT(ctx, out[4], u1), op.Mul(ctx, out[5], v1)} {
					if err != nil {
						t.Fatal(err)
					}
				}
				return out
			}
			got, port := res(a), res(accelPortable)
			// The products from the kernel matrix of Eval.
			kn := naive(k, x, c)
			var kv1, kv3 mat.Dense
			kv1.Mul(kn, v1)
			kv3.Mul(kn, v3)
			want := [6]*mat.Dense{kn, new(mat.Dense), new(mat.Dense), &kv3, new(mat.Dense), &kv1}
			want[1].Mul(kn.T(), &kv1)
			want[2].Mul(kn.T(), &kv3)
			want[4].Mul(kn.T(), u1)
			direct := mat.NewDense(s.n, s.m, nil)
			func() {
				defer setAccel(a)()
				k.Block(direct, x, c)
			}()
			for i := 0; i < s.n; i++ {
				for j := 0; j < s.m; j++ {
					xi, cj := x.RawRowView(i), c.RawRowView(j)
					want := k.Eval(xi, cj)
					bound := laplacianBound(-k.Gamma*scalarL1(xi, cj), want)
					for _, g := range []float64{got[0].At(i, j), direct.At(i, j)} {
						if math.Abs(g-want) > bound {
							t.Fatalf("%s: K(%d, %d) = %v, Eval %v (bound %.3g)", name, i, j, g, want, bound)
						}
					}
				}
			}
			// 1e-12 relative to the largest entry: the sums have at most
			// 101·50 terms of kernel values ≤ 1 that differ by a few ulps.
			for p := 1; p < len(got); p++ {
				scale := math.Max(1, mat.Norm(want[p], math.Inf(1)))
				if !mat.EqualApprox(got[p], want[p], 1e-12*scale) || !mat.EqualApprox(port[p], want[p], 1e-12*scale) {
					t.Fatalf("%s: product %d: SIMD or portable differs from Eval's kernel matrix", name, p)
				}
			}
		}
	}
}
