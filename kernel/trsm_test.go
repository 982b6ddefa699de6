package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
)

// TestRowPanels checks RowPanels.MulRows (and the float32 RowPanels32)
// against plain float64 sums on every path this CPU has, for shapes that
// are and are not multiples of the 8-row tile and of the 16 (32) column
// panel, k = 0 included, setting and subtracting, on a view of rows
// (Rows) of a larger packed matrix, with strided a and y. Bound: each
// element is a k-term dot product, whose rounding error is at most
// γ_k·Σ|a_p·b_p| (Higham, eq. 3.5), plus one rounding of the subtraction
// from y: (k+2)·u·(Σ|a_p·b_p| + |y|) covers both, for float64 and float32.
// The bits must not depend on how the rows and columns are split: MulRows
// on every single row and on a column slice of the panels equals the whole
// call bit for bit (same sum per element, edge tiles through a scratch).
func TestRowPanels(t *testing.T) {
	r := rand.New(rand.NewPCG(91, 92))
	for _, a := range accels() {
		restore := setAccel(a)
		for _, m := range []int{1, 7, 8, 9, 17} {
			for _, k := range []int{0, 1, 5, 64} {
				for _, tc := range []int{1, 15, 16, 17, 33, 64} {
					for _, sub := range []bool{false, true} {
						testRowPanels64(t, r, a, m, k, tc, sub)
						testRowPanels32(t, r, a, m, k, tc, sub)
					}
				}
			}
		}
		restore()
	}
}

func testRowPanels64(t *testing.T, r *rand.Rand, acc accel, m, k, tc int, sub bool) {
	t.Helper()
	const off = 3 // rows of the packed matrix before the view
	lda, ldy := k+5, tc+3
	a := make([]float64, m*lda)
	y0 := make([]float64, m*ldy)
	b := make([]float64, (k+off)*tc)
	for _, s := range [][]float64{a, y0, b} {
		for i := range s {
			s[i] = r.NormFloat64()
		}
	}
	full := PackRowPanels(blas64.General{Rows: k + off, Cols: tc, Stride: tc, Data: b}, make([]float64, RowPanelsLen(k+off, tc)))
	p := full.Rows(off, off+k)
	y := append([]float64(nil), y0...)
	p.MulRows(blas64.General{Rows: m, Cols: tc, Stride: ldy, Data: y}, blas64.General{Rows: m, Cols: k, Stride: lda, Data: a}, sub)
	u := math.Pow(2, -53)
	for i := range m {
		for c := 0; c < ldy; c++ {
			got := y[i*ldy+c]
			if c >= tc {
				if got != y0[i*ldy+c] {
					t.Fatalf("%v m=%d k=%d t=%d: y[%d][%d] past column t changed", acc, m, k, tc, i, c)
				}
				continue
			}
			var want, mag float64
			for q := range k {
				v := a[i*lda+q] * b[(off+q)*tc+c]
				want += v
				mag += math.Abs(v)
			}
			if sub {
				mag += math.Abs(y0[i*ldy+c])
				want = y0[i*ldy+c] - want
			}
			if d := math.Abs(got - want); d > float64(k+2)*u*mag {
				t.Fatalf("%v m=%d k=%d t=%d sub=%v: y[%d][%d] = %v, want %v (bound %.3g)", acc, m, k, tc, sub, i, c, got, want, float64(k+2)*u*mag)
			}
		}
	}
	// Row by row, and the columns from the second panel on: the same bits.
	for i := range m {
		yr := append([]float64(nil), y0[i*ldy:(i+1)*ldy]...)
		p.MulRows(blas64.General{Rows: 1, Cols: tc, Stride: ldy, Data: yr}, blas64.General{Rows: 1, Cols: k, Stride: lda, Data: a[i*lda:]}, sub)
		for c := range tc {
			if math.Float64bits(yr[c]) != math.Float64bits(y[i*ldy+c]) {
				t.Fatalf("%v m=%d k=%d t=%d: row %d alone differs at column %d", acc, m, k, tc, i, c)
			}
		}
	}
	if tc > 16 && k > 0 {
		bs := PackRowPanels(blas64.General{Rows: k, Cols: tc - 16, Stride: tc, Data: b[off*tc+16:]}, make([]float64, RowPanelsLen(k, tc-16)))
		ys := append([]float64(nil), y0...)
		bs.MulRows(blas64.General{Rows: m, Cols: tc - 16, Stride: ldy, Data: ys[16:]}, blas64.General{Rows: m, Cols: k, Stride: lda, Data: a}, sub)
		for i := range m {
			for c := 16; c < tc; c++ {
				if math.Float64bits(ys[i*ldy+c]) != math.Float64bits(y[i*ldy+c]) {
					t.Fatalf("%v m=%d k=%d t=%d: column slice differs at [%d][%d]", acc, m, k, tc, i, c)
				}
			}
		}
	}
}

func testRowPanels32(t *testing.T, r *rand.Rand, acc accel, m, k, tc int, sub bool) {
	t.Helper()
	const off = 3
	lda, ldy := k+5, tc+3
	a := make([]float32, m*lda)
	y0 := make([]float32, m*ldy)
	b := make([]float32, (k+off)*tc)
	for _, s := range [][]float32{a, y0, b} {
		for i := range s {
			s[i] = float32(r.NormFloat64())
		}
	}
	full := PackRowPanels32(blas32.General{Rows: k + off, Cols: tc, Stride: tc, Data: b}, make([]float32, RowPanels32Len(k+off, tc)))
	p := full.Rows(off, off+k)
	y := append([]float32(nil), y0...)
	p.MulRows(blas32.General{Rows: m, Cols: tc, Stride: ldy, Data: y}, blas32.General{Rows: m, Cols: k, Stride: lda, Data: a}, sub)
	u := math.Pow(2, -24)
	for i := range m {
		for c := 0; c < ldy; c++ {
			got := float64(y[i*ldy+c])
			if c >= tc {
				if y[i*ldy+c] != y0[i*ldy+c] {
					t.Fatalf("%v m=%d k=%d t=%d: y32[%d][%d] past column t changed", acc, m, k, tc, i, c)
				}
				continue
			}
			var want, mag float64
			for q := range k {
				v := float64(a[i*lda+q]) * float64(b[(off+q)*tc+c])
				want += v
				mag += math.Abs(v)
			}
			if sub {
				mag += math.Abs(float64(y0[i*ldy+c]))
				want = float64(y0[i*ldy+c]) - want
			}
			if d := math.Abs(got - want); d > float64(k+2)*u*mag {
				t.Fatalf("%v m=%d k=%d t=%d sub=%v: y32[%d][%d] = %v, want %v", acc, m, k, tc, sub, i, c, got, want)
			}
		}
	}
	for i := range m {
		yr := append([]float32(nil), y0[i*ldy:(i+1)*ldy]...)
		p.MulRows(blas32.General{Rows: 1, Cols: tc, Stride: ldy, Data: yr}, blas32.General{Rows: 1, Cols: k, Stride: lda, Data: a[i*lda:]}, sub)
		for c := range tc {
			if math.Float32bits(yr[c]) != math.Float32bits(y[i*ldy+c]) {
				t.Fatalf("%v m=%d k=%d t=%d: float32 row %d alone differs at column %d", acc, m, k, tc, i, c)
			}
		}
	}
}

// TestRowPanelsBadInput: mismatched shapes and short buffers panic with a
// message (programming errors, as gonum's BLAS wrappers do).
func TestRowPanelsBadInput(t *testing.T) {
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", name)
			}
		}()
		f()
	}
	p := NewRowPanels(4, 20, make([]float64, RowPanelsLen(4, 20)))
	mustPanic("short buffer", func() { NewRowPanels(4, 20, make([]float64, 10)) })
	mustPanic("short buffer 32", func() { NewRowPanels32(4, 40, make([]float32, 10)) })
	mustPanic("rows", func() { p.Rows(2, 5) })
	mustPanic("a columns", func() {
		p.MulRows(blas64.General{Rows: 1, Cols: 20, Stride: 20, Data: make([]float64, 20)}, blas64.General{Rows: 1, Cols: 3, Stride: 3, Data: make([]float64, 3)}, true)
	})
	mustPanic("pack shape", func() { p.Pack(blas64.General{Rows: 3, Cols: 20, Stride: 20, Data: make([]float64, 60)}) })
}

// MulRows allocates nothing, also when a last group of fewer than eight
// rows is left (m = 9, 12) or there are fewer than eight in all (m = 1,
// 5): those run the tile on the last eight rows again, or on each row
// alone, instead of a zero-padded copy (which allocated 8·k values each
// call). The bits are checked by TestRowPanels (every row alone gives the
// bits of the whole call).
func TestRowPanelsNoAllocs(t *testing.T) {
	r := rand.New(rand.NewPCG(93, 94))
	for _, a := range accels() {
		restore := setAccel(a)
		for _, m := range []int{1, 5, 9, 12} {
			const k, tc = 64, 40
			b := make([]float64, k*tc)
			for i := range b {
				b[i] = r.NormFloat64()
			}
			p := PackRowPanels(blas64.General{Rows: k, Cols: tc, Stride: tc, Data: b}, make([]float64, RowPanelsLen(k, tc)))
			p32 := NewRowPanels32(k, tc, make([]float32, RowPanels32Len(k, tc)))
			av, yv := make([]float64, m*k), make([]float64, m*tc)
			av32, yv32 := make([]float32, m*k), make([]float32, m*tc)
			y, am := blas64.General{Rows: m, Cols: tc, Stride: tc, Data: yv}, blas64.General{Rows: m, Cols: k, Stride: k, Data: av}
			y32, am32 := blas32.General{Rows: m, Cols: tc, Stride: tc, Data: yv32}, blas32.General{Rows: m, Cols: k, Stride: k, Data: av32}
			if n := testing.AllocsPerRun(10, func() { p.MulRows(y, am, true) }); n != 0 {
				t.Errorf("%v m=%d: MulRows allocated %v times a call", a, m, n)
			}
			if n := testing.AllocsPerRun(10, func() { p32.MulRows(y32, am32, false) }); n != 0 {
				t.Errorf("%v m=%d: float32 MulRows allocated %v times a call", a, m, n)
			}
		}
		restore()
	}
}
