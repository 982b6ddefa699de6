package model

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/internal/pin"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// TestNystromKRRPinned fits Nyström KRR with fixed seeds (sampled centers
// on dense and sparse rows, given centers, and 60,000 rows so that K_nM
// comes in several chunks) and compares predictions, the solve's info and
// the progress reports with what the code gave before NystromKRR.fit was
// split into pieces (commit 7d2b573); see package pin for the tolerance.
// The planned MemoryBytes is in the digest only (exact mode): it counts
// the kernel engine's scratch, which other work changes.
func TestNystromKRRPinned(t *testing.T) {
	data := func(n int, seed uint64) (*mat.Dense, []float64) {
		rng := rand.New(rand.NewPCG(seed, 71))
		x := mat.NewDense(n, 3, nil)
		y := make([]float64, n)
		for i := range n {
			a, b := rng.NormFloat64(), rng.NormFloat64()
			x.Set(i, 0, a)
			x.Set(i, 1, b)
			if i%3 == 0 {
				x.Set(i, 2, rng.Float64())
			}
			y[i] = math.Sin(a) + 0.5*b + 0.1*rng.NormFloat64()
		}
		return x, y
	}
	xs, ys := data(400, 1)
	xb, yb := data(60000, 2)
	k := kernel.Gaussian{Gamma: 0.5}
	cases := []struct {
		x          mat.Matrix
		y          []float64
		approx     NystromKRR
		want       []float64
		wantDigest string
	}{
		{xs, ys, NystromKRR{M: 30}, []float64{-2.2827041931129433, -0.7096753983975987, 0.688692033567806, 30, 0.4, 0, 1}, "ea7f890acabd69a7"},
		{kernel.CSRRowsOf(xs), ys, NystromKRR{M: 30}, []float64{-3.4954482638419377, -0.6920747795254449, 0.5553711308225134, 30, 0.4, 0, 1}, "ce45225916611008"},
		{xs, ys, NystromKRR{Centers: mat.DenseCopyOf(xs.Slice(0, 25, 0, 3))}, []float64{-1.9504974677519757, -0.645434927281114, 0.44790454791597745, 25, 0.4, 0, 1}, "8d5bf7a71f5afa50"},
		{xb, yb, NystromKRR{M: 40}, []float64{-0.9815736406808924, -0.7290254022388964, 0.8148532576840104, 40, 60, 0, 1}, "6aba35ee666294ed"},
	}
	for i, c := range cases {
		var prog []string
		m := &KRR{Kernel: k, Lambda: 1e-3, Approx: c.approx, Seed: uint64(i) + 3, Progress: func(p Progress) error {
			prog = append(prog, fmt.Sprintf("%s %d/%d", p.Stage, p.Done, p.Total))
			return nil
		}}
		if err := m.Fit(context.Background(), c.x, c.y); err != nil {
			t.Fatal(err)
		}
		pred, err := m.Predict(xs)
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		for _, v := range pred {
			sum += v
		}
		info := m.Info()
		wantProg := fmt.Sprintf("%s 1/2 %s 2/2", StageSolve, StageSolve)
		if i == 3 {
			// 60,000 rows of K_nM at M = 40 in chunks of 26,214 rows
			// (krrChunkRows: 8 MiB of float64): three, then the solve.
			wantProg = fmt.Sprintf("%s 1/4 %s 2/4 %s 3/4 %s 4/4", StageSolve, StageSolve, StageSolve, StageSolve)
		}
		if got := strings.Join(prog, " "); !strings.HasSuffix(got, wantProg) {
			t.Errorf("case %d: progress %q, want it to end with %q", i, got, wantProg)
		}
		got := []float64{sum, pred[0], pred[len(pred)-1], float64(info.Rank), info.Penalty, info.Jitter, float64(info.CholAttempts)}
		pin.Floats(t, fmt.Sprintf("case %d (%s)", i, info.CenterForm), pin.Tol, got, c.want, c.wantDigest, pred, []float64{float64(info.MemoryBytes)})
	}
}
