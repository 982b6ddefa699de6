package checktest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/landmark-ml/landmark/internal/check"
)

// recorder is a testing.TB that records Errorf instead of failing.
type recorder struct {
	testing.TB
	failed []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.failed = append(r.failed, fmt.Sprintf(format, args...))
}

// Refused passes an ErrInput naming the text, and fails a panic, a nil
// error, an error of another kind and an ErrInput that does not name the
// text; Normal is deterministic in its seed and standard normal in scale.
func TestRefused(t *testing.T) {
	input := fmt.Errorf("%w: nil context", check.ErrInput)
	for _, c := range []struct {
		name string
		call func() error
		fail bool
	}{
		{"input", func() error { return input }, false},
		{"panic", func() error { panic("boom") }, true},
		{"nil", func() error { return nil }, true},
		{"other", func() error { return errors.New("nil context") }, true},
		{"other text", func() error { return fmt.Errorf("%w: nil dst", check.ErrInput) }, true},
	} {
		r := &recorder{TB: t}
		Refused(r, c.name, c.call, "nil context")
		if got := len(r.failed) > 0; got != c.fail {
			t.Errorf("%s: failed %v (%q), want %v", c.name, got, r.failed, c.fail)
		}
	}
	a, b := Normal(50, 3, 7), Normal(50, 3, 7)
	var sum, sq float64
	for i, v := range a.RawMatrix().Data {
		if v != b.RawMatrix().Data[i] {
			t.Fatalf("Normal(50, 3, 7) differs at %d between two calls", i)
		}
		sum += v
		sq += v * v
	}
	// 150 standard normal values: the mean has standard deviation 0.08 and
	// the mean square 0.12; 5 of them leave room for any seed.
	if m, ms := sum/150, sq/150; m < -0.41 || m > 0.41 || ms < 0.4 || ms > 1.6 {
		t.Errorf("Normal(50, 3, 7): mean %g, mean square %g, want about 0 and 1", m, ms)
	}
}
