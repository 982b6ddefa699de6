package meka

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// rowsApprox gives rows of a kernel approximation on its training set.
type rowsApprox interface {
	Rows(ctx context.Context, dst *mat.Dense, idx []int) error
}

// nysRows is uniform rank-r Nyström held as B (n×r), K̃ = BBᵀ.
type nysRows struct{ b, z, t *mat.Dense }

func (r nysRows) Rows(_ context.Context, dst *mat.Dense, idx []int) error {
	dst.Mul(points.Gather(r.b, idx), r.b.T())
	return nil
}

// fitNys builds standard uniform Nyström with r landmarks and rank r:
// B = K(X, Z)·U Σ^(−1/2), eigenvalues below eigRelTol·σ_max dropped.
func fitNys(t testing.TB, k kernel.Kernel, x *mat.Dense, r int, rng *rand.Rand) nysRows {
	n, _ := x.Dims()
	z := points.Gather(x, points.Sample(n, r, rng))
	w := mat.NewSymDense(r, nil)
	k.Block(mat.NewDense(r, r, w.RawSymmetric().Data), z, z)
	var es mat.EigenSym
	if !es.Factorize(w, true) {
		t.Fatal("eigendecomposition failed")
	}
	vals := es.Values(nil)
	var v mat.Dense
	es.VectorsTo(&v)
	for j, e := range vals {
		sc := 0.0
		if e > eigRelTol*vals[r-1] {
			sc = 1 / math.Sqrt(e)
		}
		for i := 0; i < r; i++ {
			v.Set(i, j, v.At(i, j)*sc)
		}
	}
	b := mat.NewDense(n, r, nil)
	if err := kernel.NewOp(k, x, z, kernel.Options{}).Mul(context.Background(), b, &v); err != nil {
		t.Fatal(err)
	}
	return nysRows{b: b, z: z, t: &v}
}

// sampledRelErr is ‖K − K̃‖_F/‖K‖_F over the full rows idx (the MEKA
// paper's protocol with sampled rows).
func sampledRelErr(t testing.TB, k kernel.Kernel, x *mat.Dense, a rowsApprox, idx []int) float64 {
	n, _ := x.Dims()
	var num, den float64
	for lo := 0; lo < len(idx); lo += 100 {
		ch := idx[lo:min(lo+100, len(idx))]
		ex := mat.NewDense(len(ch), n, nil)
		if err := kernel.NewOp(k, points.Gather(x, ch), x, kernel.Options{}).Block(context.Background(), ex); err != nil {
			t.Fatal(err)
		}
		ap := mat.NewDense(len(ch), n, nil)
		if err := a.Rows(context.Background(), ap, ch); err != nil {
			t.Fatal(err)
		}
		for i, v := range ex.RawMatrix().Data {
			e := v - ap.RawMatrix().Data[i]
			num += e * e
			den += v * v
		}
	}
	return math.Sqrt(num / den)
}

// equalMemoryRank is the Nyström rank whose n×r factor holds as many floats
// as MEKA's W (Σ n_s k_s) and L ((Σ k_s)²): the paper's "equal memory".
func equalMemoryRank(m *Map) int {
	st := m.Stats()
	floats := m.Rank() * m.Rank()
	for s, r := range st.Ranks {
		floats += r * st.Sizes[s]
	}
	return floats / m.Len()
}

// loadShared reads a shared dataset or skips the test.
func loadShared(t testing.TB, name string) *datasets.Dataset {
	t.Helper()
	p, ok := datasets.SharedPath(name)
	if !ok {
		t.Skipf("%s not found", name)
	}
	d, err := datasets.ReadLIBSVMFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestMEKAIJCNN1Table7 checks the direction and rough size of the MEKA
// paper's Table 7 on a 5,000-point subsample of ijcnn1 (γ = 1, c = 10):
// the paper reports relative Frobenius error 0.0082 for MEKA (k = 128)
// against 0.0423 for uniform Nyström at equal memory, 5× lower. On the
// subsample k is scaled down to 32 so that W, not L, dominates memory as on
// the full set (n = 5,000: Nyström rank 52). This seed gives 0.020 vs 0.135;
// we require MEKA at least 3× below Nyström and below 0.05. The full-size
// run (k = 128) is in docs/performance.md ("MEKA and BKA").
func TestMEKAIJCNN1Table7(t *testing.T) {
	d := loadShared(t, "ijcnn1.train.libsvm.gz")
	rng := rand.New(rand.NewPCG(1, 1))
	x := points.Gather(d.X, points.Sample(d.Len(), 5000, rng))
	k := kernel.Gaussian{Gamma: 1}
	m, err := Fit(context.Background(), x, k, Options{Rank: 32, Clusters: 10}, rng)
	if err != nil {
		t.Fatal(err)
	}
	r := equalMemoryRank(m)
	ny := fitNys(t, k, x, r, rng)
	idx := points.Sample(5000, 500, rng)
	me := sampledRelErr(t, k, x, m, idx)
	ne := sampledRelErr(t, k, x, ny, idx)
	t.Logf("ijcnn1 n=5000 γ=1 c=10: MEKA k=32 error %.4f, uniform Nyström rank %d error %.4f (paper, n=49,990, k=128: 0.0082 vs 0.0423)", me, r, ne)
	if me > 0.05 || me > ne/3 {
		t.Errorf("MEKA error %.4f, Nyström %.4f: want MEKA < 0.05 and ≥ 3× lower", me, ne)
	}
}

// TestMEKACadataTable8 checks the direction of the MEKA paper's Table 8 on
// cadata: KRR on MEKA has lower test RMSE than KRR on uniform Nyström at
// equal memory (paper: 0.1209 vs 0.1504 with k = 128, γ = 2², c = 5,
// λ = 2⁻³, features and targets scaled to [0, 1]). A 5,000-point
// subsample (4,000 train, 1,000 test) with k = 32 keeps the test fast; the
// paper's λ = 2⁻³ multiplies I in (K + λI), i.e. λ = 2⁻³/n in our
// convention. This seed gives MEKA 0.136 vs Nyström ≈ 0.15; Nyström's RMSE
// is averaged over 3 landmark draws so that one lucky draw cannot flip the
// comparison.
func TestMEKACadataTable8(t *testing.T) {
	d := loadShared(t, "cadata.libsvm.gz")
	rng := rand.New(rand.NewPCG(1, 1))
	idx := points.Sample(d.Len(), 5000, rng)
	tr, te, err := datasets.Split(5000, 0.2, rng)
	if err != nil {
		t.Fatal(err)
	}
	xall := points.Gather(d.X, idx)
	xtr, xte := points.Gather(xall, tr), points.Gather(xall, te)
	mm := datasets.MinMax{Lower: 0, Upper: 1}
	if err := mm.Fit(xtr); err != nil {
		t.Fatal(err)
	}
	xtr, _ = mm.Transform(xtr)
	xte, _ = mm.Transform(xte)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, i := range tr {
		lo, hi = min(lo, d.Y[idx[i]]), max(hi, d.Y[idx[i]])
	}
	ytr := mat.NewDense(len(tr), 1, nil)
	for a, i := range tr {
		ytr.Set(a, 0, (d.Y[idx[i]]-lo)/(hi-lo))
	}
	yte := make([]float64, len(te))
	for a, i := range te {
		yte[a] = (d.Y[idx[i]] - lo) / (hi - lo)
	}
	n := len(tr)
	k := kernel.Gaussian{Gamma: 4}
	lambda := 0.125 / float64(n)
	ctx := context.Background()
	m, err := Fit(ctx, xtr, k, Options{Rank: 32, Clusters: 5, PSD: true}, rng)
	if err != nil {
		t.Fatal(err)
	}
	sol, err := m.Solve(ctx, lambda, ytr)
	if err != nil {
		t.Fatal(err)
	}
	pred := mat.NewDense(len(te), 1, nil)
	if err := m.CrossMul(ctx, pred, xte, sol.Alpha); err != nil {
		t.Fatal(err)
	}
	mekaRMSE := rmse(mat.Col(nil, 0, pred), yte)
	r := equalMemoryRank(m)
	var nysRMSE float64
	for rep := 0; rep < 3; rep++ {
		ny := fitNys(t, k, xtr, r, rng)
		// Ridge on the Nyström features: (BᵀB + λnI)w = Bᵀy.
		var btb, bty, w mat.Dense
		btb.Mul(ny.b.T(), ny.b)
		for i := 0; i < r; i++ {
			btb.Set(i, i, btb.At(i, i)+lambda*float64(n))
		}
		bty.Mul(ny.b.T(), ytr)
		if err := w.Solve(&btb, &bty); err != nil {
			t.Fatal(err)
		}
		kz := mat.NewDense(len(te), r, nil)
		k.Block(kz, xte, ny.z)
		var phi, p mat.Dense
		phi.Mul(kz, ny.t)
		p.Mul(&phi, &w)
		nysRMSE += rmse(mat.Col(nil, 0, &p), yte) / 3
	}
	t.Logf("cadata n=%d γ=4 c=5: MEKA k=32 test RMSE %.4f, uniform Nyström rank %d %.4f (paper, k=128: 0.1209 vs 0.1504)", n, mekaRMSE, r, nysRMSE)
	if mekaRMSE >= nysRMSE {
		t.Errorf("MEKA RMSE %.4f not below Nyström's %.4f", mekaRMSE, nysRMSE)
	}
}

func rmse(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		s += (v - b[i]) * (v - b[i])
	}
	return math.Sqrt(s / float64(len(a)))
}
