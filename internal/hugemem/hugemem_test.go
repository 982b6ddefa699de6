package hugemem

import "testing"

// TestFloat64s checks the slice has the asked length, is zero and writable,
// for sizes below and above the advice threshold (including a size that is
// not a multiple of the huge page).
func TestFloat64s(t *testing.T) {
	for _, n := range []int{0, 1, 1000, minBytes / 8, minBytes/8 + 12345} {
		s := Float64s(n)
		if len(s) != n {
			t.Fatalf("len %d, want %d", len(s), n)
		}
		for i := range s {
			if s[i] != 0 {
				t.Fatalf("n=%d: s[%d] = %v, want 0", n, i, s[i])
			}
			s[i] = float64(i)
		}
		for i := range s {
			if s[i] != float64(i) {
				t.Fatalf("n=%d: s[%d] = %v after writing %d", n, i, s[i], i)
			}
		}
	}
}
