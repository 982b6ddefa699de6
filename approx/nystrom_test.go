package approx

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// nyRand returns an n×d matrix of standard normals.
func nyRand(rng *rand.Rand, n, d int) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = rng.NormFloat64()
	}
	return x
}

// nyKernel is the dense K(a, b), entry by entry with Eval.
func nyKernel(k kernel.Kernel, a, b *mat.Dense) *mat.Dense {
	na, _ := a.Dims()
	nb, _ := b.Dims()
	out := mat.NewDense(na, nb, nil)
	for i := 0; i < na; i++ {
		for j := 0; j < nb; j++ {
			out.Set(i, j, k.Eval(a.RawRowView(i), b.RawRowView(j)))
		}
	}
	return out
}

// nyApprox returns φ(a)·φ(b)ᵀ.
func nyApprox(t *testing.T, f FeatureMap, a, b *mat.Dense) *mat.Dense {
	t.Helper()
	na, _ := a.Dims()
	nb, _ := b.Dims()
	fa := mat.NewDense(na, f.Dim(), nil)
	fb := mat.NewDense(nb, f.Dim(), nil)
	if err := f.Transform(context.Background(), fa, a); err != nil {
		t.Fatal(err)
	}
	if err := f.Transform(context.Background(), fb, b); err != nil {
		t.Fatal(err)
	}
	var out mat.Dense
	out.Mul(fa, fb.T())
	return &out
}

func nyFrob(a, b *mat.Dense) float64 {
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, 2)
}

func nyLandmarks(x *mat.Dense, idx []int) *Landmarks {
	return &Landmarks{Points: points.Gather(x, idx), Indices: idx}
}

func TestNystromAllPointsReproducesK(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := nyRand(rng, 60, 3)
	k := kernel.Gaussian{Gamma: 0.5}
	all := make([]int, 60)
	for i := range all {
		all[i] = i
	}
	kd := nyKernel(k, x, x)
	lmax := mat.Norm(kd, 2)
	for _, qr := range []bool{false, true} {
		m, err := Nystrom{QR: qr}.Fit(context.Background(), x, k, nyLandmarks(x, all))
		if err != nil {
			t.Fatal(err)
		}
		// With W = K, K − K W⁺ K is the part of K on the eigenvalues below the
		// floor (1e-10·λ_max), so every entry is within 1e-10·λ_max plus
		// rounding; 1e-8·λ_max leaves room for the latter.
		var diff mat.Dense
		diff.Sub(kd, nyApprox(t, m, x, x))
		if e := mat.Norm(&diff, math.Inf(1)); e > 1e-8*lmax {
			t.Errorf("QR=%v: max row-sum error %g (λ_max %g, dropped %d)", qr, e, lmax, m.Dropped)
		}
	}
}

func TestNystromInterpolatesLandmarks(t *testing.T) {
	// Standard Nyström matches K exactly on the landmark rows and columns:
	// K̃[L, :] = W W⁺ C = C when W is invertible, and on new points it equals
	// K(x, L) W⁻¹ K(L, y) computed by a direct solve.
	rng := rand.New(rand.NewPCG(3, 4))
	x := nyRand(rng, 50, 4)
	y := nyRand(rng, 7, 4)
	k := kernel.Laplacian{Gamma: 0.3}
	idx := []int{0, 5, 9, 13, 22, 31, 40, 47}
	lm := nyLandmarks(x, idx)
	m, err := Nystrom{}.Fit(context.Background(), x, k, lm)
	if err != nil {
		t.Fatal(err)
	}
	if m.Dropped != 0 {
		t.Fatalf("dropped %d eigenvalues of a well-conditioned W", m.Dropped)
	}
	got := nyApprox(t, m, x, y)
	w := nyKernel(k, lm.Points.(*mat.Dense), lm.Points.(*mat.Dense))
	var sol, want mat.Dense
	if err := sol.Solve(w, nyKernel(k, lm.Points.(*mat.Dense), y)); err != nil {
		t.Fatal(err)
	}
	want.Mul(nyKernel(k, x, lm.Points.(*mat.Dense)), &sol)
	// Both are the same exact quantity; W here has condition number < 1e3,
	// so 1e-10 absolute on entries ≤ 1 is a rounding tolerance.
	if !mat.EqualApprox(got, &want, 1e-10) {
		t.Fatalf("Nyström on new points differs from the direct solve")
	}
	onL := nyApprox(t, m, lm.Points.(*mat.Dense), x)
	if !mat.EqualApprox(onL, nyKernel(k, lm.Points.(*mat.Dense), x), 1e-10) {
		t.Fatalf("Nyström does not interpolate K on landmark rows")
	}
}

func TestNystromQRNeverWorse(t *testing.T) {
	// Pourkamali-Anaraki & Becker, Sec. 3: the QR variant gives the best
	// rank-k approximation of C W⁺ Cᵀ, so its error ‖K − K̃‖_F is never larger
	// than the standard rank-k error (C W_k⁺ Cᵀ) from the same landmarks; at
	// k = M both are C W⁺ Cᵀ.
	ctx := context.Background()
	worse := 0
	for c := 0; c < 30; c++ {
		rng := rand.New(rand.NewPCG(uint64(c), 9))
		n, d, M := 40+rng.IntN(40), 2+rng.IntN(4), 5+rng.IntN(15)
		x := nyRand(rng, n, d)
		k := kernel.Gaussian{Gamma: 0.05 + rng.Float64()}
		kd := nyKernel(k, x, x)
		lm, err := Uniform{}.Sample(ctx, x, k, M, rng)
		if err != nil {
			t.Fatal(err)
		}
		for _, rank := range []int{1, M / 2, M} {
			if rank == 0 {
				continue
			}
			std, err := Nystrom{Rank: rank}.Fit(ctx, x, k, lm)
			if err != nil {
				t.Fatal(err)
			}
			qr, err := Nystrom{Rank: rank, QR: true}.Fit(ctx, x, k, lm)
			if err != nil {
				t.Fatal(err)
			}
			es, eq := nyFrob(kd, nyApprox(t, std, x, x)), nyFrob(kd, nyApprox(t, qr, x, x))
			// 1e-9 relative covers rounding; the theorem is exact.
			if eq > es*(1+1e-9)+1e-12 {
				worse++
				t.Errorf("case %d rank %d: QR error %g > standard %g", c, rank, eq, es)
			}
			if rank == M && std.Dropped == 0 && math.Abs(eq-es) > 1e-6*es+1e-10 {
				t.Errorf("case %d: at k = M errors differ: QR %g, standard %g", c, eq, es)
			}
		}
	}
}

func TestNystromQREigenpairs(t *testing.T) {
	// φ(X) = Q U_k Σ_k^{1/2} for the QR map: its columns are orthogonal with
	// squared norms Values, which are the top eigenvalues of K̃ = φφᵀ.
	rng := rand.New(rand.NewPCG(21, 1))
	x := nyRand(rng, 80, 3)
	k := kernel.Gaussian{Gamma: 0.4}
	lm, err := Uniform{}.Sample(context.Background(), x, k, 20, rng)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Nystrom{Rank: 6, QR: true}.Fit(context.Background(), x, k, lm)
	if err != nil {
		t.Fatal(err)
	}
	f := mat.NewDense(80, m.Dim(), nil)
	if err := m.Transform(context.Background(), f, x); err != nil {
		t.Fatal(err)
	}
	var g mat.Dense
	g.Mul(f.T(), f)
	for i := 0; i < m.Dim(); i++ {
		for j := 0; j < m.Dim(); j++ {
			want := 0.0
			if i == j {
				want = m.Values[i]
			}
			// Relative to the largest eigenvalue: rounding of an 80×20 QR.
			if math.Abs(g.At(i, j)-want) > 1e-9*m.Values[0] {
				t.Fatalf("φᵀφ[%d,%d] = %g, want %g", i, j, g.At(i, j), want)
			}
		}
	}
	// Eigenvectors: orthonormal columns u_j with K̃ u_j = Values_j u_j.
	u, err := m.Eigenvectors(context.Background(), x)
	if err != nil {
		t.Fatal(err)
	}
	var utu mat.Dense
	utu.Mul(u.T(), u)
	for i := 0; i < m.Dim(); i++ {
		for j := 0; j < m.Dim(); j++ {
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(utu.At(i, j)-want) > 1e-9 {
				t.Fatalf("UᵀU[%d,%d] = %g", i, j, utu.At(i, j))
			}
		}
	}
	kq := nyApprox(t, m, x, x)
	var ku mat.Dense
	ku.Mul(kq, u)
	for j := 0; j < m.Dim(); j++ {
		for i := 0; i < 80; i++ {
			if math.Abs(ku.At(i, j)-m.Values[j]*u.At(i, j)) > 1e-9*m.Values[0] {
				t.Fatalf("K̃u ≠ λu at (%d, %d)", i, j)
			}
		}
	}
	if _, err := (&NystromMap{}).Eigenvectors(context.Background(), x); !errors.Is(err, check.ErrInput) {
		t.Errorf("standard map: %v", err)
	}
	// The values are also the top eigenvalues of the full-rank C W⁺ Cᵀ.
	full, err := Nystrom{}.Fit(context.Background(), x, k, lm)
	if err != nil {
		t.Fatal(err)
	}
	kt := nyApprox(t, full, x, x)
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(80, kt.RawMatrix().Data), false) {
		t.Fatal("eigen failed")
	}
	ev := es.Values(nil)
	for j := 0; j < m.Dim(); j++ {
		if want := ev[79-j]; math.Abs(m.Values[j]-want) > 1e-8*ev[79] {
			t.Errorf("value %d = %g, eigenvalue of C W⁺ Cᵀ %g", j, m.Values[j], want)
		}
	}
}

func TestNystromFloor(t *testing.T) {
	// Duplicated landmarks make W singular: the floor drops the zero
	// eigenvalue instead of inverting it, and the map stays finite.
	x := mat.NewDense(4, 1, []float64{0, 1, 2, 3})
	lm := &Landmarks{Points: mat.NewDense(3, 1, []float64{0, 1, 1})}
	k := kernel.Gaussian{Gamma: 1}
	m, err := Nystrom{}.Fit(context.Background(), x, k, lm)
	if err != nil {
		t.Fatal(err)
	}
	if m.Dropped != 1 || m.Dim() != 2 {
		t.Fatalf("dropped %d, dim %d; want 1 and 2", m.Dropped, m.Dim())
	}
	// K̃ equals the Nyström approximation from the two distinct landmarks.
	m2, err := Nystrom{}.Fit(context.Background(), x, k, &Landmarks{Points: mat.NewDense(2, 1, []float64{0, 1})})
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(nyApprox(t, m, x, x), nyApprox(t, m2, x, x), 1e-7) {
		t.Fatal("duplicate landmark changed the approximation")
	}
}

func TestNystromErrors(t *testing.T) {
	ctx := context.Background()
	x := nyRand(rand.New(rand.NewPCG(1, 1)), 10, 2)
	lm := &Landmarks{Points: points.Gather(x, []int{0, 1, 2})}
	k := kernel.Gaussian{Gamma: 1}
	cases := []struct {
		name string
		ny   Nystrom
		x    *mat.Dense
		k    kernel.Kernel
		lm   *Landmarks
	}{
		{"nil kernel", Nystrom{}, x, nil, lm},
		{"bad kernel", Nystrom{}, x, kernel.Gaussian{Gamma: -1}, lm},
		{"nil landmarks", Nystrom{}, x, k, nil},
		{"rank > M", Nystrom{Rank: 4}, x, k, lm},
		{"negative rank", Nystrom{Rank: -1}, x, k, lm},
		{"floor 1", Nystrom{Floor: 1}, x, k, lm},
		{"NaN floor", Nystrom{Floor: math.NaN()}, x, k, lm},
		{"QR wrong columns", Nystrom{QR: true}, nyRand(rand.New(rand.NewPCG(1, 1)), 10, 3), k, lm},
		{"QR over budget", Nystrom{QR: true, MaxBytes: 100}, x, k, lm},
		{"zero kernel", Nystrom{}, x, kernel.Linear{}, &Landmarks{Points: mat.NewDense(2, 2, nil)}},
	}
	for _, c := range cases {
		if _, err := c.ny.Fit(ctx, c.x, c.k, c.lm); !errors.Is(err, check.ErrInput) {
			t.Errorf("%s: err = %v, want ErrInput", c.name, err)
		}
	}
	m, err := Nystrom{}.Fit(ctx, x, k, lm)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Transform(ctx, mat.NewDense(10, m.Dim(), nil), nyRand(rand.New(rand.NewPCG(1, 1)), 10, 3)); !errors.Is(err, check.ErrInput) {
		t.Errorf("Transform with wrong columns: %v", err)
	}
	if err := m.Transform(ctx, mat.NewDense(9, m.Dim(), nil), x); !errors.Is(err, check.ErrInput) {
		t.Errorf("Transform with wrong dst: %v", err)
	}
}
