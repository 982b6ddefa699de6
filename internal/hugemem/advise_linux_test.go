package hugemem

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/landmark-ml/landmark/internal/heap"
)

// TestAdviceFlag checks that Float64s and Float32s mark the memory of a
// slice of 8 MiB (at least three whole 2 MiB pages) MADV_HUGEPAGE — the
// kernel lists "hg" in the VmFlags of the mapping holding its middle — and
// that with the advice turned off (LANDMARK_HUGEPAGES=0) a slice allocated
// the same way is not marked. Both slices stay live, so Go cannot hand the
// second one the memory of the first.
func TestAdviceFlag(t *testing.T) {
	const n = 1 << 20 // float64 values: 8 MiB
	saved := on
	defer func() { on = saved }()
	on = false
	plain := Float64s(n)
	on = true
	advised := Float64s(n)
	advised32 := Float32s(2 * n)
	for _, c := range []struct {
		name string
		addr uintptr
		want bool
	}{
		{"advice off", uintptr(unsafe.Pointer(&plain[n/2])), false},
		{"Float64s", uintptr(unsafe.Pointer(&advised[n/2])), true},
		{"Float32s", uintptr(unsafe.Pointer(&advised32[n])), true},
	} {
		flags, err := heap.Mapping(c.addr, "VmFlags")
		if err != nil {
			t.Skip(err)
		}
		if got := strings.Contains(" "+flags+" ", " hg "); got != c.want {
			t.Errorf("%s: VmFlags %q: MADV_HUGEPAGE set %v, want %v", c.name, flags, got, c.want)
		}
	}
	if plain[0] != 0 || advised[n-1] != 0 || advised32[0] != 0 {
		t.Fatal("fresh slices are not zero")
	}
}
