package meka

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/landmark-ml/landmark/approx/cluster"
	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// blobs returns c well-separated Gaussian clusters of per points each in d
// dimensions (centers on a grid of spacing sep, unit spread), and the
// partition that generated them.
func blobs(c, per, d int, sep float64, rng *rand.Rand) (*mat.Dense, *cluster.Partition) {
	n := c * per
	x := mat.NewDense(n, d, nil)
	cent := mat.NewDense(c, d, nil)
	labels := make([]int, n)
	for s := 0; s < c; s++ {
		for j := 0; j < d; j++ {
			cent.Set(s, j, sep*rng.NormFloat64())
		}
		cent.Set(s, s%d, cent.At(s, s%d)+sep*float64(s+1))
	}
	for i := 0; i < n; i++ {
		s := i % c
		labels[i] = s
		for j := 0; j < d; j++ {
			x.Set(i, j, cent.At(s, j)+rng.NormFloat64())
		}
	}
	// Centroids as the means of the generated groups, so Assign is nearest-mean.
	means := mat.NewDense(c, d, nil)
	for i, s := range labels {
		for j := 0; j < d; j++ {
			means.Set(s, j, means.At(s, j)+x.At(i, j)/float64(per))
		}
	}
	return x, &cluster.Partition{Centroids: means, Labels: labels}
}

// denseKernel returns K(X, X).
func denseKernel(k kernel.Kernel, x *mat.Dense) *mat.Dense {
	n, _ := x.Dims()
	g := mat.NewDense(n, n, nil)
	k.Block(g, x, x)
	return g
}

// mekaDense returns W L Wᵀ as a dense n×n matrix.
func mekaDense(t *testing.T, m *Map) *mat.Dense {
	t.Helper()
	n := m.Len()
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	g := mat.NewDense(n, n, nil)
	if err := m.Rows(context.Background(), g, idx); err != nil {
		t.Fatal(err)
	}
	return g
}

func relFro(a, b mat.Matrix) float64 {
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, 2) / mat.Norm(b, 2)
}

func subBlock(g *mat.Dense, rows, cols []int) *mat.Dense {
	out := mat.NewDense(len(rows), len(cols), nil)
	for i, r := range rows {
		for j, c := range cols {
			out.Set(i, j, g.At(r, c))
		}
	}
	return out
}

func linkBlock(m *Map, s, t int) *mat.Dense {
	l := m.Link()
	out := mat.NewDense(m.off[s+1]-m.off[s], m.off[t+1]-m.off[t], nil)
	for i := range m.off[s+1] - m.off[s] {
		for j := range m.off[t+1] - m.off[t] {
			out.Set(i, j, l.At(m.off[s]+i, m.off[t]+j))
		}
	}
	return out
}

// lsOptimum returns (WₛᵀWₛ)⁻¹WₛᵀGWₜ(WₜᵀWₜ)⁻¹ by direct solves.
func lsOptimum(t *testing.T, ws, g, wt *mat.Dense) *mat.Dense {
	t.Helper()
	var gs, gt, wg, rhs, a, out mat.Dense
	gs.Mul(ws.T(), ws)
	gt.Mul(wt.T(), wt)
	wg.Mul(ws.T(), g)
	rhs.Mul(&wg, wt)
	if err := a.Solve(&gs, &rhs); err != nil {
		t.Fatal(err)
	}
	// out = a (WₜᵀWₜ)⁻¹ = ((WₜᵀWₜ)⁻¹ aᵀ)ᵀ
	if err := out.Solve(&gt, a.T()); err != nil {
		t.Fatal(err)
	}
	return mat.DenseCopyOf(out.T())
}

func TestMEKALinkIsLeastSquaresOptimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x, part := blobs(3, 40, 4, 3, rng)
	k := kernel.Gaussian{Gamma: 0.1}
	// ρ = 100 makes the sample (1+ρ)k ≥ n_s: each link is fitted on the whole block.
	m, err := Fit(context.Background(), x, k, Options{Rank: 5, Rho: 100, Partition: part}, rng)
	if err != nil {
		t.Fatal(err)
	}
	g := denseKernel(k, x)
	for s := 0; s < 3; s++ {
		for u := s + 1; u < 3; u++ {
			ws, rs := m.Basis(s)
			wt, rt := m.Basis(u)
			gst := subBlock(g, rs, rt)
			want := lsOptimum(t, ws, gst, wt)
			got := linkBlock(m, s, u)
			// Both are the same least-squares solution computed two ways
			// (SVD pseudo-inverse vs normal equations on orthonormal W):
			// agreement to 1e-9 relative is round-off.
			if e := relFro(got, want); e > 1e-9 {
				t.Errorf("L(%d,%d) differs from the least-squares optimum by %g", s, u, e)
			}
			// No other L gives a smaller block error: try random perturbations.
			blockErr := func(l *mat.Dense) float64 {
				var a, b mat.Dense
				a.Mul(ws, l)
				b.Mul(&a, wt.T())
				b.Sub(gst, &b)
				return mat.Norm(&b, 2)
			}
			best := blockErr(got)
			for trial := 0; trial < 20; trial++ {
				r, c := got.Dims()
				p := mat.NewDense(r, c, nil)
				for i := 0; i < r; i++ {
					for j := 0; j < c; j++ {
						p.Set(i, j, got.At(i, j)+1e-3*rng.NormFloat64())
					}
				}
				if e := blockErr(p); e <= best {
					t.Errorf("perturbed L(%d,%d) has block error %g ≤ optimum %g", s, u, e, best)
				}
			}
		}
	}
}

func TestMEKAFullRankReproducesKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x, part := blobs(3, 15, 5, 2, rng)
	k := kernel.Gaussian{Gamma: 0.5}
	// Rank ≥ n_s: every basis spans its cluster (m_s = n_s landmarks, so the
	// Nyström block is exact), and ρ large links every whole block.
	m, err := Fit(context.Background(), x, k, Options{Rank: 15, Rho: 10, Partition: part}, rng)
	if err != nil {
		t.Fatal(err)
	}
	for s, r := range m.Stats().Ranks {
		if r != 15 {
			t.Fatalf("cluster %d has rank %d, want 15 (landmark block numerically singular?)", s, r)
		}
	}
	g := denseKernel(k, x)
	// Exact up to round-off amplified by Σ^(−1/2) of the landmark blocks
	// (smallest eigenvalue here ≈ 1e-2): 1e-8 relative.
	if e := relFro(mekaDense(t, m), g); e > 1e-8 {
		t.Errorf("‖WLWᵀ − G‖/‖G‖ = %g with full-rank bases, want ≈ 0", e)
	}
}

func TestMEKAPSDFix(t *testing.T) {
	ctx := context.Background()
	x, part := blobs(4, 50, 3, 1, rand.New(rand.NewPCG(5, 6)))
	// The blobs overlap: relabel by nearest centroid, as k-means would, so
	// that Transform (which assigns points) sees the training clusters.
	part.Labels = mustAssign(t, part, x)
	k := kernel.Gaussian{Gamma: 0.05}
	// Small γ with overlapping clusters and a small link sample (ρ = 0.1)
	// makes the sampled least-squares links inconsistent, so L is indefinite.
	opt := Options{Rank: 8, Rho: 0.1, Partition: part}
	raw, err := Fit(ctx, x, k, opt, rand.New(rand.NewPCG(7, 8)))
	if err != nil {
		t.Fatal(err)
	}
	var es mat.EigenSym
	es.Factorize(mat.NewSymDense(x.RawMatrix().Rows, mekaDense(t, raw).RawMatrix().Data), false)
	if minRaw := es.Values(nil)[0]; minRaw > -1e-8 {
		t.Fatalf("test setup: MEKA without the fix should be indefinite, smallest eigenvalue %g", minRaw)
	}
	opt.PSD = true
	fixed, err := Fit(ctx, x, k, opt, rand.New(rand.NewPCG(7, 8)))
	if err != nil {
		t.Fatal(err)
	}
	st := fixed.Stats()
	if !st.PSDFixed || st.NegativeEigenvalues == 0 || st.MinEigenvalue >= 0 {
		t.Errorf("stats %+v: want PSDFixed with negative eigenvalues reported", st)
	}
	dense := mekaDense(t, fixed)
	sym := mat.NewSymDense(x.RawMatrix().Rows, nil)
	n := x.RawMatrix().Rows
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			sym.SetSym(i, j, 0.5*(dense.At(i, j)+dense.At(j, i)))
		}
	}
	es.Factorize(sym, false)
	// The bound: the fixed approximation is PSD up to -1e-10.
	if minFixed := es.Values(nil)[0]; minFixed < -1e-10 {
		t.Errorf("smallest eigenvalue after the PSD fix = %g, want ≥ -1e-10", minFixed)
	}
	// The features reproduce the fixed approximation on the training points.
	phi := mat.NewDense(n, fixed.Dim(), nil)
	if err := fixed.Transform(ctx, phi, x); err != nil {
		t.Fatal(err)
	}
	var ppt mat.Dense
	ppt.Mul(phi, phi.T())
	if e := relFro(&ppt, dense); e > 1e-10 {
		t.Errorf("φφᵀ differs from the PSD-fixed W L Wᵀ by %g", e)
	}
}

func TestMEKASolveMatchesDense(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(9, 10))
	x, _ := blobs(4, 60, 4, 2, rng)
	n := 240
	k := kernel.Gaussian{Gamma: 0.2}
	m, err := Fit(ctx, x, k, Options{Rank: 10, Clusters: 4, PSD: true}, rng)
	if err != nil {
		t.Fatal(err)
	}
	y := mat.NewDense(n, 2, nil)
	for i := 0; i < n; i++ {
		y.Set(i, 0, math.Sin(x.At(i, 0)))
		y.Set(i, 1, rng.NormFloat64())
	}
	const lambda = 1e-4
	a := mekaDense(t, m)
	for i := 0; i < n; i++ {
		a.Set(i, i, a.At(i, i)+lambda*float64(n))
	}
	var want mat.Dense
	if err := want.Solve(a, y); err != nil {
		t.Fatal(err)
	}
	wb, err := m.Solve(ctx, lambda, y)
	if err != nil {
		t.Fatal(err)
	}
	// Woodbury is exact algebra; cond(A) ≤ (‖K̃‖+λn)/λn ≈ 1e4 here, so 1e-9.
	if e := relFro(wb.Alpha, &want); e > 1e-9 || wb.Indefinite || !wb.Converged {
		t.Errorf("Woodbury: relative difference from dense solve %g (indefinite %v)", e, wb.Indefinite)
	}
	cg, err := m.SolveCG(ctx, lambda, y, CG{Tol: 1e-12})
	if err != nil {
		t.Fatal(err)
	}
	// CG to residual 1e-12 leaves an error ≤ cond·1e-12 ≈ 1e-8.
	if e := relFro(cg.Alpha, &want); e > 1e-7 || !cg.Converged {
		t.Errorf("CG: relative difference from dense solve %g after %v iterations", e, cg.Iterations)
	}
	for _, r := range cg.Residuals {
		if r > 1e-11 {
			t.Errorf("CG residual %g, want ≤ 1e-12 (+ round-off)", r)
		}
	}
	// Predictions through the out-of-sample extension reproduce K̃α on the
	// training points (w(x_i) is row i of W).
	pred := mat.NewDense(n, 2, nil)
	if err := m.CrossMul(ctx, pred, x, wb.Alpha); err != nil {
		t.Fatal(err)
	}
	ka := mat.NewDense(n, 2, nil)
	if err := m.Mul(ctx, ka, wb.Alpha); err != nil {
		t.Fatal(err)
	}
	if e := relFro(pred, ka); e > 1e-9 {
		t.Errorf("CrossMul on training points differs from Mul by %g", e)
	}
}

// nystromError returns the relative Frobenius error of rank-r uniform
// Nyström with r landmarks (dense, for small test problems).
func nystromError(k kernel.Kernel, x *mat.Dense, g *mat.Dense, r int, rng *rand.Rand) float64 {
	n, _ := x.Dims()
	idx := points.Sample(n, r, rng)
	z := points.Gather(x, idx)
	c := mat.NewDense(n, r, nil)
	k.Block(c, x, z)
	w := mat.NewSymDense(r, nil)
	k.Block(mat.NewDense(r, r, w.RawSymmetric().Data), z, z)
	var es mat.EigenSym
	es.Factorize(w, true)
	vals := es.Values(nil)
	var v mat.Dense
	es.VectorsTo(&v)
	b := mat.NewDense(n, r, nil)
	var cv mat.Dense
	cv.Mul(c, &v)
	for j, e := range vals {
		if e <= eigRelTol*vals[r-1] {
			continue
		}
		for i := 0; i < n; i++ {
			b.Set(i, j, cv.At(i, j)/math.Sqrt(e))
		}
	}
	var approx mat.Dense
	approx.Mul(b, b.T())
	return relFro(&approx, g)
}

func TestMEKABeatsNystromOnClusteredData(t *testing.T) {
	ctx := context.Background()
	// Five clusters of 120 points in 3-D, unit spread, centers ~10 apart.
	x, part := blobs(5, 120, 3, 3, rand.New(rand.NewPCG(11, 12)))
	n := 600
	for _, tc := range []struct {
		gamma   float64
		factor  float64 // MEKA error must be below factor × Nyström's
		bkaFact float64
	}{
		// Large γ: the kernel is nearly block-diagonal (Figure 1c); the
		// paper reports errors several times lower. We ask for 3× (this
		// seed gives 5.5× for MEKA, 20× for BKA).
		{gamma: 0.2, factor: 1.0 / 3, bkaFact: 1.0 / 5},
		// Small γ: the kernel is low-rank; MEKA should still match Nyström
		// (Figure 9). 1.1 allows for sampling noise.
		{gamma: 0.01, factor: 1.1, bkaFact: math.Inf(1)},
	} {
		k := kernel.Gaussian{Gamma: tc.gamma}
		g := denseKernel(k, x)
		m, err := Fit(ctx, x, k, Options{Rank: 10, Partition: part}, rand.New(rand.NewPCG(13, 14)))
		if err != nil {
			t.Fatal(err)
		}
		mekaErr := relFro(mekaDense(t, m), g)
		// Equal memory: Nyström holds an n×r factor; MEKA holds W (n×k on
		// average) and L ((ck)²).
		floats := 0
		for s, r := range m.Stats().Ranks {
			floats += r * m.Stats().Sizes[s]
		}
		floats += m.Rank() * m.Rank()
		r := floats / n
		nysErr := nystromError(k, x, g, r, rand.New(rand.NewPCG(15, 16)))
		t.Logf("γ=%g: MEKA (k=10, c=5) error %.4g, Nyström rank %d error %.4g", tc.gamma, mekaErr, r, nysErr)
		if mekaErr > tc.factor*nysErr {
			t.Errorf("γ=%g: MEKA error %.4g not below %.3g × Nyström's %.4g", tc.gamma, mekaErr, tc.factor, nysErr)
		}
		if !math.IsInf(tc.bkaFact, 1) {
			b, err := FitBKA(ctx, x, k, BKAOptions{Partition: part}, nil)
			if err != nil {
				t.Fatal(err)
			}
			// BKA's memory n²/c = 72,000 floats is larger than MEKA's here,
			// so compare it against Nyström at BKA's memory.
			rb := min(int(b.Bytes()/8)/n, n)
			nb := nystromError(k, x, g, rb, rand.New(rand.NewPCG(17, 18)))
			be := bkaError(t, b, g)
			t.Logf("γ=%g: BKA error %.4g, Nyström rank %d error %.4g", tc.gamma, be, rb, nb)
			if be > tc.bkaFact*nb {
				t.Errorf("γ=%g: BKA error %.4g not below %.3g × Nyström's %.4g", tc.gamma, be, tc.bkaFact, nb)
			}
		}
	}
}

func bkaError(t *testing.T, b *BKA, g *mat.Dense) float64 {
	t.Helper()
	n := b.Len()
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	d := mat.NewDense(n, n, nil)
	if err := b.Rows(context.Background(), d, idx); err != nil {
		t.Fatal(err)
	}
	return relFro(d, g)
}

func TestMEKADeterministicAcrossWorkers(t *testing.T) {
	x, _ := blobs(4, 50, 3, 2, rand.New(rand.NewPCG(19, 20)))
	k := kernel.Gaussian{Gamma: 0.3}
	var prev []float64
	for _, w := range []int{1, 3} {
		m, err := Fit(context.Background(), x, k, Options{Rank: 6, Clusters: 4, Workers: w, KMeans: cluster.KMeans{}}, rand.New(rand.NewPCG(21, 22)))
		if err != nil {
			t.Fatal(err)
		}
		l := m.Link().RawSymmetric().Data
		if prev != nil {
			for i := range l {
				if l[i] != prev[i] {
					t.Fatalf("workers=%d: L differs at %d", w, i)
				}
			}
		}
		prev = l
	}
}

func TestMEKARankStrategies(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(23, 24))
	// Unequal clusters: 3 groups of sizes 30, 60, 150.
	x1, _ := blobs(1, 30, 3, 0, rng)
	x2, _ := blobs(1, 60, 3, 0, rng)
	x3, _ := blobs(1, 150, 3, 0, rng)
	x := mat.NewDense(240, 3, nil)
	labels := make([]int, 240)
	for i := 0; i < 240; i++ {
		var row []float64
		switch {
		case i < 30:
			row, labels[i] = x1.RawRowView(i), 0
			row = []float64{row[0], row[1], row[2]}
		case i < 90:
			row, labels[i] = x2.RawRowView(i-30), 1
			row = []float64{row[0] + 20, row[1], row[2]}
		default:
			row, labels[i] = x3.RawRowView(i-90), 2
			row = []float64{row[0], row[1] + 20, row[2]}
		}
		x.SetRow(i, row)
	}
	cent := mat.NewDense(3, 3, []float64{0, 0, 0, 20, 0, 0, 0, 20, 0})
	part := &cluster.Partition{Centroids: cent, Labels: labels}
	k := kernel.Gaussian{Gamma: 0.2}
	for _, tc := range []struct {
		s    RankStrategy
		want []int
	}{
		{RankSame, []int{8, 8, 8}},
		// 24·30/240 = 3, 24·60/240 = 6, 24·150/240 = 15.
		{RankProportional, []int{3, 6, 15}},
	} {
		m, err := Fit(ctx, x, k, Options{Rank: 8, Strategy: tc.s, Partition: part}, rng)
		if err != nil {
			t.Fatal(err)
		}
		got := m.Stats().Ranks
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: ranks %v, want %v", tc.s, got, tc.want)
				break
			}
		}
	}
	m, err := Fit(ctx, x, k, Options{Rank: 8, Strategy: RankEigen, Partition: part}, rng)
	if err != nil {
		t.Fatal(err)
	}
	st := m.Stats()
	if sum := st.Ranks[0] + st.Ranks[1] + st.Ranks[2]; sum != 24 {
		t.Errorf("eigen strategy ranks %v sum to %d, want c·k = 24", st.Ranks, sum)
	}
	// Eigenvalues of G⁽ˢˢ⁾ scale with n_s, so the largest cluster must get
	// the largest share.
	if !(st.Ranks[2] > st.Ranks[0]) {
		t.Errorf("eigen strategy ranks %v: the 150-point cluster should get more rank than the 30-point one", st.Ranks)
	}
	// chooseRanks picks exactly the top scaled eigenvalues.
	fac := []basisFactor{
		{idx: make([]int, 2), vals: []float64{5, 1}, nrank: 2},   // scale 10/2 → 25, 5
		{idx: make([]int, 2), vals: []float64{4, 3}, nrank: 2},   // scale 20/2 → 40, 30
		{idx: make([]int, 2), vals: []float64{9, 0.1}, nrank: 1}, // scale 4/2 → 18
	}
	mm := &Map{opt: Options{Rank: 1, Strategy: RankEigen}, members: [][]int{make([]int, 10), make([]int, 20), make([]int, 4)}}
	got := mm.chooseRanks(nil, fac)
	// c·k = 3 largest of {25, 5, 40, 30, 18}: 40, 30, 25 → ranks [1, 2, 0].
	if got[0] != 1 || got[1] != 2 || got[2] != 0 {
		t.Errorf("chooseRanks = %v, want [1 2 0]", got)
	}
}

func TestMEKAThreshold(t *testing.T) {
	x, part := blobs(4, 30, 3, 2, rand.New(rand.NewPCG(25, 26)))
	k := kernel.Gaussian{Gamma: 0.05}
	cb := mat.NewDense(4, 4, nil)
	k.Block(cb, part.Centroids, part.Centroids)
	// ε halfway between the 3rd and 4th of the 6 off-diagonal centroid
	// kernel values (sorted), so that some pairs are linked and some not.
	var vals []float64
	for s := 0; s < 4; s++ {
		for u := s + 1; u < 4; u++ {
			vals = append(vals, cb.At(s, u))
		}
	}
	slices.Sort(vals)
	eps := (vals[2] + vals[3]) / 2
	if !(vals[2] < eps && eps < vals[3]) {
		t.Fatalf("test setup: centroid kernel values %v coincide", vals)
	}
	m, err := Fit(context.Background(), x, k, Options{Rank: 4, Epsilon: eps, Partition: part}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	st := m.Stats()
	if st.Thresholded == 0 || st.Linked+st.Thresholded != 6 {
		t.Errorf("linked %d, thresholded %d: want some of the 6 pairs zeroed", st.Linked, st.Thresholded)
	}
	for s := 0; s < 4; s++ {
		for u := s + 1; u < 4; u++ {
			zero := mat.Norm(linkBlock(m, s, u), 2) == 0
			if want := cb.At(s, u) <= eps; zero != want {
				t.Errorf("pair (%d,%d): k(m_s,m_t) = %g, ε = %g, block zero = %v", s, u, cb.At(s, u), eps, zero)
			}
		}
	}
}

func TestMEKABadInput(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	x, part := blobs(2, 10, 2, 3, rng)
	k := kernel.Gaussian{Gamma: 1}
	nan := mat.DenseCopyOf(x)
	nan.Set(3, 1, math.NaN())
	for name, f := range map[string]func() error{
		"nan X":        func() error { _, err := Fit(ctx, nan, k, Options{}, rng); return err },
		"nil kernel":   func() error { _, err := Fit(ctx, x, nil, Options{}, rng); return err },
		"nil rng":      func() error { _, err := Fit(ctx, x, k, Options{}, nil); return err },
		"c > n":        func() error { _, err := Fit(ctx, x, k, Options{Clusters: 21}, rng); return err },
		"rho < 0":      func() error { _, err := Fit(ctx, x, k, Options{Rho: -1}, rng); return err },
		"rank < 0":     func() error { _, err := Fit(ctx, x, k, Options{Rank: -1}, rng); return err },
		"bad strategy": func() error { _, err := Fit(ctx, x, k, Options{Strategy: "max"}, rng); return err },
		"eps poly": func() error {
			_, err := Fit(ctx, x, kernel.Polynomial{Degree: 2, Gamma: 1}, Options{Epsilon: 0.1, Partition: part}, rng)
			return err
		},
		"budget": func() error {
			_, err := Fit(ctx, x, k, Options{Partition: part, MaxBytes: 100}, rng)
			return err
		},
		"labels": func() error {
			_, err := Fit(ctx, x, k, Options{Partition: &cluster.Partition{Centroids: part.Centroids, Labels: []int{0}}}, rng)
			return err
		},
	} {
		if err := f(); !errors.Is(err, check.ErrInput) {
			t.Errorf("%s: error %v, want ErrInput", name, err)
		}
	}
	m, err := Fit(ctx, x, k, Options{Rank: 3, Partition: part}, rng)
	if err != nil {
		t.Fatal(err)
	}
	y := mat.NewDense(20, 1, nil)
	for _, lam := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, err := m.Solve(ctx, lam, y); !errors.Is(err, check.ErrInput) {
			t.Errorf("Solve(λ=%g): %v, want ErrInput", lam, err)
		}
	}
	if _, err := m.Solve(ctx, 1, mat.NewDense(19, 1, nil)); !errors.Is(err, check.ErrInput) {
		t.Errorf("Solve with 19 targets: %v, want ErrInput", err)
	}
	if _, err := m.SolveCG(ctx, 1, y, CG{Tol: -1}); !errors.Is(err, check.ErrInput) {
		t.Errorf("SolveCG with Tol -1: %v, want ErrInput", err)
	}
	if err := m.Transform(ctx, mat.NewDense(1, m.Dim(), nil), mat.NewDense(1, 3, nil)); !errors.Is(err, check.ErrInput) {
		t.Errorf("Transform with 3 columns: %v, want ErrInput", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Fit(cctx, x, k, Options{Rank: 3, Partition: part}, rng); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled fit: %v, want context.Canceled", err)
	}
}

// TestMEKAConcurrentUse runs Transform (which eigendecomposes L lazily) and
// Stats/Bytes/Mul from several goroutines; run with -race.
func TestMEKAConcurrentUse(t *testing.T) {
	ctx := context.Background()
	x, _ := blobs(3, 30, 3, 2, rand.New(rand.NewPCG(41, 42)))
	m, err := Fit(ctx, x, kernel.Gaussian{Gamma: 0.3}, Options{Rank: 4, Clusters: 3}, rand.New(rand.NewPCG(43, 44)))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 4)
	for g := 0; g < 4; g++ {
		go func() {
			if g%2 == 0 {
				phi := mat.NewDense(90, m.Dim(), nil)
				done <- m.Transform(ctx, phi, x)
				return
			}
			_ = m.Stats()
			_ = m.Bytes()
			done <- m.Mul(ctx, mat.NewDense(90, 1, nil), mat.NewDense(90, 1, nil))
		}()
	}
	for g := 0; g < 4; g++ {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	if !m.Stats().Eigendecomposed {
		t.Error("Transform did not record the eigendecomposition")
	}
}

func TestMEKAProgress(t *testing.T) {
	x, _ := blobs(3, 30, 3, 2, rand.New(rand.NewPCG(45, 46)))
	last := map[string][2]int{}
	var order []string
	opt := Options{Rank: 4, Clusters: 3, PSD: true, Workers: 2, Progress: func(stage string, done, total int) {
		if len(order) == 0 || order[len(order)-1] != stage {
			order = append(order, stage)
		}
		last[stage] = [2]int{done, total}
	}}
	// Progress is called from worker goroutines, one call at a time (the
	// fitter serializes them); -race checks that.
	if _, err := Fit(context.Background(), x, kernel.Gaussian{Gamma: 0.3}, opt, rand.New(rand.NewPCG(47, 48))); err != nil {
		t.Fatal(err)
	}
	want := []string{"cluster", "basis", "link", "eigen"}
	if !slices.Equal(order, want) {
		t.Errorf("stages %v, want %v", order, want)
	}
	for _, s := range want {
		if p := last[s]; p[0] != p[1] || p[1] == 0 {
			t.Errorf("stage %s ended at %d/%d", s, p[0], p[1])
		}
	}
	if p := last["link"]; p[1] != 3 {
		t.Errorf("link stage total %d, want 3 pairs", p[1])
	}
}

// TestMEKARankZeroClusterBasis: RankEigen may leave a cluster with rank 0,
// and Basis must then return an empty W⁽ˢ⁾ with the cluster's rows, not
// panic (gonum has no n×0 matrix; Basis used to ask for one, which made
// TestMEKABasisSolverMatchesLocal panic on the runs whose sparse test data
// gave a rank-0 cluster). Data: cluster 0 is 100 points 3 apart on a line
// under the Gaussian with γ = 1 (off-diagonal kernel values ≤ e⁻⁹, so both
// eigenvalues of its 2-landmark block are 1 ± 1.3e-4, scaled by n_s/m_s =
// 50); cluster 1 is two copies of one point (block [[1,1],[1,1]]:
// eigenvalues 2 and 0, scaled by 2/2 = 1). The budget c·k = 2 goes to the
// two ≈ 50 values: ranks [2, 0].
func TestMEKARankZeroClusterBasis(t *testing.T) {
	x := mat.NewDense(102, 3, nil)
	labels := make([]int, 102)
	for i := 0; i < 100; i++ {
		x.Set(i, 0, 3*float64(i))
	}
	for i := 100; i < 102; i++ {
		x.Set(i, 0, 1000)
		labels[i] = 1
	}
	cent := mat.NewDense(2, 3, []float64{148.5, 0, 0, 1000, 0, 0})
	part := &cluster.Partition{Centroids: cent, Labels: labels}
	m, err := Fit(context.Background(), x, kernel.Gaussian{Gamma: 1}, Options{Rank: 1, Strategy: RankEigen, Partition: part}, rand.New(rand.NewPCG(3, 5)))
	if err != nil {
		t.Fatal(err)
	}
	if r := m.Stats().Ranks; !slices.Equal(r, []int{2, 0}) {
		t.Fatalf("ranks %v, want [2 0]", r)
	}
	b, err := MarshalMap(m)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadMap(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	for name, mm := range map[string]*Map{"fitted": m, "loaded": loaded.(*Map)} {
		w0, rows0 := mm.Basis(0)
		if r, c := w0.Dims(); r != 100 || c != 2 || len(rows0) != 100 {
			t.Errorf("%s: basis 0 is %d×%d over %d rows, want 100×2 over 100", name, r, c, len(rows0))
		}
		w1, rows1 := mm.Basis(1)
		if !w1.IsEmpty() || !slices.Equal(rows1, []int{100, 101}) {
			t.Errorf("%s: basis of the rank-0 cluster: empty %v, rows %v; want empty, [100 101]", name, w1.IsEmpty(), rows1)
		}
	}
}

// mustAssign is Partition.Assign for inputs the test knows are valid.
func mustAssign(t *testing.T, p *cluster.Partition, x *mat.Dense) []int {
	t.Helper()
	lab, err := p.Assign(x)
	if err != nil {
		t.Fatal(err)
	}
	return lab
}

// TestScaledDefaults: c = min(10, ⌈√n/25⌉) and k = min(128, ⌈5√n⌉),
// worked by hand: n = 3,000 (√n = 54.77): c = ⌈2.19⌉ = 3, k = min(128, 274)
// = 128; n = 100: c = 1, k = 50; n = 65,536 (√n = 256): c = min(10, 11) =
// 10, k = 128, the paper's setting; a given c = 5 at n = 3,000 keeps 5;
// n = 10⁷: both capped (10, 128). Fit on 600 points with the zero Options
// uses them: c = ⌈0.98⌉ = 1 cluster of rank ⌈122.5⌉ = 123.
func TestScaledDefaults(t *testing.T) {
	for _, c := range []struct{ n, c, wantC, wantK int }{
		{3000, 0, 3, 128}, {100, 0, 1, 50}, {65536, 0, 10, 128}, {3000, 5, 5, 128}, {10000000, 0, 10, 128},
	} {
		if gc, gk := ScaledDefaults(c.n, c.c); gc != c.wantC || gk != c.wantK {
			t.Errorf("n = %d, c = %d: (%d, %d), want (%d, %d)", c.n, c.c, gc, gk, c.wantC, c.wantK)
		}
	}
	x, _ := blobs(3, 200, 3, 2, rand.New(rand.NewPCG(41, 42)))
	m, err := Fit(context.Background(), x, kernel.Gaussian{Gamma: 0.5}, Options{}, rand.New(rand.NewPCG(43, 44)))
	if err != nil {
		t.Fatal(err)
	}
	if m.Clusters() != 1 || m.opt.Rank != 123 {
		t.Errorf("zero Options on 600 points: %d clusters of rank %d, want 1 of 123", m.Clusters(), m.opt.Rank)
	}
}
