package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
)

// widenCase is a random problem for the row kernels: rows rows of k values
// at stride lda (a float32, widened exactly into a64), x, s and y float64.
type widenCase struct {
	a32     []float32
	a64     []float64
	x, s, y []float64
}

func newWidenCase(r *rand.Rand, rows, k, lda int) widenCase {
	n := max(0, (rows-1)*lda+k)
	c := widenCase{a32: make([]float32, n), a64: make([]float64, n)}
	for i := range c.a32 {
		c.a32[i] = float32(2*r.Float64() - 1)
		c.a64[i] = float64(c.a32[i])
	}
	rnd := func(m int) []float64 {
		v := make([]float64, m)
		for i := range v {
			v[i] = r.NormFloat64()
		}
		return v
	}
	c.x, c.s, c.y = rnd(k), rnd(rows), rnd(k)
	return c
}

// refDot is RowDots's documented order written out for one row: sixteen
// lane chains of FMAs over the first 16·⌊k/16⌋ columns, lanes l and l+8
// added, the eight sums added from the left, then the tail's FMAs.
func refDot(a, x []float64) float64 {
	k := len(x)
	k16 := k - k%16
	var lane [16]float64
	for j := 0; j < k16; j++ {
		lane[j%16] = math.FMA(x[j], a[j], lane[j%16])
	}
	s := lane[0] + lane[8]
	for l := 1; l < 8; l++ {
		s += lane[l] + lane[l+8]
	}
	for j := k16; j < k; j++ {
		s = math.FMA(a[j], x[j], s)
	}
	return s
}

// sameBits fails unless got and want hold the same float64 bits.
func sameBits(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s: [%d] = %v, want %v", what, i, got[i], want[i])
		}
	}
}

// RowDots, RowDots32, RowAxpys and RowAxpys32 on every SIMD path give the
// bits of their documented order (refDot; a chain of FMAs per column for
// the axpys; RowDots and RowAxpys on the portable path on amd64 gonum's
// dot and axpy, refRowDots and refRowAxpys) for k = 0 … 17 columns (every tail of the 16-column step with
// nothing, one step or part of one before it), 16·m + tail for larger k,
// 1 to 9 rows (the AVX-512 kernel's four rows, the AVX2 kernel's two, and
// single rows left over) and a row stride larger than k; the float32
// versions give the float64 ones' bits on the widened rows. The dots are
// also within γ_k·Σ|a_j·x_j| (u = 2⁻⁵³) of a plain left-to-right sum: a
// check of the reference itself.
func TestRowKernels(t *testing.T) {
	r := rand.New(rand.NewPCG(90, 91))
	var ks []int
	for k := 0; k <= 17; k++ {
		ks = append(ks, k)
	}
	ks = append(ks, 31, 32, 33, 47, 100, 257)
	for _, a := range accels() {
		restore := setAccel(a)
		for _, k := range ks {
			for _, rows := range []int{1, 2, 3, 4, 5, 7, 9} {
				lda := k + rows%3 // the stride past k for some row counts
				c := newWidenCase(r, rows, k, lda)
				what := func(f string) string { return fmt.Sprintf("%v %s k=%d rows=%d", a, f, k, rows) }
				want := make([]float64, rows)
				for i := range rows {
					row := c.a64[i*lda : i*lda+k]
					want[i] = refDot(row, c.x)
					var plain, mag float64
					for j, v := range row {
						plain += v * c.x[j]
						mag += math.Abs(v * c.x[j])
					}
					g := float64(k) * 0x1p-53 / (1 - float64(k)*0x1p-53)
					if d := math.Abs(want[i] - plain); d > 2*g*mag {
						t.Fatalf("%s: reference %v, plain sum %v (bound %v)", what("refDot"), want[i], plain, 2*g*mag)
					}
				}
				got := make([]float64, rows)
				RowDots(got, c.a64, lda, c.x)
				sameBits(t, what("RowDots"), got, refRowDots(a, c.a64, lda, c.x, want))
				clear(got)
				RowDots32(got, c.a32, lda, c.x)
				sameBits(t, what("RowDots32"), got, want)

				wantY := append([]float64(nil), c.y...)
				for i := range rows {
					for j := range k {
						wantY[j] = math.FMA(c.s[i], c.a64[i*lda+j], wantY[j])
					}
				}
				y := append([]float64(nil), c.y...)
				RowAxpys(y, c.s, c.a64, lda)
				sameBits(t, what("RowAxpys"), y, refRowAxpys(a, c.y, c.s, c.a64, lda, wantY))
				y = append(y[:0], c.y...)
				RowAxpys32(y, c.s, c.a32, lda)
				sameBits(t, what("RowAxpys32"), y, wantY)
			}
		}
		restore()
	}
}

// refRowDots is what RowDots gives on path a: want (refDot's bits), or on
// the portable path on amd64 gonum's Ddot of each row (portableGonum),
// checked against want within 2γ_k·Σ|a_j·x_j| (two orders of the same
// sum, each within γ_k of the exact one: Higham, eq. 3.5).
func refRowDots(a accel, rows []float64, lda int, x, want []float64) []float64 {
	if !portableGonum || a != accelPortable {
		return want
	}
	k := len(x)
	g := float64(k) * 0x1p-53 / (1 - float64(k)*0x1p-53)
	out := make([]float64, len(want))
	for r := range out {
		row := rows[r*lda : r*lda+k]
		out[r] = blas64.Dot(blas64.Vector{N: k, Inc: 1, Data: row}, blas64.Vector{N: k, Inc: 1, Data: x})
		var mag float64
		for j, v := range row {
			mag += math.Abs(v * x[j])
		}
		if d := math.Abs(out[r] - want[r]); d > 2*g*mag {
			panic(fmt.Sprintf("gonum's dot %v and the FMA chains' %v differ by more than %v", out[r], want[r], 2*g*mag))
		}
	}
	return out
}

// refRowAxpys is what RowAxpys gives on path a from y: want (the FMA
// chains' bits), or on the portable path on amd64 gonum's Daxpy row by
// row (a product and a sum rounded per row; the solves built on it are
// held to their error bounds by package solver's tests).
func refRowAxpys(a accel, y, s, rows []float64, lda int, want []float64) []float64 {
	if !portableGonum || a != accelPortable {
		return want
	}
	out := append([]float64(nil), y...)
	for r, c := range s {
		blas64.Axpy(c, blas64.Vector{N: len(y), Inc: 1, Data: rows[r*lda : r*lda+len(y)]}, blas64.Vector{N: len(y), Inc: 1, Data: out})
	}
	return out
}

// Widen converts exactly on every path, for lengths 0 … 40 (tails of the
// 16-value step) and from an offset source, and leaves dst past len(dst)
// alone.
func TestWiden(t *testing.T) {
	r := rand.New(rand.NewPCG(92, 93))
	src := make([]float32, 64)
	for i := range src {
		src[i] = float32(r.NormFloat64())
	}
	src[5] = float32(math.Inf(-1))
	src[6] = float32(math.Copysign(0, -1))
	for _, a := range accels() {
		restore := setAccel(a)
		for n := 0; n <= 40; n++ {
			for _, off := range []int{0, 3} {
				dst := make([]float64, n+1)
				dst[n] = 7
				Widen(dst[:n], src[off:])
				for j := range n {
					if math.Float64bits(dst[j]) != math.Float64bits(float64(src[off+j])) {
						t.Fatalf("%v n=%d off=%d: dst[%d] = %v, want %v", a, n, off, j, dst[j], src[off+j])
					}
				}
				if dst[n] != 7 {
					t.Fatalf("%v n=%d: wrote past len(dst)", a, n)
				}
			}
		}
		restore()
	}
}

// The row kernels panic, as an index out of range would, when a is too
// short for the rows asked for, and do nothing for no rows or no columns.
func TestRowKernelsBounds(t *testing.T) {
	a := make([]float64, 10)
	out := make([]float64, 2)
	RowDots(out[:0], a, 4, make([]float64, 3))
	RowDots(out, a, 4, nil)
	defer func() {
		if recover() == nil {
			t.Fatal("RowDots with rows past the end of a did not panic")
		}
	}()
	RowDots(out, a, 8, make([]float64, 3)) // needs 11 values
}

// PanelAxpys and PanelAxpys32 on every SIMD path give the bits of a chain
// of FMAs per element over the rows in order, for m = 0 … 17 and 40
// columns of a (rows of the panel y), 1 to 9 rows (four at a time in the
// kernels, the rest in Go) and a row stride past m; the float32 version
// gives the float64 one's bits on the widened rows.
func TestPanelAxpys(t *testing.T) {
	r := rand.New(rand.NewPCG(94, 95))
	for _, a := range accels() {
		restore := setAccel(a)
		for m := 0; m <= 40; m += 1 + m/17*22 {
			for _, rows := range []int{1, 3, 4, 5, 8, 9, 12, 13, 16} {
				lda := m + rows%2
				c := newWidenCase(r, rows, m, lda)
				b := make([]float64, 16*rows)
				y0 := make([]float64, 16*m)
				for i := range b {
					b[i] = r.NormFloat64()
				}
				for i := range y0 {
					y0[i] = r.NormFloat64()
				}
				want := append([]float64(nil), y0...)
				for i := range rows {
					for p := range m {
						for s := range 16 {
							want[16*p+s] = math.FMA(c.a64[i*lda+p], b[16*i+s], want[16*p+s])
						}
					}
				}
				what := fmt.Sprintf("%v m=%d rows=%d", a, m, rows)
				y := append([]float64(nil), y0...)
				PanelAxpys(y, b, c.a64, lda)
				sameBits(t, what+" PanelAxpys", y, want)
				y = append(y[:0], y0...)
				PanelAxpys32(y, b, c.a32, lda)
				sameBits(t, what+" PanelAxpys32", y, want)
			}
		}
		restore()
	}
}

// PanelDots and PanelDots32 on every SIMD path give the bits of a chain of
// FMAs from zero per element over the columns of a in order, for 1 to 17
// rows (the AVX-512 tile's eight, the AVX2 tiles' six, four and two, and a
// single row left over), k = 0 … 17 and 40 and a row stride past k; the
// float32 version gives the float64 one's bits on the widened rows, and
// k = 0 sets out to zero.
func TestPanelDots(t *testing.T) {
	r := rand.New(rand.NewPCG(96, 97))
	for _, a := range accels() {
		restore := setAccel(a)
		for k := 0; k <= 40; k += 1 + k/17*22 {
			for rows := 1; rows <= 17; rows++ {
				lda := k + rows%2
				c := newWidenCase(r, rows, k, lda)
				b := make([]float64, 16*k)
				for i := range b {
					b[i] = r.NormFloat64()
				}
				want := make([]float64, 16*rows)
				for i := range rows {
					for s := range 16 {
						var acc float64
						for p := range k {
							acc = math.FMA(c.a64[i*lda+p], b[16*p+s], acc)
						}
						want[16*i+s] = acc
					}
				}
				what := fmt.Sprintf("%v k=%d rows=%d", a, k, rows)
				out := make([]float64, 16*rows)
				for i := range out {
					out[i] = math.NaN()
				}
				PanelDots(out, b, c.a64, lda)
				sameBits(t, what+" PanelDots", out, want)
				for i := range out {
					out[i] = math.NaN()
				}
				PanelDots32(out, b, c.a32, lda)
				sameBits(t, what+" PanelDots32", out, want)
			}
		}
		restore()
	}
}

// PanelDots and PanelDots32 allocate nothing, also with a single row left
// over after the tiles (rows = 1, 3, 7, 9: the AVX-512 tile's eight and
// the AVX2 tiles' six, four and two leave one) on every SIMD path; the
// bits of those cases are TestPanelDots'.
func TestPanelDotsNoAllocs(t *testing.T) {
	for _, a := range accels() {
		restore := setAccel(a)
		const k = 40
		b := make([]float64, 16*k)
		for i := range b {
			b[i] = float64(i%7) - 3
		}
		for _, rows := range []int{1, 3, 7, 9} {
			a64, a32 := make([]float64, rows*k), make([]float32, rows*k)
			out := make([]float64, 16*rows)
			if n := testing.AllocsPerRun(10, func() { PanelDots(out, b, a64, k) }); n != 0 {
				t.Errorf("%v rows=%d: PanelDots allocated %v times a call", a, rows, n)
			}
			if n := testing.AllocsPerRun(10, func() { PanelDots32(out, b, a32, k) }); n != 0 {
				t.Errorf("%v rows=%d: PanelDots32 allocated %v times a call", a, rows, n)
			}
		}
		restore()
	}
}
