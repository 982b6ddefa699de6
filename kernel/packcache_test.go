package kernel

import (
	"context"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"

	"github.com/landmark-ml/landmark/internal/heap"
	"gonum.org/v1/gonum/mat"
)

// TestPackCacheAcrossPs: repeated products with no Reserve open reuse one
// packing buffer whichever P they run on. Each of 40 Gemms (a 500×64 result
// over k = 512 on two workers, buffer 8·(64 + 504)·512 = 2.3 MB, packBytes)
// runs on a goroutine of its own, some after yielding to the global run
// queue, while another goroutine keeps yielding too, with GOMAXPROCS at
// least 2 and the collector off (so the weakly held spare stays); together
// they must allocate less than one buffer. With the sync.Pool that held
// the spare before, a Gemm whose caller ran on another P than the previous
// put missed it (it sat in that P's private slot) and allocated the buffer
// again: 2.46 MB in 40 Gemms, in each of 3 runs on AMD EPYC Zen 4 with two
// Ps (one miss; without the yielding goroutines, none). The rest, 135–160
// KB measured, is each Gemm's task lists and goroutines (denseCallBytes,
// about 3 KiB each) and the test's goroutines.
func TestPackCacheAcrossPs(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	r := rand.New(rand.NewPCG(5, 6))
	a, b := randDense(r, 512, 500), randDense(r, 512, 64)
	c := mat.NewDense(500, 64, nil)
	d := Dense{Workers: 2}
	gemm := func() error { return d.Gemm(context.Background(), true, false, 1, a, b, 0, c) }
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	densePacks.drain()
	buf := packBytes(500, 64, 512)
	if first := heap.Allocated(t, gemm); first < buf {
		t.Fatalf("the first Gemm allocated %d bytes, less than its buffer %d", first, buf)
	}
	got := heap.Allocated(t, func() error {
		var err error
		stop := make(chan struct{})
		defer close(stop)
		go func() { // keeps the other P busy, so that the Gemms move
			for {
				select {
				case <-stop:
					return
				default:
					runtime.Gosched()
				}
			}
		}()
		for i := range 40 {
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range i % 3 {
					runtime.Gosched() // to the global run queue, where any P may take it
				}
				err = gemm()
			}()
			wg.Wait()
			if err != nil {
				return err
			}
		}
		return nil
	})
	t.Logf("40 more Gemms allocated %d bytes; buffer %d", got, buf)
	if got >= buf {
		t.Errorf("40 more Gemms allocated %d bytes, want < one buffer (%d)", got, buf)
	}
}

// The spare is held weakly: after two collections with no product running,
// a Gemm allocates its buffer again (the cache keeps nothing alive once the
// products have stopped, as the sync.Pool did not either).
func TestPackCacheWeak(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	a, b := randDense(r, 512, 100), randDense(r, 512, 16)
	c := mat.NewDense(100, 16, nil)
	gemm := func() error { return Dense{Workers: 1}.Gemm(context.Background(), true, false, 1, a, b, 0, c) }
	if err := gemm(); err != nil {
		t.Fatal(err)
	}
	if got, buf := heap.AllocatedFresh(t, gemm), packBytes(100, 16, 512); got < buf {
		t.Errorf("after two collections a Gemm allocated %d bytes, want its buffer %d again", got, buf)
	}
}

// TestPackCacheConcurrent: products that hold their buffers at once (two
// workers, each in its own product: approx/cluster's assignment pass) get
// them back from the cache round after round, so 50 rounds of two
// overlapping get/put pairs allocate two buffers, not one per round after
// the first. With a single spare the second put replaced the first and each
// round allocated once more: 51 buffers. GOMAXPROCS is at least 2 (the
// number of spares kept) and the collector off (they are held weakly).
func TestPackCacheConcurrent(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	allocs := 0
	c := packCache[float64]{alloc: func(n int) []float64 { allocs++; return make([]float64, n) }}
	for range 50 {
		a, b := c.get(1000), c.get(900) // both held at once
		c.put(a)
		c.put(b)
	}
	if allocs != 2 {
		t.Errorf("50 rounds of two overlapping products allocated %d buffers, want 2", allocs)
	}
	// A larger request takes a new buffer, which then joins the spares (or,
	// where only two are kept, replaces the smaller, of 900 values), so the
	// next two requests of 1,000 and 1,200 values find buffers without
	// allocating.
	c.put(c.get(1200))
	allocs = 0
	a, b := c.get(1000), c.get(1200)
	if allocs != 0 || cap(*a) < 1000 || cap(*b) < 1200 {
		t.Errorf("after a 1,200-value product: %d allocations for 1,000 and 1,200 values (caps %d, %d), want 0", allocs, cap(*a), cap(*b))
	}
}
