package meka

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/approx/cluster"
	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/internal/parallel"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// RankStrategy decides the rank k_s of each cluster's basis in MEKA
// (Si, Hsieh & Dhillon 2017, Section 5.2). Every strategy spends the same
// budget of c·k basis vectors in total, where k is Options.Rank.
type RankStrategy string

// The rank strategies of Section 5.2.
const (
	// RankSame gives every cluster rank k (strategy i; Algorithm 1 as written).
	RankSame RankStrategy = "same"
	// RankProportional gives cluster s rank ≈ c·k·n_s/n (strategy ii),
	// rounded by largest remainders so the ranks sum to c·k, at least 1 each.
	RankProportional RankStrategy = "proportional"
	// RankEigen keeps the c·k largest estimated eigenvalues over all diagonal
	// blocks (strategy iii). The eigenvalues of G⁽ˢˢ⁾ are estimated by
	// (n_s/m_s)·σ_i(K(Z_s, Z_s)) from each cluster's m_s sampled landmarks.
	RankEigen RankStrategy = "eigen"
)

// Defaults of Options.
const (
	// DefaultRank is k, the paper's most used rank (Tables 7 and 8).
	DefaultRank = 128
	// DefaultClusters is c, as in the authors' released code (noc = 10).
	DefaultClusters = 10
	// DefaultRho is ρ: link blocks are fitted on (1+ρ)k × (1+ρ)k sampled
	// entries (Section 5.2 finds ρ of 2 or 3 sufficient).
	DefaultRho = 2.0
	// DefaultMaxBytes bounds the memory MEKA plans to hold (4 GiB).
	DefaultMaxBytes = 4 << 30
)

// eigRelTol is the relative cut-off below which eigenvalues of a landmark
// block K(Z_s, Z_s) count as zero: kernel entries carry round-off of about
// 1e-16 relative, so with m ≤ a few thousand landmarks eigenvalues below
// 1e-10·σ_max are numerical noise, and Σ^(−1/2) must not amplify them.
const eigRelTol = 1e-10

// pinvRelTol is the relative cut-off on the singular values of the sampled
// basis rows W̄ when the link blocks are fitted by least squares; smaller
// singular values are treated as zero (a minimum-norm solution), so that a
// poor sample cannot blow up L⁽ˢᵗ⁾ by more than 1e8.
const pinvRelTol = 1e-8

// Options configures Fit. The zero value means the paper's defaults:
// k = 128, c = 10, m_s = 2k_s landmarks per cluster, ρ = 2, no thresholding,
// rank strategy "same", no PSD fix.
type Options struct {
	// Rank is k, the average rank per cluster; the total rank is c·k.
	Rank int
	// Clusters is c, the number of k-means clusters (ignored when Partition is set).
	Clusters int
	// Landmarks is m_s, the number of columns sampled from each diagonal
	// block for its Nyström basis; 0 means 2·k_s (2·k for RankEigen), as the
	// paper does. It is capped at the cluster size.
	Landmarks int
	// Rho is ρ > 0: each off-diagonal link block L⁽ˢᵗ⁾ is fitted on a sampled
	// ⌈(1+ρ)k_s⌉ × ⌈(1+ρ)k_t⌉ submatrix of G⁽ˢᵗ⁾ (capped at the cluster sizes).
	Rho float64
	// Epsilon is the threshold ε: L⁽ˢᵗ⁾ = 0 when k(m_s, m_t) ≤ ε for the
	// centroids m_s, m_t. 0 links every pair. Needs a shift-invariant kernel.
	Epsilon float64
	// Strategy picks the ranks k_s; "" means RankSame.
	Strategy RankStrategy
	// PSD applies the MEKA-PSD fix (Section 7.1): L = VΛVᵀ with negative
	// eigenvalues set to zero, so that W L Wᵀ is positive semi-definite.
	PSD bool
	// KMeans configures the clustering; its K is replaced by Clusters.
	KMeans cluster.KMeans
	// Partition, when non-nil, is used instead of running k-means. Its
	// Labels must cover the rows of X.
	Partition *cluster.Partition
	// MaxBytes bounds the memory planned before allocation (what MEKA holds
	// plus each worker's scratch for one cluster); 0 means
	// DefaultMaxBytes. Fit fails with ErrMemory when the plan exceeds it.
	MaxBytes int64
	// Workers is the number of goroutines; 0 means GOMAXPROCS. Results do not
	// depend on it.
	Workers int
	// Progress, if non-nil, is called after each unit of work with the stage
	// ("cluster", "basis", "link", "eigen"), units done and units in the stage.
	// With a BasisSolver the basis stage reports once, when it returns.
	Progress func(stage string, done, total int)
	// BasisSolver, when set, computes the per-cluster Nyström bases
	// (Algorithm 1 lines 2–4) instead of the local parallel loop: Fit
	// clusters, draws every seed and, for RankEigen, chooses the ranks on
	// this machine, hands it one BasisProblem per non-empty cluster and
	// fits the link blocks and the rest from the bases it returns. A solver
	// that runs SolveBasis gives the local fit's approximation bit for
	// bit. The problems copy X (planned in MaxBytes).
	BasisSolver BasisSolver
}

// Stats describes a fitted MEKA: per-stage times (the paper's T_C, T_W,
// T_L), ranks, links and memory.
type Stats struct {
	ClusterTime time.Duration // T_C: k-means (zero when a Partition was given)
	BasisTime   time.Duration // T_W: per-cluster Nyström bases W⁽ˢ⁾
	LinkTime    time.Duration // T_L: link blocks L⁽ˢᵗ⁾
	EigenTime   time.Duration // eigendecomposition of L (PSD fix, Woodbury, features)

	Sizes []int // n_s, cluster sizes
	Ranks []int // k_s, basis ranks (after capping at m_s and the numerical rank)
	// RankDeficit is how much rank the numerical rank of the landmark blocks
	// took away from the strategy's targets (0 when every k_s was met).
	RankDeficit int
	Linked      int // off-diagonal cluster pairs with a fitted link block
	Thresholded int // off-diagonal pairs set to zero by ε

	// Bytes is the memory held: the bases W (Σ n_s k_s), the link matrix L
	// ((Σ k_s)²), landmarks and projections for new points, and the
	// cluster bookkeeping — the paper's O(nk + (ck)²).
	Bytes int64

	// Set once L has been eigendecomposed (PSD fix, Solve, Transform).
	Eigendecomposed     bool
	MinEigenvalue       float64 // smallest eigenvalue of L before any fix
	NegativeEigenvalues int     // how many eigenvalues of L were negative
	PSDFixed            bool    // the MEKA-PSD fix was applied to L
}

// Kernel returns the kernel MEKA approximates (nil before Fit).
func (m *Map) Kernel() kernel.Kernel { return m.kern }

// Map is a fitted MEKA, Memory Efficient Kernel Approximation,
// G ≈ W L Wᵀ, W = diag(W⁽¹⁾, …, W⁽ᶜ⁾) (rows in cluster order), where each
// W⁽ˢ⁾ is an orthonormal n_s × k_s basis from Nyström on the diagonal block
// G⁽ˢˢ⁾ and L is the symmetric (Σk_s)×(Σk_s) link matrix. W is kept as c
// blocks: memory is O(nk + (ck)²), never n × ck dense.
//
// Map is also an approx.FeatureMap of the PSD-fixed approximation: a new
// point is assigned to its nearest centroid and extended with that cluster's
// Nyström basis. Methods may be called concurrently once Fit has returned.
type Map struct {
	kern kernel.Kernel
	n, d int
	opt  Options // resolved

	part    *cluster.Partition
	labels  []int   // cluster of each training row
	pos     []int   // position of each training row within its cluster
	members [][]int // training rows of each cluster, ascending

	z    []*mat.Dense // landmarks Z_s (m_s × d)
	proj []*mat.Dense // P_s (m_s × k_s): w(x) = k(x, Z_s)·P_s
	w    []*mat.Dense // W⁽ˢ⁾ (n_s × k_s), orthonormal columns
	off  []int        // offset of cluster s's block in L (len c+1)
	lm   [][]int      // positions of the landmarks Z_s within cluster s
	l    *mat.SymDense

	eigOnce sync.Once
	eigErr  error
	vals    []float64  // eigenvalues of L, ascending (clipped at 0 if PSD)
	vecs    *mat.Dense // eigenvectors of L
	feat    *mat.Dense // V₊Λ₊^(1/2), r × Dim()

	statsMu sync.Mutex // guards stats against the lazy eigendecomposition
	stats   Stats
}

var _ approx.FeatureMap = (*Map)(nil)

// Fit fits MEKA (Si, Hsieh & Dhillon 2017, Algorithm 1) to the rows of x
// with kernel k. All randomness (k-means, landmarks, link samples) comes from
// rng; the result does not depend on the number of workers.
//
// Sparse x (kernel.Sparse) stays sparse: k-means runs on the sparse rows
// with dense centroids, and each cluster's block K(X_s, Z_s) comes from its
// sparse rows against the dense landmarks (kernel.SparseBlock). The
// landmarks and the link samples, O(rank) rows per cluster, are held dense.
func Fit(ctx context.Context, xIn mat.Matrix, k kernel.Kernel, opt Options, rng *rand.Rand) (*Map, error) {
	var x mat.Matrix
	if xs, ok := xIn.(kernel.Sparse); ok {
		if err := points.CheckSparse(xs, 0); err != nil {
			return nil, fmt.Errorf("approx: meka: %w", err)
		}
		x = xs
	} else {
		xd := kernel.DenseOf(xIn)
		if err := check.Matrix("X", xd); err != nil {
			return nil, fmt.Errorf("approx: meka: %w", err)
		}
		x = xd
	}
	if k == nil {
		return nil, fmt.Errorf("approx: meka: %w: nil kernel", check.ErrInput)
	}
	if err := k.Validate(); err != nil {
		return nil, fmt.Errorf("approx: meka: %w", err)
	}
	if rng == nil {
		return nil, fmt.Errorf("approx: meka: %w: nil random source", check.ErrInput)
	}
	n, d := x.Dims()
	o, err := opt.resolve(n, k)
	if err != nil {
		return nil, err
	}
	m := &Map{kern: k, n: n, d: d, opt: o}

	// Stage 1 (T_C): the partition.
	t0 := time.Now()
	part := o.Partition
	if part == nil {
		km := o.KMeans
		km.K = o.Clusters
		// Before clustering: k-means (its dense centroids are K×d whatever
		// the form of x) and the bases' plan for the worst cluster sizes
		// (plannedBytes with one cluster holding every row), so that a cap
		// the fit cannot meet is refused before k-means allocates.
		if plan := max(km.PlanBytes(n, d), m.upperBytes(x, o.Clusters)); o.MaxBytes > 0 && plan > o.MaxBytes {
			return nil, fmt.Errorf("approx: meka: %w: planned memory %d bytes before clustering (%d clusters of %d×%d data) exceeds MaxBytes %d",
				check.ErrMemory, plan, km.K, n, d, o.MaxBytes)
		}
		part, err = km.Fit(ctx, x, rng)
		if err != nil {
			return nil, fmt.Errorf("approx: meka: clustering: %w", err)
		}
	}
	if err := m.setPartition(part); err != nil {
		return nil, err
	}
	m.stats.ClusterTime = time.Since(t0)
	o.progress("cluster", 1, 1)
	c := len(m.members)

	// Plan memory before allocating the bases and L.
	if plan := m.plannedBytes(x); plan > o.MaxBytes {
		return nil, fmt.Errorf("approx: meka: %w: planned memory %d bytes (W %d×~%d, L %d×%d) exceeds MaxBytes %d",
			check.ErrMemory, plan, n, o.Rank, c*o.Rank, c*o.Rank, o.MaxBytes)
	}

	// Per-task seeds, drawn in a fixed order so workers cannot change results.
	basisSeeds := make([]uint64, c)
	for s := range basisSeeds {
		basisSeeds[s] = rng.Uint64()
	}
	linkSeeds := make([]uint64, c)
	for i := range linkSeeds {
		linkSeeds[i] = rng.Uint64()
	}

	// Stage 2 (T_W): per-cluster Nyström bases.
	t0 = time.Now()
	if err := m.fitBases(ctx, x, basisSeeds); err != nil {
		return nil, err
	}
	m.stats.BasisTime = time.Since(t0)

	// Stage 3 (T_L): link blocks.
	t0 = time.Now()
	if err := m.fitLinks(ctx, x, linkSeeds); err != nil {
		return nil, err
	}
	m.stats.LinkTime = time.Since(t0)

	if o.PSD {
		if err := m.eigen(); err != nil {
			return nil, err
		}
	}
	m.stats.Bytes = m.bytes()
	return m, nil
}

func (o Options) resolve(n int, k kernel.Kernel) (Options, error) {
	r := o
	switch {
	case r.Rank < 0:
		return r, fmt.Errorf("approx: meka: %w: Rank = %d < 0", check.ErrInput, r.Rank)
	case r.Clusters < 0:
		return r, fmt.Errorf("approx: meka: %w: Clusters = %d < 0", check.ErrInput, r.Clusters)
	case r.Landmarks < 0:
		return r, fmt.Errorf("approx: meka: %w: Landmarks = %d < 0", check.ErrInput, r.Landmarks)
	case r.Rho < 0 || math.IsNaN(r.Rho) || math.IsInf(r.Rho, 0):
		return r, fmt.Errorf("approx: meka: %w: Rho = %g, want finite and > 0", check.ErrInput, r.Rho)
	case r.Epsilon < 0 || math.IsNaN(r.Epsilon) || math.IsInf(r.Epsilon, 0):
		return r, fmt.Errorf("approx: meka: %w: Epsilon = %g, want finite and ≥ 0", check.ErrInput, r.Epsilon)
	case r.MaxBytes < 0:
		return r, fmt.Errorf("approx: meka: %w: MaxBytes = %d < 0", check.ErrInput, r.MaxBytes)
	}
	if r.Epsilon > 0 && !k.ShiftInvariant() {
		return r, fmt.Errorf("approx: meka: %w: thresholding (Epsilon = %g) needs a shift-invariant kernel, %s is not",
			check.ErrInput, r.Epsilon, k)
	}
	switch r.Strategy {
	case "":
		r.Strategy = RankSame
	case RankSame, RankProportional, RankEigen:
	default:
		return r, fmt.Errorf("approx: meka: %w: unknown rank strategy %q (want same, proportional or eigen)", check.ErrInput, r.Strategy)
	}
	if r.Rank == 0 {
		r.Rank = DefaultRank
	}
	if r.Clusters == 0 {
		r.Clusters = DefaultClusters
	}
	if r.Partition == nil && r.Clusters > n {
		return r, fmt.Errorf("approx: meka: %w: %d clusters for n = %d points", check.ErrInput, r.Clusters, n)
	}
	if r.Rho == 0 {
		r.Rho = DefaultRho
	}
	if r.MaxBytes == 0 {
		r.MaxBytes = DefaultMaxBytes
	}
	return r, nil
}

func (o Options) progress(stage string, done, total int) {
	if o.Progress != nil {
		o.Progress(stage, done, total)
	}
}

// setPartition records the clusters of the training rows.
func (m *Map) setPartition(p *cluster.Partition) error {
	members, labels, pos, err := partitionMembers(p, m.n, m.d)
	if err != nil {
		return fmt.Errorf("approx: meka: %w", err)
	}
	m.part, m.members, m.labels, m.pos = p, members, labels, pos
	return nil
}

// partitionMembers validates p against n rows of dimension d and returns the
// rows of each cluster, the label of each row and its position in its cluster.
func partitionMembers(p *cluster.Partition, n, d int) (members [][]int, labels, pos []int, err error) {
	if p == nil || p.Centroids == nil {
		return nil, nil, nil, fmt.Errorf("%w: partition has no centroids", check.ErrInput)
	}
	c, dc := p.Centroids.Dims()
	if dc != d {
		return nil, nil, nil, fmt.Errorf("%w: partition centroids have %d columns, X has %d", check.ErrInput, dc, d)
	}
	if len(p.Labels) != n {
		return nil, nil, nil, fmt.Errorf("%w: partition has %d labels, X has %d rows", check.ErrInput, len(p.Labels), n)
	}
	members = make([][]int, c)
	pos = make([]int, n)
	for i, s := range p.Labels {
		if s < 0 || s >= c {
			return nil, nil, nil, fmt.Errorf("%w: partition label %d of row %d out of [0, %d)", check.ErrInput, s, i, c)
		}
		pos[i] = len(members[s])
		members[s] = append(members[s], i)
	}
	return members, slices.Clone(p.Labels), pos, nil
}

// plannedBytes estimates the memory Fit will hold, before allocating it.
func (m *Map) plannedBytes(x mat.Matrix) int64 {
	k := int64(m.opt.Rank)
	lm := int64(m.opt.Landmarks)
	if lm == 0 {
		lm = 2 * k
	}
	d := int64(m.d)
	// Held: heldBytes. Transient, per
	// worker: one cluster's rows (a dense copy, or CSR rows for sparse x),
	// its K(X_s, Z_s), the basis B and its copy.
	var big, rows int64
	xs, sparse := x.(kernel.Sparse)
	for _, mem := range m.members {
		big = max(big, int64(len(mem)))
		if !sparse {
			rows = max(rows, 8*int64(len(mem))*d)
			continue
		}
		indptr, _, _ := xs.CSR()
		var nnz int64
		for _, i := range mem {
			nnz += int64(indptr[i+1] - indptr[i])
		}
		rows = max(rows, 8*int64(len(mem)+1)+12*nnz)
	}
	w := int64(min(parallel.Workers(m.opt.Workers), len(m.members)))
	// The links' sample rows, ⌈(1+ρ)k⌉ of each cluster, are held as dense
	// rows (d each) all at once (fitLinks).
	var links int64
	q := int64(math.Ceil((1 + m.opt.Rho) * float64(k)))
	for _, mem := range m.members {
		links += min(int64(len(mem)), q)
	}
	plan := m.heldBytes(len(m.members)) + 8*w*big*(lm+2*k) + w*rows + 8*links*d
	if m.opt.BasisSolver != nil {
		// The problems hold a copy of X at once.
		plan += dataBytes(x)
	}
	return plan
}

// upperBytes bounds plannedBytes before clustering: c clusters, each as
// large as the data (n rows, all of x's non-zeros).
func (m *Map) upperBytes(x mat.Matrix, c int) int64 {
	k := int64(m.opt.Rank)
	lm := int64(m.opt.Landmarks)
	if lm == 0 {
		lm = 2 * k
	}
	n, d := int64(m.n), int64(m.d)
	w := int64(min(parallel.Workers(m.opt.Workers), c))
	q := min(n, int64(math.Ceil((1+m.opt.Rho)*float64(k))))
	return m.heldBytes(c) + 8*w*n*(lm+2*k) + w*dataBytes(x) + 8*int64(c)*q*d
}

// heldBytes is what a fit with c clusters holds whatever their sizes: W
// (n×k), L ((ck)²), the landmarks and their projections (c·lm×(d+k)), the
// partition's centroids (c×d, dense) and the bookkeeping (2n).
func (m *Map) heldBytes(clusters int) int64 {
	c, k := int64(clusters), int64(m.opt.Rank)
	lm := int64(m.opt.Landmarks)
	if lm == 0 {
		lm = 2 * k
	}
	n, d := int64(m.n), int64(m.d)
	return 8 * (n*k + c*k*c*k + c*lm*(d+k) + c*d + 2*n)
}

// dataBytes is the size of a copy of x: 8nd bytes dense, its CSR arrays
// (8 per row pointer, 12 per non-zero) sparse.
func dataBytes(x mat.Matrix) int64 {
	if xs, ok := x.(kernel.Sparse); ok {
		indptr, _, values := xs.CSR()
		return 8*int64(len(indptr)) + 12*int64(len(values))
	}
	n, d := x.Dims()
	return 8 * int64(n) * int64(d)
}

// bytes is the memory held by the fitted approximation.
func (m *Map) bytes() int64 {
	var f int64
	for s := range m.members {
		if m.w[s] != nil {
			r, c := m.w[s].Dims()
			f += int64(r * c)
			r, c = m.z[s].Dims()
			f += int64(r * c)
			r, c = m.proj[s].Dims()
			f += int64(r * c)
		}
	}
	r := int64(m.off[len(m.off)-1])
	f += r * r
	cr, cc := m.part.Centroids.Dims()
	f += int64(cr * cc)
	f += 3 * int64(m.n) // labels, positions and member lists (one int each)
	if m.vecs != nil {
		f += r*r + r
	}
	if m.feat != nil {
		a, b := m.feat.Dims()
		f += int64(a * b)
	}
	return 8 * f
}

// basisFactor holds what stage 2 computes for one cluster.
type basisFactor struct {
	idx   []int      // landmark rows (global)
	loc   []int      // landmark positions within the cluster
	vals  []float64  // eigenvalues of K(Z,Z), descending
	vecs  *mat.Dense // matching eigenvectors (m × m)
	nrank int        // numerical rank of K(Z,Z)
}

// fitBases computes W⁽ˢ⁾ for every cluster (Algorithm 1 lines 2–4): Nyström
// on the diagonal block with m_s sampled columns, B = K(X_s, Z_s)·U_k·Σ_k^(−1/2)
// (so G⁽ˢˢ⁾ ≈ BBᵀ), then B = QR, W⁽ˢ⁾ = Q and L⁽ˢˢ⁾ = RRᵀ. Each cluster is a
// BasisProblem solved by SolveBasis, here in parallel or by
// BasisSolver. RankEigen needs the landmark eigenvalues of every cluster
// before any rank is known: they are computed here first (phase A), the
// ranks chosen, and each basis (phase B) is then built from its cluster's
// factor — or, by a BasisSolver, from the same landmarks and factor
// recomputed by SolveBasis from the same seed.
func (m *Map) fitBases(ctx context.Context, x mat.Matrix, seeds []uint64) error {
	c := len(m.members)
	o := m.opt
	target := m.targetRanks()
	land := make([]int, c) // m_s
	for s, mem := range m.members {
		ms := o.Landmarks
		if ms == 0 {
			ms = 2 * target[s]
		}
		land[s] = min(max(ms, 1), len(mem))
	}
	want := target // the rank asked of each cluster's problem
	var fac []basisFactor
	if o.Strategy == RankEigen {
		// Phase A: landmarks and their eigendecomposition.
		fac = make([]basisFactor, c)
		err := parallel.For(ctx, c, o.Workers, func(_, s int) {
			mem := m.members[s]
			if len(mem) == 0 {
				return
			}
			loc := landmarkPositions(len(mem), land[s], seeds[s])
			idx := make([]int, len(loc))
			for i, j := range loc {
				idx[i] = mem[j]
			}
			fac[s] = factorLandmarks(m.kern, points.Gather(x, idx))
			fac[s].idx, fac[s].loc = idx, loc
		})
		if err != nil {
			return err
		}
		want = m.chooseRanks(target, fac)
	}
	res := make([]Basis, c)
	if o.BasisSolver != nil {
		var probs []BasisProblem
		for s, mem := range m.members {
			if len(mem) > 0 {
				probs = append(probs, m.basisProblem(x, s, land[s], seeds[s], want[s]))
			}
		}
		out, err := o.BasisSolver(ctx, m.kern, probs)
		if err != nil {
			return fmt.Errorf("approx: meka: basis problems: %w", err)
		}
		if len(out) != len(probs) {
			return fmt.Errorf("approx: meka: basis solver returned %d results for %d problems", len(out), len(probs))
		}
		for i := range probs {
			s, exact := probs[i].Cluster, -1
			if fac != nil {
				exact = want[s]
			}
			if err := checkBasis(&probs[i], &out[i], exact); err != nil {
				return fmt.Errorf("approx: meka: basis of cluster %d: %w", s, err)
			}
			res[s] = out[i]
		}
		o.progress("basis", c, c)
	} else {
		var done int
		var mu sync.Mutex
		err := parallel.ForErr(ctx, c, o.Workers, func(_, s int) error {
			if len(m.members[s]) == 0 {
				return nil
			}
			var err error
			if fac != nil {
				// Phase B from the factor of phase A.
				res[s] = basisFromFactor(m.kern, m.clusterRows(x, s), fac[s], want[s])
			} else {
				res[s], err = SolveBasis(ctx, m.kern, m.basisProblem(x, s, land[s], seeds[s], want[s]))
			}
			if res[s].Rank > 0 {
				mu.Lock()
				done++
				o.progress("basis", done, c)
				mu.Unlock()
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("approx: meka: %w", err)
		}
	}
	return m.setBases(x, target, res)
}

// setBases installs the cluster bases: W⁽ˢ⁾, P_s, the landmarks Z_s (rows
// of x) and the diagonal blocks L⁽ˢˢ⁾ of a new L.
func (m *Map) setBases(x mat.Matrix, target []int, res []Basis) error {
	c := len(m.members)
	ranks := make([]int, c)
	m.z = make([]*mat.Dense, c)
	m.proj = make([]*mat.Dense, c)
	m.w = make([]*mat.Dense, c)
	m.lm = make([][]int, c)
	m.off = make([]int, c+1)
	for s := range res {
		ranks[s] = res[s].Rank
		m.lm[s] = res[s].Landmarks
		m.off[s+1] = m.off[s] + ranks[s]
	}
	r := m.off[c]
	m.l = mat.NewSymDense(max(r, 1), nil)
	if r == 0 {
		return fmt.Errorf("approx: meka: %w: every cluster has numerical rank 0 under %s", check.ErrInput, m.kern)
	}
	for s, b := range res {
		ks := b.Rank
		if ks == 0 {
			continue
		}
		mem := m.members[s]
		idx := make([]int, len(b.Landmarks))
		for i, j := range b.Landmarks {
			idx[i] = mem[j]
		}
		m.z[s] = points.Gather(x, idx)
		m.proj[s] = mat.NewDense(len(idx), ks, b.P)
		m.w[s] = mat.NewDense(len(mem), ks, b.W)
		for i := 0; i < ks; i++ {
			for j := i; j < ks; j++ {
				m.l.SetSym(m.off[s]+i, m.off[s]+j, b.L[i*ks+j])
			}
		}
	}
	m.stats.Sizes = make([]int, c)
	m.stats.Ranks = ranks
	for s := range m.members {
		m.stats.Sizes[s] = len(m.members[s])
		m.stats.RankDeficit += max(0, target[s]-ranks[s])
	}
	if m.opt.Strategy == RankEigen {
		m.stats.RankDeficit = max(0, c*m.opt.Rank-r)
	}
	return nil
}

// targetRanks returns the ranks the strategy aims at before numerical caps
// (for RankEigen: the landmark budget basis, k per cluster).
func (m *Map) targetRanks() []int {
	c := len(m.members)
	k := m.opt.Rank
	t := make([]int, c)
	switch m.opt.Strategy {
	case RankProportional:
		budget := c * k
		type rem struct {
			s    int
			frac float64
		}
		var rems []rem
		total := 0
		for s, mem := range m.members {
			if len(mem) == 0 {
				continue
			}
			exact := float64(budget) * float64(len(mem)) / float64(m.n)
			t[s] = max(1, int(exact))
			total += t[s]
			rems = append(rems, rem{s, exact - math.Floor(exact)})
		}
		sort.SliceStable(rems, func(i, j int) bool { return rems[i].frac > rems[j].frac })
		for i := 0; total < budget && len(rems) > 0; i = (i + 1) % len(rems) {
			t[rems[i].s]++
			total++
		}
	default:
		for s := range t {
			if len(m.members[s]) > 0 {
				t[s] = k
			}
		}
	}
	for s := range t {
		t[s] = min(t[s], len(m.members[s]))
	}
	return t
}

// chooseRanks turns targets into the final ranks k_s, capped by m_s and the
// numerical rank of each landmark block; RankEigen picks the c·k largest
// scaled eigenvalues (n_s/m_s)·σ_i across clusters.
func (m *Map) chooseRanks(target []int, fac []basisFactor) []int {
	c := len(m.members)
	ranks := make([]int, c)
	if m.opt.Strategy != RankEigen {
		for s := range ranks {
			ranks[s] = min(target[s], fac[s].nrank)
		}
		return ranks
	}
	type cand struct {
		v    float64
		s, i int
	}
	var all []cand
	for s, f := range fac {
		sc := float64(len(m.members[s])) / float64(max(len(f.idx), 1))
		for i := 0; i < f.nrank; i++ {
			all = append(all, cand{sc * f.vals[i], s, i})
		}
	}
	sort.SliceStable(all, func(a, b int) bool {
		if all[a].v != all[b].v {
			return all[a].v > all[b].v
		}
		if all[a].s != all[b].s {
			return all[a].s < all[b].s
		}
		return all[a].i < all[b].i
	})
	budget := min(c*m.opt.Rank, len(all))
	// Eigenvalues within a cluster are sorted, so counting per cluster picks
	// each cluster's leading ones.
	for _, a := range all[:budget] {
		ranks[a.s]++
	}
	return ranks
}

// fitLinks fits every off-diagonal link block by least squares on a sampled
// submatrix: L⁽ˢᵗ⁾ = W̄⁽ˢ⁾⁺ Ḡ⁽ˢᵗ⁾ (W̄⁽ᵗ⁾⁺)ᵀ, which equals
// (W̄ₛᵀW̄ₛ)⁻¹W̄ₛᵀḠW̄ₜ(W̄ₜᵀW̄ₜ)⁻¹ when the sampled rows have full column rank.
func (m *Map) fitLinks(ctx context.Context, x mat.Matrix, seeds []uint64) error {
	c := len(m.members)
	o := m.opt
	type pair struct{ s, t int }
	var pairs []pair
	var cent []float64
	if o.Epsilon > 0 {
		cent = make([]float64, c*c)
		cb := mat.NewDense(c, c, cent)
		m.kern.Block(cb, m.part.Centroids, m.part.Centroids)
	}
	for s := 0; s < c; s++ {
		for t := s + 1; t < c; t++ {
			if m.w[s] == nil || m.w[t] == nil {
				continue
			}
			if cent != nil && cent[s*c+t] <= o.Epsilon {
				m.stats.Thresholded++
				continue
			}
			pairs = append(pairs, pair{s, t})
		}
	}
	m.stats.Linked = len(pairs)
	// Each cluster draws its ⌈(1+ρ)k_s⌉ sample rows once and reuses them for
	// all its pairs: every pair (s, t) still sees uniformly sampled rows of
	// V_s and V_t, and the pseudo-inverse of W̄⁽ˢ⁾ is computed c times
	// instead of c(c−1).
	samples := make([]*mat.Dense, c) // the sampled rows of X
	pinvs := make([]*mat.Dense, c)
	err := parallel.For(ctx, c, o.Workers, func(_, s int) {
		if m.w[s] == nil {
			return
		}
		rng := rand.New(rand.NewPCG(seeds[s], 0x6c696e6b))
		loc := m.sampleRows(s, rng)
		pinvs[s] = pinvRows(m.w[s], loc) // k_s × |v_s|
		g := make([]int, len(loc))
		for i, j := range loc {
			g[i] = m.members[s][j]
		}
		samples[s] = points.Gather(x, g)
	})
	if err != nil {
		return err
	}
	var done int
	var mu sync.Mutex
	return parallel.For(ctx, len(pairs), o.Workers, func(_, p int) {
		s, t := pairs[p].s, pairs[p].t
		ps, pt := pinvs[s], pinvs[t]
		g := mat.NewDense(samples[s].RawMatrix().Rows, samples[t].RawMatrix().Rows, nil)
		m.kern.Block(g, samples[s], samples[t])
		var tmp, lst mat.Dense
		tmp.Mul(ps, g)
		lst.Mul(&tmp, pt.T())
		ks, kt := m.w[s].RawMatrix().Cols, m.w[t].RawMatrix().Cols
		for i := 0; i < ks; i++ {
			for j := 0; j < kt; j++ {
				m.l.SetSym(m.off[s]+i, m.off[t]+j, lst.At(i, j))
			}
		}
		mu.Lock()
		done++
		o.progress("link", done, len(pairs))
		mu.Unlock()
	})
}

// sampleRows draws ⌈(1+ρ)k_s⌉ positions within cluster s (all of them when
// the cluster is smaller), ascending.
//
// The sample starts with the cluster's Nyström landmarks Z_s (a random
// subset of them when there are more than the sample size) and is filled up
// with rows drawn uniformly from the rest. The basis rows at the landmarks,
// W⁽ˢ⁾[Z_s] = U Σ^(1/2) R⁻¹, have full column rank, so the least-squares fit
// of L⁽ˢᵗ⁾ is well posed; a purely uniform sample can miss the few rows on
// which a basis vector lives when γ is large (the kernel is then nearly
// diagonal and so are the Nyström basis vectors) and blow the fit up.
func (m *Map) sampleRows(s int, rng *rand.Rand) []int {
	ns := len(m.members[s])
	ks := m.w[s].RawMatrix().Cols
	q := min(ns, int(math.Ceil((1+m.opt.Rho)*float64(ks))))
	lm := m.lm[s]
	if q <= len(lm) {
		pick := points.Sample(len(lm), q, rng)
		out := make([]int, q)
		for i, j := range pick {
			out[i] = lm[j]
		}
		return out
	}
	isLM := make([]bool, ns)
	for _, p := range lm {
		isLM[p] = true
	}
	rest := make([]int, 0, ns-len(lm))
	for p := 0; p < ns; p++ {
		if !isLM[p] {
			rest = append(rest, p)
		}
	}
	out := slices.Clone(lm)
	for _, j := range points.Sample(len(rest), q-len(lm), rng) {
		out = append(out, rest[j])
	}
	slices.Sort(out)
	return out
}

// pinvRows returns the pseudo-inverse (k × |rows|) of the rows of w at the
// given positions, with singular values below pinvRelTol·σ_max dropped.
func pinvRows(w *mat.Dense, rows []int) *mat.Dense {
	wb := points.Gather(w, rows)
	q, k := wb.Dims()
	var svd mat.SVD
	out := mat.NewDense(k, q, nil)
	if !svd.Factorize(wb, mat.SVDThin) {
		return out // all zeros: the link block stays zero
	}
	sv := svd.Values(nil)
	var u, v mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	// pinv = V Σ⁺ Uᵀ.
	for j, sj := range sv {
		inv := 0.0
		if sj > pinvRelTol*sv[0] {
			inv = 1 / sj
		}
		for a := 0; a < k; a++ {
			v.Set(a, j, v.At(a, j)*inv)
		}
	}
	out.Mul(&v, u.T())
	return out
}

// eigen eigendecomposes L once (lazily) and applies the PSD fix when asked.
func (m *Map) eigen() error {
	m.eigOnce.Do(func() {
		t0 := time.Now()
		r := m.off[len(m.off)-1]
		var es mat.EigenSym
		if !es.Factorize(m.l, true) {
			m.eigErr = fmt.Errorf("approx: meka: eigendecomposition of the %d×%d link matrix failed", r, r)
			return
		}
		vals := es.Values(nil)
		vecs := new(mat.Dense)
		es.VectorsTo(vecs)
		neg := 0
		for _, v := range vals {
			if v < 0 {
				neg++
			}
		}
		m.statsMu.Lock()
		m.stats.MinEigenvalue, m.stats.NegativeEigenvalues = vals[0], neg
		m.statsMu.Unlock()
		if m.opt.PSD {
			for i, v := range vals {
				if v < 0 {
					vals[i] = 0
				}
			}
			// L ← V Λ₊ Vᵀ.
			vl := mat.DenseCopyOf(vecs)
			for j, v := range vals {
				col := v
				for i := 0; i < r; i++ {
					vl.Set(i, j, vl.At(i, j)*col)
				}
			}
			var lf mat.Dense
			lf.Mul(vl, vecs.T())
			for i := 0; i < r; i++ {
				for j := i; j < r; j++ {
					m.l.SetSym(i, j, 0.5*(lf.At(i, j)+lf.At(j, i)))
				}
			}
			m.statsMu.Lock()
			m.stats.PSDFixed = true
			m.statsMu.Unlock()
		}
		// Features V₊Λ₊^(1/2) of the PSD-fixed L, dropping eigenvalues that
		// contribute below round-off (≤ 1e-14·r·λ_max).
		top := vals[r-1]
		var keep []int
		for i := r - 1; i >= 0; i-- {
			if vals[i] > 0 && vals[i] > 1e-14*float64(r)*top {
				keep = append(keep, i)
			}
		}
		feat := mat.NewDense(r, max(len(keep), 1), nil)
		for j, i := range keep {
			sq := math.Sqrt(vals[i])
			for a := 0; a < r; a++ {
				feat.Set(a, j, vecs.At(a, i)*sq)
			}
		}
		if len(keep) == 0 {
			feat = mat.NewDense(r, 1, nil)
		}
		m.statsMu.Lock()
		m.vals, m.vecs, m.feat = vals, vecs, feat
		m.stats.Eigendecomposed = true
		m.stats.EigenTime = time.Since(t0)
		m.stats.Bytes = m.bytes()
		m.statsMu.Unlock()
		m.opt.progress("eigen", 1, 1)
	})
	return m.eigErr
}

// Stats returns the fit's statistics (per-stage times, ranks, memory).
func (m *Map) Stats() Stats {
	m.statsMu.Lock()
	s := m.stats
	m.statsMu.Unlock()
	s.Sizes = slices.Clone(s.Sizes)
	s.Ranks = slices.Clone(s.Ranks)
	return s
}

// Len returns n, the number of training points.
func (m *Map) Len() int { return m.n }

// Rank returns Σ k_s, the order of the link matrix L.
func (m *Map) Rank() int { return m.off[len(m.off)-1] }

// Bytes returns the memory held by the approximation in bytes.
func (m *Map) Bytes() int64 {
	m.statsMu.Lock()
	defer m.statsMu.Unlock()
	return m.bytes()
}

// Clusters returns c, the number of clusters of the partition.
func (m *Map) Clusters() int { return len(m.members) }

// Partition returns the partition the approximation was built on.
func (m *Map) Partition() *cluster.Partition { return m.part }

// Assign returns the cluster of each row of x (nearest centroid); see
// Partition.Assign for the errors.
func (m *Map) Assign(x mat.Matrix) ([]int, error) { return m.part.Assign(x) }

// Link returns a copy of the link matrix L ((Σk_s)²; PSD-fixed if PSD was set).
func (m *Map) Link() *mat.SymDense {
	return mat.NewSymDense(m.Rank(), slices.Clone(m.l.RawSymmetric().Data))
}

// Basis returns a copy of W⁽ˢ⁾ (n_s × k_s) and the training rows of cluster s.
// A cluster of rank k_s = 0 (RankEigen can give its whole budget to other
// clusters) has no basis: W⁽ˢ⁾ is then an empty matrix (IsEmpty; gonum has
// no n_s × 0 matrix).
func (m *Map) Basis(s int) (*mat.Dense, []int) {
	if m.w[s] == nil {
		return &mat.Dense{}, slices.Clone(m.members[s])
	}
	return mat.DenseCopyOf(m.w[s]), slices.Clone(m.members[s])
}

// Mul sets dst = W L Wᵀ V, the approximate kernel matrix times V (n×t).
func (m *Map) Mul(ctx context.Context, dst, v *mat.Dense) error {
	rv, t := v.Dims()
	if rd, td := dst.Dims(); rv != m.n || rd != m.n || td != t {
		return fmt.Errorf("approx: meka: Mul: dst %d×%d and V %d×%d, want %d×t", rd, td, rv, t, m.n)
	}
	u := m.wtMul(v)
	z := mat.NewDense(m.Rank(), t, nil)
	z.Mul(m.l, u)
	return m.wMul(ctx, dst, z)
}

// wtMul returns Wᵀ V (r × t).
func (m *Map) wtMul(v *mat.Dense) *mat.Dense {
	_, t := v.Dims()
	u := mat.NewDense(m.Rank(), t, nil)
	for s, mem := range m.members {
		if m.w[s] == nil || m.w[s].RawMatrix().Cols == 0 {
			continue
		}
		vs := points.Gather(v, mem)
		us := u.Slice(m.off[s], m.off[s+1], 0, t).(*mat.Dense)
		us.Mul(m.w[s].T(), vs)
	}
	return u
}

// wMul sets dst (n×t) = W Z for Z (r × t).
func (m *Map) wMul(ctx context.Context, dst, z *mat.Dense) error {
	_, t := z.Dims()
	return parallel.For(ctx, len(m.members), m.opt.Workers, func(_, s int) {
		mem := m.members[s]
		if len(mem) == 0 {
			return
		}
		out := mat.NewDense(len(mem), t, nil)
		if m.w[s] != nil && m.w[s].RawMatrix().Cols > 0 {
			out.Mul(m.w[s], z.Slice(m.off[s], m.off[s+1], 0, t))
		}
		for i, row := range mem {
			copy(dst.RawRowView(row), out.RawRowView(i))
		}
	})
}

// Rows writes rows idx of the approximation W L Wᵀ into dst (len(idx) × n),
// for measuring its error against exact kernel rows.
func (m *Map) Rows(ctx context.Context, dst *mat.Dense, idx []int) error {
	q := len(idx)
	if rd, cd := dst.Dims(); rd != q || cd != m.n {
		return fmt.Errorf("approx: meka: Rows: dst is %d×%d, want %d×%d", rd, cd, q, m.n)
	}
	r := m.Rank()
	// U_idx (q × r): row i holds W⁽ˢ⁾[pos] in block s.
	ui := mat.NewDense(q, r, nil)
	for i, row := range idx {
		if row < 0 || row >= m.n {
			return fmt.Errorf("approx: meka: Rows: %w: row %d out of [0, %d)", check.ErrInput, row, m.n)
		}
		s := m.labels[row]
		if m.w[s] == nil {
			continue
		}
		copy(ui.RawRowView(i)[m.off[s]:m.off[s+1]], m.w[s].RawRowView(m.pos[row]))
	}
	qm := mat.NewDense(q, r, nil)
	qm.Mul(ui, m.l)
	return parallel.For(ctx, len(m.members), m.opt.Workers, func(_, t int) {
		mem := m.members[t]
		out := mat.NewDense(q, len(mem), nil)
		if len(mem) > 0 && m.w[t] != nil && m.w[t].RawMatrix().Cols > 0 {
			out.Mul(qm.Slice(0, q, m.off[t], m.off[t+1]), m.w[t].T())
		}
		for i := 0; i < q; i++ {
			drow := dst.RawRowView(i)
			orow := out.RawRowView(i)
			for j, col := range mem {
				drow[col] = orow[j]
			}
		}
	})
}

// Dim returns the number of features of the PSD-fixed approximation: the
// number of positive eigenvalues of L kept. It eigendecomposes L on first use
// and returns 0 if that fails.
func (m *Map) Dim() int {
	if err := m.eigen(); err != nil {
		return 0
	}
	_, c := m.feat.Dims()
	return c
}

// Transform writes φ(x_i) into row i of dst (n×Dim()): x_i is assigned to its
// nearest centroid s, extended with that cluster's Nyström basis,
// w(x_i) = k(x_i, Z_s)·P_s (which reproduces row i of W⁽ˢ⁾ for training
// points), and φ(x_i) = w(x_i)ᵀ (V₊Λ₊^(1/2))_s. Then φ(x)·φ(y) is the
// PSD-fixed MEKA approximation of k(x, y), whether or not PSD was set.
//
// Sparse x is used as it is (with the training data's column count).
func (m *Map) Transform(ctx context.Context, dst *mat.Dense, xIn mat.Matrix) error {
	var x mat.Matrix
	if xs, ok := xIn.(kernel.Sparse); ok {
		if err := points.CheckSparse(xs, m.d); err != nil {
			return fmt.Errorf("approx: meka: %w", err)
		}
		x = xs
	} else {
		xd := kernel.DenseOf(xIn)
		if err := check.Cols(xd, m.d); err != nil {
			return fmt.Errorf("approx: meka: %w", err)
		}
		x = xd
	}
	if err := m.eigen(); err != nil {
		return err
	}
	nx, _ := x.Dims()
	_, r := m.feat.Dims()
	if rd, cd := dst.Dims(); rd != nx || cd != r {
		return fmt.Errorf("approx: meka: Transform: dst is %d×%d, want %d×%d", rd, cd, nx, r)
	}
	return m.extend(ctx, dst, x, func(s int) *mat.Dense {
		return m.feat.Slice(m.off[s], m.off[s+1], 0, r).(*mat.Dense)
	})
}

// extend computes, for every row x_i assigned to cluster s,
// dst_i = k(x_i, Z_s)·P_s·right(s).
func (m *Map) extend(ctx context.Context, dst *mat.Dense, x mat.Matrix, right func(s int) *mat.Dense) error {
	lab, err := m.part.Assign(x)
	if err != nil {
		return fmt.Errorf("approx: meka: %w", err)
	}
	c := len(m.members)
	rows := make([][]int, c)
	for i, s := range lab {
		rows[s] = append(rows[s], i)
	}
	_, t := dst.Dims()
	return parallel.For(ctx, c, m.opt.Workers, func(_, s int) {
		if len(rows[s]) == 0 {
			return
		}
		if m.w[s] == nil || m.w[s].RawMatrix().Cols == 0 {
			for _, i := range rows[s] {
				clear(dst.RawRowView(i))
			}
			return
		}
		for lo := 0; lo < len(rows[s]); lo += 1024 {
			chunk := rows[s][lo:min(lo+1024, len(rows[s]))]
			kz := mat.NewDense(len(chunk), m.z[s].RawMatrix().Rows, nil)
			points.Block(m.kern, kz, x, chunk, m.z[s])
			var ws mat.Dense
			ws.Mul(kz, m.proj[s])
			out := mat.NewDense(len(chunk), t, nil)
			out.Mul(&ws, right(s))
			for i, row := range chunk {
				copy(dst.RawRowView(row), out.RawRowView(i))
			}
		}
	})
}

// CrossMul sets dst = K̃(X_new, X)·α for new points X_new (q×d) and
// coefficients α (n×t), through the out-of-sample extension: each new point
// gets the basis row w(x) of its cluster and K̃(x, X)α = w(x)ᵀ (L Wᵀα)_s.
// This is how KRR on MEKA predicts; Coefficients and Expand split it in two
// so that β = L Wᵀα is computed once.
func (m *Map) CrossMul(ctx context.Context, dst, xnew, alpha *mat.Dense) error {
	beta, err := m.Coefficients(alpha)
	if err != nil {
		return err
	}
	return m.Expand(ctx, dst, xnew, beta)
}

// Coefficients returns β = L Wᵀα ((Σk_s)×t) for coefficients α (n×t).
func (m *Map) Coefficients(alpha *mat.Dense) (*mat.Dense, error) {
	if err := check.Matrix("alpha", alpha); err != nil {
		return nil, fmt.Errorf("approx: meka: %w", err)
	}
	ra, t := alpha.Dims()
	if ra != m.n {
		return nil, fmt.Errorf("approx: meka: %w: α has %d rows, want n = %d", check.ErrInput, ra, m.n)
	}
	beta := mat.NewDense(m.Rank(), t, nil)
	beta.Mul(m.l, m.wtMul(alpha))
	return beta, nil
}

// Expand sets dst_i = w(x_i)ᵀ β_s for each new point x_i (q×d) assigned to
// cluster s, with β from Coefficients; dst is q×t. Memory and time are
// O(q·m_s·(d + k_s)): the basis rows of new points are never stored.
// Sparse xnew (kernel.Sparse, with the training data's column count) is used
// as it is.
func (m *Map) Expand(ctx context.Context, dst *mat.Dense, xIn mat.Matrix, beta *mat.Dense) error {
	var xnew mat.Matrix
	if xs, ok := xIn.(kernel.Sparse); ok {
		if err := points.CheckSparse(xs, m.d); err != nil {
			return fmt.Errorf("approx: meka: %w", err)
		}
		xnew = xs
	} else {
		xd := kernel.DenseOf(xIn)
		if err := check.Cols(xd, m.d); err != nil {
			return fmt.Errorf("approx: meka: %w", err)
		}
		xnew = xd
	}
	rb, t := beta.Dims()
	q, _ := xnew.Dims()
	if rd, td := dst.Dims(); rb != m.Rank() || rd != q || td != t {
		return fmt.Errorf("approx: meka: Expand: dst %d×%d and β %d×%d, want %d×t and %d×t", rd, td, rb, t, q, m.Rank())
	}
	return m.extend(ctx, dst, xnew, func(s int) *mat.Dense {
		return beta.Slice(m.off[s], m.off[s+1], 0, t).(*mat.Dense)
	})
}
