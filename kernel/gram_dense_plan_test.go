package kernel

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/mat"
)

// allocated is the heap allocated while f runs (runtime.MemStats.TotalAlloc
// delta), after two collections (sync.Pool keeps a victim cache for one).
func allocated(f func() error) (int64, error) {
	runtime.GC()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := f()
	runtime.ReadMemStats(&after)
	return int64(after.TotalAlloc - before.TotalAlloc), err
}

// TestDenseSyrkPlannedBytes: the products of the blocked factorizations
// allocate what SyrkPackBytes plans. From empty caches, SyrkLower with
// alpha = −1 (potrf's trailing update), LauumRows and the largest Gemm of
// CholeskyBlocked's panel each allocate at least their packing buffer and
// at most SyrkPackBytes(n, 512): the buffer is roundUp(n, 16)·512 values
// on AVX-512 (B̂ only: its tiles read Â from B̂), (roundUp(n, 16) +
// roundUp(n, 6))·512 = (1008 + 1002)·512 otherwise (Â's rows rounded up
// for either tile height, 8 or 6), and the rest is bounded by
// denseCallBytes. With ReserveSyrk(n, 512) held, each
// product allocates at most denseCallBytes: the buffer is the reserved
// one, for the Gemm too. 1, 2 and 3 workers, every set of inner kernels.
func TestDenseSyrkPlannedBytes(t *testing.T) {
	const n, k = 1000, 512
	r := rand.New(rand.NewPCG(75, 76))
	ctx := context.Background()
	a := randDense(r, n, k)
	l := mat.NewDense(n, n, lowerWithNaNs(r, n))
	x, y := randDense(r, n-k, 384), randDense(r, 128, 384) // potrf's largest panel Gemm: (n−512)×384 by 384×128
	for _, acc := range []accel{accelPortable, accelAVX2, accelAVX512} {
		if acc > bestAccel {
			continue
		}
		restore := setAccel(acc)
		for _, w := range []int{1, 2, 3} {
			d := Dense{Workers: w}
			buf := int64(8 * (1008 + 1002) * k)
			if acc == accelAVX512 {
				buf = 8 * 1008 * k
			}
			plan, call := d.SyrkPackBytes(n, k), denseCallBytes(n, n, k, w)
			if plan != buf+call || call > 64<<10 {
				t.Errorf("%v workers=%d: SyrkPackBytes %d, want buffer %d + call bytes %d (≤ 64 KiB)", acc, w, plan, buf, call)
			}
			c, lc, gc := mat.NewDense(n, n, nil), mat.NewDense(n, n, nil), mat.NewDense(n-k, 128, nil)
			products := []struct {
				name string
				f    func() error
				min  int64 // bytes of its buffer
			}{
				{"SyrkLower", func() error { return d.SyrkLower(ctx, false, -1, a, 1, c) }, buf},
				{"LauumRows", func() error { return d.LauumRows(ctx, lc, n-k, n) }, buf},
				{"Gemm", func() error { return d.Gemm(ctx, false, true, -1, x, y, 1, gc) }, 8 * (128 + 488) * 384},
			}
			for _, p := range products {
				name := fmt.Sprintf("%v workers=%d %s", acc, w, p.name)
				densePacks.drain()
				lc.Copy(l)
				got, err := allocated(p.f)
				if err != nil {
					t.Fatal(err)
				}
				if got > plan || got < p.min {
					t.Errorf("%s: allocated %d bytes besides its result, want within [%d, %d]", name, got, p.min, plan)
				}
				release := d.ReserveSyrk(n, k)
				lc.Copy(l)
				got, err = allocated(p.f)
				release()
				if err != nil {
					t.Fatal(err)
				}
				if got > call {
					t.Errorf("%s: allocated %d bytes besides its result with ReserveSyrk held, want ≤ %d", name, got, call)
				}
			}
		}
		restore()
	}
}

// TestDenseF32SyrkPlannedBytes is TestDenseSyrkPlannedBytes for DenseF32
// (32-column panels of B̂: roundUp(1000, 32) = 1024; 4-byte values).
func TestDenseF32SyrkPlannedBytes(t *testing.T) {
	const n, k = 1000, 512
	r := rand.New(rand.NewPCG(77, 78))
	ctx := context.Background()
	a := rand32(r, n, k)
	l := make([]float32, n*n)
	for i, v := range lowerWithNaNs(r, n) {
		l[i] = float32(v)
	}
	x, y := rand32(r, n-k, 384), rand32(r, 128, 384)
	for _, acc := range []accel{accelPortable, accelAVX2, accelAVX512} {
		if acc > bestAccel {
			continue
		}
		restore := setAccel(acc)
		for _, w := range []int{1, 2, 3} {
			d := DenseF32{Workers: w}
			buf := int64(4 * (1024 + 1000) * k)
			if acc == accelAVX512 {
				buf = 4 * 1024 * k
			}
			plan, call := d.SyrkPackBytes(n, k), denseCallBytes(n, n, k, w)
			if plan != buf+call {
				t.Errorf("%v workers=%d: SyrkPackBytes %d, want buffer %d + call bytes %d", acc, w, plan, buf, call)
			}
			newC := func(r, c int) blas32.General {
				return blas32.General{Rows: r, Cols: c, Stride: c, Data: make([]float32, r*c)}
			}
			c, lc, gc := newC(n, n), newC(n, n), newC(n-k, 128)
			products := []struct {
				name string
				f    func() error
				min  int64
			}{
				{"SyrkLower", func() error { return d.SyrkLower(ctx, false, -1, a, 1, c) }, buf},
				{"LauumRows", func() error { return d.LauumRows(ctx, lc, n-k, n) }, buf},
				{"Gemm", func() error { return d.Gemm(ctx, false, true, -1, x, y, 1, gc) }, 4 * (128 + 488) * 384},
			}
			for _, p := range products {
				name := fmt.Sprintf("%v workers=%d %s", acc, w, p.name)
				dense32Packs.drain()
				copy(lc.Data, l)
				got, err := allocated(p.f)
				if err != nil {
					t.Fatal(err)
				}
				if got > plan || got < p.min {
					t.Errorf("%s: allocated %d bytes besides its result, want within [%d, %d]", name, got, p.min, plan)
				}
				release := d.ReserveSyrk(n, k)
				copy(lc.Data, l)
				got, err = allocated(p.f)
				release()
				if err != nil {
					t.Fatal(err)
				}
				if got > call {
					t.Errorf("%s: allocated %d bytes besides its result with ReserveSyrk held, want ≤ %d", name, got, call)
				}
			}
		}
		restore()
	}
}
