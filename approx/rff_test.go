package approx

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

func TestRFFErrorDecreasesWithFeatures(t *testing.T) {
	// Rahimi & Recht: φ(x)·φ(y) is an unbiased estimate of k(x, y) with
	// variance O(1/D), so the Frobenius error falls roughly as 1/√D. Averaged
	// over 5 seeds, 16× more features must cut the error by at least 2×
	// (the rate predicts 4×).
	x := nyRand(rand.New(rand.NewPCG(4, 4)), 100, 5)
	for _, k := range []kernel.Kernel{kernel.Gaussian{Gamma: 0.1}, kernel.Laplacian{Gamma: 0.2}} {
		kd := nyKernel(k, x, x)
		errAt := func(D int) float64 {
			s := 0.0
			for seed := uint64(0); seed < 5; seed++ {
				m, err := RFF{Features: D}.Fit(k, 5, rand.New(rand.NewPCG(seed, 1)))
				if err != nil {
					t.Fatal(err)
				}
				s += nyFrob(kd, nyApprox(t, m, x, x))
			}
			return s / 5 / mat.Norm(kd, 2)
		}
		e1, e2, e3 := errAt(50), errAt(200), errAt(800)
		if !(e2 < e1 && e3 < e2 && e3 < e1/2) {
			t.Errorf("%v: relative errors %g, %g, %g not decreasing enough", k, e1, e2, e3)
		}
		// At D = 800 the standard deviation per entry is about √(1/D) ≈ 0.035,
		// so the relative Frobenius error is well below 0.2.
		if e3 > 0.2 {
			t.Errorf("%v: relative error %g at D = 800", k, e3)
		}
	}
}

func TestRFFDeterministic(t *testing.T) {
	k := kernel.Gaussian{Gamma: 0.3}
	a, _ := RFF{Features: 20}.Fit(k, 3, rand.New(rand.NewPCG(7, 7)))
	b, _ := RFF{Features: 20}.Fit(k, 3, rand.New(rand.NewPCG(7, 7)))
	if !mat.Equal(a.Omega, b.Omega) {
		t.Fatal("same seed, different frequencies")
	}
	x := nyRand(rand.New(rand.NewPCG(1, 1)), 600, 3)
	f1 := mat.NewDense(600, 20, nil)
	f2 := mat.NewDense(600, 20, nil)
	if err := a.Transform(context.Background(), f1, x); err != nil {
		t.Fatal(err)
	}
	// Row by row gives the same features as the blocked transform.
	for i := 0; i < 600; i += 97 {
		row := mat.NewDense(1, 20, nil)
		if err := a.Transform(context.Background(), row, x.Slice(i, i+1, 0, 3).(*mat.Dense)); err != nil {
			t.Fatal(err)
		}
		f2.SetRow(i, row.RawRowView(0))
		if !mat.EqualApprox(f1.Slice(i, i+1, 0, 20), row, 1e-14) {
			t.Fatalf("row %d differs", i)
		}
	}
}

func TestRFFErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	if _, err := (RFF{}).Fit(kernel.Gaussian{Gamma: 1}, 2, rng); !errors.Is(err, check.ErrInput) {
		t.Errorf("zero features: %v", err)
	}
	if _, err := (RFF{Features: 3}).Fit(kernel.Polynomial{Gamma: 1, Degree: 2}, 2, rng); !errors.Is(err, check.ErrInput) {
		t.Errorf("polynomial: %v", err)
	}
	if _, err := (RFF{Features: 3}).Fit(kernel.Gaussian{Gamma: 0}, 2, rng); !errors.Is(err, check.ErrInput) {
		t.Errorf("gamma 0: %v", err)
	}
	if _, err := (RFF{Features: 3}).Fit(kernel.Gaussian{Gamma: 1}, 2, nil); !errors.Is(err, check.ErrInput) {
		t.Errorf("nil rng: %v", err)
	}
	m, _ := RFF{Features: 3}.Fit(kernel.Gaussian{Gamma: 1}, 2, rng)
	if err := m.Transform(context.Background(), mat.NewDense(2, 3, nil), mat.NewDense(2, 4, nil)); !errors.Is(err, check.ErrInput) {
		t.Errorf("wrong columns: %v", err)
	}
	// A hand-built map whose Omega and offsets disagree (3 frequencies, 4
	// offsets), and an empty one, are refused instead of returning cos(b).
	bad := &RFFMap{Omega: mat.NewDense(3, 2, nil), Offset: make([]float64, 4)}
	if err := bad.Transform(context.Background(), mat.NewDense(2, 4, nil), mat.NewDense(2, 2, nil)); !errors.Is(err, check.ErrInput) {
		t.Errorf("3 frequencies, 4 offsets: %v", err)
	}
	if err := (&RFFMap{}).Transform(context.Background(), mat.NewDense(2, 4, nil), mat.NewDense(2, 2, nil)); !errors.Is(err, check.ErrInput) {
		t.Errorf("empty map: %v", err)
	}
}
