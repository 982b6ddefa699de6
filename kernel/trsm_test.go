package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
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
	mustPanic("pack trans shape", func() { p.PackTrans(blas64.General{Rows: 4, Cols: 20, Stride: 20, Data: make([]float64, 80)}) })
	mustPanic("cols not on a panel", func() { p.Cols(8, 20) })
	mustPanic("cols past the end", func() { p.Cols(16, 21) })
	mustPanic("cols 32 not on a panel", func() { NewRowPanels32(4, 40, make([]float32, RowPanels32Len(4, 40))).Cols(16, 40) })
}

// TestRowPanelsPackTransCols checks PackTrans and Cols in both precisions:
// the panels PackTrans makes of b (t×k, strided) into a buffer filled
// with NaN equal Pack's of the explicit transpose (every element written,
// the zeros past the last column included) and multiply bit for bit as them,
// and Cols(c0, c1) of them gives the bits of columns c0… of the whole
// product and of Pack's panels of those columns alone, for column counts
// that are and are not multiples of the panel width, on every path.
func TestRowPanelsPackTransCols(t *testing.T) {
	r := rand.New(rand.NewPCG(95, 96))
	for _, a := range accels() {
		restore := setAccel(a)
		for _, tc := range []int{5, 16, 37, 64, 70} {
			const k, m = 23, 13
			ldb := k + 2
			b := make([]float64, tc*ldb)
			av := make([]float64, m*k)
			for _, s := range [][]float64{b, av} {
				for i := range s {
					s[i] = r.NormFloat64()
				}
			}
			bt := make([]float64, k*tc)
			for i := range tc {
				for p := range k {
					bt[p*tc+i] = b[i*ldb+p]
				}
			}
			b32, bt32, av32 := make([]float32, len(b)), make([]float32, len(bt)), make([]float32, len(av))
			for i, v := range b {
				b32[i] = float32(v)
			}
			for i, v := range bt {
				bt32[i] = float32(v)
			}
			for i, v := range av {
				av32[i] = float32(v)
			}
			nan := func(n int) []float64 {
				s := make([]float64, n)
				for i := range s {
					s[i] = math.NaN()
				}
				return s
			}
			nan32 := func(n int) []float32 {
				s := make([]float32, n)
				for i := range s {
					s[i] = float32(math.NaN())
				}
				return s
			}
			am := blas64.General{Rows: m, Cols: k, Stride: k, Data: av}
			am32 := blas32.General{Rows: m, Cols: k, Stride: k, Data: av32}
			pt := NewRowPanels(k, tc, nan(RowPanelsLen(k, tc)))
			pt.PackTrans(blas64.General{Rows: tc, Cols: k, Stride: ldb, Data: b})
			pe := PackRowPanels(blas64.General{Rows: k, Cols: tc, Stride: tc, Data: bt}, make([]float64, RowPanelsLen(k, tc)))
			pt32 := NewRowPanels32(k, tc, nan32(RowPanels32Len(k, tc)))
			pt32.PackTrans(blas32.General{Rows: tc, Cols: k, Stride: ldb, Data: b32})
			pe32 := PackRowPanels32(blas32.General{Rows: k, Cols: tc, Stride: tc, Data: bt32}, make([]float32, RowPanels32Len(k, tc)))
			if !slices.Equal(pt.data, pe.data) || !slices.Equal(pt32.data, pe32.data) {
				t.Fatalf("t=%d: PackTrans's panels differ from Pack's of the transpose", tc)
			}
			y, ye := make([]float64, m*tc), make([]float64, m*tc)
			pt.MulRows(blas64.General{Rows: m, Cols: tc, Stride: tc, Data: y}, am, false)
			pe.MulRows(blas64.General{Rows: m, Cols: tc, Stride: tc, Data: ye}, am, false)
			y32, ye32 := make([]float32, m*tc), make([]float32, m*tc)
			pt32.MulRows(blas32.General{Rows: m, Cols: tc, Stride: tc, Data: y32}, am32, false)
			pe32.MulRows(blas32.General{Rows: m, Cols: tc, Stride: tc, Data: ye32}, am32, false)
			for i := range y {
				if math.Float64bits(y[i]) != math.Float64bits(ye[i]) || math.Float32bits(y32[i]) != math.Float32bits(ye32[i]) {
					t.Fatalf("%v t=%d: PackTrans's product differs from Pack's of the transpose at %d: %v %v, %v %v", a, tc, i, y[i], ye[i], y32[i], ye32[i])
				}
			}
			// Columns from the second panel on (16 or 32), then the last few.
			for _, c0 := range []int{16, 32} {
				if c0 >= tc {
					continue
				}
				w := tc - c0
				if c0 == 16 && tc > 32 {
					w = 16 // one whole panel in the middle
				}
				sub := make([]float64, k*w)
				for p := range k {
					copy(sub[p*w:], bt[p*tc+c0:p*tc+c0+w])
				}
				ps := PackRowPanels(blas64.General{Rows: k, Cols: w, Stride: w, Data: sub}, make([]float64, RowPanelsLen(k, w)))
				yc, ys := make([]float64, m*w), make([]float64, m*w)
				pt.Cols(c0, c0+w).MulRows(blas64.General{Rows: m, Cols: w, Stride: w, Data: yc}, am, false)
				ps.MulRows(blas64.General{Rows: m, Cols: w, Stride: w, Data: ys}, am, false)
				for i := range m {
					for c := range w {
						if g := yc[i*w+c]; math.Float64bits(g) != math.Float64bits(y[i*tc+c0+c]) || math.Float64bits(g) != math.Float64bits(ys[i*w+c]) {
							t.Fatalf("%v t=%d Cols(%d, %d): (%d,%d) = %v, whole product %v, own panels %v", a, tc, c0, c0+w, i, c, g, y[i*tc+c0+c], ys[i*w+c])
						}
					}
				}
				if c0 != 32 {
					continue
				}
				sub32 := make([]float32, k*w)
				for p := range k {
					copy(sub32[p*w:], bt32[p*tc+c0:p*tc+c0+w])
				}
				ps32 := PackRowPanels32(blas32.General{Rows: k, Cols: w, Stride: w, Data: sub32}, make([]float32, RowPanels32Len(k, w)))
				yc32, ys32 := make([]float32, m*w), make([]float32, m*w)
				pt32.Cols(c0, c0+w).MulRows(blas32.General{Rows: m, Cols: w, Stride: w, Data: yc32}, am32, false)
				ps32.MulRows(blas32.General{Rows: m, Cols: w, Stride: w, Data: ys32}, am32, false)
				for i := range m {
					for c := range w {
						if g := yc32[i*w+c]; math.Float32bits(g) != math.Float32bits(y32[i*tc+c0+c]) || math.Float32bits(g) != math.Float32bits(ys32[i*w+c]) {
							t.Fatalf("%v t=%d float32 Cols(%d, %d): (%d,%d) = %v, whole product %v, own panels %v", a, tc, c0, c0+w, i, c, g, y32[i*tc+c0+c], ys32[i*w+c])
						}
					}
				}
			}
		}
		restore()
	}
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
