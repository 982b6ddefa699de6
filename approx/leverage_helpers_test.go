package approx

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

// levDenseKernel returns K(X, X) computed entry by entry with Eval: the
// reference the engine-based code is compared with.
func levDenseKernel(k kernel.Kernel, x *mat.Dense) *mat.Dense {
	n, _ := x.Dims()
	kk := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			kk.Set(i, j, k.Eval(x.RawRowView(i), x.RawRowView(j)))
		}
	}
	return kk
}

// levClusters returns big points tightly packed around the origin (standard
// deviation 0.3 per coordinate, in 3 dimensions) and small clusters of few
// points each (same spread) centred 10 units apart along the first axis,
// from 10 on. With γ = 0.5 distinct clusters are kernel-orthogonal (e^{-50})
// and each cluster's kernel block is nearly rank one (e^{-0.27} between
// typical members), so K has one eigenvalue ≈ big and small eigenvalues ≈
// few. Uniform sampling of M ≪ n points usually misses small clusters,
// leaving a spectral error ≈ few, while their points have ridge leverage
// scores ≈ 1/few, far above the big cluster's ≈ 1/big.
func levClusters(big, small, few int, rng *rand.Rand) *mat.Dense {
	n := big + small*few
	x := mat.NewDense(n, 3, nil)
	for i := 0; i < n; i++ {
		c0 := 0.0
		if i >= big {
			c0 = 10 * float64((i-big)/few+1)
		}
		for j := 0; j < 3; j++ {
			v := 0.3 * rng.NormFloat64()
			if j == 0 {
				v += c0
			}
			x.Set(i, j, v)
		}
	}
	return x
}

// levNystrom returns K̃ = K_{·J} (K_JJ + εI)⁻¹ K_{J·} computed densely by
// Cholesky, with ε = 1e-10·tr(K_JJ)/|J|: the jitter keeps K_JJ invertible
// when landmarks nearly coincide and moves K̃ by far less than the
// tolerances it is compared with (ridges ≥ 0.1, relative errors ≥ 1e-3).
func levNystrom(kk *mat.Dense, idx []int) *mat.Dense {
	n, _ := kk.Dims()
	s := len(idx)
	c := mat.NewDense(n, s, nil)
	w := mat.NewSymDense(s, nil)
	for i := 0; i < n; i++ {
		for t, j := range idx {
			c.Set(i, t, kk.At(i, j))
		}
	}
	var tr float64
	for a, i := range idx {
		tr += kk.At(i, i)
		for b, j := range idx {
			w.SetSym(a, b, (kk.At(i, j)+kk.At(j, i))/2)
		}
	}
	for a := range idx {
		w.SetSym(a, a, w.At(a, a)+1e-10*tr/float64(s))
	}
	var ch mat.Cholesky
	if !ch.Factorize(w) {
		panic("levNystrom: Cholesky failed")
	}
	var l mat.TriDense
	ch.LTo(&l)
	// B = C L⁻ᵀ, K̃ = B Bᵀ.
	var bt mat.Dense
	if err := bt.Solve(&l, c.T()); err != nil {
		panic(err)
	}
	var out mat.Dense
	out.Mul(bt.T(), &bt)
	return &out
}

// levSymNorm returns max |eigenvalue| of a symmetric matrix by a full
// eigendecomposition.
func levSymNorm(a *mat.Dense) float64 {
	n, _ := a.Dims()
	s := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s.SetSym(i, j, (a.At(i, j)+a.At(j, i))/2)
		}
	}
	var eig mat.EigenSym
	eig.Factorize(s, false)
	v := eig.Values(nil)
	return max(math.Abs(v[0]), math.Abs(v[n-1]))
}

// levRealData reads up to n rows of a shared dataset, standardized with their
// own mean and standard deviation; it skips the test when the data are absent.
func levRealData(t testing.TB, name string, n int, seed uint64) *mat.Dense {
	t.Helper()
	path, ok := datasets.SharedPath(name)
	if !ok {
		t.Skipf("%s not available", name)
	}
	ds, err := datasets.ReadLIBSVMFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, d := ds.X.Dims()
	idx := points.Sample(rows, min(n, rows), rand.New(rand.NewPCG(seed, 0)))
	x := points.Gather(ds.X, idx)
	for j := 0; j < d; j++ {
		var mean, sq float64
		for i := range idx {
			mean += x.At(i, j)
		}
		mean /= float64(len(idx))
		for i := range idx {
			sq += (x.At(i, j) - mean) * (x.At(i, j) - mean)
		}
		sd := math.Sqrt(sq / float64(len(idx)))
		if sd == 0 {
			sd = 1
		}
		for i := range idx {
			x.Set(i, j, (x.At(i, j)-mean)/sd)
		}
	}
	return x
}

var levCtx = context.Background()
