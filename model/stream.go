package model

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// The passes of a fit on sharded data (package datasets/shard) — the core
// of out-of-core FALKON. One copy serves both Falkon.FitShards (every pass
// streamed through this process) and the Beam fit of module
// github.com/landmark-ml/landmark/distributed (beamfit.Falkon, one shard
// per worker call): ShardPass computes shard s's M×t partial sum of a
// pass by reading the shard in row blocks, and a pass's total is the
// partial sums added in increasing shard order, whichever process computed
// them. Within a shard the rows are taken in blocks of a fixed number of
// rows (ShardSet.BlockRows, by default ShardBlockRows(d)), each block's
// product formed by the kernel engine and added to the shard's sum in
// block order, so a pass's result depends on the shards and the block size
// only — not on timing, GOMAXPROCS or Workers.

// ShardFile is a shard file opened for a streamed pass.
type ShardFile interface {
	io.ReaderAt
	io.Closer
	// Size is the file's size in bytes.
	Size() int64
}

// ShardSet is a sharded data set as the streamed passes read it.
type ShardSet struct {
	// Manifest describes the shards; Dir is the folder their file names
	// are relative to (a local folder, or a URL such as gs://b/p when Open
	// reads one).
	Manifest *shard.Manifest
	Dir      string
	// Open opens a shard file; nil opens local files.
	Open func(ctx context.Context, path string) (ShardFile, error)
	// Mean and Std, when set, standardize every row as it is read:
	// (x_j − Mean_j)/Std_j, a column with Std_j = 0 only centered (as
	// datasets.Standardizer).
	Mean, Std []float64
	// BlockRows is the number of rows read and computed at a time; 0
	// means ShardBlockRows(d). Results depend on it through the
	// summation order only.
	BlockRows int
}

// ShardBlockRows is the default row-block size of the streamed passes for
// d columns: 65,536 rows, fewer when a block of rows would exceed 16 MiB
// as float64 (then 16 MiB/(8(d+1)) rows, at least 256). Two blocks are
// held at a time (one read ahead); the kernel engine splits each block
// into its own smaller blocks.
func ShardBlockRows(d int) int {
	return max(256, min(65536, (16<<20)/(8*(max(d, 1)+1))))
}

// OpenShards reads the manifest at manifestPath (a local file) and returns
// the set, its files opened locally on every pass.
func OpenShards(manifestPath string) (_ *ShardSet, err error) {
	defer named(&err, "shards")
	return openShards(manifestPath)
}

func openShards(manifestPath string) (*ShardSet, error) {
	b, err := os.ReadFile(manifestPath)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	m, err := shard.ParseManifest(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", manifestPath, err)
	}
	return &ShardSet{Manifest: m, Dir: filepath.Dir(manifestPath)}, nil
}

// check validates the set's fields against its manifest.
func (set *ShardSet) check() error {
	if set == nil || set.Manifest == nil {
		return fmt.Errorf("shards: %w: no manifest", ErrInput)
	}
	if err := set.Manifest.Validate(); err != nil {
		return err
	}
	d := set.Manifest.D
	if (set.Mean == nil) != (set.Std == nil) || set.Mean != nil && (len(set.Mean) != d || len(set.Std) != d) {
		return fmt.Errorf("shards: %w: standardization of %d/%d columns, want none or %d", ErrInput, len(set.Mean), len(set.Std), d)
	}
	if set.BlockRows < 0 {
		return fmt.Errorf("shards: %w: BlockRows = %d, want ≥ 0 (0 means ShardBlockRows)", ErrInput, set.BlockRows)
	}
	return nil
}

// blockRows is the set's row-block size.
func (set *ShardSet) blockRows() int {
	if set.BlockRows > 0 {
		return set.BlockRows
	}
	return ShardBlockRows(set.Manifest.D)
}

// Path is the path of shard s's file.
func (set *ShardSet) Path(s int) string {
	f := set.Manifest.Shards[s].File
	if strings.Contains(set.Dir, "://") {
		return strings.TrimSuffix(set.Dir, "/") + "/" + f
	}
	if filepath.IsAbs(f) {
		return f
	}
	return path.Join(filepath.ToSlash(set.Dir), f)
}

// open opens shard s's file.
func (set *ShardSet) open(ctx context.Context, s int) (ShardFile, error) {
	p := set.Path(s)
	if set.Open != nil {
		return set.Open(ctx, p)
	}
	return OpenShardFile(filepath.FromSlash(p))
}

// OpenShardFile opens a local shard file, as ShardSet does when its Open
// is nil; an Open reading other storage can fall back on it for local
// paths.
func OpenShardFile(path string) (ShardFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return localFile{f}, nil
}

// localFile is an *os.File with its size.
type localFile struct{ *os.File }

func (f localFile) Size() int64 {
	st, err := f.Stat()
	if err != nil {
		return -1
	}
	return st.Size()
}

// Standardize maps the rows of x (row-major, d columns) as Mean and Std
// say, in place; without them it does nothing.
func (set *ShardSet) Standardize(x []float64) {
	if set.Mean == nil {
		return
	}
	d := len(set.Mean)
	for i := 0; i+d <= len(x); i += d {
		row := x[i : i+d]
		for j := range row {
			row[j] -= set.Mean[j]
			if set.Std[j] > 0 {
				row[j] /= set.Std[j]
			}
		}
	}
}

// ShardProduct names what a pass computes on every shard s.
type ShardProduct string

// The products of a streamed pass, each a partial sum over the rows of
// shard s (K_s is K(X_s, C), n_s×M; Y_s the shard's n_s×t targets, ±1
// one-vs-rest columns for classification).
const (
	// ShardMulTMul is K_sᵀ(K_s v), M×t row-major, for v M×t.
	ShardMulTMul ShardProduct = "multmul"
	// ShardMulT is K_sᵀY_s, M×t.
	ShardMulT ShardProduct = "mult"
	// ShardGram is K_sᵀK_s (M×M row-major, lower triangle set, strict upper
	// triangle zero) followed by K_sᵀY_s (M×t).
	ShardGram ShardProduct = "gram"
	// ShardColSquares is Σ_{i∈s} k(x_i, c_j)² for every center, M values
	// (diag(K_nMᵀK_nM), the jacobi preconditioner's).
	ShardColSquares ShardProduct = "colsquares"
)

// ShardPass computes the passes of a FALKON fit over a ShardSet: the
// kernel engine on each block of rows, the blocks of a shard added in
// order, the shards added in increasing index.
type ShardPass struct {
	// Set is the data.
	Set *ShardSet
	// Kernel and Centers (M×d, dense or CSR rows) define K_s.
	Kernel  kernel.Kernel
	Centers mat.Matrix
	// Engine tunes the kernel engine (Workers, Float32, BlockRows); the
	// results do not depend on Workers.
	Engine kernel.Options
}

// PassStats reports what a streamed pass read and how long it took.
type PassStats struct {
	// Rows and Bytes are the rows decoded and the file bytes read.
	Rows, Bytes int64
	// Wall is the pass's wall time; Wait the part of it the computation
	// spent waiting for the reader (0 when reading kept ahead).
	Wall, Wait time.Duration
}

// RowsPerSec and MBPerSec are the pass's rows and bytes (10⁶) per second
// of wall time.
func (s PassStats) RowsPerSec() float64 { return float64(s.Rows) / max(s.Wall.Seconds(), 1e-9) }

// MBPerSec is the pass's read rate in MB (10⁶ bytes) per second.
func (s PassStats) MBPerSec() float64 { return float64(s.Bytes) / 1e6 / max(s.Wall.Seconds(), 1e-9) }

func (s *PassStats) add(o PassStats) {
	s.Rows += o.Rows
	s.Bytes += o.Bytes
	s.Wall += o.Wall
	s.Wait += o.Wait
}

// Outputs is t, the number of target columns: the manifest's classes'
// Labels.Outputs for classification, 1 for regression.
func (p *ShardPass) Outputs() int {
	m := p.Set.Manifest
	if m.Task == "classification" {
		return Labels{Classes: m.Classes}.Outputs()
	}
	return 1
}

// Len is the length of a product's partial sum for v with t columns (t
// is Outputs() for the products that take no v).
func (p *ShardPass) Len(product ShardProduct) int {
	mc, _ := p.Centers.Dims()
	switch product {
	case ShardGram:
		return mc*mc + mc*p.Outputs()
	case ShardColSquares:
		return mc
	}
	return mc * p.Outputs()
}

// check validates the pass and v against product.
func (p *ShardPass) check(product ShardProduct, v *mat.Dense) error {
	if err := p.Set.check(); err != nil {
		return err
	}
	if p.Kernel == nil || p.Centers == nil {
		return fmt.Errorf("shards: %w: pass without a kernel or centers", ErrInput)
	}
	mc, d := p.Centers.Dims()
	if d != p.Set.Manifest.D {
		return fmt.Errorf("shards: %w: centers have %d columns, the shards %d", ErrInput, d, p.Set.Manifest.D)
	}
	switch product {
	case ShardMulTMul:
		if v == nil {
			return fmt.Errorf("shards: %w: %s without v", ErrInput, product)
		}
		if r, _ := v.Dims(); r != mc {
			return fmt.Errorf("shards: %w: v has %d rows, want M = %d", ErrInput, r, mc)
		}
	case ShardMulT, ShardGram, ShardColSquares:
	default:
		return fmt.Errorf("shards: %w: unknown product %q", ErrInput, product)
	}
	return nil
}

// Shard returns shard s's partial sum of product (v is ShardMulTMul's
// vector, M×t): the shard read in blocks, one read ahead of the
// computation, its checksum checked (an error naming the file, wrapping
// shard.ErrChecksum, and no sum, on a mismatch).
func (p *ShardPass) Shard(ctx context.Context, s int, product ShardProduct, v *mat.Dense) ([]float64, PassStats, error) {
	if err := p.check(product, v); err != nil {
		return nil, PassStats{}, err
	}
	if s < 0 || s >= len(p.Set.Manifest.Shards) {
		return nil, PassStats{}, fmt.Errorf("shards: %w: shard %d of %d", ErrInput, s, len(p.Set.Manifest.Shards))
	}
	var out []float64
	st, err := p.stream(ctx, []int{s}, product, v, func(_ int, sum []float64) { out = sum })
	return out, st, err
}

// Pass returns the pass's total: every shard's partial sum of product,
// added in increasing shard index (the first copied, the others added
// element by element, as beamfit's Combine adds them), reading the shards
// one after another with one block read ahead.
func (p *ShardPass) Pass(ctx context.Context, product ShardProduct, v *mat.Dense) ([]float64, PassStats, error) {
	if err := p.check(product, v); err != nil {
		return nil, PassStats{}, err
	}
	shards := make([]int, len(p.Set.Manifest.Shards))
	for i := range shards {
		shards[i] = i
	}
	var total []float64
	st, err := p.stream(ctx, shards, product, v, func(_ int, sum []float64) {
		if total == nil {
			total = sum
			return
		}
		for i, x := range sum {
			total[i] += x
		}
	})
	return total, st, err
}

// Rows returns the partial sum of product over the rows x (n_s×d, as
// read: Set's standardization is not applied) with targets y — one shard
// held in memory — in the same blocks and order as Shard reads them, so
// the result equals Shard's on the file holding these rows bit for bit.
func (p *ShardPass) Rows(ctx context.Context, product ShardProduct, x *mat.Dense, y []float64, v *mat.Dense) ([]float64, error) {
	if err := p.check(product, v); err != nil {
		return nil, err
	}
	n, d := x.Dims()
	if len(y) != n || d != p.Set.Manifest.D {
		return nil, fmt.Errorf("shards: %w: rows %d×%d with %d targets, want d = %d", ErrInput, n, d, len(y), p.Set.Manifest.D)
	}
	acc := p.newAcc(product, v)
	b := p.Set.blockRows()
	for r0 := 0; r0 < n; r0 += b {
		r1 := min(n, r0+b)
		if err := acc.add(ctx, x.Slice(r0, r1, 0, d).(*mat.Dense), y[r0:r1]); err != nil {
			return nil, err
		}
	}
	return acc.sum, nil
}

// Verify reads every shard in full as a pass does — in blocks, on the
// reader goroutine, targets included, standardized when the set says so —
// without computing anything, and checks each shard's size, shape and
// checksum: the first damaged shard is an error naming its file. The
// stats are the read's (rows, bytes, wall time): the rate at which this
// process decodes and checks the shards, a bound on any pass's I/O.
func (set *ShardSet) Verify(ctx context.Context) (_ PassStats, err error) {
	defer named(&err, "shards")
	if err := set.check(); err != nil {
		return PassStats{}, err
	}
	start := time.Now()
	var st PassStats
	ctx, cancel := context.WithCancel(ctx)
	d, b := set.Manifest.D, set.blockRows()
	free := make(chan *rowBlock, 2)
	full := make(chan *rowBlock, 2)
	for range 2 {
		free <- &rowBlock{x: make([]float64, b*d), y: make([]float64, b)}
	}
	shards := make([]int, len(set.Manifest.Shards))
	for i := range shards {
		shards[i] = i
	}
	go set.read(ctx, shards, true, free, full)
	defer func() {
		cancel()
		for range full {
		}
	}()
	for blk := range full {
		if blk.err != nil {
			return st, blk.err
		}
		st.Rows += int64(blk.rows)
		st.Bytes += blk.bytes
		free <- blk
	}
	if err := ctx.Err(); err != nil {
		return st, err
	}
	st.Wall = time.Since(start)
	return st, nil
}

// rowBlock is one buffer of the reader: up to blockRows rows of shard s.
type rowBlock struct {
	s, rows int
	x, y    []float64
	last    bool  // the shard's last block: its checksum is checked
	bytes   int64 // file bytes read for it
	err     error
}

// stream reads the shards in order on a reader goroutine — two buffers of
// blockRows rows, one decoded while the other is computed on — and calls
// done with each shard's partial sum once its last block is read and its
// checksum matches.
func (p *ShardPass) stream(ctx context.Context, shards []int, product ShardProduct, v *mat.Dense, done func(s int, sum []float64)) (PassStats, error) {
	start := time.Now()
	var st PassStats
	ctx, cancel := context.WithCancel(ctx)
	set := p.Set
	d, b := set.Manifest.D, set.blockRows()
	const buffers = 2
	free := make(chan *rowBlock, buffers)
	full := make(chan *rowBlock, buffers)
	for range buffers {
		free <- &rowBlock{x: make([]float64, b*d), y: make([]float64, b)}
	}
	targets := product == ShardMulT || product == ShardGram
	go set.read(ctx, shards, targets, free, full)
	defer func() {
		cancel()
		for range full { // wait for the reader to close its file
		}
	}()
	var acc *shardAcc
	for {
		t0 := time.Now()
		blk, ok := <-full
		st.Wait += time.Since(t0)
		if !ok {
			break
		}
		if blk.err != nil {
			return st, blk.err
		}
		if err := ctx.Err(); err != nil {
			return st, err
		}
		if acc == nil {
			acc = p.newAcc(product, v)
		}
		var y []float64
		if targets {
			y = blk.y[:blk.rows]
		}
		err := acc.add(ctx, mat.NewDense(blk.rows, d, blk.x[:blk.rows*d]), y)
		st.Rows += int64(blk.rows)
		st.Bytes += blk.bytes
		s, last := blk.s, blk.last
		free <- blk
		if err != nil {
			return st, err
		}
		if last {
			done(s, acc.sum)
			acc = nil
		}
	}
	if err := ctx.Err(); err != nil {
		return st, err
	}
	st.Wall = time.Since(start)
	return st, nil
}

// read is stream's reader goroutine: it fills free buffers with the
// shards' rows in order and sends them on full, which it closes when done
// or on the first error (sent as a block with err set).
func (set *ShardSet) read(ctx context.Context, shards []int, targets bool, free <-chan *rowBlock, full chan<- *rowBlock) {
	defer close(full)
	man := set.Manifest
	fail := func(blk *rowBlock, err error) {
		if blk == nil {
			select {
			case blk = <-free:
			case <-ctx.Done():
				return
			}
		}
		blk.err = err
		full <- blk
	}
	for _, s := range shards {
		e := man.Shards[s]
		name := set.Path(s)
		f, err := set.open(ctx, s)
		if err != nil {
			fail(nil, fmt.Errorf("read %s: %w", name, err))
			return
		}
		st, err := shard.NewStream(f, f.Size(), e.Rows, man.D, targets)
		if err != nil {
			f.Close()
			fail(nil, fmt.Errorf("read %s: %w", name, err))
			return
		}
		var prev int64
		for rows := 0; rows < e.Rows; {
			var blk *rowBlock
			select {
			case blk = <-free:
			case <-ctx.Done():
				f.Close()
				return
			}
			var y []float64
			if targets {
				y = blk.y
			}
			k, err := st.Read(blk.x, y)
			if err != nil {
				f.Close()
				fail(blk, fmt.Errorf("read %s: %w", name, err))
				return
			}
			set.Standardize(blk.x[:k*man.D])
			rows += k
			blk.s, blk.rows, blk.last, blk.err = s, k, rows == e.Rows, nil
			blk.bytes, prev = st.BytesRead()-prev, st.BytesRead()
			full <- blk
		}
		if err := f.Close(); err != nil {
			fail(nil, fmt.Errorf("read %s: %w", name, err))
			return
		}
	}
}

// gramChunkBytes bounds the block of K_s a gram or column-squares product
// forms at a time.
const gramChunkBytes = 8 << 20

// shardAcc accumulates one shard's partial sum block by block.
type shardAcc struct {
	p       *ShardPass
	product ShardProduct
	v       *mat.Dense
	t       int
	sum     []float64
	kbuf    []float64 // gram, colsquares: a chunk of K_s
}

func (p *ShardPass) newAcc(product ShardProduct, v *mat.Dense) *shardAcc {
	a := &shardAcc{p: p, product: product, v: v, t: p.Outputs()}
	if v != nil {
		_, a.t = v.Dims()
	}
	return a
}

// targets are the block's regression targets (n×1) or ±1 one-vs-rest
// targets (n×t).
func (a *shardAcc) targets(y []float64) (*mat.Dense, error) {
	if m := a.p.Set.Manifest; m.Task == "classification" {
		return Labels{Classes: m.Classes}.Targets(y)
	}
	return mat.NewDense(len(y), 1, slices.Clone(y)), nil
}

// add adds the block x (rows×d) with targets y to the shard's sum: the
// first block's product is the sum, the next ones' are added to it.
func (a *shardAcc) add(ctx context.Context, x *mat.Dense, y []float64) error {
	p := a.p
	mc, _ := p.Centers.Dims()
	op := kernel.NewOp(p.Kernel, x, p.Centers, p.Engine)
	switch a.product {
	case ShardMulTMul, ShardMulT:
		dst := mat.NewDense(mc, a.t, nil)
		var err error
		if a.product == ShardMulTMul {
			err = op.MulTMul(ctx, dst, a.v)
		} else {
			var tg *mat.Dense
			if tg, err = a.targets(y); err == nil {
				err = op.MulT(ctx, dst, tg)
			}
		}
		if err != nil {
			return err
		}
		if a.sum == nil {
			a.sum = dst.RawMatrix().Data
			return nil
		}
		for i, v := range dst.RawMatrix().Data {
			a.sum[i] += v
		}
		return nil
	case ShardGram:
		return a.gram(ctx, x, y)
	case ShardColSquares:
		return a.colSquares(ctx, x)
	}
	return fmt.Errorf("shards: %w: unknown product %q", ErrInput, a.product)
}

// chunks calls f on the block x in chunks of rows whose block of K (rows×M)
// takes at most gramChunkBytes, K formed by the engine into kb.
func (a *shardAcc) chunks(ctx context.Context, x *mat.Dense, f func(r0, r1 int, kb *mat.Dense) error) error {
	p := a.p
	n, d := x.Dims()
	mc, _ := p.Centers.Dims()
	chunk := max(1, min(n, gramChunkBytes/(8*mc)))
	if len(a.kbuf) < chunk*mc {
		a.kbuf = make([]float64, chunk*mc)
	}
	for r0 := 0; r0 < n; r0 += chunk {
		r1 := min(n, r0+chunk)
		kb := mat.NewDense(r1-r0, mc, a.kbuf[:(r1-r0)*mc])
		if err := kernel.NewOp(p.Kernel, x.Slice(r0, r1, 0, d).(*mat.Dense), p.Centers, p.Engine).Block(ctx, kb); err != nil {
			return err
		}
		if err := f(r0, r1, kb); err != nil {
			return err
		}
	}
	return nil
}

// gram adds the block's K_BᵀK_B (lower triangle, through
// kernel.Dense.SyrkLower) and K_BᵀY_B (a dgemm), a chunk of K_B at a time.
func (a *shardAcc) gram(ctx context.Context, x *mat.Dense, y []float64) error {
	tg, err := a.targets(y)
	if err != nil {
		return err
	}
	mc, _ := a.p.Centers.Dims()
	if a.sum == nil {
		a.sum = make([]float64, mc*mc+mc*a.t)
	}
	g := mat.NewDense(mc, mc, a.sum[:mc*mc])
	rhs := blas64.General{Rows: mc, Cols: a.t, Stride: a.t, Data: a.sum[mc*mc:]}
	dense := kernel.Dense{Workers: a.p.Engine.Workers}
	return a.chunks(ctx, x, func(r0, r1 int, kb *mat.Dense) error {
		if err := dense.SyrkLower(ctx, true, 1, kb, 1, g); err != nil {
			return err
		}
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, kb.RawMatrix(), tg.Slice(r0, r1, 0, a.t).(*mat.Dense).RawMatrix(), 1, rhs)
		return nil
	})
}

// colSquares adds Σ_i k(x_i, c_j)² over the block's rows, in row order.
func (a *shardAcc) colSquares(ctx context.Context, x *mat.Dense) error {
	mc, _ := a.p.Centers.Dims()
	if a.sum == nil {
		a.sum = make([]float64, mc)
	}
	return a.chunks(ctx, x, func(r0, r1 int, kb *mat.Dense) error {
		for i := range r1 - r0 {
			for j, v := range kb.RawRowView(i) {
				a.sum[j] += v * v
			}
		}
		return nil
	})
}
