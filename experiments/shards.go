package experiments

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// IsManifest reports whether a dataset path names a shard manifest (a
// .json file, such as DIR/manifest.json written by landmark data shard or
// landmark data synth higgs) rather than a data file.
func IsManifest(path string) bool { return strings.EqualFold(filepath.Ext(path), ".json") }

// ReadManifest reads and checks the shard manifest at path; its errors
// name the file.
func ReadManifest(path string) (*shard.Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("shard manifest: %w", err)
	}
	m, err := shard.ParseManifest(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// readShards reads every shard of the manifest m (at path) into one n×d
// matrix and its targets. maxBytes > 0 caps X's 8·n·d bytes: a set over it
// is refused with model.ErrMemory before anything is allocated. A damaged
// or missing shard is an error naming it.
func readShards(ctx context.Context, path string, m *shard.Manifest, maxBytes int64) (*mat.Dense, []float64, error) {
	if err := check.Memory(fmt.Sprintf("X of %s (%s × %d float64)", path, groupDigits(m.N), m.D), 8*int64(m.N)*int64(m.D), maxBytes); err != nil {
		return nil, nil, err
	}
	x := mat.NewDense(m.N, m.D, nil)
	y := make([]float64, m.N)
	err := eachShard(ctx, path, m, func(e shard.Entry, xs *mat.Dense, ys []float64) error {
		x.Slice(e.FirstRow, e.FirstRow+e.Rows, 0, m.D).(*mat.Dense).Copy(xs)
		copy(y[e.FirstRow:], ys)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return x, y, nil
}

// readShards32 is readShards into float32 rows (falkon's float32_storage,
// f32): each shard's float64 rows, one shard at a time, are rounded into
// the float32 matrix, so that the float64 X never exists whole. A finite
// value beyond float32's range is an error naming the shard and the row
// (wrapping datasets.ErrFloat32Range), never an infinity.
func readShards32(ctx context.Context, path string, m *shard.Manifest, maxBytes int64) (*kernel.Dense32, []float64, error) {
	if err := check.Memory(fmt.Sprintf("X of %s (%s × %d float32)", path, groupDigits(m.N), m.D), 4*int64(m.N)*int64(m.D), maxBytes); err != nil {
		return nil, nil, err
	}
	data := make([]float32, m.N*m.D)
	y := make([]float64, m.N)
	err := eachShard(ctx, path, m, func(e shard.Entry, xs *mat.Dense, ys []float64) error {
		for i := range e.Rows {
			row := data[(e.FirstRow+i)*m.D : (e.FirstRow+i+1)*m.D]
			for j, v := range xs.RawRowView(i) {
				row[j] = float32(v)
				if math.IsInf(float64(row[j]), 0) {
					return fmt.Errorf("%s: row %d (row %d of X), column %d: %w: %g (±3.4e38; X is read into float32)",
						filepath.Join(filepath.Dir(path), e.File), i, e.FirstRow+i, j, datasets.ErrFloat32Range, v)
				}
			}
		}
		copy(y[e.FirstRow:], ys)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	x, err := kernel.NewDense32(m.N, m.D, data)
	return x, y, err
}

// eachShard reads the shards of the manifest m (at path) in order and
// calls each with every shard's entry, rows and targets. A missing or
// damaged shard is an error naming it.
func eachShard(ctx context.Context, path string, m *shard.Manifest, each func(e shard.Entry, x *mat.Dense, y []float64) error) error {
	dir := filepath.Dir(path)
	for _, e := range m.Shards {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := filepath.Join(dir, e.File)
		f, err := os.Open(p)
		if err != nil {
			return fmt.Errorf("shard of %s: %w", path, err)
		}
		xs, ys, err := shard.Read(f, e.Rows, m.D)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if err := each(e, xs, ys); err != nil {
			return err
		}
	}
	return nil
}

// loadShards is load for a training set given as a shard manifest (and a
// test set given as a manifest or a file): the shards are read into memory
// under the fit's memory cap.
func (r *runner) loadShards(p string) (x, xt mat.Matrix, y, yt []float64, err error) {
	m, err := ReadManifest(p)
	if err != nil {
		return nil, nil, nil, nil, r.s.errAt(err.Error(), "dataset", "path")
	}
	limit := max(r.readLimit(), 0)
	size, typ := int64(8), "float64"
	if r.f32 {
		size, typ = 4, "float32"
	}
	if xb := size * int64(m.N) * int64(m.D); r.folds > 0 && limit > 0 && xb > limit {
		return nil, nil, nil, nil, fmt.Errorf("%w: %s: X is %s (%s × %d %s), over the memory limit %s: cross-validation holds the data in memory (streamed cross-validation is not supported); fit one setting with landmark fit, which streams falkon's passes from the shards, or raise memory_limit / --memory",
			model.ErrMemory, p, decimalBytes(xb), groupDigits(m.N), m.D, typ, decimalBytes(limit))
	}
	if r.f32 {
		x32, y32, err := readShards32(r.ctx, p, m, limit)
		if err != nil {
			return nil, nil, nil, nil, r.readError(err, "path")
		}
		x, y = x32, y32
	} else {
		xd, yd, err := readShards(r.ctx, p, m, limit)
		if err != nil {
			return nil, nil, nil, nil, r.readError(err, "path")
		}
		x, y = xd, yd
	}
	names, err := namesOf(p, m)
	if err != nil {
		return nil, nil, nil, nil, r.s.errAt(err.Error(), "dataset", "path")
	}
	r.features, r.target, r.classNames, r.layout = names.features, names.target, names.classNames, names.layout
	if r.s.Dataset.TestPath == "" {
		return x, nil, y, nil, nil
	}
	xtd, yt, err := r.shardTest(m, names, max(r.readLimit(), 0))
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return x, xtd, y, yt, nil
}

// shardTest reads the test set (test_path) of a fit on the shards of m,
// whose names are names, into memory under limit (> 0): test shards,
// whose feature names (when both sets name them) must be the training
// shards' and whose text labels are mapped onto the training classes by
// name, or a file read as landmark predict reads one for a fit of the
// shards (FitResult.trainedOptions). It sets r.testClasses.
func (r *runner) shardTest(m *shard.Manifest, names sourceNames, limit int64) (*mat.Dense, []float64, error) {
	d := r.s.Dataset
	tp, err := resolvePath(r.s.dir, d.TestPath)
	if err != nil {
		return nil, nil, r.s.errAt(err.Error(), "dataset", "test_path")
	}
	var xt *mat.Dense
	var yt []float64
	if IsManifest(tp) {
		tm, err := ReadManifest(tp)
		if err == nil {
			err = sameColumns(tp, tm, m.D, names.features)
		}
		if err != nil {
			return nil, nil, r.s.errAt(err.Error(), "dataset", "test_path")
		}
		if xt, yt, err = readShards(r.ctx, tp, tm, limit); err != nil {
			return nil, nil, r.readError(err, "test_path")
		}
		if r.testClasses, err = relabel(yt, names.classNames, tm.ClassNames, tp); err != nil {
			return nil, nil, r.s.errAt(err.Error(), "dataset", "test_path")
		}
		return xt, yt, nil
	}
	opt, err := d.readOptions()
	if err != nil {
		return nil, nil, r.s.errAt(err.Error(), "dataset", "delim")
	}
	// Read as predict reads a file for the fit of these shards.
	trained := &FitResult{Dim: m.D}
	names.keep(trained)
	opt = trained.trainedOptions(opt)
	opt.Notify, opt.MaxBytes = r.notify, limit
	test, err := datasets.ReadFileContext(r.ctx, tp, opt)
	if err != nil {
		return nil, nil, r.readError(err, "test_path")
	}
	if xt = kernel.DenseOf(test.X); xt == nil {
		return nil, nil, r.s.errAt("test data has no rows", "dataset", "test_path")
	}
	if _, dt := xt.Dims(); dt != m.D {
		return nil, nil, r.s.errAt(fmt.Sprintf("%s has %d features, the training shards %d", tp, dt, m.D), "dataset", "test_path")
	}
	r.testClasses = test.Classes
	return xt, test.Y, nil
}

// sameColumns checks that the shards of tm (at path) have d columns and,
// when both name them, the features named features, in that order: shards
// hold their columns by position.
func sameColumns(path string, tm *shard.Manifest, d int, features []string) error {
	if tm.D != d {
		return fmt.Errorf("%s: %w: %d features, the training data has %d", path, datasets.ErrInput, tm.D, d)
	}
	if features == nil || tm.Features == nil {
		return nil
	}
	for j, name := range features {
		if tm.Features[j] != name {
			return fmt.Errorf("%s: %w: feature %d is %q, the training data's is %q (shards hold their columns by position)", path, datasets.ErrInput, j, tm.Features[j], name)
		}
	}
	return nil
}

// groupDigits writes n with thousands separators: 50,000,000.
func groupDigits(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// decimalBytes writes a byte count with a decimal unit, as --memory reads
// them: 11.2 GB, 2 GB, 640 kB.
func decimalBytes(b int64) string {
	v, units := float64(b), []string{"B", "kB", "MB", "GB", "TB", "PB"}
	i := 0
	for v >= 1000 && i < len(units)-1 {
		v /= 1000
		i++
	}
	return strconv.FormatFloat(v, 'g', 3, 64) + " " + units[i]
}

// shardPlan is how a fit of a spec would hold a training set given as a
// shard manifest in memory, and whether that fits the memory cap.
type shardPlan struct {
	path string
	m    *shard.Manifest
	// x is X's 8·n·d bytes; need the planned peak of the in-memory fit:
	// X as the runner holds it (copies of it) and the estimator's plan
	// beside it, when the estimator has one (falkon); perRow the bytes
	// need grows by per training row, to say how many rows would fit.
	x, need, perRow int64
	copies          int
	// limit is the cap (0: none).
	limit int64
}

// fits reports whether the in-memory fit is within the cap.
func (p *shardPlan) fits() bool { return p.limit == 0 || p.need <= p.limit }

// heldCopies is how many n×d float64 matrices FitWith holds at once while
// it fits on the whole training set (fitOwned): the loaded X, which the
// fit takes as it is (a feature scaling applied in place); a test_fraction
// split adds its copied rows (the test rows, or the training rows above a
// fraction of 0.5), counted as one more. With falkon's float32_storage
// the shards are read into float32 (half of X), and a split copies the
// float32 training rows out beside the float64 test rows: at most
// 0.5 + 0.5·(1 − f) + f ≤ 1.25 X for a test fraction f ≤ 0.5, at most 1.5
// X above, counted as the float64 path's one or two copies (1.25 → 2).
func heldCopies(s *Spec) int {
	c := 1
	if s.Dataset.TestFraction > 0 {
		c++
	}
	return c
}

// copiesOf says "1 copy" or "n copies".
func copiesOf(n int) string {
	if n == 1 {
		return "1 copy"
	}
	return strconv.Itoa(n) + " copies"
}

// manifestTask is the spec task a manifest's labels imply.
func manifestTask(m *shard.Manifest) string {
	switch {
	case m.Task != "classification":
		return TaskRegression
	case len(m.Classes) == 2:
		return TaskBinary
	}
	return TaskMulticlass
}

// planShards plans the fit of s on its training set when that is a shard
// manifest (nil otherwise): X's copies as FitWith holds them, the test
// set's X when it is a manifest too (a test file's size is not known
// before reading it), plus, for falkon, model.Falkon.Plan beside the data
// (centers, K_MM and the preconditioner, the engine's scratch, the CG
// state; the optional K_nM cache left out; falkonBeside) and its data term
// 8·n·(d + outputs).
func planShards(s *Spec) (*shardPlan, error) {
	if s.Dataset.Name != "" || !IsManifest(s.Dataset.Path) {
		return nil, nil
	}
	p, err := resolvePath(s.dir, s.Dataset.Path)
	if err != nil {
		return nil, s.errAt(err.Error(), "dataset", "path")
	}
	m, err := ReadManifest(p)
	if err != nil {
		return nil, s.errAt(err.Error(), "dataset", "path")
	}
	c := *s
	if c.Task == TaskAuto {
		c.Task = manifestTask(m)
	}
	r := &runner{s: &c}
	r.entry, _ = estimatorByName(c.Estimator.Type)
	sp := &shardPlan{path: p, m: m, x: 8 * int64(m.N) * int64(m.D), copies: heldCopies(&c), limit: r.readLimit()}
	sp.perRow = int64(sp.copies)*8*int64(m.D) + 8
	sp.need = int64(m.N) * sp.perRow
	if tp, err := resolvePath(s.dir, s.Dataset.TestPath); err == nil && s.Dataset.TestPath != "" && IsManifest(tp) {
		if tm, err := ReadManifest(tp); err == nil {
			sp.need += 8 * int64(tm.N) * int64(tm.D+1)
		}
	}
	if r.entry.Name != "falkon" || r.entry.New == nil {
		return sp, nil
	}
	outputs := 1
	if c.Task == TaskMulticlass {
		outputs = len(m.Classes)
	}
	cfg := r.config(c.Grid.Points()[0], m.N, fitSeed(c.Seed, 1<<20, 0))
	if c.Estimator.GammaRule != "" {
		cfg.Kernel.Gamma = 1 // resolved by the fit; the width does not change the plan
	}
	est, err := r.entry.New(cfg)
	f, ok := est.(*model.Falkon)
	if err != nil || !ok {
		return sp, nil // the fit itself reports a bad setting
	}
	mc := f.M
	if mc == 0 {
		mc = min(m.N, int(math.Ceil(5*math.Sqrt(float64(m.N))))) // Falkon's default M
	}
	f.M, f.MemoryLimit, f.CacheKnm = mc, 0, false
	rest, n0, ok := falkonBeside(f, m, outputs)
	if !ok {
		return sp, nil // the fit itself reports a bad setting
	}
	dataRow := 8 * int64(m.D+outputs)
	sp.perRow += dataRow
	// Beyond the stub's rows the engine's scratch grows by 8 bytes a row
	// (a value per row) and by at most its 32 fixed-order partial-sum
	// segments of M×outputs values (kernel.Op.ScratchBytes): counted in
	// full, so the plan is an upper bound there.
	if n0 < m.N {
		rest += 8*int64(m.N-n0) + 8*32*int64(mc+16)*int64(outputs)
		sp.perRow += 8
	}
	sp.need += rest + int64(m.N)*dataRow
	return sp, nil
}

// maxStubBytes bounds the stub X falkonBeside plans on.
const maxStubBytes = 64 << 20

// falkonBeside returns f.Plan's total beside the data (Total − Data) for
// n0 rows of the manifest's shape, with n0 the manifest's n when a stub of
// it is small (exact then), else enough rows for the engine's workers and
// segments to be nearly all counted (within maxStubBytes); ok is false when
// f refuses the setting.
func falkonBeside(f *model.Falkon, m *shard.Manifest, outputs int) (rest int64, n0 int, ok bool) {
	plan := func(n int) (model.FalkonPlan, bool) {
		p, err := f.Plan(mat.NewDense(n, m.D, nil), outputs)
		return p, err == nil
	}
	stubRows := max(1, maxStubBytes/(8*m.D))
	n0 = m.N
	if n0 > stubRows {
		n0 = min(stubRows, max(f.M, 1024))
	}
	p, ok := plan(n0)
	if !ok {
		return 0, 0, false
	}
	if n1 := min(m.N, stubRows, max(n0, p.BlockRows*max(33, runtime.GOMAXPROCS(0)+1))); n1 > n0 {
		if p, ok = plan(n1); !ok {
			return 0, 0, false
		}
		n0 = n1
	}
	return p.Total - p.Data, n0, true
}

// overLimit is the error of a fit whose training shards do not fit the
// memory cap in memory: it names X's size, the cap, how many rows would
// fit, and what to do (what, when not empty, is one more option).
func (p *shardPlan) overLimit(estimator, what string) error {
	beside := p.need - int64(p.m.N)*p.perRow
	held := copiesOf(p.copies) + " while fitting"
	if beside > 0 {
		held += ", with what the fit holds beside them (the estimator's plan, a test set)"
	}
	room := fmt.Sprintf("under which at most %s rows of %d fit", groupDigits(int(max(0, p.limit-beside)/p.perRow)), p.m.D)
	if beside >= p.limit {
		room = fmt.Sprintf("which what the fit holds beside the training rows (%s) alone exceeds", decimalBytes(beside))
	}
	if what != "" {
		what = ", " + what
	}
	return fmt.Errorf("%w: %s: X is %s (%s × %d float64); %s holds it in memory (%s: %s), over the memory limit %s, %s (raise memory_limit / --memory%s)",
		model.ErrMemory, p.path, decimalBytes(p.x), groupDigits(p.m.N), p.m.D, estimator, held, decimalBytes(p.need), decimalBytes(p.limit), room, what)
}

// ReadShards reads the rows to predict from a shard manifest, into memory:
// X must fit limit (0: DefaultMemoryLimit; an error wrapping
// model.ErrMemory otherwise, before anything is allocated; EachShard then
// reads it shard by shard) and have the model's number of columns (and
// its feature names, when both name them). Labels are the shards'
// targets, text labels' mapped onto the model's classes by name.
func (f *FitResult) ReadShards(ctx context.Context, path string, limit int64) (*mat.Dense, []float64, error) {
	m, err := f.shardManifest(path)
	if err != nil {
		return nil, nil, err
	}
	if limit <= 0 {
		limit = DefaultMemoryLimit()
	}
	x, y, err := readShards(ctx, path, m, limit)
	if err != nil {
		return nil, nil, err
	}
	if _, err := relabel(y, f.ClassNames, m.ClassNames, path); err != nil {
		return nil, nil, err
	}
	return x, y, nil
}

// shardManifest reads a manifest of rows to predict, checking their width
// and, when both name them, their features against the model's.
func (f *FitResult) shardManifest(path string) (*shard.Manifest, error) {
	m, err := ReadManifest(path)
	if err != nil {
		return nil, err
	}
	if err := sameColumns(path, m, f.Dim, f.Features); err != nil {
		return nil, err
	}
	return m, nil
}

// EachShard reads the rows of a shard manifest one shard at a time, in
// order, and calls each with a shard's rows and targets: memory is one
// shard (8·rows·(d + 1) bytes), whatever n. The manifest must have the
// model's number of columns (and its feature names, when both name them);
// shards of text labels have their targets mapped onto the model's
// classes by name (a class the model lacks gets an index past its
// classes). A damaged shard is an error naming it.
func (f *FitResult) EachShard(ctx context.Context, path string, each func(x *mat.Dense, y []float64) error) error {
	m, err := f.shardManifest(path)
	if err != nil {
		return err
	}
	// Refused before the first shard: names on one side only.
	if _, err := relabel(nil, f.ClassNames, m.ClassNames, path); err != nil {
		return err
	}
	return eachShard(ctx, path, m, func(_ shard.Entry, x *mat.Dense, y []float64) error {
		if _, err := relabel(y, f.ClassNames, m.ClassNames, path); err != nil {
			return err
		}
		return each(x, y)
	})
}

// ShardFit wraps an estimator fitted on the shards of m elsewhere (the Beam
// fit of module github.com/landmark-ml/landmark/distributed, or
// model.Falkon.FitShardSet called from Go) as the FitResult a streamed
// `landmark fit` returns, so that SaveFile writes a file `landmark predict`
// reads: the task the manifest's labels imply, the names it keeps from its
// source file (features, target, text labels' classes and a CSV's layout;
// unnamed features are x1…xd), and, when the rows were standardized on
// read (standardized), the manifest's Mean and Std as the feature scaling
// that Predict applies to raw rows.
// The manifest's ZeroBased (shards of a 0-based LIBSVM file) is kept as
// FitResult.ZeroBased.
func ShardFit(est model.Estimator, m *shard.Manifest, standardized bool) (*FitResult, error) {
	if est == nil || m == nil {
		return nil, fmt.Errorf("experiments: shard fit: %w: nil estimator or manifest", check.ErrInput)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("experiments: shard fit: %w", err)
	}
	names, err := namesOf("experiments: shard fit", m)
	if err != nil {
		return nil, err
	}
	res := &FitResult{Estimator: est, NTrain: m.N, Dim: m.D, Task: manifestTask(m), Storage: StorageStreamed, Density: 1, ZeroBased: m.ZeroBased}
	names.keep(res)
	if standardized {
		if len(m.Mean) != m.D || len(m.Std) != m.D {
			return nil, fmt.Errorf("experiments: shard fit: %w: standardized, but the manifest has %d means and %d standard deviations for d = %d",
				check.ErrInput, len(m.Mean), len(m.Std), m.D)
		}
		res.Scaling.Standardize = &datasets.Standardizer{Mean: slices.Clone(m.Mean), Std: slices.Clone(m.Std)}
		res.ScalingUsed = scaleUsed(scaleStandardize, false)
	}
	return res, nil
}
