//go:build linux

package kernel

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"

	"github.com/landmark-ml/landmark/internal/heap"
)

// TestHugeRange checks the whole 2 MiB pages found inside byte ranges,
// aligned or not, against values worked out by hand.
func TestHugeRange(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct{ start, end, lo, hi uintptr }{
		{0, 4 * mb, 0, 4 * mb},                         // aligned: two pages
		{8192, 4*mb + 8192, 2 * mb, 4 * mb},            // 4 MiB off by 8 KiB: one page
		{2*mb - 1, 6*mb + 1, 2 * mb, 6 * mb},           // one byte either side: two pages
		{8192, 2*mb + 8192, 2 * mb, 2 * mb},            // 2 MiB off by 8 KiB: none (hi ≤ lo)
		{3 * mb, 3*mb + 100, 4 * mb, 2 * mb},           // tiny: none
		{10*mb + 4096, 23*mb + 4096, 12 * mb, 22 * mb}, // 13 MB: five pages
	} {
		if lo, hi := hugeRange(c.start, c.end); lo != c.lo || hi != c.hi {
			t.Errorf("hugeRange(%#x, %#x) = %#x, %#x, want %#x, %#x", c.start, c.end, lo, hi, c.lo, c.hi)
		}
	}
}

// TestAdviseHuge checks that the hint leaves a slice's values as they were
// (fresh memory, and memory already written, which MADV_COLLAPSE copies into
// huge pages), that empty and small slices are accepted, and, where the
// kernel allows transparent huge pages, that the mapping holding the slice
// reports some after the call.
func TestAdviseHuge(t *testing.T) {
	adviseHuge([]float64(nil), true)
	adviseHuge(make([]float32, 3), true)
	s := make([]float64, 3<<20) // 24 MiB: at least 10 whole huge pages
	for i := range s {
		s[i] = float64(i) * 0.5
	}
	adviseHuge(s, true)
	adviseHuge(s[7:len(s)-5], false) // unaligned sub-slice, pages already advised
	for i, v := range s {
		if v != float64(i)*0.5 {
			t.Fatalf("s[%d] = %v after adviseHuge, want %v", i, v, float64(i)*0.5)
		}
	}
	thp, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || strings.Contains(string(thp), "[never]") || !hugePages {
		t.Skipf("transparent huge pages off (%q, %v) or %s=0", strings.TrimSpace(string(thp)), err, hugePagesEnv)
	}
	v, err := heap.Mapping(uintptr(unsafe.Pointer(&s[len(s)/2])), "AnonHugePages")
	var kb int
	if err == nil {
		_, err = fmt.Sscanf(v, "%d kB", &kb)
	}
	if err != nil {
		t.Skip(err)
	}
	// MADV_COLLAPSE is best effort (it fails when no free 2 MiB page can be
	// found); a mapping with no huge page at all after it is worth a look
	// but not a failure of the engine, whose results do not depend on it.
	t.Logf("AnonHugePages of the mapping: %d kB", kb)
	if kb == 0 {
		t.Logf("no huge pages in the mapping of a 24 MiB slice after adviseHuge")
	}
}
