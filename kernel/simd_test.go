package kernel

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// ulpDiff returns |a − b| in units of the spacing of float64 numbers at b
// (2^-1074 for subnormal b).
func ulpDiff(a, b float64) float64 {
	ulp := math.Nextafter(math.Abs(b), math.Inf(1)) - math.Abs(b)
	return math.Abs(a-b) / ulp
}

// accels returns the sets of inner kernels this CPU can run, portable first.
func accels() []accel {
	var as []accel
	for a := accelPortable; a <= bestAccel; a++ {
		as = append(as, a)
	}
	return as
}

// TestExpNeg compares expNeg with math.Exp on a dense grid of [−746, 0],
// on tiny |x| and across the subnormal range. The bound of 3 ulps (measured:
// 2) covers a degree-13 polynomial evaluated by Horner's rule without FMA after
// a two-constant Cody–Waite reduction (each step adds under half an ulp), plus
// math.Exp's own error of under 1 ulp.
func TestExpNeg(t *testing.T) {
	var xs []float64
	for i := 0; i <= 2_000_000; i++ {
		xs = append(xs, -746*float64(i)/2_000_000)
	}
	for e := -1; e >= -320; e-- {
		xs = append(xs, -math.Pow(10, float64(e)), -3*math.Pow(10, float64(e)))
	}
	for x := -708.0; x >= -746; x -= 1.0 / 1024 {
		xs = append(xs, x)
	}
	xs = append(xs, 0, math.Copysign(0, -1), -math.SmallestNonzeroFloat64, -745.1332191019411, -745.1332191019412, -1000, math.Inf(-1))
	worst, at := 0.0, 0.0
	for _, x := range xs {
		got, want := expNeg(x), math.Exp(x)
		if u := ulpDiff(got, want); u > worst {
			worst, at = u, x
		}
	}
	t.Logf("max error %.3g ulp at x = %v", worst, at)
	if worst > 3 {
		t.Fatalf("expNeg: %.3g ulp at x = %v: got %v, math.Exp %v", worst, at, expNeg(at), math.Exp(at))
	}
	if !math.IsNaN(expNeg(math.NaN())) {
		t.Fatal("expNeg(NaN) is not NaN")
	}
}

// TestExpRowSIMD checks the AVX-512 and AVX2 Gaussian row maps against
// math.Exp of the same argument x = ng·t (t = xx + cc − 2·row clamped at 0, as
// the portable code rounds it), element by element, on arguments spread over
// [−746, 0] including the subnormal range, zero distances and negative
// round-off (clamped to zero).
//
// The bound: |simd − e^x| ≤ (4 + 2|x|)·2^−53·e^x (+ 2^−1073 for subnormal
// results). The 4 covers the polynomial, table and final roundings (a few
// half-ulps each); the |x| term is the AVX-512 kernel's rescaling of x to
// y = x·log2e, whose rounding (½ulp of y, twice: the scale factor and the
// product) shifts the result by up to 1.5·2^−53·|x| relative. Since
// |x|·e^x ≤ 1/e, that term is at most 1.5·2^−53/e ≈ 6e-17 in absolute value.
// The test logs the largest error measured in those units.
func TestExpRowSIMD(t *testing.T) {
	if bestAccel == accelPortable {
		t.Skip("no AVX2 or AVX-512 on this CPU")
	}
	for _, a := range accels()[1:] {
		t.Run(a.String(), func(t *testing.T) { testExpRow(t, a) })
	}
}

func testExpRow(t *testing.T, a accel) {
	expRow, expRowDot := expRowAVX512, expRowDotAVX512
	if a == accelAVX2 {
		expRow, expRowDot = expRowAVX2, expRowDotAVX2
	}
	r := rand.New(rand.NewPCG(7, 8))
	// The first half mixes the four kinds of argument below in every vector
	// of 4 (so every step of the AVX2 kernel has a subnormal result and takes
	// its subnormal branch); the second half has blocks of 32 values of one
	// kind (its branch for steps whose results are all ≥ 2^−1022, and steps
	// straddling the branch's threshold x = −1022·ln2 ≈ −708.40).
	const n = 8192
	row, cc, v := make([]float64, n), make([]float64, n), make([]float64, n)
	for j := range row {
		// t = xx + cc − 2·row = cc + 1 − 2·row with xx = 1, ng = −1.
		kind := j % 4
		if j >= n/2 {
			kind = 4 + (j/32)%4
		}
		switch kind {
		case 0:
			cc[j], row[j] = 745*r.Float64(), 0.5
		case 1:
			cc[j], row[j] = 700+46*r.Float64(), 0.5 // subnormal results and zero
		case 2:
			cc[j], row[j] = 1e-9*r.Float64(), 0.5+1e-9*r.Float64() // tiny and negative t
		case 3:
			cc[j], row[j] = 5*r.Float64(), 0.5+r.NormFloat64()
		case 4:
			cc[j], row[j] = 708*r.Float64(), 0.5 // all results normal
		case 5:
			cc[j], row[j] = 707.5+2*r.Float64(), 0.5 // around the threshold
		case 6:
			cc[j], row[j] = 1e-9*r.Float64(), 0.5+1e-9*r.Float64()
		case 7:
			cc[j], row[j] = 40*r.Float64(), 0.5+r.NormFloat64()
		}
		v[j] = r.NormFloat64()
	}
	want := append([]float64(nil), row...)
	wantDot := gaussRowDot(want, cc, v, 1, -1)
	got := append([]float64(nil), row...)
	gotDot := expRowDot(&got[0], &cc[0], &v[0], n, 1, -1)
	got2 := append([]float64(nil), row...)
	expRow(&got2[0], &cc[0], n, 1, -1)
	const eps = 0x1p-53
	var worstC, worstX float64 // largest |error|/(e^x·2^−53) − 2|x|, and the largest in 2^−53/(1+|x|) units
	for j := range want {
		if got[j] != got2[j] {
			t.Fatalf("j=%d: expRow %v, expRowDot %v", j, got2[j], got[j])
		}
		tt := max(1+cc[j]-2*row[j], 0)
		x := -1 * tt
		e := math.Exp(x)
		diff := math.Abs(got[j] - e)
		if diff > (4+2*math.Abs(x))*eps*e+0x1p-1073 || math.IsNaN(got[j]) {
			t.Fatalf("j=%d, x=%v: simd %v, math.Exp %v", j, x, got[j], e)
		}
		if e >= 0x1p-1022 {
			worstC = max(worstC, diff/(eps*e)-2*math.Abs(x))
			worstX = max(worstX, diff/(eps*e)/(1+math.Abs(x)))
		}
	}
	t.Logf("%v: max |error| − 2|x|·2^−53·e^x = %.2f·2^−53·e^x; max |error| = %.2f·(1+|x|)·2^−53·e^x", a, worstC, worstX)
	if !relClose(gotDot, wantDot, 1e-12) {
		t.Fatalf("dot: simd %v portable %v", gotDot, wantDot)
	}
	// A NaN argument gives NaN, beside normal and beside subnormal results.
	for _, other := range []float64{3, 720} {
		nr, nc := make([]float64, 16), make([]float64, 16)
		for j := range nc {
			nr[j], nc[j] = 0.5, other
		}
		nc[5] = math.NaN()
		expRow(&nr[0], &nc[0], 16, 1, -1)
		for j, k := range nr {
			if math.IsNaN(k) != (j == 5) {
				t.Fatalf("NaN at j = 5 beside t = %v: got %v at j = %d", other, k, j)
			}
		}
	}
}

// TestSIMDMatchesPortable runs every product of the engine with the AVX-512
// and AVX2 kernels and with the portable code on ragged shapes (n, M, d not multiples
// of 8 or 16, d = 1, d past the 256-feature k-blocking) and requires 1e-12
// relative agreement (the bound), and checks both against the naive
// double loop.
func TestSIMDMatchesPortable(t *testing.T) {
	if bestAccel == accelPortable {
		t.Skip("no AVX2 or AVX-512 on this CPU")
	}
	for _, a := range accels()[1:] {
		t.Run(a.String(), func(t *testing.T) { testSIMDMatchesPortable(t, a) })
	}
}

func testSIMDMatchesPortable(t *testing.T, a accel) {
	r := rand.New(rand.NewPCG(9, 10))
	ctx := context.Background()
	shapes := []struct{ n, m, d, b int }{
		{37, 19, 1, 0}, {101, 33, 3, 9}, {64, 16, 8, 16}, {53, 47, 17, 0}, {29, 21, 300, 13}, {5, 1, 2, 0},
		{40, 32, 40, 8}, // Block forms K in place in dst (M = 32, blocks of 8 rows)
	}
	for _, s := range shapes {
		x, c := randDense(r, s.n, s.d), randDense(r, s.m, s.d)
		v1, v2, u, u1 := randDense(r, s.m, 1), randDense(r, s.m, 3), randDense(r, s.n, 2), randDense(r, s.n, 1)
		for _, k := range []Kernel{Gaussian{Gamma: 0.7 / float64(s.d)}, Polynomial{Degree: 2, Gamma: 0.1, Coef0: 1}, Linear{}} {
			var res [2][7]*mat.Dense
			for i, acc := range []accel{a, accelPortable} {
				restore := setAccel(acc)
				op := NewOp(k, x, c, Options{BlockRows: s.b})
				res[i] = [7]*mat.Dense{mat.NewDense(s.n, s.m, nil), mat.NewDense(s.m, 1, nil), mat.NewDense(s.m, 3, nil),
					mat.NewDense(s.n, 3, nil), mat.NewDense(s.m, 2, nil), mat.NewDense(s.n, 1, nil), mat.NewDense(s.m, 1, nil)}
				for _, err := range []error{
					op.Block(ctx, res[i][0]), op.MulTMul(ctx, res[i][1], v1), op.MulTMul(ctx, res[i][2], v2),
					op.Mul(ctx, res[i][3], v2), op.MulT(ctx, res[i][4], u), op.Mul(ctx, res[i][5], v1), op.MulT(ctx, res[i][6], u1),
				} {
					if err != nil {
						t.Fatal(err)
					}
				}
				restore()
			}
			if !mat.EqualApprox(res[0][0], naive(k, x, c), 1e-12) {
				t.Fatalf("%v %+v: SIMD block differs from naive", k, s)
			}
			for p := range res[0] {
				scale := math.Max(1, mat.Norm(res[1][p], math.Inf(1)))
				if !mat.EqualApprox(res[0][p], res[1][p], 1e-12*scale) {
					t.Fatalf("%v %+v: product %d: SIMD and portable differ", k, s, p)
				}
			}
		}
	}
}

// TestGaussianNearUnderflow uses points so far apart that most kernel values
// are subnormal or zero: SIMD and portable must still agree, without NaNs.
func TestGaussianNearUnderflow(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	x, c := randDense(r, 45, 3), randDense(r, 27, 3)
	x.Scale(20, x)
	c.Scale(20, c)
	k := Gaussian{Gamma: 0.35} // γ‖x−c‖² spreads over roughly [0, 2000]
	want := naive(k, x, c)
	for _, a := range accels() {
		restore := setAccel(a)
		got := mat.NewDense(45, 27, nil)
		if err := NewOp(k, x, c, Options{}).Block(context.Background(), got); err != nil {
			t.Fatal(err)
		}
		restore()
		for i := range 45 {
			for j := range 27 {
				g, w := got.At(i, j), want.At(i, j)
				if math.IsNaN(g) || math.Abs(g-w) > 1e-12*math.Max(w, 1e-300) && w > 1e-300 {
					t.Fatalf("%v (%d,%d): got %v want %v", a, i, j, g, w)
				}
			}
		}
	}
}

// TestDispatch checks both ways of selecting the inner kernels: the test hook
// (capped at bestAccel) and the environment variables' parsing.
func TestDispatch(t *testing.T) {
	// Read the variables here too: the go command's test cache keys a result
	// on the environment variables a test reads, and the package reads them
	// at initialization, before the test log records anything. Without this a
	// run with LANDMARK_SIMD=avx2 could replay a cached result of another path.
	t.Logf("%s=%q %s=%q: %s", simdEnv, os.Getenv(simdEnv), noSIMDEnv, os.Getenv(noSIMDEnv), AccelChoice())
	if bestAccel > cpuAccel {
		t.Fatalf("bestAccel %v above what the CPU supports, %v", bestAccel, cpuAccel)
	}
	if useAccel != bestAccel {
		t.Fatalf("at start useAccel = %v, bestAccel = %v", useAccel, bestAccel)
	}
	restore := setSIMD(false)
	if Accel() != "portable" {
		t.Fatalf("forced fallback: Accel() = %q", Accel())
	}
	restore()
	restore = setSIMD(true)
	if Accel() != bestAccel.String() {
		t.Fatalf("SIMD on, best %v: Accel() = %q", bestAccel, Accel())
	}
	restore()
	restore = setAccel(accelAVX2)
	if want := min(accelAVX2, bestAccel).String(); Accel() != want {
		t.Fatalf("AVX2 asked, best %v: Accel() = %q, want %q", bestAccel, Accel(), want)
	}
	restore()
	for v, off := range map[string]bool{"": false, "0": false, "1": true, "yes": true} {
		if envOff(v) != off {
			t.Errorf("%s=%q: off = %v, want %v", noSIMDEnv, v, envOff(v), off)
		}
	}
}

// TestAccelFromEnv checks the choice of inner kernels for every CPU level and
// every value of LANDMARK_SIMD and LANDMARK_NOSIMD: a named path is used when
// the CPU has it and capped otherwise, NOSIMD wins, case and spaces do not
// matter, and an unknown value keeps the CPU's widest path with a warning
// naming the value.
func TestAccelFromEnv(t *testing.T) {
	for _, c := range []struct {
		cpu          accel
		simd, nosimd string
		want         accel
		note         string // substring of the note; "" means no note
	}{
		{accelAVX512, "", "", accelAVX512, ""},
		{accelAVX512, "avx512", "", accelAVX512, "LANDMARK_SIMD=avx512"},
		{accelAVX512, "avx2", "", accelAVX2, "LANDMARK_SIMD=avx2; the CPU supports avx512"},
		{accelAVX512, " AVX2 ", "", accelAVX2, "the CPU supports avx512"},
		{accelAVX512, "portable", "", accelPortable, "LANDMARK_SIMD=portable; the CPU supports avx512"},
		{accelAVX2, "avx512", "", accelAVX2, "LANDMARK_SIMD=avx512 capped: the CPU supports avx2 at most"},
		{accelPortable, "avx2", "", accelPortable, "capped: the CPU supports portable at most"},
		{accelAVX2, "portable", "", accelPortable, "the CPU supports avx2"},
		{accelAVX512, "", "1", accelPortable, "LANDMARK_NOSIMD=1; the CPU supports avx512"},
		{accelAVX512, "avx512", "1", accelPortable, "LANDMARK_NOSIMD=1"},
		{accelAVX512, "avx2", "0", accelAVX2, "LANDMARK_SIMD=avx2"},
		{accelAVX512, "avx-512", "", accelAVX512, `warning: LANDMARK_SIMD="avx-512" ignored: not avx512, avx2 or portable; using avx512`},
		{accelAVX2, "sse", "", accelAVX2, `warning: LANDMARK_SIMD="sse" ignored`},
	} {
		got, note := accelFromEnv(c.cpu, c.simd, c.nosimd)
		if got != c.want || (c.note == "") != (note == "") || !strings.Contains(note, c.note) {
			t.Errorf("cpu %v, SIMD %q, NOSIMD %q: %v %q, want %v with a note containing %q", c.cpu, c.simd, c.nosimd, got, note, c.want, c.note)
		}
	}
}

// TestFusedWorkers checks that the fused single-vector Gaussian product is
// bit-identical for 1 and 8 workers with every set of inner kernels (fixed reduction order), and
// equals the explicit Kᵀ(K v).
func TestFusedWorkers(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	x, c, v := randDense(r, 517, 6), randDense(r, 35, 6), randDense(r, 35, 1)
	k := Gaussian{Gamma: 0.2}
	full := naive(k, x, c)
	var kv, want mat.Dense
	kv.Mul(full, v)
	want.Mul(full.T(), &kv)
	for _, a := range accels() {
		restore := setAccel(a)
		var got [2]*mat.Dense
		for i, w := range []int{1, 8} {
			got[i] = mat.NewDense(35, 1, nil)
			if err := NewOp(k, x, c, Options{Workers: w, BlockRows: 12}).MulTMul(context.Background(), got[i], v); err != nil {
				t.Fatal(err)
			}
		}
		restore()
		if !mat.Equal(got[0], got[1]) {
			t.Fatalf("%v: 1 and 8 workers differ", a)
		}
		if !mat.EqualApprox(got[0], &want, 1e-12*mat.Norm(&want, math.Inf(1))) {
			t.Fatalf("%v: fused product differs from explicit", a)
		}
		// Float32 mode (on AVX-512 the float32 exp and sums): bit-identical
		// for 1 and 8 workers too, and within float32KernelTol of exact.
		restore = setAccel(a)
		for i, w := range []int{1, 8} {
			got[i] = mat.NewDense(35, 1, nil)
			if err := NewOp(k, x, c, Options{Workers: w, BlockRows: 12, Float32: true}).MulTMul(context.Background(), got[i], v); err != nil {
				t.Fatal(err)
			}
		}
		restore()
		if !mat.Equal(got[0], got[1]) {
			t.Fatalf("%v float32: 1 and 8 workers differ", a)
		}
		if !mat.EqualApprox(got[0], &want, float32KernelTol*mat.Norm(&want, math.Inf(1))) {
			t.Fatalf("%v float32: fused product differs from explicit", a)
		}
	}
}

// TestSIMDEnv re-runs this test binary with LANDMARK_SIMD (and
// LANDMARK_NOSIMD) set and checks what the child process selected at
// start-up: each path up to the CPU's widest when named, the widest when
// asked for more, portable under LANDMARK_NOSIMD=1, and for an unknown value
// the widest with one warning on stderr. The child also runs the engine's
// SIMD/portable comparison, so the forced path is exercised.
func TestSIMDEnv(t *testing.T) {
	if os.Getenv("LANDMARK_TEST_CHILD") == "1" {
		fmt.Printf("child: Accel %s, choice %s\n", Accel(), AccelChoice())
		if want := os.Getenv("LANDMARK_TEST_WANT"); Accel() != want {
			t.Fatalf("%s=%q %s=%q: Accel() = %q, want %q", simdEnv, os.Getenv(simdEnv), noSIMDEnv, os.Getenv(noSIMDEnv), Accel(), want)
		}
		return
	}
	if testing.Short() {
		t.Skip("re-runs the test binary")
	}
	type env struct{ simd, nosimd, want, warn string }
	cases := []env{
		{"avx512", "", min(accelAVX512, cpuAccel).String(), ""},
		{"avx2", "", min(accelAVX2, cpuAccel).String(), ""},
		{"portable", "", "portable", ""},
		{"", "1", "portable", ""},
		{"avx2", "1", "portable", ""},
		{"avx-512", "", cpuAccel.String(), `LANDMARK_SIMD="avx-512" ignored`},
	}
	for _, c := range cases {
		cmd := exec.Command(os.Args[0], "-test.run=^(TestSIMDEnv|TestSIMDMatchesPortable)$", "-test.v")
		cmd.Env = append(os.Environ(), "LANDMARK_TEST_CHILD=1", "LANDMARK_TEST_WANT="+c.want, simdEnv+"="+c.simd, noSIMDEnv+"="+c.nosimd)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		out := stdout.String()
		if err != nil || !strings.Contains(out, "PASS") || !strings.Contains(out, "child: Accel "+c.want) {
			t.Fatalf("child with %s=%q %s=%q: %v\n%s%s", simdEnv, c.simd, noSIMDEnv, c.nosimd, err, out, stderr.String())
		}
		// The warning is printed once, at start, and only for an unknown value.
		if n := strings.Count(stderr.String(), "landmark: kernel: "); (c.warn == "" && n != 0) || (c.warn != "" && (n != 1 || !strings.Contains(stderr.String(), c.warn))) {
			t.Errorf("child with %s=%q: stderr %q, want %d warning(s) containing %q", simdEnv, c.simd, stderr.String(), map[bool]int{true: 1}[c.warn != ""], c.warn)
		}
	}
}
