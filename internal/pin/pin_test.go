package pin

import (
	"fmt"
	"math"
	"testing"
)

// recorder is a testing.TB that records Errorf instead of failing.
type recorder struct {
	testing.TB
	errs []string
}

// Helper does nothing: recorder's messages need no caller line.
func (r *recorder) Helper() {}

// Errorf records the message.
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// Floats accepts values within the relative tolerance and rejects the next
// float64 beyond it; a nil want asks for recording (an error naming the
// values and the digest); Digest depends on the order and every bit.
func TestFloats(t *testing.T) {
	t.Setenv("LANDMARK_PIN_EXACT", "")
	want := []float64{1000, 0}
	ok := []float64{1000 * (1 + Tol/2), Tol / 2}
	var r recorder
	Floats(&r, "ok", Tol, ok, want, "")
	if len(r.errs) != 0 {
		t.Errorf("within tolerance: %q", r.errs)
	}
	r.errs = nil
	Floats(&r, "bad", Tol, []float64{1000 * (1 + 2*Tol), 0}, want, "")
	if len(r.errs) != 1 {
		t.Errorf("beyond tolerance: %q, want one error", r.errs)
	}
	r.errs = nil
	Floats(&r, "short", Tol, ok[:1], want, "")
	if len(r.errs) != 1 {
		t.Errorf("one value for two recorded: %q, want one error", r.errs)
	}
	r.errs = nil
	Floats(&r, "rec", Tol, want, nil, "", want)
	if want := fmt.Sprintf("rec: record want = []float64{1000, 0}, digest %q", Digest(want)); len(r.errs) != 1 || r.errs[0] != want {
		t.Errorf("recording: %q, want %q", r.errs, want)
	}
	r.errs = nil
	t.Setenv("LANDMARK_PIN_EXACT", "1")
	Floats(&r, "exact", Tol, ok, want, Digest(want), ok)
	if len(r.errs) != 1 {
		t.Errorf("exact mode, other bits: %q, want one error", r.errs)
	}
	a, b := []float64{1, 2}, []float64{2, 1}
	if Digest(a) == Digest(b) || Digest(a) == Digest([]float64{1, math.Nextafter(2, 3)}) || Digest(a) != Digest([]float64{1}, []float64{2}) {
		t.Error("Digest must depend on order and every bit, not on how the values are grouped")
	}
}
