package kernel

import "math"

// Constants of the portable exponential below.
const (
	log2e   = 1.4426950408889634073599246810018921374266459541530
	ln2Hi   = 6.93147180369123816490e-01 // math.Ln2Hi: k·ln2Hi is exact for |k| < 2^20
	ln2Lo   = 1.90821492927058770002e-10
	expClip = -746.0 // e^x rounds to zero below −745.13…

	roundMagic = 0x1.8p52 // adding it rounds |v| < 2^51 to an integer
)

// expCoef holds 1/i! for i = 13 … 0: the Taylor polynomial of e^r on
// |r| ≤ ln2/2, whose remainder (ln2/2)^14/14! ≈ 4e-18 is far below half an ulp.
var expCoef = func() [14]float64 {
	var c [14]float64
	f := 1.0
	for i := 1; i <= 13; i++ {
		f *= float64(i)
	}
	for i := 13; i >= 0; i-- {
		c[13-i] = 1 / f
		f /= float64(max(i, 1))
	}
	return c
}()

// expNeg returns e^x for x ≤ 0 (any x ≤ 0 including −Inf; NaN gives NaN).
//
// Range reduction x = k·ln2 + r with k = round(x·log2e) and |r| ≤ ln2/2
// (Cody–Waite: ln2 split in a high part with 32 significant bits, so k·ln2Hi
// is exact, and a low part), then the degree-13 Taylor polynomial of e^r by
// Horner's rule, then the exact scaling by 2^k. Results that are subnormal
// (x < −708.4) are scaled in two steps with math.Ldexp so that they round
// once. The error is within a few ulps of math.Exp (see TestExpNeg). The
// SIMD kernels reduce y = x·log2e instead, against a table: 2^(j/16) and
// VSCALEFPD on AVX-512, 2^(j/4) and integer exponent arithmetic on AVX2
// (kernel/internal/asm, gen_avx512.go and gen_avx2.go; TestExpRowSIMD).
func expNeg(x float64) float64 {
	if x < expClip {
		return 0
	}
	// Round x·log2e to the nearest integer (ties to even) by adding and
	// subtracting 1.5·2^52, which also leaves k in the low bits of the sum.
	y := x*log2e + roundMagic
	kf := y - roundMagic
	r := x - kf*ln2Hi
	r -= kf * ln2Lo
	c := &expCoef
	p := c[0]
	p = p*r + c[1]
	p = p*r + c[2]
	p = p*r + c[3]
	p = p*r + c[4]
	p = p*r + c[5]
	p = p*r + c[6]
	p = p*r + c[7]
	p = p*r + c[8]
	p = p*r + c[9]
	p = p*r + c[10]
	p = p*r + c[11]
	p = p*r + c[12]
	p = p*r + c[13]
	k := int(int64(math.Float64bits(y) - math.Float64bits(roundMagic)))
	if k >= -1022 {
		return p * math.Float64frombits(uint64(k+1023)<<52)
	}
	return math.Ldexp(p, k)
}

// gaussRow replaces row[j] = x·c_j by exp(ng·max(0, xx + cc[j] − 2·row[j])).
func gaussRow(row, cc []float64, xx, ng float64) {
	cc = cc[:len(row)]
	for j, dot := range row {
		t := xx + cc[j] - 2*dot
		if t < 0 {
			t = 0 // round-off in the expanded form
		}
		row[j] = expNeg(ng * t)
	}
}

// gaussRowDot is gaussRow that also returns Σ_j row[j]·v[j].
func gaussRowDot(row, cc, v []float64, xx, ng float64) float64 {
	cc = cc[:len(row)]
	v = v[:len(row)]
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= len(row); j += 4 {
		gaussRow(row[j:j+4], cc[j:j+4], xx, ng)
		s0 += row[j] * v[j]
		s1 += row[j+1] * v[j+1]
		s2 += row[j+2] * v[j+2]
		s3 += row[j+3] * v[j+3]
	}
	gaussRow(row[j:], cc[j:], xx, ng)
	for ; j < len(row); j++ {
		s0 += row[j] * v[j]
	}
	return (s0 + s1) + (s2 + s3)
}

// axpy sets y += a·x.
func axpy(a float64, x, y []float64) {
	y = y[:len(x)]
	for j, v := range x {
		y[j] += a * v
	}
}
