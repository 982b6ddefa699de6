package meka

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/internal/linalg"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// BasisProblem is one cluster's share of MEKA's Algorithm 1 lines 2–4
// (Si, Hsieh & Dhillon 2017: "for s = 1, …, c do Perform the rank-k
// approximation G⁽ˢˢ⁾ ≈ W⁽ˢ⁾L⁽ˢˢ⁾(W⁽ˢ⁾)ᵀ by standard Nyström"), in a form
// that can be sent to another process: the cluster's rows X_s, the number of
// landmarks m_s, the seed of the landmark draw and the target rank k_s.
// The kernel travels beside it (BasisSolver).
//
// Exactly one of X (dense) and Indptr/Indices/Values (CSR) holds the rows.
// Fit builds the problems from its data and the seeds it draws in
// cluster order, and solves them with SolveBasis, locally or through
// Options.BasisSolver (with RankEigen its local loop runs the two
// halves of SolveBasis apart, choosing the ranks in between).
type BasisProblem struct {
	// Cluster is s, the cluster's index (for messages).
	Cluster int
	// Rows and D are n_s and d: X_s is Rows × D.
	Rows, D int
	// X holds dense rows, row-major (Rows·D values); nil for sparse rows.
	X []float64
	// Indptr, Indices and Values hold sparse rows in CSR form (row i has the
	// values Values[Indptr[i]:Indptr[i+1]] at the ascending columns
	// Indices[Indptr[i]:Indptr[i+1]]); nil for dense rows.
	Indptr  []int
	Indices []int32
	Values  []float64
	// Landmarks is m_s, 1 ≤ m_s ≤ Rows: the landmarks Z_s are m_s rows drawn
	// uniformly without replacement.
	Landmarks int
	// Seed seeds the landmark draw.
	Seed uint64
	// Rank is the target rank k_s ≥ 0: the basis keeps min(Rank, r) columns,
	// r the numerical rank of K(Z_s, Z_s).
	Rank int
}

// Basis is the solution of a BasisProblem: the landmarks, the
// orthonormal basis W⁽ˢ⁾, the diagonal link block L⁽ˢˢ⁾ and the projection
// P_s that extends the basis to new points, w(x) = k(x, Z_s)·P_s.
type Basis struct {
	// Landmarks holds the positions of Z_s within the cluster's rows,
	// ascending (m_s of them, whatever Rank).
	Landmarks []int
	// Rank is k_s, the number of basis columns (0 if K(Z_s, Z_s) has
	// numerical rank 0 or the target was 0; W, P and L are then empty).
	Rank int
	// W is W⁽ˢ⁾, Rows × Rank, row-major, with orthonormal columns.
	W []float64
	// P is P_s = U_kΣ_k^(−1/2)R⁻¹, Landmarks × Rank, row-major.
	P []float64
	// L is L⁽ˢˢ⁾ = RRᵀ, Rank × Rank, row-major.
	L []float64
}

// BasisSolver solves a fit's basis problems, returning one Basis per
// problem in the same order. Options.BasisSolver, when set, replaces the
// local parallel loop over the clusters with it (module
// github.com/landmark-ml/landmark/distributed runs every problem as one
// element of an Apache Beam PCollection). To give the same approximation as
// a local fit it must solve each problem with SolveBasis.
type BasisSolver func(ctx context.Context, k kernel.Kernel, problems []BasisProblem) ([]Basis, error)

// landmarkStream is the PCG stream of the landmark draws.
const landmarkStream = 0x6d656b61

// SolveBasis solves one basis problem exactly as Fit does locally:
// m_s landmarks Z_s drawn without replacement from Seed, the
// eigendecomposition K(Z_s, Z_s) = UΣUᵀ, B = K(X_s, Z_s)·U_kΣ_k^(−1/2)
// (so G⁽ˢˢ⁾ ≈ BBᵀ, standard Nyström), the thin QR B = QR, W⁽ˢ⁾ = Q,
// L⁽ˢˢ⁾ = RRᵀ and P_s = U_kΣ_k^(−1/2)R⁻¹, with k_s = min(Rank, numerical
// rank of K(Z_s, Z_s)). The result depends on the problem only, bit for bit.
func SolveBasis(ctx context.Context, k kernel.Kernel, p BasisProblem) (Basis, error) {
	if err := ctx.Err(); err != nil {
		return Basis{}, err
	}
	if k == nil {
		return Basis{}, fmt.Errorf("approx: meka basis: %w: nil kernel", check.ErrInput)
	}
	if err := k.Validate(); err != nil {
		return Basis{}, fmt.Errorf("approx: meka basis: %w", err)
	}
	rows, err := p.rows()
	if err != nil {
		return Basis{}, fmt.Errorf("approx: meka basis of cluster %d: %w", p.Cluster, err)
	}
	f := landmarkFactor(k, rows, p.Landmarks, p.Seed)
	return basisFromFactor(k, rows, f, min(p.Rank, f.nrank)), nil
}

// rows validates the problem and returns its rows as a matrix (dense or
// kernel.Sparse), sharing the problem's slices.
func (p *BasisProblem) rows() (mat.Matrix, error) {
	switch {
	case p.Rows < 1 || p.D < 1:
		return nil, fmt.Errorf("%w: %d×%d rows", check.ErrInput, p.Rows, p.D)
	case p.Landmarks < 1 || p.Landmarks > p.Rows:
		return nil, fmt.Errorf("%w: %d landmarks for %d rows", check.ErrInput, p.Landmarks, p.Rows)
	case p.Rank < 0:
		return nil, fmt.Errorf("%w: rank %d < 0", check.ErrInput, p.Rank)
	}
	sparse := p.Indptr != nil || p.Indices != nil || p.Values != nil
	if sparse == (p.X != nil) {
		return nil, fmt.Errorf("%w: want exactly one of dense values (%d) and sparse arrays (%d row pointers)", check.ErrInput, len(p.X), len(p.Indptr))
	}
	if sparse {
		if len(p.Indptr) != p.Rows+1 {
			return nil, fmt.Errorf("%w: %d row pointers for %d rows", check.ErrInput, len(p.Indptr), p.Rows)
		}
		xs := kernel.NewCSRRows(p.D, p.Indptr, p.Indices, p.Values)
		if err := points.CheckSparse(xs, 0); err != nil {
			return nil, err
		}
		return xs, nil
	}
	if len(p.X) != p.Rows*p.D {
		return nil, fmt.Errorf("%w: %d values for %d×%d rows", check.ErrInput, len(p.X), p.Rows, p.D)
	}
	x := mat.NewDense(p.Rows, p.D, p.X)
	if err := check.Matrix("X", x); err != nil {
		return nil, err
	}
	return x, nil
}

// clusterRows returns a copy of the rows of cluster s: dense, or sparse
// (kernel.SubsetRows) when x is.
func (m *Map) clusterRows(x mat.Matrix, s int) mat.Matrix {
	if xs, ok := x.(kernel.Sparse); ok {
		return kernel.SubsetRows(xs, m.members[s])
	}
	return points.Gather(x, m.members[s])
}

// basisProblem returns cluster s's basis problem, its rows copied from x.
func (m *Map) basisProblem(x mat.Matrix, s, landmarks int, seed uint64, rank int) BasisProblem {
	p := BasisProblem{Cluster: s, Rows: len(m.members[s]), D: m.d, Landmarks: landmarks, Seed: seed, Rank: rank}
	switch rows := m.clusterRows(x, s).(type) {
	case *mat.Dense:
		p.X = rows.RawMatrix().Data
	case kernel.Sparse:
		p.Indptr, p.Indices, p.Values = rows.CSR()
	}
	return p
}

// landmarkFactor draws m landmarks from the rows of x with the landmark
// seed and factors K(Z, Z) (factorLandmarks); idx and loc are the
// landmarks' positions within x.
func landmarkFactor(k kernel.Kernel, x mat.Matrix, m int, seed uint64) basisFactor {
	n, _ := x.Dims()
	loc := landmarkPositions(n, m, seed)
	f := factorLandmarks(k, points.Gather(x, loc))
	f.idx, f.loc = loc, loc
	return f
}

// landmarkPositions draws m of n positions uniformly without replacement
// from the landmark seed, ascending.
func landmarkPositions(n, m int, seed uint64) []int {
	return points.Sample(n, m, rand.New(rand.NewPCG(seed, landmarkStream)))
}

// factorLandmarks eigendecomposes K(Z, Z) for the landmarks z (m×d):
// eigenvalues descending, their eigenvectors and the numerical rank. A
// failed eigendecomposition leaves numerical rank 0. idx and loc are unset.
func factorLandmarks(k kernel.Kernel, z *mat.Dense) basisFactor {
	m, _ := z.Dims()
	kz := mat.NewSymDense(m, nil)
	k.Block(mat.NewDense(m, m, kz.RawSymmetric().Data), z, z)
	var es mat.EigenSym
	if !es.Factorize(kz, true) {
		return basisFactor{}
	}
	asc := es.Values(nil)
	var v mat.Dense
	es.VectorsTo(&v)
	// Reorder descending.
	vals := make([]float64, m)
	vecs := mat.NewDense(m, m, nil)
	for j := 0; j < m; j++ {
		vals[j] = asc[m-1-j]
		for i := 0; i < m; i++ {
			vecs.Set(i, j, v.At(i, m-1-j))
		}
	}
	nr := 0
	for _, e := range vals {
		if e > eigRelTol*vals[0] && e > 0 {
			nr++
		}
	}
	return basisFactor{vals: vals, vecs: vecs, nrank: nr}
}

// basisFromFactor computes the rank-ks basis of the rows x from their
// landmark factor f (f.loc are positions within x; ks ≤ f.nrank).
func basisFromFactor(k kernel.Kernel, x mat.Matrix, f basisFactor, ks int) Basis {
	out := Basis{Landmarks: f.loc, Rank: ks}
	if ks == 0 {
		return out
	}
	ms := len(f.loc)
	z := points.Gather(x, f.loc)
	// U_k Σ_k^(−1/2), m_s × k_s.
	us := mat.NewDense(ms, ks, nil)
	for j := 0; j < ks; j++ {
		sc := 1 / math.Sqrt(f.vals[j])
		for i := 0; i < ms; i++ {
			us.Set(i, j, f.vecs.At(i, j)*sc)
		}
	}
	ns, _ := x.Dims()
	cs := mat.NewDense(ns, ms, nil)
	if xs, ok := x.(kernel.Sparse); ok {
		if err := kernel.SparseBlock(k, cs, xs, z); err != nil {
			panic(err) // shapes are this package's own
		}
	} else {
		k.Block(cs, x.(*mat.Dense), z)
	}
	b := mat.NewDense(ns, ks, nil)
	b.Mul(cs, us)
	rmat := linalg.ThinQR(b) // b now holds Q
	// L⁽ˢˢ⁾ = R Rᵀ.
	var rrt mat.Dense
	rrt.Mul(rmat, rmat.T())
	// P_s = U_k Σ_k^(−1/2) R⁻¹: solve P R = us.
	blas64.Trsm(blas.Right, blas.NoTrans, 1, blas64.Triangular{
		Uplo: blas.Upper, Diag: blas.NonUnit, N: ks, Stride: rmat.RawMatrix().Stride, Data: rmat.RawMatrix().Data,
	}, us.RawMatrix())
	out.W, out.P, out.L = b.RawMatrix().Data, us.RawMatrix().Data, rrt.RawMatrix().Data
	return out
}

// checkBasis checks a basis returned for problem p by a BasisSolver: its
// shapes, its landmark positions and, when want ≥ 0, its rank.
func checkBasis(p *BasisProblem, b *Basis, want int) error {
	ks := b.Rank
	switch {
	case ks < 0 || ks > p.Rank || ks > p.Landmarks || (want >= 0 && ks != want):
		return fmt.Errorf("%w: rank %d for target %d", check.ErrInput, ks, p.Rank)
	case len(b.Landmarks) != p.Landmarks:
		return fmt.Errorf("%w: %d landmarks, want %d", check.ErrInput, len(b.Landmarks), p.Landmarks)
	case len(b.W) != p.Rows*ks || len(b.P) != p.Landmarks*ks || len(b.L) != ks*ks:
		return fmt.Errorf("%w: basis arrays of %d, %d and %d values for rank %d", check.ErrInput, len(b.W), len(b.P), len(b.L), ks)
	}
	for i, j := range b.Landmarks {
		if j < 0 || j >= p.Rows || (i > 0 && j <= b.Landmarks[i-1]) {
			return fmt.Errorf("%w: landmark positions not ascending in [0, %d)", check.ErrInput, p.Rows)
		}
	}
	return nil
}
