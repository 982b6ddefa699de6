package kernel

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func randDense(r *rand.Rand, n, d int) *mat.Dense {
	m := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			m.Set(i, j, r.NormFloat64())
		}
	}
	return m
}

func allKernels() []Kernel {
	return []Kernel{
		Gaussian{Gamma: 0.3},
		GaussianSigma(1.7),
		Laplacian{Gamma: 0.2},
		Polynomial{Degree: 3, Gamma: 0.5, Coef0: 1},
		Sigmoid{Gamma: 0.1, Coef0: -0.5},
		Linear{},
	}
}

func relClose(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// naive is the double loop every block result is compared with.
func naive(k Kernel, a, b *mat.Dense) *mat.Dense {
	ra, _ := a.Dims()
	rb, _ := b.Dims()
	out := mat.NewDense(ra, rb, nil)
	for i := 0; i < ra; i++ {
		for j := 0; j < rb; j++ {
			out.Set(i, j, k.Eval(a.RawRowView(i), b.RawRowView(j)))
		}
	}
	return out
}

func TestBlockMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, d := range []int{1, 3, 17} {
		a, b := randDense(r, 37, d), randDense(r, 23, d)
		for _, k := range allKernels() {
			want := naive(k, a, b)
			got := mat.NewDense(37, 23, nil)
			k.Block(got, a, b)
			for i := 0; i < 37; i++ {
				for j := 0; j < 23; j++ {
					if !relClose(got.At(i, j), want.At(i, j), 1e-12) {
						t.Fatalf("%v d=%d (%d,%d): got %v want %v", k, d, i, j, got.At(i, j), want.At(i, j))
					}
				}
			}
			diag := make([]float64, 37)
			k.Diag(diag, a)
			for i, v := range diag {
				if w := k.Eval(a.RawRowView(i), a.RawRowView(i)); !relClose(v, w, 1e-12) {
					t.Fatalf("%v diag %d: got %v want %v", k, i, v, w)
				}
			}
		}
	}
}

func TestGaussianSigma(t *testing.T) {
	g := GaussianSigma(2)
	if g.Gamma != 0.125 || g.Sigma() != 2 {
		t.Fatalf("sigma 2: gamma %v sigma %v, want 0.125 and 2", g.Gamma, g.Sigma())
	}
}

func TestValidate(t *testing.T) {
	bad := []Kernel{Gaussian{}, Gaussian{Gamma: math.NaN()}, Gaussian{Gamma: math.Inf(1)}, Laplacian{Gamma: -1},
		Polynomial{Degree: 0, Gamma: 1}, Polynomial{Degree: 2, Gamma: 0}, Polynomial{Degree: 2, Gamma: 1, Coef0: -1},
		Sigmoid{}, Sigmoid{Gamma: 1, Coef0: math.NaN()}, Sigmoid{Gamma: 1, Coef0: math.Inf(-1)}}
	for _, k := range bad {
		if err := k.Validate(); err == nil {
			t.Errorf("%v: Validate returned nil", k)
		}
	}
	for _, k := range allKernels() {
		if err := k.Validate(); err != nil {
			t.Errorf("%v: %v", k, err)
		}
	}
}

// TestEngineProducts checks Mul, MulT and MulTMul against the explicit matrix
// products, with ragged block edges, and that 1 and 8 workers agree bit for bit,
// with one right-hand side (the fused single-vector paths), with two, and
// with 19 (more than one 16-column panel of the packed products, ragged),
// and the same with the portable tiles.
func TestEngineProducts(t *testing.T) {
	for _, tt := range []int{1, 2, 19} {
		testEngineProducts(t, tt)
	}
	defer setSIMD(false)()
	for _, tt := range []int{2, 19} {
		testEngineProducts(t, tt)
	}
}

func testEngineProducts(t *testing.T, tt int) {
	r := rand.New(rand.NewPCG(3, 4))
	ctx := context.Background()
	n, m, d := 301, 29, 5
	x, c := randDense(r, n, d), randDense(r, m, d)
	v, u := randDense(r, m, tt), randDense(r, n, tt)
	for _, k := range allKernels() {
		full := naive(k, x, c)
		var wantMul, wantT, wantTT mat.Dense
		wantMul.Mul(full, v)
		wantT.Mul(full.T(), u)
		wantTT.Mul(full.T(), &wantMul)
		var results [2][3]*mat.Dense
		for wi, workers := range []int{1, 8} {
			op := NewOp(k, x, c, Options{Workers: workers, BlockRows: 7})
			got := [3]*mat.Dense{mat.NewDense(n, tt, nil), mat.NewDense(m, tt, nil), mat.NewDense(m, tt, nil)}
			if err := op.Mul(ctx, got[0], v); err != nil {
				t.Fatal(err)
			}
			if err := op.MulT(ctx, got[1], u); err != nil {
				t.Fatal(err)
			}
			if err := op.MulTMul(ctx, got[2], v); err != nil {
				t.Fatal(err)
			}
			for i, want := range []*mat.Dense{&wantMul, &wantT, &wantTT} {
				if !mat.EqualApprox(got[i], want, 1e-9*mat.Norm(want, math.Inf(1))) {
					t.Fatalf("%v product %d differs from explicit", k, i)
				}
			}
			results[wi] = got
			blk := mat.NewDense(n, m, nil)
			if err := op.Block(ctx, blk); err != nil {
				t.Fatal(err)
			}
			if !mat.EqualApprox(blk, full, 1e-12) {
				t.Fatalf("%v Block differs from naive", k)
			}
		}
		for i := range 3 {
			if !mat.Equal(results[0][i], results[1][i]) {
				t.Fatalf("%v product %d: 1 and 8 workers differ", k, i)
			}
		}
	}
}

func TestEngineCancel(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	x, c := randDense(r, 500, 3), randDense(r, 10, 3)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	op := NewOp(Gaussian{Gamma: 1}, x, c, Options{BlockRows: 10})
	if err := op.MulTMul(ctx, mat.NewDense(10, 1, nil), mat.NewDense(10, 1, nil)); err != context.Canceled {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestLaplacianBlockBits: Laplacian.Block, which sums four columns at a time,
// gives every entry the bits of the one-pair loop (the L1 sum over features
// in order, then expNeg), on strided views with 0–3 columns left after the
// groups of four (b has 21, 22, 23, 24 rows) and d = 1, 5, 54. This is the
// portable path; the SIMD paths (same sums, the row map's exp) are checked
// against Eval by TestL1TileSums and TestLaplacianSIMD.
func TestLaplacianBlockBits(t *testing.T) {
	defer setAccel(accelPortable)()
	r := rand.New(rand.NewPCG(7, 8))
	l := Laplacian{Gamma: 0.3}
	for _, d := range []int{1, 5, 54} {
		for _, nb := range []int{21, 22, 23, 24} {
			a := randDense(r, 9, d+3).Slice(1, 8, 2, d+2).(*mat.Dense)
			b := randDense(r, nb+2, d+1).Slice(2, nb+2, 1, d+1).(*mat.Dense)
			got := mat.NewDense(7, nb, nil)
			l.Block(got, a, b)
			for i := range 7 {
				for j := range nb {
					var s float64
					for k := range d {
						s += math.Abs(a.At(i, k) - b.At(j, k))
					}
					if want := expNeg(-l.Gamma * s); got.At(i, j) != want {
						t.Fatalf("d=%d nb=%d (%d,%d): %v, one-pair loop %v", d, nb, i, j, got.At(i, j), want)
					}
				}
			}
		}
	}
}
