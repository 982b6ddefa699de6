// Package pin compares a computation's outputs with values recorded from an
// earlier version of the code for the same seed, in tests that guard
// behaviour-preserving refactorings (functions split into pieces, code
// shared): the same random draws in the same order, the same arithmetic.
//
// Outputs that pass through the kernel engine or the solvers depend in
// their last bits on the SIMD path the CPU selects (AVX-512, AVX2, generic
// Go) and on the engine's blocking, which other work changes on purpose.
// So by default Floats allows a relative 1e-9: a reordered or extra random
// draw picks other landmarks, clusters or rows and moves such values in
// their leading digits, far beyond it. (The pinned tests pass with
// LANDMARK_SIMD=avx2 and LANDMARK_NOSIMD=1 on the recording machine.) With LANDMARK_PIN_EXACT=1 the
// comparison is bit for bit (Digest), as when the values were recorded: on
// the recording machine and commit this shows a refactoring changed no bit.
package pin

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Relative tolerances of Floats outside exact mode: Tol for float64
// arithmetic, Tol32 for outputs computed in float32 (ε = 2⁻²⁴ ≈ 6e-8;
// across SIMD paths such scores were seen to move by up to 4e-7).
const (
	Tol   = 1e-9
	Tol32 = 1e-5
)

// Exact reports whether LANDMARK_PIN_EXACT=1 asks for bit-for-bit comparisons.
func Exact() bool { return os.Getenv("LANDMARK_PIN_EXACT") == "1" }

// Digest is the first 16 hex digits of the SHA-256 of the bits of the
// values, in order (little-endian IEEE 754 float64).
func Digest(vals ...[]float64) string {
	h := sha256.New()
	var b [8]byte
	for _, v := range vals {
		for _, x := range v {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
			h.Write(b[:])
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Floats checks got against the recorded want: every value within tol
// (relative, at least absolute tol near zero; Tol or Tol32), and in exact mode also
// Digest(all...) against wantDigest. all are the full outputs (got is
// usually a few of them). With want nil it prints got and the digest in Go
// syntax, for recording, and fails the test.
func Floats(t testing.TB, what string, tol float64, got, want []float64, wantDigest string, all ...[]float64) {
	t.Helper()
	dg := Digest(all...)
	if want == nil {
		var b strings.Builder
		for i, v := range got {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
		t.Errorf("%s: record want = []float64{%s}, digest %q", what, b.String(), dg)
		return
	}
	if len(got) != len(want) {
		t.Errorf("%s: %d values, recorded %d", what, len(got), len(want))
		return
	}
	for i := range got {
		if d := math.Abs(got[i] - want[i]); !(d <= tol*math.Max(1, math.Abs(want[i]))) {
			t.Errorf("%s[%d] = %v, recorded %v (difference %g)", what, i, got[i], want[i], d)
		}
	}
	if Exact() && dg != wantDigest {
		t.Errorf("%s: digest %s, recorded %s (LANDMARK_PIN_EXACT=1: bit for bit)", what, dg, wantDigest)
	}
}
