package cmdline

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// On a terminal the iteration line is rewritten in place: each rewrite is
// padded to the longest one so far so no tail of a longer line is left,
// and the next whole line starts on a fresh line.
func TestLiveIterationLine(t *testing.T) {
	var b bytes.Buffer
	p := &Progress{w: &b, live: true}
	p.Iteration("", 9, 10, 1e-3, time.Second, 1500*time.Millisecond)
	p.Iteration("", 10, 10, 1e-4, 2*time.Second, 0)
	p.Line("done")
	parts := strings.Split(b.String(), "\r")
	if len(parts) != 3 || !strings.Contains(parts[1], "iteration 9/10, residual 1.00e-03, solve ETA 1.5s") {
		t.Fatalf("live output %q", b.String())
	}
	second, rest, _ := strings.Cut(parts[2], "\n")
	if len(second) != len(parts[1]) || !strings.HasPrefix(second, "    iteration 10/10, residual 1.00e-04, solve ETA 0s ") || rest != "done\n" {
		t.Errorf("second live line %q (want padded to %d), then %q", second, len(parts[1]), rest)
	}
}
