package experiments

import (
	"errors"
	"fmt"
	"math"
	rtmetrics "runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/landmark-ml/landmark/internal/physmem"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// DefaultMemoryShare is the share of the machine's physical memory that
// caps a fit's planned peak when the spec sets no memory_limit (and the
// command line no --memory): three quarters, leaving a quarter for the
// operating system, the page cache, other processes and what the Go
// runtime holds beyond the planned live bytes (garbage not yet collected,
// the goroutine stacks, the binary). With no cap at all a fit whose plan
// exceeds the machine would start and be killed gigabytes later; at 75%
// it is refused before allocating, and the refusal says how to raise the
// cap. memory_limit: 0 lifts the cap.
const DefaultMemoryShare = physmem.DefaultShare

// PhysicalMemory returns the memory this process may use, in bytes: the
// machine's physical memory (MemTotal of /proc/meminfo on Linux), or the
// memory limit of the control group (container) the process runs in when
// that is lower (cgroup v2 memory.max, v1 memory.limit_in_bytes). Where it
// cannot be read (not Linux) it returns 8 GiB with ok false.
func PhysicalMemory() (bytes int64, ok bool) { return physmem.Total() }

// DefaultMemoryLimit is the cap on a fit's planned peak memory when none is
// given: DefaultMemoryShare of PhysicalMemory.
var DefaultMemoryLimit = sync.OnceValue(func() int64 {
	b, _ := PhysicalMemory()
	return int64(DefaultMemoryShare * float64(b))
})

// ParseBytes reads a byte count with an optional unit: K, M, G, T (KB, MB,
// GB, TB: powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024), B for
// bytes, e.g. "4G", "512MiB", "1000000". It is how --memory and the spec
// keys memory_limit and cache_bytes read a string.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   float64
	}{
		{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
		{"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"B", 1},
	}
	mult := 1.0
	for _, u := range units {
		if strings.HasSuffix(strings.ToUpper(t), strings.ToUpper(u.suffix)) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v*mult > math.MaxInt64/2 {
		return 0, fmt.Errorf("memory %q: want a non-negative byte count such as 4G, 512MiB or 1000000", s)
	}
	return int64(v * mult), nil
}

// MemoryLimit is the cap the spec's fits run under: the estimator's
// memory_limit when the spec sets it (0: no cap), else DefaultMemoryLimit.
func (s *Spec) MemoryLimit() int64 {
	if s.Estimator.Options != nil {
		if v, ok := s.Estimator.Options["memory_limit"]; ok {
			b, _ := byteOption(v)
			return int64(b)
		}
	}
	return DefaultMemoryLimit()
}

// memoryLimit is the cap a fit of the runner's spec runs under (Spec.MemoryLimit).
func (r *runner) memoryLimit() int64 { return r.s.MemoryLimit() }

// byteOption reads a byte-count option as decoded from YAML: a number, or
// a string with a unit (ParseBytes).
func byteOption(v any) (float64, bool) {
	if s, ok := v.(string); ok {
		b, err := ParseBytes(s)
		return float64(b), err == nil
	}
	return toFloat(v)
}

// memoryHint adds to a refusal for memory (model.ErrMemory) how to raise
// the cap; other errors pass unchanged.
func (r *runner) memoryHint(err error) error {
	if err == nil || !errors.Is(err, model.ErrMemory) {
		return err
	}
	if r.s.Estimator.Options != nil {
		if _, ok := r.s.Estimator.Options["memory_limit"]; ok {
			return fmt.Errorf("%w (raise the cap with the estimator option memory_limit, e.g. 16G; 0 lifts it)", err)
		}
	}
	return fmt.Errorf("%w (the default cap is %.0f%% of this machine's physical memory; raise it with the estimator option memory_limit, e.g. 16G; 0 lifts it)", err, 100*DefaultMemoryShare)
}

// heapSample is the runtime metric for bytes held by live and not yet swept
// heap objects; cheap to read, no stop-the-world.
const heapSample = "/memory/classes/heap/objects:bytes"

// memWatch samples the Go heap every few milliseconds between start and stop
// and reports the peak growth over the level at start: an estimate of the
// extra memory a fit and predict needed (Go heap only, sampled, so short
// spikes between samples can be missed).
type memWatch struct {
	base uint64
	peak uint64
	stop chan struct{}
	done sync.WaitGroup
	mu   sync.Mutex
}

func heapBytes() uint64 {
	s := []rtmetrics.Sample{{Name: heapSample}}
	rtmetrics.Read(s)
	if s[0].Value.Kind() != rtmetrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

func startMemWatch() *memWatch {
	w := &memWatch{stop: make(chan struct{})}
	w.base = heapBytes()
	w.peak = w.base
	w.done.Add(1)
	go func() {
		defer w.done.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-t.C:
				w.sample()
			}
		}
	}()
	return w
}

func (w *memWatch) sample() {
	b := heapBytes()
	w.mu.Lock()
	if b > w.peak {
		w.peak = b
	}
	w.mu.Unlock()
}

// Stop ends sampling and returns the peak growth in bytes.
func (w *memWatch) Stop() int64 {
	w.sample()
	close(w.stop)
	w.done.Wait()
	return int64(w.peak - w.base)
}

// hasMemoryLimit reports whether the spec's estimator takes memory_limit.
func (r *runner) hasMemoryLimit() bool {
	_, ok := r.entry.option("memory_limit")
	return ok
}

// readLimit bounds the dense matrices the runner reads or expands: the
// fit's memory cap (memoryLimit), or 0 for none (then the readers' own
// default bound applies).
func (r *runner) readLimit() int64 {
	if r.s.Approximation != nil {
		return 0
	}
	return r.memoryLimit()
}

// readError is the spec error at the dataset key for a failed read (the
// command line names its flag there, --data); a refusal for memory keeps
// model.ErrMemory and says how to raise the cap, and a read stopped by the
// runner's context keeps its error (exit code 130).
func (r *runner) readError(err error, key string) error {
	ctxErr := r.ctx.Err()
	switch {
	case ctxErr != nil && errors.Is(err, ctxErr):
	case errors.Is(err, model.ErrMemory):
		if r.s.Dataset.shifts() {
			err = fmt.Errorf("%w; scale %s needs dense X, scale std or maxabs keeps a sparse file sparse", err, r.s.Dataset.scale())
		}
		err = r.memoryHint(err)
	default:
		return r.s.errAt(err.Error(), "dataset", key)
	}
	return &SpecError{Line: r.s.line("dataset", key), Path: joinPath([]string{"dataset", key}), Msg: err.Error(), Err: err}
}

// heldBytes is the memory of the data matrices the runner holds during a
// fit on xtr scored on xva: the loaded training and test rows and, when
// they are other matrices (a fold, a split, a scaled or dense copy), xtr and
// xva. The readers' and scalings' transient buffers are gone by then; the
// CSR arrays count 12 bytes a non-zero and 8 a row.
func (r *runner) heldBytes(xtr, xva mat.Matrix) int64 {
	var seen []mat.Matrix
	var b int64
	for _, m := range []mat.Matrix{r.x, r.xTest, xtr, xva} {
		if m == nil || slices.Contains(seen, m) {
			continue
		}
		seen = append(seen, m)
		b += matrixBytes(m)
	}
	return b
}

// dataBytes is the memory of x's values as an estimator's plan counts
// them: matrixBytes without the rest of a larger array under a dense view.
func dataBytes(x mat.Matrix) int64 {
	switch x.(type) {
	case *mat.Dense:
		n, d := x.Dims()
		return 8 * int64(n) * int64(d)
	case *kernel.Dense32:
		n, d := x.Dims()
		return 4 * int64(n) * int64(d)
	}
	return matrixBytes(x)
}

// matrixBytes is the memory of x's values: its CSR arrays for sparse x,
// the whole array under a dense x, 8 bytes a value, or float32 x
// (kernel.Dense32), 4 bytes a value (a view of the first rows of a larger
// one, as the in-place test split leaves, keeps all of it), 8·n·d
// otherwise.
func matrixBytes(x mat.Matrix) int64 {
	if s, ok := x.(kernel.Sparse); ok {
		n, _ := s.Dims()
		_, _, v := s.CSR()
		return 12*int64(len(v)) + 8*int64(n+1)
	}
	n, d := x.Dims()
	switch x := x.(type) {
	case *kernel.Dense32:
		if n > 0 && d > 0 {
			// A view of the first rows keeps the whole array, as below.
			return 4 * int64(max(n*d, cap(x.RawRow(0))))
		}
		return 4 * int64(n) * int64(d)
	case *mat.Dense:
		return 8 * int64(max(n*d, cap(x.RawMatrix().Data)))
	}
	return 8 * int64(n) * int64(d)
}

// stageHook, when set (by tests), is called with the name of each point at
// which the runner's data copies are settled: "loaded" (read, before the
// split), "split" (the training and test rows the runner keeps) and "fit"
// (just before the estimator's Fit, with what it is given).
var stageHook func(stage string)

// atStage calls stageHook.
func atStage(name string) {
	if stageHook != nil {
		stageHook(name)
	}
}
