package meka

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/landmark-ml/landmark/approx/cluster"
	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/internal/parallel"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// Defaults of BKAOptions.
const (
	// DefaultBKAClusters is the least default number of clusters: the 64
	// BKA-SVM uses in the MEKA paper's Table 2 (see BKAOptions.Clusters for
	// how it grows with n).
	DefaultBKAClusters = 64
	// DefaultBKAMaxBytes bounds Σ 8·n_s², the memory of the diagonal blocks (2 GiB).
	DefaultBKAMaxBytes = 2 << 30
)

// BKAOptions configures FitBKA. The zero value means at least 64 k-means
// clusters, more as n grows (Clusters), and a 2 GiB memory budget.
type BKAOptions struct {
	// Clusters is c (ignored when Partition is set). 0 means
	// min(n, max(64, ⌈16n²/MaxBytes⌉)): BKA holds the diagonal blocks,
	// Σ 8·n_s² ≈ 8n²/c bytes for balanced clusters (Section 4), so a fixed c
	// makes memory grow as n²; this c keeps balanced blocks within half of
	// MaxBytes (the other half is headroom for uneven k-means clusters). It
	// is the paper's 64 up to n ≈ 92,000 with the default budget.
	Clusters int
	// KMeans configures the clustering; its K is replaced by Clusters.
	KMeans cluster.KMeans
	// Partition, when non-nil, is used instead of running k-means.
	Partition *cluster.Partition
	// MaxBytes bounds the planned memory Σ 8·n_s² of the blocks; 0 means
	// DefaultBKAMaxBytes. FitBKA fails with ErrMemory, before allocating, when
	// the partition needs more.
	MaxBytes int64
	// Workers is the number of goroutines; 0 means GOMAXPROCS.
	Workers int
	// Progress, if non-nil, is called with the stage ("cluster", "block"),
	// units done and units in the stage.
	Progress func(stage string, done, total int)
}

// bkaClusters is BKAOptions.Clusters' default for n points and a memory
// budget of maxBytes: min(n, max(64, ⌈16n²/maxBytes⌉)).
func bkaClusters(n int, maxBytes int64) int {
	c := math.Ceil(16 * float64(n) * float64(n) / float64(maxBytes))
	return min(n, max(DefaultBKAClusters, int(min(c, float64(n)))))
}

// BKAStats describes a fitted BKA.
type BKAStats struct {
	ClusterTime time.Duration // k-means (zero when a Partition was given)
	BlockTime   time.Duration // forming the diagonal blocks
	Sizes       []int         // n_s
	// Bytes is the memory of the blocks, 8·Σ n_s², plus the bookkeeping.
	Bytes int64
}

// BKA is the block-diagonal kernel approximation (Si, Hsieh & Dhillon 2017,
// Section 4): G_BKA keeps the exact diagonal blocks G⁽ˢˢ⁾ = K(X_s, X_s) of a
// k-means partition and is zero elsewhere. Memory is O(Σ n_s²) (8 bytes per
// entry), which is n²/c for balanced clusters.
type BKA struct {
	kern    kernel.Kernel
	x       mat.Matrix // training data, dense or CSR (not copied; must not be modified)
	n, d    int
	opt     BKAOptions
	part    *cluster.Partition
	members [][]int
	blocks  []*mat.SymDense

	cholMu sync.Mutex
	chol   map[float64]*bkaChol // factorizations per μ = λn, looked up only

	stats BKAStats
}

// bkaChol holds the Cholesky factors of G⁽ˢˢ⁾ + (μ + jitter_s)I.
type bkaChol struct {
	f      []*mat.Cholesky
	jitter []float64
}

// FitBKA partitions x (or uses opt.Partition) and forms the exact diagonal
// kernel blocks. x is kept by reference for CrossMul. Sparse x
// (kernel.Sparse) stays sparse: k-means runs on the CSR rows, and each block
// K(X_s, X_s) comes from the engine's sparse path against points.Chunk of
// the cluster's rows expanded to dense at a time (points.Exact).
func FitBKA(ctx context.Context, xIn mat.Matrix, k kernel.Kernel, opt BKAOptions, rng *rand.Rand) (*BKA, error) {
	if err := check.Context(ctx); err != nil {
		return nil, fmt.Errorf("approx: bka: %w", err)
	}
	x := points.Data(xIn)
	o, err := bkaResolve(x, k, opt)
	if err != nil {
		return nil, err
	}
	n, d := x.Dims()
	b := &BKA{kern: k, x: x, n: n, d: d, opt: o, chol: map[float64]*bkaChol{}}
	t0 := time.Now()
	part, err := bkaPartition(ctx, x, o, rng)
	if err != nil {
		return nil, err
	}
	members := part.Members()
	b.part, b.members = part, members
	b.stats.ClusterTime = time.Since(t0)
	if o.Progress != nil {
		o.Progress("cluster", 1, 1)
	}
	plan, workers, err := bkaPlan(x, members, o)
	if err != nil {
		return nil, err
	}
	t0 = time.Now()
	if err := b.formBlocks(ctx, workers); err != nil {
		return nil, fmt.Errorf("approx: bka: %w", err)
	}
	b.stats.BlockTime = time.Since(t0)
	b.stats.Sizes = make([]int, len(members))
	for s, mem := range members {
		b.stats.Sizes[s] = len(mem)
	}
	b.stats.Bytes = plan + 8*int64(n)
	return b, nil
}

// bkaResolve validates FitBKA's data, kernel and options and returns the
// options with their defaults filled in (opt itself is not changed).
func bkaResolve(x mat.Matrix, k kernel.Kernel, opt BKAOptions) (BKAOptions, error) {
	if err := points.Check(x); err != nil {
		return opt, fmt.Errorf("approx: bka: %w", err)
	}
	if k == nil {
		return opt, fmt.Errorf("approx: bka: %w: nil kernel", check.ErrInput)
	}
	if err := k.Validate(); err != nil {
		return opt, fmt.Errorf("approx: bka: %w", err)
	}
	n, _ := x.Dims()
	o := opt
	switch {
	case o.Clusters < 0:
		return opt, fmt.Errorf("approx: bka: %w: Clusters = %d < 0", check.ErrInput, o.Clusters)
	case o.MaxBytes < 0:
		return opt, fmt.Errorf("approx: bka: %w: MaxBytes = %d < 0", check.ErrInput, o.MaxBytes)
	case o.Workers < 0:
		return opt, fmt.Errorf("approx: bka: %w: Workers = %d < 0", check.ErrInput, o.Workers)
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultBKAMaxBytes
	}
	if o.Clusters == 0 {
		o.Clusters = bkaClusters(n, o.MaxBytes)
	}
	return o, nil
}

// bkaPartition returns the partition of BKA's first step (Section 4: the
// k-means clusters X_s): o.Partition when set, else k-means with
// o.Clusters clusters drawn from rng, validated against x's shape.
func bkaPartition(ctx context.Context, x mat.Matrix, o BKAOptions, rng *rand.Rand) (*cluster.Partition, error) {
	n, d := x.Dims()
	part := o.Partition
	if part == nil {
		if rng == nil {
			return nil, fmt.Errorf("approx: bka: %w: nil random source", check.ErrInput)
		}
		if o.Clusters > n {
			return nil, fmt.Errorf("approx: bka: %w: %d clusters for n = %d points", check.ErrInput, o.Clusters, n)
		}
		km := o.KMeans
		km.K = o.Clusters
		var err error
		part, err = km.Fit(ctx, x, rng)
		if err != nil {
			return nil, fmt.Errorf("approx: bka: clustering: %w", err)
		}
	}
	if err := part.Validate(n, d); err != nil {
		return nil, fmt.Errorf("approx: bka: %w", err)
	}
	return part, nil
}

// bkaPlan plans the memory of the diagonal blocks before any is allocated:
// it returns their bytes, 8·Σn_s², and the number of workers that form
// them, fewer than o.Workers when o.MaxBytes leaves no room for one
// worker's scratch each, or ErrMemory when even one does not fit.
func bkaPlan(x mat.Matrix, members [][]int, o BKAOptions) (plan int64, workers int, err error) {
	_, d := x.Dims()
	var big int64
	for _, mem := range members {
		plan += 8 * int64(len(mem)) * int64(len(mem))
		big = max(big, int64(len(mem)))
	}
	// Transient, per worker: a dense copy of one cluster's rows; for sparse
	// x instead points.Chunk rows expanded to dense, their transposed copy
	// in the engine, and one |mem|×points.Chunk slice of the block.
	scratch := 8 * big * int64(d)
	if _, ok := x.(kernel.Sparse); ok {
		scratch = 8 * (2*points.Chunk*int64(d) + big*points.Chunk)
	}
	// Fewer workers when the cap leaves no room for one scratch each (the
	// blocks do not depend on the worker count); refused only when even one
	// does not fit.
	w := int64(min(parallel.Workers(o.Workers), len(members)))
	if plan+w*scratch > o.MaxBytes && plan+scratch <= o.MaxBytes {
		w = (o.MaxBytes - plan) / scratch
	}
	if plan+w*scratch > o.MaxBytes {
		return 0, 0, fmt.Errorf("approx: bka: %w: the diagonal blocks need %d bytes (8·Σn_s²) and forming them %d more (one worker's scratch), more than MaxBytes %d; use more clusters (smaller blocks) or a larger cap",
			check.ErrMemory, plan, scratch, o.MaxBytes)
	}
	return plan, int(w), nil
}

// formBlocks forms the exact diagonal blocks G⁽ˢˢ⁾ = K(X_s, X_s) of the
// partition (Section 4), clusters in parallel on workers goroutines, and
// reports each finished block to b.opt.Progress ("block").
func (b *BKA) formBlocks(ctx context.Context, workers int) error {
	k, x, members := b.kern, b.x, b.members
	c := len(members)
	b.blocks = make([]*mat.SymDense, c)
	var done int
	var mu sync.Mutex
	return parallel.ForErr(ctx, c, workers, func(_, s int) error {
		ns := len(members[s])
		if ns == 0 {
			return nil
		}
		g := mat.NewSymDense(ns, nil)
		full := mat.NewDense(ns, ns, g.RawSymmetric().Data)
		if sx, ok := x.(kernel.Sparse); ok {
			// The cluster's CSR rows against points.Chunk of them
			// expanded to dense at a time, on one engine worker (the
			// clusters run in parallel).
			if err := points.Exact(ctx, k, kernel.SubsetRows(sx, members[s]), points.Iota(ns), full, 1); err != nil {
				return err
			}
		} else {
			xs := points.Gather(x, members[s])
			k.Block(full, xs, xs)
		}
		b.blocks[s] = g
		if b.opt.Progress != nil {
			mu.Lock()
			done++
			b.opt.Progress("block", done, c)
			mu.Unlock()
		}
		return nil
	})
}

// Stats returns the fit's statistics.
func (b *BKA) Stats() BKAStats {
	s := b.stats
	s.Sizes = slices.Clone(s.Sizes)
	return s
}

// Bytes returns the memory held by the blocks, 8·Σ n_s² (plus 8n of bookkeeping).
func (b *BKA) Bytes() int64 { return b.stats.Bytes }

// Len returns n.
func (b *BKA) Len() int { return b.n }

// Partition returns the partition.
func (b *BKA) Partition() *cluster.Partition { return b.part }

// Members returns the training rows of cluster s, ascending.
func (b *BKA) Members(s int) []int { return slices.Clone(b.members[s]) }

// Block returns a copy of the diagonal block G⁽ˢˢ⁾.
func (b *BKA) Block(s int) *mat.SymDense {
	if b.blocks[s] == nil {
		return &mat.SymDense{}
	}
	g := mat.NewSymDense(b.blocks[s].SymmetricDim(), nil)
	g.CopySym(b.blocks[s])
	return g
}

// Assign returns the cluster of each row of x (nearest centroid); see
// Partition.Assign for the errors.
func (b *BKA) Assign(x mat.Matrix) ([]int, error) { return b.part.Assign(x) }

// Mul sets dst = G_BKA·V (n×t), blockwise.
func (b *BKA) Mul(ctx context.Context, dst, v *mat.Dense) error {
	rv, t := v.Dims()
	if rd, td := dst.Dims(); rv != b.n || rd != b.n || td != t {
		return fmt.Errorf("approx: bka: Mul: dst %d×%d and V %d×%d, want %d×t", rd, td, rv, t, b.n)
	}
	return parallel.For(ctx, len(b.members), b.opt.Workers, func(_, s int) {
		mem := b.members[s]
		if len(mem) == 0 {
			return
		}
		vs := points.Gather(v, mem)
		out := mat.NewDense(len(mem), t, nil)
		out.Mul(b.blocks[s], vs)
		for i, row := range mem {
			copy(dst.RawRowView(row), out.RawRowView(i))
		}
	})
}

// Rows writes rows idx of G_BKA into dst (len(idx) × n), for measuring its
// error against exact kernel rows.
func (b *BKA) Rows(ctx context.Context, dst *mat.Dense, idx []int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if rd, cd := dst.Dims(); rd != len(idx) || cd != b.n {
		return fmt.Errorf("approx: bka: Rows: dst is %d×%d, want %d×%d", rd, cd, len(idx), b.n)
	}
	pos := make(map[int]int) // row → position in its cluster, looked up only
	for i, row := range idx {
		if row < 0 || row >= b.n {
			return fmt.Errorf("approx: bka: Rows: %w: row %d out of [0, %d)", check.ErrInput, row, b.n)
		}
		s := b.part.Labels[row]
		p, ok := pos[row]
		if !ok {
			p, _ = slices.BinarySearch(b.members[s], row)
			pos[row] = p
		}
		drow := dst.RawRowView(i)
		clear(drow)
		for j, col := range b.members[s] {
			drow[col] = b.blocks[s].At(p, j)
		}
	}
	return nil
}

// BKASolution is the result of (*BKA).Solve.
type BKASolution struct {
	// Alpha holds the coefficients (n×t).
	Alpha *mat.Dense
	// Jitter is the extra diagonal added to each block whose Cholesky
	// factorization failed at G⁽ˢˢ⁾ + λnI (0 for the blocks that did not need it).
	Jitter []float64
}

// Solve solves (G_BKA + λnI)α = y blockwise by Cholesky: each cluster
// solves (G⁽ˢˢ⁾ + λnI)α_s = y_s independently. λ follows the project's
// convention (it is multiplied by n). A block whose factorization fails
// (round-off with tiny λ) is retried with jitter 1e-10·trace/n_s, growing
// ×10 up to 1e-2·trace/n_s, and the jitter is reported. The factors are cached per λ.
func (b *BKA) Solve(ctx context.Context, lambda float64, y *mat.Dense) (*BKASolution, error) {
	if err := check.Positive("lambda", lambda); err != nil {
		return nil, fmt.Errorf("approx: bka: %w", err)
	}
	if err := check.Matrix("y", y); err != nil {
		return nil, fmt.Errorf("approx: bka: %w", err)
	}
	ry, t := y.Dims()
	if ry != b.n {
		return nil, fmt.Errorf("approx: bka: %w: y has %d rows, the approximation %d", check.ErrInput, ry, b.n)
	}
	mu := lambda * float64(b.n)
	ch, err := b.factor(ctx, mu)
	if err != nil {
		return nil, err
	}
	alpha := mat.NewDense(b.n, t, nil)
	err = parallel.For(ctx, len(b.members), b.opt.Workers, func(_, s int) {
		mem := b.members[s]
		if len(mem) == 0 {
			return
		}
		ys := points.Gather(y, mem)
		var as mat.Dense
		// SolveTo's only error is a mat.Condition warning about ill-conditioning;
		// the factor exists (λn or the jitter made the block positive definite).
		_ = ch.f[s].SolveTo(&as, ys)
		for i, row := range mem {
			copy(alpha.RawRowView(row), as.RawRowView(i))
		}
	})
	if err != nil {
		return nil, err
	}
	return &BKASolution{Alpha: alpha, Jitter: slices.Clone(ch.jitter)}, nil
}

func (b *BKA) factor(ctx context.Context, mu float64) (*bkaChol, error) {
	b.cholMu.Lock()
	defer b.cholMu.Unlock()
	if ch, ok := b.chol[mu]; ok {
		return ch, nil
	}
	c := len(b.members)
	ch := &bkaChol{f: make([]*mat.Cholesky, c), jitter: make([]float64, c)}
	fail := make([]bool, c)
	err := parallel.For(ctx, c, b.opt.Workers, func(_, s int) {
		g := b.blocks[s]
		if g == nil {
			return
		}
		ns := g.SymmetricDim()
		a := mat.NewSymDense(ns, nil)
		var tr float64
		for i := 0; i < ns; i++ {
			tr += g.At(i, i)
		}
		jit := 0.0
		for {
			a.CopySym(g)
			for i := 0; i < ns; i++ {
				a.SetSym(i, i, g.At(i, i)+mu+jit)
			}
			var f mat.Cholesky
			if f.Factorize(a) {
				ch.f[s], ch.jitter[s] = &f, jit
				return
			}
			switch {
			case jit == 0:
				jit = 1e-10 * math.Max(tr/float64(ns), mu)
			case jit < 1e-2*math.Max(tr/float64(ns), mu):
				jit *= 10
			default:
				fail[s] = true
				return
			}
		}
	})
	if err != nil {
		return nil, err
	}
	for s, f := range fail {
		if f {
			return nil, fmt.Errorf("approx: bka: Cholesky of block %d (n_s = %d) failed even with jitter", s, len(b.members[s]))
		}
	}
	if len(b.chol) >= 8 { // bound the cache: keep at most 8 values of λ
		clear(b.chol)
	}
	b.chol[mu] = ch
	return ch, nil
}

// CrossMul sets dst = G_BKA(X_new, X)·α: each new point is assigned to its
// nearest centroid s and sees only its cluster, k(x, X_s)·α_s, which is how
// BKA models predict (α is n×t, dst q×t).
func (b *BKA) CrossMul(ctx context.Context, dst, xnew, alpha *mat.Dense) error {
	if err := check.Cols(xnew, b.d); err != nil {
		return fmt.Errorf("approx: bka: %w", err)
	}
	ra, t := alpha.Dims()
	q, _ := xnew.Dims()
	if rd, td := dst.Dims(); ra != b.n || rd != q || td != t {
		return fmt.Errorf("approx: bka: CrossMul: dst %d×%d and α %d×%d, want %d×t and %d×t", rd, td, ra, t, q, b.n)
	}
	lab, err := b.part.Assign(xnew)
	if err != nil {
		return fmt.Errorf("approx: bka: CrossMul: %w", err)
	}
	rows := make([][]int, len(b.members))
	for i, s := range lab {
		rows[s] = append(rows[s], i)
	}
	err = parallel.ForErr(ctx, len(b.members), b.opt.Workers, func(_, s int) error {
		if len(rows[s]) == 0 {
			return nil
		}
		mem := b.members[s]
		if len(mem) == 0 {
			for _, i := range rows[s] {
				clear(dst.RawRowView(i))
			}
			return nil
		}
		as := points.Gather(alpha, mem)
		if sx, ok := b.x.(kernel.Sparse); ok {
			// CSR training rows stay sparse: K(X_s, X_chunk)ᵀ·α_s on the
			// engine's sparse path (one worker: clusters run in parallel).
			sub := kernel.SubsetRows(sx, mem)
			for lo := 0; lo < len(rows[s]); lo += 512 {
				chunk := rows[s][lo:min(lo+512, len(rows[s]))]
				out := mat.NewDense(len(chunk), t, nil)
				if err := kernel.NewOp(b.kern, sub, points.Gather(xnew, chunk), kernel.Options{Workers: 1}).MulT(ctx, out, as); err != nil {
					return err
				}
				for i, row := range chunk {
					copy(dst.RawRowView(row), out.RawRowView(i))
				}
			}
			return nil
		}
		xs := points.Gather(b.x, mem)
		for lo := 0; lo < len(rows[s]); lo += 512 {
			chunk := rows[s][lo:min(lo+512, len(rows[s]))]
			kq := mat.NewDense(len(chunk), len(mem), nil)
			b.kern.Block(kq, points.Gather(xnew, chunk), xs)
			out := mat.NewDense(len(chunk), t, nil)
			out.Mul(kq, as)
			for i, row := range chunk {
				copy(dst.RawRowView(row), out.RawRowView(i))
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("approx: bka: CrossMul: %w", err)
	}
	return nil
}
