package solver

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomSPD returns BᵀB + shift·I for a random n×n B (condition number
// roughly (n + shift)/shift for standard normal entries).
func randomSPD(rng *rand.Rand, n int, shift float64) *mat.SymDense {
	b := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			b.Set(i, j, rng.NormFloat64())
		}
	}
	a := mat.NewSymDense(n, nil)
	a.SymOuterK(1, b.T())
	for i := 0; i < n; i++ {
		a.SetSym(i, i, a.At(i, i)+shift)
	}
	return a
}

func maxAbsDiff(a, b mat.Matrix) float64 {
	r, c := a.Dims()
	var m float64
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			m = math.Max(m, math.Abs(a.At(i, j)-b.At(i, j)))
		}
	}
	return m
}

// On a well-conditioned SPD matrix no jitter is added and the solve matches
// gonum's LU solve to 1e-10 (condition number below 1e3, so rounding leaves
// about 1e-13).
func TestCholeskySolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	a := randomSPD(rng, 40, 5)
	aCopy := mat.NewSymDense(40, nil)
	aCopy.CopySym(a)
	c, err := Cholesky(a, CholOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Jitter != 0 || c.Attempts != 1 {
		t.Errorf("jitter %g after %d attempts on an SPD matrix, want 0 after 1", c.Jitter, c.Attempts)
	}
	if !mat.Equal(a, aCopy) {
		t.Error("Cholesky modified its input")
	}
	b := mat.NewDense(40, 3, nil)
	for i := 0; i < 40; i++ {
		for j := 0; j < 3; j++ {
			b.Set(i, j, rng.NormFloat64())
		}
	}
	x := mat.DenseCopyOf(b)
	if err := c.Solve(x); err != nil {
		t.Fatal(err)
	}
	var want mat.Dense
	if err := want.Solve(a, b); err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(x, &want); d > 1e-10 {
		t.Errorf("Cholesky solve differs from LU by %g", d)
	}
	// L·Lᵀ reconstructs A, and the triangular helpers are inverses of each other.
	var llt mat.Dense
	llt.Mul(c.L(), c.L().T())
	if d := maxAbsDiff(&llt, a); d > 1e-10 {
		t.Errorf("LLᵀ differs from A by %g", d)
	}
	y := mat.DenseCopyOf(b)
	for _, trans := range []bool{false, true} {
		if err := c.SolveL(y, trans); err != nil {
			t.Fatal(err)
		}
		if err := c.MulL(y, trans); err != nil {
			t.Fatal(err)
		}
		if d := maxAbsDiff(y, b); d > 1e-10 {
			t.Errorf("MulL(SolveL(b), trans=%v) differs from b by %g", trans, d)
		}
	}
	if err := c.Solve(mat.NewDense(39, 1, nil)); !errors.Is(err, ErrShape) {
		t.Errorf("Solve with 39 rows: err = %v, want ErrShape", err)
	}
}

// The all-ones matrix has rank 1: the second pivot is exactly 0 and the plain
// factorization fails. Jitter must be added, reported, and LLᵀ = A + jI.
func TestCholeskyJitter(t *testing.T) {
	const n = 6
	ones := make([]float64, n*n)
	for i := range ones {
		ones[i] = 1
	}
	a := mat.NewDense(n, n, ones)
	orig := mat.DenseCopyOf(a)
	c, err := CholeskyInPlace(a, CholOptions{Jitter: 1e-8})
	if err != nil {
		t.Fatal(err)
	}
	// The mean diagonal is 1, so the first jitter tried is exactly 1e-8 and
	// it suffices (the matrix becomes 1·1ᵀ + 1e-8 I, positive definite).
	if c.Jitter != 1e-8 || c.Attempts != 2 {
		t.Errorf("jitter %g after %d attempts, want 1e-8 after 2", c.Jitter, c.Attempts)
	}
	var llt mat.Dense
	llt.Mul(c.L(), c.L().T())
	for i := 0; i < n; i++ {
		orig.Set(i, i, orig.At(i, i)+c.Jitter)
	}
	if d := maxAbsDiff(&llt, orig); d > 1e-12 {
		t.Errorf("LLᵀ differs from A + jI by %g", d)
	}
	// The strict upper triangle is kept.
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if a.At(i, j) != 1 {
				t.Fatalf("upper triangle changed at (%d,%d): %g", i, j, a.At(i, j))
			}
		}
	}
}

func TestCholeskyNotPD(t *testing.T) {
	a := mat.NewSymDense(3, []float64{-1, 0, 0, 0, -1, 0, 0, 0, -1})
	if _, err := Cholesky(a, CholOptions{}); !errors.Is(err, ErrNotPD) {
		t.Errorf("Cholesky(−I): err = %v, want ErrNotPD", err)
	}
	nan := mat.NewSymDense(2, []float64{math.NaN(), 0, 0, 1})
	if _, err := Cholesky(nan, CholOptions{}); !errors.Is(err, ErrNotPD) {
		t.Errorf("Cholesky with NaN diagonal: err = %v, want ErrNotPD", err)
	}
	if _, err := Cholesky(mat.NewSymDense(2, []float64{1, 0, 0, 1}), CholOptions{Jitter: 1, MaxJitter: 0.5}); err == nil {
		t.Error("Cholesky accepted jitter > max jitter")
	}
	if _, err := CholeskyInPlace(mat.NewDense(2, 3, nil), CholOptions{}); !errors.Is(err, ErrShape) {
		t.Errorf("CholeskyInPlace(2×3): err = %v, want ErrShape", err)
	}
}
