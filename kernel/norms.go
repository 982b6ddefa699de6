package kernel

import (
	"context"
	"runtime"
	"sync/atomic"

	"github.com/landmark-ml/landmark/internal/parallel"
)

// lazyNorms is the state of X's squared norms (plan.xn) while they are
// summed on first use, normRows rows (a chunk) at a time, by the worker
// whose block of rows needs them (plan.norms), just before it packs those
// rows: the block is read from memory once for both and packed from the
// cache. prepare summed them all in a pass of their own before, which at
// n = 100,000, d = 784 read X's 627 MB from memory a second time on every
// new Op's first product (docs/performance.md, "The Op's preparation
// inside the first pass"). Each row is summed by sumNorms, the order
// rowNorms uses, so the bits are those of the whole pass whatever the
// worker count, the blocks or the products asking.
type lazyNorms struct {
	// state holds a chunk's progress: normsTodo, normsBusy (one caller
	// summing it; others wait for it) or normsDone, set after its norms
	// are written (the atomic store publishes them).
	state     []atomic.Uint32
	left      atomic.Int64 // chunks not done: 0 once every norm is there
	x64       []float64    // X's rows (stride apart, d values each), or
	x32       []float32    // in float32 storage
	stride, d int
}

// normRows is the chunk of rows lazyNorms sums at once: the blocks of the
// fused passes at d = 54 (64 rows) and d = 784 (256) are whole chunks.
const normRows = 64

// Values of lazyNorms.state.
const (
	normsTodo = iota
	normsBusy
	normsDone
)

// init sets l up for n rows of norms, none summed, of the rows of x64 (or
// x32 when x64 is nil).
func (l *lazyNorms) init(n int, x64 []float64, x32 []float32, stride, d int) {
	c := (n + normRows - 1) / normRows
	l.state, l.x64, l.x32, l.stride, l.d = make([]atomic.Uint32, c), x64, x32, stride, d
	l.left.Store(int64(c))
}

// lazyNormsBytes is what init allocates for n rows beside the norms
// themselves: a 4-byte state a chunk (HeldBytes counts it).
func lazyNormsBytes(n int) int64 { return 4 * int64((n+normRows-1)/normRows) }

// norms makes sure xn holds the squared norms of rows [r0, r1) of X:
// it sums those of the chunks overlapping them that no call has summed,
// and waits for those another call is summing. Every product reading xn
// for a block of rows calls it first (kernelBlock, and the fused Gaussian
// passes' callers in engine.go); concurrent products on one Op share the
// chunks, each summed once.
func (p *plan) norms(r0, r1 int) {
	l := &p.xl
	if l.state == nil || r0 >= r1 || l.left.Load() == 0 {
		return
	}
	for c := r0 / normRows; c*normRows < r1; c++ {
		s := &l.state[c]
		if s.Load() == normsDone {
			continue
		}
		if !s.CompareAndSwap(normsTodo, normsBusy) {
			for s.Load() != normsDone {
				runtime.Gosched() // another call is summing the chunk
			}
			continue
		}
		lo, hi := c*normRows, min((c+1)*normRows, p.n)
		if l.x64 != nil {
			sumNorms(p.xn[lo:hi], l.x64[lo*l.stride:], l.stride, l.d)
		} else {
			sumNorms(p.xn[lo:hi], l.x32[lo*l.stride:], l.stride, l.d)
		}
		s.Store(normsDone)
		l.left.Add(-1)
	}
}

// rowNorms sets dst[i] to the squared norm of row i of the row-major x
// (stride, d columns; len(dst) rows), in float64, on up to workers
// goroutines (0: GOMAXPROCS), about normChunk values of x a task. Each row
// is summed in feature order with one accumulator, the order of norms and
// of the sparse rows' norms (whose zeros add nothing), so dense, float32
// and sparse X holding the same values get the same bits, whatever the
// worker count; four rows are summed at a time for four independent add
// chains.
//
// It replaced norms on one core: at n = 100,000, d = 784 prepare took
// 0.08–0.12 s of a fused pass that "landmark bench kernel" times with a
// new Op each repeat (3.5–3.9 s), and about 2% of the d = 54 pass
// (docs/performance.md, "The fused pass against X·Cᵀ").
func rowNorms[T float32 | float64](dst []float64, x []T, stride, d, workers int) {
	n := len(dst)
	per := roundUp(max(normChunk/max(d, 1), 1), 4)
	tasks := (n + per - 1) / per
	parallel.For(context.Background(), tasks, workers, func(_, t int) {
		i, end := t*per, min((t+1)*per, n)
		sumNorms(dst[i:end], x[i*stride:], stride, d)
	})
}

// sumNorms sets dst[i] to the squared norm of row i of x (stride, d
// columns) on the calling goroutine, each row in feature order with one
// accumulator, every product and sum rounded. Float64 rows go eight at a
// time through sqNorms8 on the SIMD paths; the rest four at a time
// (sqNorms4), then one at a time. Every path gives the same bits.
func sumNorms[T float32 | float64](dst []float64, x []T, stride, d int) {
	i, n := 0, len(dst)
	if x64, ok := any(x).([]float64); ok {
		i = sqNorms8(dst, x64, stride, d, useAccel)
	}
	for ; i+4 <= n; i += 4 {
		dst[i], dst[i+1], dst[i+2], dst[i+3] = sqNorms4(x[i*stride:], stride, d)
	}
	for ; i < n; i++ {
		var s float64
		for _, v := range x[i*stride : i*stride+d] {
			s += float64(float64(v) * float64(v))
		}
		dst[i] = s
	}
}

// sqNorms8 sets the squared norms of the rows of x (stride, d columns) in
// dst eight rows at a time on the SIMD kernels of acc (sqNorms8AVX512,
// sqNorms8AVX2), and returns how many rows it did: a multiple of 8, none
// on the portable path. On a new Op's first product the rows stream from
// memory, and the kernels' eight prefetched streams take about half the
// time of the scalar loop's four (docs/performance.md, "New Ops' costs:
// X's norms, the Strassen operands, X's pages").
func sqNorms8(dst, x []float64, stride, d int, acc accel) int {
	kern := sqNorms8AVX512
	switch {
	case acc == accelAVX2:
		kern = sqNorms8AVX2
	case acc != accelAVX512 || d == 0:
		return 0
	}
	n := len(dst) &^ 7
	for i := 0; i < n; i += 8 {
		rows := x[i*stride : (i+7)*stride+d]
		kern(&rows[0], stride, d, (*[8]float64)(dst[i:i+8]))
	}
	return n
}

// normChunk is about the number of values of X one task of rowNorms reads
// (256 KiB in float64): a few hundred tasks for a large X, one for a small
// one.
const normChunk = 32 << 10

// sqNorms4 returns the squared norms of the four rows of x at offsets 0,
// stride, 2·stride, 3·stride (d values each), each summed in feature order.
func sqNorms4[T float32 | float64](x []T, stride, d int) (s0, s1, s2, s3 float64) {
	x0, x1, x2, x3 := x[:d], x[stride:][:d], x[2*stride:][:d], x[3*stride:][:d]
	for k, v := range x0 {
		a0, a1, a2, a3 := float64(v), float64(x1[k]), float64(x2[k]), float64(x3[k])
		// The conversions round each product: no fused multiply-add
		// (which GOAMD64=v3 would allow), the bits of sqNorms8's kernels.
		s0 += float64(a0 * a0)
		s1 += float64(a1 * a1)
		s2 += float64(a2 * a2)
		s3 += float64(a3 * a3)
	}
	return s0, s1, s2, s3
}
