package eta

import (
	"testing"
	"time"
)

// The estimate is (maxIter − it) times the mean time per iteration after
// the first one seen: first seen at iteration 2, iteration 5 three seconds
// later → 1 s per iteration, 15 left of 20 → 15 s.
func TestIterLeft(t *testing.T) {
	var c Iter
	t0 := time.Unix(1000, 0)
	if got := c.at(t0, 2, 20); got != 0 {
		t.Errorf("first iteration seen: %v, want 0", got)
	}
	if got := c.at(t0.Add(3*time.Second), 5, 20); got != 15*time.Second {
		t.Errorf("after iteration 5: %v, want 15s", got)
	}
	if got := c.at(t0.Add(4*time.Second), 6, 0); got != 0 {
		t.Errorf("unknown maxIter: %v, want 0", got)
	}
	if got := c.at(t0.Add(30*time.Second), 25, 20); got != 0 {
		t.Errorf("past maxIter: %v, want 0", got)
	}
}
