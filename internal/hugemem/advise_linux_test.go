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
// that with the advice turned off (LANDMARK_HUGEPAGES=0) they do not advise
// at all (counted through adviseHook: the flags of an unadvised slice prove
// nothing, since Go may hand it memory advised before, as a second run of
// this test in one process showed).
func TestAdviceFlag(t *testing.T) {
	const n = 1 << 20 // float64 values: 8 MiB
	saved, savedFn := on, adviseHook
	defer func() { on, adviseHook = saved, savedFn }()
	calls := 0
	adviseHook = func(b []byte) { calls++; advise(b) }
	on = false
	plain, plain32 := Float64s(n), Float32s(2*n)
	if calls != 0 {
		t.Errorf("advice off: %d advice calls, want 0", calls)
	}
	on = true
	advised := Float64s(n)
	advised32 := Float32s(2 * n)
	if calls != 2 {
		t.Errorf("advice on: %d advice calls, want 2", calls)
	}
	for _, c := range []struct {
		name string
		addr uintptr
	}{
		{"Float64s", uintptr(unsafe.Pointer(&advised[n/2]))},
		{"Float32s", uintptr(unsafe.Pointer(&advised32[n]))},
	} {
		flags, err := heap.Mapping(c.addr, "VmFlags")
		if err != nil {
			t.Skip(err)
		}
		if !strings.Contains(" "+flags+" ", " hg ") {
			t.Errorf("%s: VmFlags %q lack hg (MADV_HUGEPAGE)", c.name, flags)
		}
	}
	if plain[0] != 0 || plain32[2*n-1] != 0 || advised[n-1] != 0 || advised32[0] != 0 {
		t.Fatal("fresh slices are not zero")
	}
}
