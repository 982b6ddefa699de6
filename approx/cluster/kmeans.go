package cluster

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/internal/parallel"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Defaults of KMeans.
const (
	// DefaultKMeansIter bounds Lloyd's iterations. Lloyd's objective drops
	// fastest in the first iterations; landmarks and partitions only need a
	// good cover of the data, not a converged local optimum, and 20 bounds
	// the cost at 20 passes over the (sub)sample.
	DefaultKMeansIter = 20
	// DefaultKMeansSubsample is the size of the sample k-means runs on, as in
	// the MEKA paper (Si, Hsieh & Dhillon, Sec. 5: "we sample 20000 points").
	DefaultKMeansSubsample = 20000
	// DefaultKMeansTol is the relative decrease of the objective below which
	// Lloyd's iterations stop.
	DefaultKMeansTol = 1e-4
)

// assignRows is the number of rows per block in nearest-centroid searches. It
// is fixed so that results do not depend on the number of workers.
const assignRows = 256

// KMeans configures k-means clustering: k-means++ seeding, Lloyd iterations,
// run on a seeded subsample of at most Subsample points (default 20,000, as the
// MEKA paper does) and then all points assigned to the nearest centroid. Zero
// values mean defaults.
//
// Empty clusters: whenever an assignment step leaves a cluster empty, it is
// re-seeded deterministically with the sample point farthest from its centroid
// (ties to the lowest row) among the clusters with more than one member; that
// point moves to the empty cluster. This never increases the objective. Every
// cluster of the returned partition therefore holds at least one point, unless
// X has fewer than K distinct rows.
type KMeans struct {
	K         int     // number of clusters (required, 1 ≤ K ≤ n)
	MaxIter   int     // Lloyd iterations, default DefaultKMeansIter (see there why)
	Subsample int     // default 20000; n ≤ Subsample uses all points
	Tol       float64 // relative change of the objective to stop, default 1e-4
	// Sketch, if > 0, selects the randomized clustered mode (Pourkamali-Anaraki
	// & Becker, Alg. 3): cluster the ±1 random sketch Y = XRᵀ/√p of p = Sketch
	// dimensions, then recompute the centroids in the original space as the
	// means of the partition (a second pass over X). The compression factor
	// is p/d.
	Sketch int
	// Progress, if non-nil, is called after each assignment step of Lloyd's
	// iterations with the iteration number (from 0) and the objective.
	Progress func(iter int, objective float64)
	// MaxBytes bounds the planned memory of Fit (PlanBytes); 0 means
	// DefaultKMeansMaxBytes. Centroids are dense (K×d) even for sparse X, so
	// on wide sparse data they can dwarf the data itself (K = 1,000 at
	// d = 1,355,191: 10.8 GB; Lloyd's means are summed in place, so that is
	// the only K×d set): Fit refuses such a plan with ErrMemory naming the
	// bytes needed, before allocating, rather than sparsifying the
	// centroids (saved files hold them as CSR when that is smaller). The samplers that return data rows
	// (Uniform, RecursiveRLS, BLESS…) keep landmarks of sparse X as CSR.
	MaxBytes int64
}

// DefaultKMeansMaxBytes is KMeans's default MaxBytes: 2 GiB, as
// DefaultNystromMaxBytes.
const DefaultKMeansMaxBytes = 2 << 30

// Partition is a k-means clustering of the training rows. KMeans.Fit
// returns one; a Partition built by hand from Centroids and Labels assigns
// new rows to the nearest of those Centroids.
type Partition struct {
	Centroids *mat.Dense // K×d, original space
	Labels    []int      // cluster of each training row
	// Objective holds the k-means objective (sum of squared distances of
	// the clustered sample to its centroids) after each assignment step; it
	// is non-increasing. In sketch mode it is measured in the sketch space.
	Objective []float64

	sketch   *mat.Dense // p×d sketch R/√p (sketch mode only)
	assignTo *mat.Dense // centroids Assign compares against: the sketched ones; nil means Centroids
}

// target returns the centroids Assign compares against: the sketched ones in
// sketch mode, else Centroids.
func (p *Partition) target() *mat.Dense {
	if p.assignTo != nil {
		return p.assignTo
	}
	return p.Centroids
}

// Fit clusters the rows of x. All randomness (subsample, sketch, seeding) comes
// from rng.
//
// Sparse x (kernel.Sparse) is clustered as it is, with dense centroids (see
// kmeans_sparse.go); the partition is the same as on the dense copy up to
// rounding in the distances.
func (km KMeans) Fit(ctx context.Context, xIn mat.Matrix, rng *rand.Rand) (*Partition, error) {
	if err := check.Context(ctx); err != nil {
		return nil, fmt.Errorf("cluster: k-means: %w", err)
	}
	var x *mat.Dense
	xs, sparse := xIn.(kernel.Sparse)
	if sparse {
		if err := points.CheckSparse(xs, 0); err != nil {
			return nil, fmt.Errorf("cluster: k-means: %w", err)
		}
	} else {
		x = kernel.DenseOf(xIn)
		if err := check.Matrix("X", x); err != nil {
			return nil, fmt.Errorf("cluster: k-means: %w", err)
		}
	}
	if rng == nil {
		return nil, fmt.Errorf("cluster: k-means: %w: rng is nil", check.ErrInput)
	}
	n, d := xIn.Dims()
	cfg, err := km.resolve(n, d, !sparse)
	if err != nil {
		return nil, err
	}
	space, sk := cfg.space(x, xs, rng)
	cents, obj, err := kmLloyd(ctx, space, cfg, rng)
	if err != nil {
		return nil, err
	}
	p := &Partition{Objective: obj, sketch: sk, assignTo: cents}
	p.Labels = make([]int, n)
	if err := p.nearest(ctx, p.Labels, xIn); err != nil {
		return nil, err
	}
	if sk == nil {
		p.Centroids = cents
		return p, nil
	}
	// Second pass over X: centroids in the original space.
	p.Centroids = mat.NewDense(cfg.K, d, nil)
	if sparse {
		kmMeansSparse(p.Centroids, xs, p.Labels)
	} else {
		kmMeans(p.Centroids, x, p.Labels)
	}
	return p, nil
}

// resolve validates km for n points of d features (dense: held as a
// *mat.Dense, else CSR rows) and returns a copy with the defaults filled
// in, or ErrMemory when its plan (PlanFor) is over MaxBytes.
func (km KMeans) resolve(n, d int, dense bool) (KMeans, error) {
	cfg := km
	switch {
	case cfg.K < 1 || cfg.K > n:
		return cfg, fmt.Errorf("cluster: k-means: %w: K = %d, want 1 ≤ K ≤ n = %d", check.ErrInput, cfg.K, n)
	case cfg.MaxIter < 0:
		return cfg, fmt.Errorf("cluster: k-means: %w: MaxIter = %d < 0", check.ErrInput, cfg.MaxIter)
	case cfg.Subsample < 0:
		return cfg, fmt.Errorf("cluster: k-means: %w: Subsample = %d < 0", check.ErrInput, cfg.Subsample)
	case cfg.Tol < 0 || math.IsNaN(cfg.Tol) || math.IsInf(cfg.Tol, 0):
		return cfg, fmt.Errorf("cluster: k-means: %w: Tol = %g, want finite and ≥ 0", check.ErrInput, cfg.Tol)
	case cfg.Sketch < 0:
		return cfg, fmt.Errorf("cluster: k-means: %w: Sketch = %d < 0", check.ErrInput, cfg.Sketch)
	}
	if cfg.MaxIter == 0 {
		cfg.MaxIter = DefaultKMeansIter
	}
	if cfg.Subsample == 0 {
		cfg.Subsample = DefaultKMeansSubsample
	}
	if cfg.Tol == 0 {
		cfg.Tol = DefaultKMeansTol
	}
	if cfg.Subsample < cfg.K {
		return cfg, fmt.Errorf("cluster: k-means: %w: Subsample = %d < K = %d", check.ErrInput, cfg.Subsample, cfg.K)
	}
	if cfg.MaxBytes < 0 {
		return cfg, fmt.Errorf("cluster: k-means: %w: MaxBytes = %d < 0", check.ErrInput, cfg.MaxBytes)
	}
	if cfg.MaxBytes == 0 {
		cfg.MaxBytes = DefaultKMeansMaxBytes
	}
	if need := cfg.planFor(n, d, dense); need > cfg.MaxBytes {
		return cfg, fmt.Errorf("cluster: k-means: %w: K = %d dense centroids of d = %d features (and the sketch, sample, distances and the assignment's blocks of X) need %d bytes (%s), over MaxBytes = %d bytes; use a sampler that keeps sparse rows (uniform, rls, bless) or raise MaxBytes",
			check.ErrMemory, cfg.K, d, need, check.FormatBytes(need), cfg.MaxBytes)
	}
	return cfg, nil
}

// space returns the points Lloyd's iterations cluster, for the resolved
// km: all rows of x (dense) or xs (sparse, x nil), or a subsample of
// km.Subsample of them drawn from rng; in sketch mode (Pourkamali-Anaraki
// & Becker, Alg. 3) only their p-dimensional sketch is stored (s×p
// instead of s×d), and the p×d sketch matrix, drawn from rng after the
// subsample, is returned too (nil otherwise).
func (km KMeans) space(x *mat.Dense, xs kernel.Sparse, rng *rand.Rand) (kmSpace, *mat.Dense) {
	sparse := x == nil
	var n, d int
	if sparse {
		n, d = xs.Dims()
	} else {
		n, d = x.Dims()
	}
	var idx []int
	if n > km.Subsample {
		idx = kmSampleRows(n, km.Subsample, rng)
	}
	switch {
	case sparse && km.Sketch > 0:
		sk := kmSignSketch(km.Sketch, d, rng)
		return denseKM{kmSketchSparse(xs, sk, idx)}, sk
	case sparse && idx != nil:
		return sparseKM{kernel.SubsetRows(xs, idx)}, nil
	case sparse:
		return sparseKM{xs}, nil
	case km.Sketch > 0:
		sk := kmSignSketch(km.Sketch, d, rng)
		s := n
		if idx != nil {
			s = len(idx)
		}
		sp := mat.NewDense(s, km.Sketch, nil)
		for r := 0; r < s; r++ {
			i := r
			if idx != nil {
				i = idx[r]
			}
			kmProject(sp.RawRowView(r), sk, x.RawRowView(i))
		}
		return denseKM{sp}, sk
	case idx != nil:
		return denseKM{points.Gather(x, idx)}, nil
	default:
		return denseKM{x}, nil
	}
}

// nearest assigns the rows of x (dense, or sparse and validated) to
// p.target(), through the sketch in sketch mode.
func (p *Partition) nearest(ctx context.Context, lab []int, x mat.Matrix) error {
	xs, sparse := x.(kernel.Sparse)
	switch {
	case sparse && p.sketch != nil:
		return kmNearest(ctx, lab, nil, kmSketchSparse(xs, p.sketch, nil), nil, p.target())
	case sparse:
		return kmNearestSparse(ctx, lab, nil, xs, p.target())
	}
	return kmNearest(ctx, lab, nil, x.(*mat.Dense), p.sketch, p.target())
}

// Assign returns the cluster of each row of x: the nearest centroid, or in
// sketch mode the nearest sketched centroid after sketching x, so that Assign
// on the training rows reproduces Labels. It fails with ErrInput when x is
// empty, holds NaN or Inf, or has a different number of columns than the
// training data.
//
// Sparse x is assigned as it is (its column count must be the partition's).
func (p *Partition) Assign(xIn mat.Matrix) ([]int, error) {
	if p == nil || p.Centroids == nil || (p.sketch != nil && p.assignTo == nil) {
		return nil, fmt.Errorf("cluster: k-means: %w: Assign on an empty partition", check.ErrInput)
	}
	_, dc := p.Centroids.Dims()
	var x mat.Matrix
	if xs, ok := xIn.(kernel.Sparse); ok {
		if err := points.CheckSparse(xs, dc); err != nil {
			return nil, fmt.Errorf("cluster: k-means: Assign: %w", err)
		}
		x = xs
	} else {
		xd := kernel.DenseOf(xIn)
		if err := check.Matrix("X", xd); err != nil {
			return nil, fmt.Errorf("cluster: k-means: Assign: %w", err)
		}
		if _, d := xd.Dims(); d != dc {
			return nil, fmt.Errorf("cluster: k-means: %w: Assign: X has %d columns, the partition %d", check.ErrInput, d, dc)
		}
		x = xd
	}
	n, _ := x.Dims()
	lab := make([]int, n)
	if err := p.nearest(context.Background(), lab, x); err != nil {
		return nil, err
	}
	return lab, nil
}

// Validate checks p against n training rows of dimension d, as a
// Partition given to MEKA or BKA must be: centroids of d columns, n labels,
// each in [0, K). Errors wrap ErrInput.
func (p *Partition) Validate(n, d int) error {
	if p == nil || p.Centroids == nil {
		return fmt.Errorf("%w: partition has no centroids", check.ErrInput)
	}
	c, dc := p.Centroids.Dims()
	if dc != d {
		return fmt.Errorf("%w: partition centroids have %d columns, X has %d", check.ErrInput, dc, d)
	}
	if len(p.Labels) != n {
		return fmt.Errorf("%w: partition has %d labels, X has %d rows", check.ErrInput, len(p.Labels), n)
	}
	for i, s := range p.Labels {
		if s < 0 || s >= c {
			return fmt.Errorf("%w: partition label %d of row %d out of [0, %d)", check.ErrInput, s, i, c)
		}
	}
	return nil
}

// Members returns the row indices of each cluster, ascending. The labels
// must be in [0, K) (Validate).
func (p *Partition) Members() [][]int {
	k, _ := p.Centroids.Dims()
	out := make([][]int, k)
	for i, l := range p.Labels {
		out[l] = append(out[l], i)
	}
	return out
}

// kmLloyd runs k-means++ seeding and Lloyd's iterations on the rows of s and
// returns the centroids (whose assignment gave the last objective) and the
// objective after each assignment step.
func kmLloyd(ctx context.Context, s kmSpace, cfg KMeans, rng *rand.Rand) (*mat.Dense, []float64, error) {
	n, _ := s.Dims()
	k := cfg.K
	c, err := kmSeed(ctx, s, k, rng)
	if err != nil {
		return nil, nil, err
	}
	lab := make([]int, n)
	dist := make([]float64, n)
	var obj []float64
	// Each pass: assign (objective), then stop, or re-seed empties and update.
	// Re-seeding passes do not count toward MaxIter, but at most K of them
	// can happen in a row before the clusters are non-empty, so the loop is
	// bounded by MaxIter + K + 1 passes.
	for pass := 0; pass <= cfg.MaxIter+k; pass++ {
		if err := s.nearest(ctx, lab, dist, c); err != nil {
			return nil, nil, err
		}
		f := 0.0
		for _, v := range dist {
			f += v
		}
		obj = append(obj, f)
		if cfg.Progress != nil {
			cfg.Progress(len(obj)-1, f)
		}
		counts := make([]int, k)
		for _, l := range lab {
			counts[l]++
		}
		empty := slices.Contains(counts, 0)
		if !empty {
			it := len(obj) - 1
			if it >= cfg.MaxIter || f == 0 {
				break
			}
			if it > 0 && obj[it-1]-f <= cfg.Tol*obj[it-1] {
				break
			}
		}
		if empty && !kmReseedRows(s.copyRow, c, lab, dist, counts) {
			break // fewer distinct points than clusters
		}
		s.means(c, lab)
	}
	return c, obj, nil
}

// kmReseed moves, for each empty cluster in increasing order, the point farthest
// from its centroid (among clusters with more than one member) into it and
// makes that point its centroid. It reports false when no point can move.
func kmReseed(s, c *mat.Dense, lab []int, dist []float64, counts []int) bool {
	return kmReseedRows(denseKM{s}.copyRow, c, lab, dist, counts)
}

// kmReseedRows is kmReseed with the sample's rows given by copyRow.
func kmReseedRows(copyRow func(dst []float64, i int), c *mat.Dense, lab []int, dist []float64, counts []int) bool {
	for j, cnt := range counts {
		if cnt > 0 {
			continue
		}
		best, bd := -1, -1.0
		for i, v := range dist {
			if counts[lab[i]] > 1 && v > bd {
				best, bd = i, v
			}
		}
		if best < 0 || bd <= 0 {
			return false
		}
		counts[lab[best]]--
		counts[j]++
		lab[best] = j
		dist[best] = 0
		copyRow(c.RawRowView(j), best)
	}
	return true
}

// kmMeans sets row j of c to the mean of the rows of x labelled j; rows of c with
// no members are left unchanged. Summation is in row order.
func kmMeans(c, x *mat.Dense, lab []int) {
	cnt := kmStartMeans(c, lab)
	for i, l := range lab {
		acc := c.RawRowView(l)
		for t, v := range x.RawRowView(i) {
			acc[t] += v
		}
	}
	kmEndMeans(c, cnt)
}

// kmStartMeans counts the members of each cluster and zeroes the rows of c
// that have members, so that the means are summed in place (no K×d scratch):
// each sum starts from +0 and adds its members in row order, as a separate
// accumulator would.
func kmStartMeans(c *mat.Dense, lab []int) []int {
	k, _ := c.Dims()
	cnt := make([]int, k)
	for _, l := range lab {
		cnt[l]++
	}
	for j, m := range cnt {
		if m > 0 {
			clear(c.RawRowView(j))
		}
	}
	return cnt
}

// kmEndMeans divides the sums in the rows of c with members by their counts
// (a multiplication by the reciprocal).
func kmEndMeans(c *mat.Dense, cnt []int) {
	for j, m := range cnt {
		if m == 0 {
			continue
		}
		inv := 1 / float64(m)
		row := c.RawRowView(j)
		for t := range row {
			row[t] *= inv
		}
	}
}

// kmSeed picks k rows of s by k-means++ (Arthur & Vassilvitskii 2007):
// the first uniformly, each next with probability proportional to its squared
// distance to the nearest chosen row.
func kmSeed(ctx context.Context, s kmSpace, k int, rng *rand.Rand) (*mat.Dense, error) {
	n, d := s.Dims()
	c := mat.NewDense(k, d, nil)
	minD := make([]float64, n)
	for i := range minD {
		minD[i] = math.Inf(1)
	}
	// Squared distances as ‖x‖² + ‖c‖² − 2x·c, with x·c from the sample's
	// dots (each row's value does not depend on the chunking).
	sn := s.sqNorms()
	dots := make([]float64, n)
	chosen := make([]bool, n)
	next := rng.IntN(n)
	ctr := make([]float64, d)
	for j := 0; j < k; j++ {
		chosen[next] = true
		s.copyRow(ctr, next)
		c.SetRow(j, ctr)
		if j == k-1 {
			break
		}
		cc := sn[next]
		if err := s.dots(ctx, dots, ctr); err != nil {
			return nil, err
		}
		for i := range minD {
			if v := max(sn[i]+cc-2*dots[i], 0); v < minD[i] {
				minD[i] = v
			}
		}
		minD[next] = 0 // exactly, whatever the rounding above
		total := 0.0
		for _, v := range minD {
			total += v
		}
		u := rng.Float64() * total
		next = -1
		if total > 0 {
			acc := 0.0
			for i, v := range minD {
				acc += v
				if v > 0 && acc > u {
					next = i
					break
				}
			}
			if next < 0 { // rounding: take the last point with positive weight
				for i := n - 1; i >= 0; i-- {
					if minD[i] > 0 {
						next = i
						break
					}
				}
			}
		} else {
			// Every point coincides with a chosen center: take the first unchosen row.
			for i := range chosen {
				if !chosen[i] {
					next = i
					break
				}
			}
		}
	}
	return c, nil
}

// kmNearest writes into lab[i] the index of the row of c nearest to row i of x
// (ties to the lowest index) and, if dist is non-nil, the squared distance into
// dist[i]. When sk (p×d) is non-nil, x is first sketched as x·skᵀ and c lives
// in the sketch space. Rows are processed in fixed blocks; each row's result
// does not depend on the blocking or the number of workers.
func kmNearest(ctx context.Context, lab []int, dist []float64, x, sk, c *mat.Dense) error {
	n, _ := x.Dims()
	k, dc := c.Dims()
	cn := make([]float64, k)
	for j := range cn {
		r := c.RawRowView(j)
		cn[j] = kmDot(r, r)
	}
	ct := c.RawMatrix()
	nb := (n + assignRows - 1) / assignRows
	w := parallel.Workers(0)
	bufs := make([][]float64, w)
	projs := make([][]float64, w)
	return parallel.ForErr(ctx, nb, w, func(worker, b int) error {
		r0, r1 := b*assignRows, min((b+1)*assignRows, n)
		rows := r1 - r0
		if bufs[worker] == nil {
			bufs[worker] = make([]float64, assignRows*k)
		}
		// Every block handed to Gemm is assignRows×dc (the last one padded
		// with zero rows), so each row's dot products go through the same
		// arithmetic wherever the row sits: Fit's labels and Assign agree.
		if projs[worker] == nil {
			projs[worker] = make([]float64, assignRows*dc)
		}
		y := blas64.General{Rows: assignRows, Cols: dc, Stride: dc, Data: projs[worker]}
		clear(y.Data[rows*dc:])
		for i := 0; i < rows; i++ {
			xr := x.RawRowView(r0 + i)
			if sk != nil {
				kmProject(y.Data[i*dc:(i+1)*dc], sk, xr)
			} else {
				copy(y.Data[i*dc:(i+1)*dc], xr)
			}
		}
		xs := y
		g := blas64.General{Rows: assignRows, Cols: k, Stride: k, Data: bufs[worker]}
		// X_b·Cᵀ on the engine's packed micro-kernels (one worker: the
		// blocks are already spread); each entry is summed over the d
		// columns in an order fixed by d alone, whatever its row.
		var xm, cm, gm mat.Dense
		xm.SetRawMatrix(xs)
		cm.SetRawMatrix(ct)
		gm.SetRawMatrix(g)
		if err := (kernel.Dense{Workers: 1}).Gemm(ctx, false, true, 1, &xm, &cm, 0, &gm); err != nil {
			return err
		}
		for i := 0; i < rows; i++ {
			xr := xs.Data[i*xs.Stride : i*xs.Stride+xs.Cols]
			xx := kmDot(xr, xr)
			best, bv := 0, math.Inf(1)
			for j, v := range g.Data[i*k : (i+1)*k] {
				if e := xx + cn[j] - 2*v; e < bv {
					best, bv = j, e
				}
			}
			lab[r0+i] = best
			if dist != nil {
				dist[r0+i] = max(bv, 0)
			}
		}
		return nil
	})
}

// kmProject writes sk·x into dst: one dot product per sketch row, so each
// projected row is bit-for-bit the same wherever it is computed (Fit's sample
// and Assign agree).
func kmProject(dst []float64, sk *mat.Dense, x []float64) {
	p, d := sk.Dims()
	blas64.Gemv(blas.NoTrans, 1, sk.RawMatrix(), blas64.Vector{N: d, Inc: 1, Data: x}, 0, blas64.Vector{N: p, Inc: 1, Data: dst})
}

// kmSampleRows returns m distinct rows of [0, n) chosen uniformly, ascending.
func kmSampleRows(n, m int, rng *rand.Rand) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := 0; i < m; i++ {
		j := i + rng.IntN(n-i)
		p[i], p[j] = p[j], p[i]
	}
	idx := p[:m:m]
	slices.Sort(idx)
	return idx
}

// kmSignSketch returns a p×d matrix of independent ±1/√p entries.
func kmSignSketch(p, d int, rng *rand.Rand) *mat.Dense {
	v := 1 / math.Sqrt(float64(p))
	r := mat.NewDense(p, d, nil)
	raw := r.RawMatrix().Data
	for i := range raw {
		if rng.Uint64()&1 == 1 {
			raw[i] = v
		} else {
			raw[i] = -v
		}
	}
	return r
}

func kmDot(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		s += v * b[i]
	}
	return s
}
