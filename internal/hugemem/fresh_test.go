package hugemem

import (
	"math"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/landmark-ml/landmark/internal/heap"
)

// TestFreshPolicy: LANDMARK_HUGEPAGES=0 never advises and =1 always does,
// whatever the probe measured; otherwise the probe decides, advising above
// 2.5 ms per MiB: machine E's 4 KiB cost (3.4 ms) advises, machine D's
// (0.45 ms) and a failed probe (0) do not.
func TestFreshPolicy(t *testing.T) {
	for _, c := range []struct {
		env  string
		cost float64
		want bool
	}{
		{"0", 3.4e-3, false}, {"1", 0, true}, {"1", 0.45e-3, true},
		{"", 3.4e-3, true}, {"", 0.45e-3, false}, {"", 0, false}, {"", 2.5e-3, false}, {"yes", 3.4e-3, true},
	} {
		if got := freshPolicy(c.env, c.cost); got != c.want {
			t.Errorf("freshPolicy(%q, %g) = %v, want %v", c.env, c.cost, got, c.want)
		}
	}
}

// TestProbeFaults: on Linux the probe measures something (2,048 page faults
// take CPU time: 7–8 ms on machine E, about 1 ms on machine D) and finite.
func TestProbeFaults(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the probe measures Linux page faults")
	}
	c := probeFaults()
	if !(c > 0) || math.IsInf(c, 0) {
		t.Fatalf("probeFaults() = %g s/MiB, want a positive finite time", c)
	}
	t.Logf("4 KiB page faults: %.2f ms of CPU time per MiB", 1e3*c)
}

// TestFreshAdvice: FreshFloat64s advises an 8 MiB slice exactly when the
// policy says so, and a 1 MiB slice (under minBytes) never; an advised slice
// is marked MADV_HUGEPAGE (VmFlags "hg" on the mapping holding its middle).
// Whether an unadvised slice is marked cannot be checked the same way: Go
// may hand it memory an earlier test advised.
func TestFreshAdvice(t *testing.T) {
	FaultCost() // settle the policy, then override it
	saved, savedFn := fresh.advise, adviseHook
	defer func() { fresh.advise, adviseHook = saved, savedFn }()
	calls := 0
	adviseHook = func(b []byte) { calls++; advise(b) }
	const n = 1 << 20 // 8 MiB
	for _, c := range []struct {
		policy bool
		n      int
		want   int
	}{{true, n, 1}, {true, n / 8, 0}, {false, n, 0}} {
		fresh.advise, calls = c.policy, 0
		s := FreshFloat64s(c.n)
		if calls != c.want || len(s) != c.n || s[0] != 0 || s[c.n-1] != 0 {
			t.Errorf("policy %v, %d values: %d advice calls (want %d), length %d, ends %v %v", c.policy, c.n, calls, c.want, len(s), s[0], s[c.n-1])
		}
		if c.want == 0 {
			continue
		}
		flags, err := heap.Mapping(uintptr(unsafe.Pointer(&s[c.n/2])), "VmFlags")
		if err != nil {
			t.Skip(err)
		}
		if !strings.Contains(" "+flags+" ", " hg ") {
			t.Errorf("advised slice: VmFlags %q lack hg", flags)
		}
	}
}
