package linalg

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestThinQR: Q has orthonormal columns and QR reproduces B, with R upper
// triangular, both for a well-conditioned B (CholeskyQR2 path) and for one
// whose columns are dependent to 1e-9 (cond(B) ≈ 1e9, beyond CholeskyQR2's
// 1e7: cond(BᵀB) ≈ 1e18 makes its Cholesky fail, and the Householder
// fallback has to deliver the same guarantees). Tolerance 1e-12: about 100×
// the round-off of products of 60×6 matrices of unit-size entries.
func TestThinQR(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, k = 60, 6
	good := mat.NewDense(n, k, nil)
	for i := range good.RawMatrix().Data {
		good.RawMatrix().Data[i] = rng.NormFloat64()
	}
	bad := mat.DenseCopyOf(good)
	for i := 0; i < n; i++ { // column 5 = column 4 + 1e-9·noise
		bad.Set(i, 5, bad.At(i, 4)+1e-9*rng.NormFloat64())
	}
	for name, b := range map[string]*mat.Dense{"well-conditioned": good, "nearly dependent": bad} {
		q := mat.DenseCopyOf(b)
		r := ThinQR(q)
		var qtq mat.Dense
		qtq.Mul(q.T(), q)
		for i := 0; i < k; i++ {
			for j := 0; j < k; j++ {
				want := 0.0
				if i == j {
					want = 1
				}
				if math.Abs(qtq.At(i, j)-want) > 1e-12 {
					t.Fatalf("%s: (QᵀQ)[%d,%d] = %g, want %g", name, i, j, qtq.At(i, j), want)
				}
				if i > j && r.At(i, j) != 0 {
					t.Fatalf("%s: R[%d,%d] = %g below the diagonal", name, i, j, r.At(i, j))
				}
			}
		}
		var qr mat.Dense
		qr.Mul(q, r)
		qr.Sub(&qr, b)
		if e := mat.Norm(&qr, 2) / mat.Norm(b, 2); e > 1e-12 {
			t.Errorf("%s: ‖QR − B‖/‖B‖ = %g", name, e)
		}
	}
}
