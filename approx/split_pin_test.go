package approx

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/internal/pin"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// TestNystromFitPinned fits standard, rank-k and QR Nyström maps on dense
// and sparse rows and compares T and Values with what the code gave before
// Nystrom.Fit was split into pieces (commit 7d2b573); see package pin for
// the tolerance.
func TestNystromFitPinned(t *testing.T) {
	rng := rand.New(rand.NewPCG(61, 62))
	x := nyRand(rng, 300, 4)
	idx := points.Sample(300, 40, rng)
	k := kernel.Gaussian{Gamma: 0.4}
	cases := []struct {
		ny         Nystrom
		x          mat.Matrix
		want       []float64
		wantDigest string
	}{
		{Nystrom{}, x, []float64{40, 40, 0, 0.04390940729413667, -0.02886463463914836, 7.754793798983293, 0.011372992767072038}, "f519866312cc49ab"},
		{Nystrom{Rank: 12}, x, []float64{40, 12, 0, 0.04390940729413667, 0.0859814650625532, 7.754793798983293, 1.002061353298515}, "ae85e09f7906ec8d"},
		{Nystrom{QR: true, Rank: 12}, x, []float64{40, 12, 0, 0.1399081624454207, 0.00903291163135365, 56.50885408073362, 4.93601944748739}, "3a06fa9886ab8546"},
		{Nystrom{QR: true}, kernel.CSRRowsOf(x), []float64{40, 40, 0, 0.1399081624454207, 0.022199440754468357, 56.50885408073362, 0.3707978956553421}, "39ba2819fc724ce8"},
	}
	for i, c := range cases {
		m, err := c.ny.Fit(levCtx, c.x, k, nyLandmarks(x, idx))
		if err != nil {
			t.Fatal(err)
		}
		tr := m.T.RawMatrix().Data
		r, cols := m.T.Dims()
		got := []float64{float64(r), float64(cols), float64(m.Dropped), tr[0], tr[len(tr)-1], m.Values[0], m.Values[len(m.Values)-1]}
		pin.Floats(t, fmt.Sprintf("case %d (%+v)", i, c.ny), pin.Tol, got, c.want, c.wantDigest, tr, m.Values)
	}
}

// TestScoreEstimatorPinned scores 2,500 points (two chunks of estChunk)
// against 300 landmarks (two panels of estPanel) in float64 and float32,
// dense and sparse, and with a ridge small enough that the float32 guard
// sends chunks back to float64, and compares the scores with what the code
// gave before estimate was split into pieces (commit 7d2b573); see package
// pin for the tolerance.
func TestScoreEstimatorPinned(t *testing.T) {
	rng := rand.New(rand.NewPCG(63, 64))
	x := nyRand(rng, 2500, 3)
	lm := points.Sample(2500, 300, rng)
	k := kernel.Gaussian{Gamma: 0.5}
	cases := []struct {
		x          mat.Matrix
		single     bool
		mu         float64
		want       []float64
		wantDigest string
	}{
		{x, false, 0.1, []float64{1632.4901833717372, 0.9470547643994331, 0.7928485582933253, 1.3897512272647083, 0.4335010900265812, 0, 0}, "0aca4938c8823534"},
		{x, true, 0.1, []float64{1632.4902405173036, 0.9470533236575585, 0.7928487569883047, 1.389751830360948, 0.4335019525080508, 0, 0}, "a5d97811bdcdf60d"},
		{kernel.CSRRowsOf(x), true, 0.1, []float64{1632.4902405173036, 0.9470533236575585, 0.7928487569883047, 1.389751830360948, 0.4335019525080508, 0, 0}, "a5d97811bdcdf60d"},
		{x, true, 1e-9, []float64{1.5106292014488981e+10, 530786.103187686, 318955.35906434344, 1.4930536469752619e+07, 45723.79319200959, 2046, 1}, "a778b686cdf6ad74"},
	}
	all := points.Iota(2500)
	for i, c := range cases {
		reg := make([]float64, len(lm))
		for j := range reg {
			reg[j] = c.mu * float64(1+j%3)
		}
		est, err := newScoreEstimator(k, points.Gather(x, lm), reg, c.mu, 2)
		if err != nil {
			t.Fatal(err)
		}
		if c.single {
			est.useSingle()
		}
		sc := make([]float64, 2500)
		if err := est.estimate(levCtx, sc, c.x, all); err != nil {
			t.Fatal(err)
		}
		var sum float64
		for _, v := range sc {
			sum += v
		}
		got := []float64{sum, sc[0], sc[2047], sc[2048], sc[2499], float64(est.rescored), float64(est.doubleChunks)}
		tol := pin.Tol
		if c.single {
			tol = pin.Tol32
		}
		pin.Floats(t, fmt.Sprintf("case %d", i), tol, got, c.want, c.wantDigest, sc)
	}
	// No landmarks: the scores are k(x, x)/μ.
	est, err := newScoreEstimator(k, nil, nil, 0.5, 2)
	if err != nil {
		t.Fatal(err)
	}
	sc := make([]float64, 3)
	if err := est.estimate(levCtx, sc, x, []int{0, 1, 2}); err != nil {
		t.Fatal(err)
	}
	for i, v := range sc {
		if v != 2 {
			t.Errorf("no landmarks: ℓ̃[%d] = %v, want k(x, x)/μ = 1/0.5 = 2", i, v)
		}
	}
}
