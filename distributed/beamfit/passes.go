package beamfit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local" // local folders
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

func init() {
	register.DoFn3x1[context.Context, int, func(part), error](&passFn{})
	register.Emitter1[part]()
	register.Combiner3[sumAcc, part, total](&orderedSum{})
	register.DoFn2x1[context.Context, total, error](&writeFn{})
	beam.RegisterType(reflect.TypeOf((*part)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*sumAcc)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*total)(nil)).Elem())
}

// The products a pass computes on every shard s (model.ShardProduct).
const (
	modeMulTMul = string(model.ShardMulTMul) // K_sᵀ(K_s v), M×t
	modeMulT    = string(model.ShardMulT)    // K_sᵀ y_s, M×t
	modeGram    = string(model.ShardGram)    // K_sᵀK_s (lower triangle, M×M) then K_sᵀ y_s (M×t)
)

// part is one shard's M×t partial sum.
type part struct {
	Shard int
	Rows  int
	Sum   []float64
}

// sumAcc collects the partial sums; they are added only at the end, in
// shard order, so the result does not depend on how the runner grouped
// the shards into bundles or merged accumulators.
type sumAcc struct {
	Parts []part
}

// total is a pass's result.
type total struct {
	Shards []int
	Rows   int
	Sum    []float64
}

// orderedSum is the pass's Combine: Σ_s partial_s in increasing s.
type orderedSum struct{}

func (orderedSum) CreateAccumulator() sumAcc { return sumAcc{} }

func (orderedSum) AddInput(a sumAcc, p part) sumAcc {
	a.Parts = append(a.Parts, p)
	return a
}

func (orderedSum) MergeAccumulators(a, b sumAcc) sumAcc {
	a.Parts = append(a.Parts, b.Parts...)
	return a
}

func (orderedSum) ExtractOutput(a sumAcc) total {
	slices.SortFunc(a.Parts, func(x, y part) int { return x.Shard - y.Shard })
	var t total
	for _, p := range a.Parts {
		t.Shards = append(t.Shards, p.Shard)
		t.Rows += p.Rows
		if t.Sum == nil {
			t.Sum = slices.Clone(p.Sum)
			continue
		}
		for i, v := range p.Sum {
			t.Sum[i] += v
		}
	}
	return t
}

// passFn computes one shard's product: model.ShardPass, the same code
// that streams every shard through one process in model.Falkon.FitShards,
// on the shard this call is given.
type passFn struct {
	// Dir is the manifest's folder; Files the shard paths relative to it
	// and Rows their row counts; D the dimension.
	Dir   string
	Files []string
	Rows  []int
	D     int
	// Centers is the path of the centers file (a shard of M rows).
	Centers string
	M       int
	Kernel  kernel.Spec
	// Mode is modeMulTMul or modeMulT; V (M×T, row-major) is the vector
	// of modeMulTMul.
	Mode string
	V    []float64
	T    int
	// Classes, when set, turn labels into ±1 one-vs-rest targets.
	Classes []float64
	// Mean and Std, when set, standardize the columns on read.
	Mean, Std []float64
	// Workers bounds the engine's goroutines (0: all cores).
	Workers int
	// CacheShards keeps decoded shards in the worker process for the
	// following passes.
	CacheShards bool

	pass *model.ShardPass
}

func (f *passFn) Setup(ctx context.Context) error {
	k, err := kernel.New(f.Kernel)
	if err != nil {
		return err
	}
	c, _, err := loadShard(ctx, f.Centers, f.M, f.D, true, nil, nil)
	if err != nil {
		return fmt.Errorf("centers: %w", err)
	}
	man := &shard.Manifest{Format: shard.Format, D: f.D, Task: "regression", Classes: f.Classes,
		Mean: f.Mean, Std: f.Std}
	if f.Classes != nil {
		man.Task = "classification"
	}
	if man.Mean == nil {
		man.Mean, man.Std = make([]float64, f.D), make([]float64, f.D)
	}
	for i, file := range f.Files {
		man.Shards = append(man.Shards, shard.Entry{File: file, Rows: f.Rows[i], FirstRow: man.N})
		man.N += f.Rows[i]
	}
	set := &model.ShardSet{Manifest: man, Dir: f.Dir, Open: openShard, Mean: f.Mean, Std: f.Std}
	f.pass = &model.ShardPass{Set: set, Kernel: k, Centers: c, Engine: kernel.Options{Workers: f.Workers}}
	return nil
}

func (f *passFn) ProcessElement(ctx context.Context, s int, emit func(part)) error {
	if s < 0 || s >= len(f.Files) {
		return fmt.Errorf("beamfit: shard %d of %d", s, len(f.Files))
	}
	if faultHook != nil {
		if err := faultHook(f.Mode, s); err != nil {
			return fmt.Errorf("beamfit: shard %d: %w", s, err)
		}
	}
	if f.Mode == modeMulTMul {
		crashOnce()
	}
	var v *mat.Dense
	if f.Mode == modeMulTMul {
		v = mat.NewDense(f.M, f.T, f.V)
	}
	product := model.ShardProduct(f.Mode)
	var sum []float64
	var err error
	if f.CacheShards {
		// Decoded once per worker process; the same blocks and order as
		// the streamed read, so the same sum.
		var x *mat.Dense
		var y []float64
		if x, y, err = loadShard(ctx, joinPath(f.Dir, f.Files[s]), f.Rows[s], f.D, true, f.Mean, f.Std); err != nil {
			return fmt.Errorf("beamfit: shard %d: %w", s, err)
		}
		sum, err = f.pass.Rows(ctx, product, x, y, v)
	} else {
		sum, _, err = f.pass.Shard(ctx, s, product, v)
	}
	if err != nil {
		return fmt.Errorf("beamfit: shard %d: %w", s, err)
	}
	emit(part{Shard: s, Rows: f.Rows[s], Sum: sum})
	return nil
}

// openShard opens a shard for model.ShardPass: a local file as it is
// (streamed from disk), any other path through Beam's file systems, read
// whole into memory.
func openShard(ctx context.Context, p string) (model.ShardFile, error) {
	if !strings.Contains(p, "://") {
		return model.OpenShardFile(p)
	}
	b, err := readFile(ctx, p)
	if err != nil {
		return nil, err
	}
	return memFile{bytes.NewReader(b)}, nil
}

type memFile struct{ *bytes.Reader }

func (memFile) Close() error { return nil }

// writeFn writes a pass's result where the driver reads it.
type writeFn struct {
	Path string
}

func (w *writeFn) ProcessElement(ctx context.Context, t total) error {
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	return writeFile(ctx, w.Path, b)
}

// shardCache holds decoded shards of this worker process, keyed by path
// and standardization, for the passes that follow (one per CG iteration).
var shardCache struct {
	sync.Mutex
	m map[string]cachedShard
}

type cachedShard struct {
	x *mat.Dense
	y []float64
}

func loadShard(ctx context.Context, p string, rows, d int, cache bool, mean, std []float64) (*mat.Dense, []float64, error) {
	key := fmt.Sprint(p, mean, std)
	if cache {
		shardCache.Lock()
		c, ok := shardCache.m[key]
		shardCache.Unlock()
		if ok {
			return c.x, c.y, nil
		}
	}
	b, err := readFile(ctx, p)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p, err)
	}
	// A damaged shard (shard.ErrChecksum) is an error naming the file:
	// the pass fails rather than sum the other shards without it.
	x, y, err := shard.Read(bytes.NewReader(b), rows, d)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", p, err)
	}
	(&model.ShardSet{Mean: mean, Std: std}).Standardize(x.RawMatrix().Data)
	if cache {
		shardCache.Lock()
		if shardCache.m == nil {
			shardCache.m = make(map[string]cachedShard)
		}
		shardCache.m[key] = cachedShard{x, y}
		shardCache.Unlock()
	}
	return x, y, nil
}

func joinPath(dir, file string) string {
	if strings.Contains(dir, "://") {
		return strings.TrimSuffix(dir, "/") + "/" + file
	}
	return path.Join(dir, file)
}

// newFS returns Beam's file system for p's scheme. Beam's GCS file system
// panics when it cannot create even an unauthenticated client; that panic
// becomes an error here.
func newFS(ctx context.Context, p string) (fs filesystem.Interface, err error) {
	defer func() {
		if r := recover(); r != nil {
			fs, err = nil, fmt.Errorf("file system for %s: %v", p, r)
		}
	}()
	return filesystem.New(ctx, p)
}

func readFile(ctx context.Context, p string) ([]byte, error) {
	fs, err := newFS(ctx, p)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, p)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

func writeFile(ctx context.Context, p string, b []byte) error {
	fs, err := newFS(ctx, p)
	if err != nil {
		return err
	}
	defer fs.Close()
	w, err := fs.OpenWrite(ctx, p)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// crashOnceEnv names an environment variable for tests of a lost worker
// process (scripts/multiprocess.sh): when it holds a file path, the worker
// process exits (status 3) as it starts its third CG-iteration shard
// product — in the middle of a pass — if it can create that file, which
// it creates first, so only the first process to get there exits.
const crashOnceEnv = "LANDMARK_BEAMFIT_CRASH_ONCE"

var crashCalls atomic.Int64

func crashOnce() {
	p := os.Getenv(crashOnceEnv)
	if p == "" || crashCalls.Add(1) != 3 {
		return
	}
	if fh, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644); err == nil {
		fh.Close()
		fmt.Fprintf(os.Stderr, "beamfit: %s: worker process %d exits mid-pass\n", crashOnceEnv, os.Getpid())
		os.Exit(3)
	}
}
