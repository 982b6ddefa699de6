package meka

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/approx/cluster"
	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/internal/check"
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
	// DefaultRank caps the default k (ScaledDefaults): the paper's most
	// used rank (Tables 7 and 8).
	DefaultRank = 128
	// DefaultClusters caps the default c (ScaledDefaults), as in the
	// authors' released code (noc = 10).
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

// Options configures Fit. The zero value means defaults: c and k that grow
// with n (ScaledDefaults: c = min(10, ⌈√n/25⌉), k = min(128, ⌈5√n⌉),
// reaching the paper's c = 10, k = 128 at n ≈ 62,500), m_s = 2k_s
// landmarks per cluster, ρ = 2, no thresholding, rank strategy "same", no
// PSD fix.
type Options struct {
	// Rank is k, the average rank per cluster; the total rank is c·k. 0
	// means ScaledDefaults' k.
	Rank int
	// Clusters is c, the number of k-means clusters (ignored when Partition
	// is set); 0 means ScaledDefaults' c.
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
	if err := check.Context(ctx); err != nil {
		return nil, fmt.Errorf("approx: meka: %w", err)
	}
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
		if plan := max(km.PlanFor(x), m.upperBytes(x, o.Clusters)); o.MaxBytes > 0 && plan > o.MaxBytes {
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

// ScaledDefaults returns the default number of clusters c and rank per
// cluster k for n points, given c when it is set (c > 0; for instance a
// Partition's):
//
//	c = min(DefaultClusters, ⌈√n/25⌉),   k = min(DefaultRank, ⌈5√n⌉).
//
// The reason is the paper's equal-memory comparison (Si, Hsieh & Dhillon,
// Sections 5 and 6: MEKA holds O(nk + (ck)²) numbers where Nyström of rank
// r holds nr, and is compared with Nyström at equal memory). Against this
// project's Nyström default of r = ⌈5√n⌉ centers, each cluster gets that
// rank, capped at the paper's k = 128: then nk + (ck)² ≤ n·5√n, so the
// zero value never holds more than NystromKRR{} would. The clusters grow
// as √n/25 so that each holds about 25√n ≥ 5k rows (well-determined bases
// from m_s = 2k landmarks) and the link matrix, of order ck, stays far
// below n. Both reach the paper's settings (c = 10, k = 128, Tables 7 and 8
// on n = 20,000–580,000) at n ≈ 62,500 and stay there beyond. The former
// fixed c = 10, k = 128 built a rank-1,198 approximation of 3,000 rows,
// whose (ck)³ eigendecomposition dominated the fit.
func ScaledDefaults(n, c int) (clusters, rank int) {
	root := math.Sqrt(float64(max(n, 1)))
	clusters = c
	if clusters <= 0 {
		clusters = min(DefaultClusters, max(1, int(math.Ceil(root/25))))
	}
	rank = min(DefaultRank, max(1, int(math.Ceil(5*root))))
	return clusters, rank
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
	case r.Workers < 0:
		return r, fmt.Errorf("approx: meka: %w: Workers = %d < 0", check.ErrInput, r.Workers)
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
	if r.Clusters == 0 || r.Rank == 0 {
		c := r.Clusters
		if r.Partition != nil && r.Partition.Centroids != nil {
			c, _ = r.Partition.Centroids.Dims()
		}
		dc, dk := ScaledDefaults(n, c)
		if r.Clusters == 0 {
			r.Clusters = dc
		}
		if r.Rank == 0 {
			r.Rank = dk
		}
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
	if err := p.Validate(m.n, m.d); err != nil {
		return fmt.Errorf("approx: meka: %w", err)
	}
	members := p.Members()
	pos := make([]int, m.n)
	for _, mem := range members {
		for at, i := range mem {
			pos[i] = at
		}
	}
	m.part, m.members, m.labels, m.pos = p, members, slices.Clone(p.Labels), pos
	return nil
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
