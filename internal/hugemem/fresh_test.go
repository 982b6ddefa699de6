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

// TestFreshAdvice: FreshFloat64s marks an 8 MiB slice MADV_HUGEPAGE exactly
// when the policy says so (VmFlags "hg" on the mapping holding its middle);
// a 1 MiB slice (under minBytes, never advised) has its length; all are zero.
func TestFreshAdvice(t *testing.T) {
	FaultCost() // settle the policy, then override it
	saved := fresh.advise
	defer func() { fresh.advise = saved }()
	const n = 1 << 20 // 8 MiB
	fresh.advise = true
	advised := FreshFloat64s(n)
	small := FreshFloat64s(n / 8)
	fresh.advise = false
	plain := FreshFloat64s(n)
	for _, c := range []struct {
		name string
		addr uintptr
		want bool
	}{
		{"advised", uintptr(unsafe.Pointer(&advised[n/2])), true},
		{"not advised", uintptr(unsafe.Pointer(&plain[n/2])), false},
	} {
		flags, err := heap.Mapping(c.addr, "VmFlags")
		if err != nil {
			t.Skip(err)
		}
		if got := strings.Contains(" "+flags+" ", " hg "); got != c.want {
			t.Errorf("%s: VmFlags %q: MADV_HUGEPAGE set %v, want %v", c.name, flags, got, c.want)
		}
	}
	if advised[n-1] != 0 || plain[0] != 0 || small[0] != 0 || len(small) != n/8 {
		t.Fatal("fresh slices are not zero or have the wrong length")
	}
}
