package kernel

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/mat"
)

// lauumCases are the (n, k0, k1) of the LauumRows tests: rows not aligned
// with the 8-row tiles, the 128-row task blocks or the 16- and 32-column
// panels, a first block (k0 = 0), a last one (k1 = n), and k1 − k0 = 1,070
// > lauumStep (two steps).
var lauumCases = [][3]int{{7, 0, 7}, {7, 3, 5}, {70, 0, 29}, {70, 13, 70}, {300, 131, 277}, {300, 256, 300}, {1100, 20, 1090}}

// lowerWithNaNs is an n×n matrix with normal values on and below the
// diagonal and NaNs above it: LauumRows must neither read nor write them.
func lowerWithNaNs(r *rand.Rand, n int) []float64 {
	d := make([]float64, n*n)
	for i := range n {
		for j := range n {
			d[i*n+j] = math.NaN()
			if j <= i {
				d[i*n+j] = r.NormFloat64()
			}
		}
	}
	return d
}

// lauumRowsRef returns, for the lower triangle of the n×n l, what
// LauumRows(k0, k1) sets it to: for i < k1, j ≤ i, l[i][j] (rows above k0
// only) + Σ_{p=max(k0,i)}^{k1−1} l[p][i]·l[p][j], summed in float64, and
// the bound of a computation in precision u: each sum of at most k1 − k0
// products plus the old value rounds at most k1 − k0 + 1 times, |ŝ − s| ≤
// (k1 − k0 + 2)·u·(|l[i][j]| + Σ|l[p][i]·l[p][j]|) (Higham, Accuracy and
// Stability, §3.1, first order in u). A missing or doubled term is off by
// about |l[p][i]·l[p][j]| ≈ 0.6 on average, far outside the bound. NaN
// marks the elements that must be left as they are.
func lauumRowsRef(l []float64, n, k0, k1 int, u float64) (want, bound []float64) {
	want, bound = make([]float64, n*n), make([]float64, n*n)
	for i := range n {
		for j := range n {
			want[i*n+j] = math.NaN()
			if i >= k1 || j > i {
				continue
			}
			var s, abs float64
			if i < k0 {
				s, abs = l[i*n+j], math.Abs(l[i*n+j])
			}
			for p := max(k0, i); p < k1; p++ {
				v := l[p*n+i] * l[p*n+j]
				s += v
				abs += math.Abs(v)
			}
			want[i*n+j], bound[i*n+j] = s, float64(k1-k0+2)*u*abs
		}
	}
	return want, bound
}

// TestDenseLauumRows: Dense.LauumRows agrees with lauumRowsRef within its
// bound (u = 2⁻⁵³), leaves the NaNs above the diagonal and the rows from k1
// on as they were, and gives the bits of SyrkLower(trans, 1, W, 1,
// w[:k1, :k1]) on a zero-padded copy W of the rows after clearing them
// (what solver.Lauum did before LauumRows; for k1 − k0 ≤ lauumStep, one
// product), on each set of inner kernels with 1 and 3 workers, and the same
// bits with either number of workers.
func TestDenseLauumRows(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	ctx := context.Background()
	for _, cs := range lauumCases {
		n, k0, k1 := cs[0], cs[1], cs[2]
		if testing.Short() && n > 300 {
			continue
		}
		l := lowerWithNaNs(r, n)
		want, bound := lauumRowsRef(l, n, k0, k1, 0x1p-53)
		for _, acc := range []accel{accelPortable, accelAVX2, accelAVX512} {
			if acc > bestAccel {
				continue
			}
			var first []float64
			for _, w := range []int{1, 3} {
				name := fmt.Sprintf("n=%d rows [%d,%d) %v workers=%d", n, k0, k1, acc, w)
				restore := setAccel(acc)
				d := Dense{Workers: w}
				got := mat.NewDense(n, n, append([]float64(nil), l...))
				err := d.LauumRows(ctx, got, k0, k1)
				var old *mat.Dense
				if k1-k0 <= lauumStep {
					old = lauumRowsByCopy(ctx, t, d, l, n, k0, k1)
				}
				restore()
				if err != nil {
					t.Fatal(err)
				}
				g := got.RawMatrix().Data
				bad := 0
				for i, v := range g {
					if math.IsNaN(want[i]) {
						if math.Float64bits(v) != math.Float64bits(l[i]) {
							t.Fatalf("%s: element (%d,%d) = %v changed (was %v)", name, i/n, i%n, v, l[i])
						}
						continue
					}
					if e := math.Abs(v - want[i]); !(e <= bound[i]) && bad < 3 {
						bad++
						t.Errorf("%s: (%d,%d) = %v, want %v (error %.3g > bound %.3g)", name, i/n, i%n, v, want[i], e, bound[i])
					}
				}
				if old != nil && !bitsEqual(g, old.RawMatrix().Data) {
					t.Errorf("%s: not the bits of SyrkLower on the copied rows", name)
				}
				if first == nil {
					first = g
				} else if !bitsEqual(g, first) {
					t.Errorf("%s: bits differ from 1 worker's", name)
				}
			}
		}
	}
	if err := (Dense{}).LauumRows(ctx, mat.NewDense(3, 3, nil), 2, 1); err == nil {
		t.Error("rows [2, 1): no error")
	}
	if err := (Dense{}).LauumRows(ctx, mat.NewDense(3, 3, nil), 0, 4); err == nil {
		t.Error("rows [0, 4) of a 3×3 matrix: no error")
	}
}

// lauumRowsByCopy is LauumRows the way solver.Lauum did it: the rows
// [k0, k1) copied out with zeros right of the diagonal, cleared on and below
// the diagonal, and added back as one SyrkLower of the copy.
func lauumRowsByCopy(ctx context.Context, t *testing.T, d Dense, l []float64, n, k0, k1 int) *mat.Dense {
	t.Helper()
	c := mat.NewDense(n, n, append([]float64(nil), l...))
	if k1 == k0 {
		return c
	}
	cd := c.RawMatrix().Data
	panel := mat.NewDense(k1-k0, k1, nil)
	for r := range k1 - k0 {
		row := cd[(k0+r)*n : (k0+r)*n+k0+r+1]
		copy(panel.RawRowView(r), row)
		clear(row)
	}
	if err := d.SyrkLower(ctx, true, 1, panel, 1, c.Slice(0, k1, 0, k1).(*mat.Dense)); err != nil {
		t.Fatal(err)
	}
	return c
}

func bitsEqual[T float32 | float64](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(a[i] != a[i] && b[i] != b[i]) {
			return false
		}
		if a[i] == 0 && math.Signbit(float64(a[i])) != math.Signbit(float64(b[i])) {
			return false
		}
	}
	return true
}

// TestDenseF32LauumRows is TestDenseLauumRows for DenseF32 (bound with u =
// 2⁻²⁴, the same float32 values summed in float64).
func TestDenseF32LauumRows(t *testing.T) {
	r := rand.New(rand.NewPCG(73, 74))
	ctx := context.Background()
	for _, cs := range lauumCases {
		n, k0, k1 := cs[0], cs[1], cs[2]
		if testing.Short() && n > 300 {
			continue
		}
		l64 := lowerWithNaNs(r, n)
		l := make([]float32, n*n)
		for i, v := range l64 {
			l[i] = float32(v)
			l64[i] = float64(l[i])
		}
		want, bound := lauumRowsRef(l64, n, k0, k1, 0x1p-24)
		for _, acc := range []accel{accelPortable, accelAVX2, accelAVX512} {
			if acc > bestAccel {
				continue
			}
			var first []float32
			for _, w := range []int{1, 3} {
				name := fmt.Sprintf("n=%d rows [%d,%d) %v workers=%d", n, k0, k1, acc, w)
				restore := setAccel(acc)
				d := DenseF32{Workers: w}
				got := blas32.General{Rows: n, Cols: n, Stride: n, Data: append([]float32(nil), l...)}
				err := d.LauumRows(ctx, got, k0, k1)
				var old []float32
				if k1-k0 <= lauumStep {
					old = lauumRowsByCopy32(ctx, t, d, l, n, k0, k1)
				}
				restore()
				if err != nil {
					t.Fatal(err)
				}
				bad := 0
				for i, v := range got.Data {
					if math.IsNaN(want[i]) {
						if math.Float32bits(v) != math.Float32bits(l[i]) {
							t.Fatalf("%s: element (%d,%d) = %v changed (was %v)", name, i/n, i%n, v, l[i])
						}
						continue
					}
					if e := math.Abs(float64(v) - want[i]); !(e <= bound[i]) && bad < 3 {
						bad++
						t.Errorf("%s: (%d,%d) = %v, want %v (error %.3g > bound %.3g)", name, i/n, i%n, v, want[i], e, bound[i])
					}
				}
				if old != nil && !bitsEqual(got.Data, old) {
					t.Errorf("%s: not the bits of SyrkLower on the copied rows", name)
				}
				if first == nil {
					first = got.Data
				} else if !bitsEqual(got.Data, first) {
					t.Errorf("%s: bits differ from 1 worker's", name)
				}
			}
		}
	}
	if err := (DenseF32{}).LauumRows(ctx, blas32.General{Rows: 3, Cols: 3, Stride: 3, Data: make([]float32, 9)}, 1, 4); err == nil {
		t.Error("rows [1, 4) of a 3×3 matrix: no error")
	}
}

// lauumRowsByCopy32 is lauumRowsByCopy for DenseF32.
func lauumRowsByCopy32(ctx context.Context, t *testing.T, d DenseF32, l []float32, n, k0, k1 int) []float32 {
	t.Helper()
	c := append([]float32(nil), l...)
	if k1 == k0 {
		return c
	}
	panel := blas32.General{Rows: k1 - k0, Cols: k1, Stride: k1, Data: make([]float32, (k1-k0)*k1)}
	for r := range k1 - k0 {
		row := c[(k0+r)*n : (k0+r)*n+k0+r+1]
		copy(panel.Data[r*k1:], row)
		clear(row)
	}
	if err := d.SyrkLower(ctx, true, 1, panel, 1, blas32.General{Rows: k1, Cols: k1, Stride: n, Data: c}); err != nil {
		t.Fatal(err)
	}
	return c
}
