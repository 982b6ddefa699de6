package model

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// TestSVMCacheFloat32MatchesFloat64 fits satimage (600 training rows, six
// classes, 15 one-vs-one tasks, dense and as CSR) with the float32 and the
// float64 column cache, both solved to Tol = 1e-9 so that the difference is
// the rounding of K and not where two 1e-3-accurate paths stop. The float32
// solution is the optimum of a matrix within 2⁻²⁴ of K entrywise; for α in
// [0, C]ⁿ that moves the dual objective by at most ½·2⁻²⁴·(Σα)², about
// 10⁻⁵ relative here in the worst case; the tolerance is 1e-6 relative
// (observed: 7.3·10⁻⁸, printed), the support-vector counts must be equal
// and the decision values agree to 1e-5 (observed 1.5·10⁻⁶).
func TestSVMCacheFloat32MatchesFloat64(t *testing.T) {
	tr, te := readSatimage(t)
	x := mat.DenseCopyOf(tr.X.Slice(0, 600, 0, tr.Dim()))
	xt := mat.DenseCopyOf(te.X.Slice(0, 200, 0, te.Dim()))
	y := tr.Y[:600]
	for _, in := range []mat.Matrix{x, csrOf(t, x)} {
		a := &SVM{C: 4, Kernel: kernel.Gaussian{Gamma: 1}, Tol: 1e-9}
		b := &SVM{C: 4, Kernel: kernel.Gaussian{Gamma: 1}, Tol: 1e-9, CacheFloat32: true}
		for _, s := range []*SVM{a, b} {
			if err := s.Fit(context.Background(), in, y); err != nil {
				t.Fatal(err)
			}
		}
		ia := a.Info()
		ib := b.Info()
		worst := 0.0
		for k := range ia.Tasks {
			ta, tb := ia.Tasks[k], ib.Tasks[k]
			rel := math.Abs(ta.Objective-tb.Objective) / math.Abs(ta.Objective)
			worst = max(worst, rel)
			if rel > 1e-6 {
				t.Errorf("%T task %d: objective %.12g float64, %.12g float32", in, k, ta.Objective, tb.Objective)
			}
			if ta.SV != tb.SV || ta.BoundedSV != tb.BoundedSV {
				t.Errorf("%T task %d: SV %d (%d bounded) float64, %d (%d) float32", in, k, ta.SV, ta.BoundedSV, tb.SV, tb.BoundedSV)
			}
		}
		if ia.SV != ib.SV {
			t.Errorf("%T: %d SVs float64, %d float32", in, ia.SV, ib.SV)
		}
		da, err := a.DecisionFunction(xt)
		if err != nil {
			t.Fatal(err)
		}
		db, _ := b.DecisionFunction(xt)
		if d := maxAbsDiff(da, db); d > 1e-5 {
			t.Errorf("%T: decision values differ by %g", in, d)
		} else {
			t.Logf("%T: worst relative objective difference %.3g, decision values %.3g", in, worst, d)
		}
	}
}

// TestSVMCacheFloat32Deterministic: a float32-cache fit on 9,000 sparse
// rows (long enough for the columns to be split across workers, from 8,192
// rows) gives bit-identical α and decision values with 1 and 3 workers and
// with GOMAXPROCS 1 and 2.
func TestSVMCacheFloat32Deterministic(t *testing.T) {
	if testing.Short() {
		t.Skip("9,000-row SVM fits")
	}
	x, y, err := datasets.SyntheticText(rand.New(rand.NewPCG(4, 5)), datasets.TextOptions{Rows: 9200, Dim: 5000, NNZ: 10, TopicShare: 0.6})
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int, 200)
	for i := range idx {
		idx[i] = 9000 + i
	}
	xt, _ := x.Rows(idx)
	tr := make([]int, 9000)
	for i := range tr {
		tr[i] = i
	}
	xs, _ := x.Rows(tr)
	var ref *mat.Dense
	var refInfo SVMInfo
	for _, c := range []struct{ procs, workers int }{{1, 1}, {2, 3}, {2, 1}} {
		prev := runtime.GOMAXPROCS(c.procs)
		s := &SVM{C: 1, Kernel: kernel.Gaussian{Gamma: 1}, CacheFloat32: true, CacheBytes: 40 << 20, Tol: 0.01, Resources: Resources{Workers: c.workers}}
		err := s.Fit(context.Background(), xs, y[:9000])
		runtime.GOMAXPROCS(prev)
		if err != nil {
			t.Fatal(err)
		}
		dv, err := s.DecisionFunction(xt)
		if err != nil {
			t.Fatal(err)
		}
		info := s.Info()
		t.Logf("%d updates, %d SV", info.Tasks[0].Iterations, info.SV)
		if ref == nil {
			ref, refInfo = dv, info
			continue
		}
		if !mat.Equal(dv, ref) || info.Tasks[0].Objective != refInfo.Tasks[0].Objective || info.Tasks[0].Iterations != refInfo.Tasks[0].Iterations {
			t.Errorf("GOMAXPROCS %d, %d workers: objective %v after %d updates, first run %v after %d; decision values equal: %v",
				c.procs, c.workers, info.Tasks[0].Objective, info.Tasks[0].Iterations, refInfo.Tasks[0].Objective, refInfo.Tasks[0].Iterations, mat.Equal(dv, ref))
		}
	}
}
