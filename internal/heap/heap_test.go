package heap

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"unsafe"

	"github.com/landmark-ml/landmark/internal/scratch"
)

var sink []byte

// A run that allocates 1 MiB measures at least 1 MiB and at most 1 MiB +
// 8 KiB (one page of rounding and the runtime's own bookkeeping; a
// 1 MiB object is a whole number of pages, so the excess is not the
// object's); a run that allocates nothing measures under 1 KiB (what
// ReadMemStats itself may allocate: nothing, measured). A buffer put in a
// scratch.Slot is found again by Allocated (nothing allocated) with the
// collector off, and allocated anew by AllocatedFresh: the two
// collections empty the slot.
func TestAllocated(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	const mib = 1 << 20
	got := Allocated(t, func() error { sink = make([]byte, mib); return nil })
	if got < mib || got > mib+8<<10 {
		t.Errorf("1 MiB allocation measured %d bytes", got)
	}
	sink = nil
	if got := Allocated(t, func() error { return nil }); got >= 1<<10 {
		t.Errorf("an empty run measured %d bytes", got)
	}
	var s scratch.Slot[byte]
	use := func() error { b := s.Get(mib); s.Put(b); return nil }
	use()
	if got := Allocated(t, use); got >= 1<<10 {
		t.Errorf("reusing the slot's buffer measured %d bytes", got)
	}
	if got := AllocatedFresh(t, use); got < mib {
		t.Errorf("after two collections the slot's buffer was reused (%d bytes measured)", got)
	}
}

// An error from run fails the test (checked on a recorder of Fatal).
func TestAllocatedError(t *testing.T) {
	r := &recorder{TB: t}
	func() {
		defer func() { recover() }() // Fatal's Goexit replaced by a panic
		Allocated(r, func() error { return errors.New("boom") })
	}()
	if r.fatal != "boom" {
		t.Errorf("Fatal got %q, want boom", r.fatal)
	}
}

type recorder struct {
	testing.TB
	fatal string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatal(args ...any) {
	if err, ok := args[0].(error); ok {
		r.fatal = err.Error()
	}
	panic("fatal")
}

// Mapping finds the mapping that holds a live 4 MiB slice and returns its
// size line ("Size: N kB", at least 4,096 kB: the slice lies inside it);
// address 0 is in no mapping, and an unknown key is in none either.
func TestMapping(t *testing.T) {
	if _, err := os.Stat("/proc/self/smaps"); err != nil {
		t.Skip(err)
	}
	s := make([]byte, 4<<20)
	s[len(s)/2] = 1
	v, err := Mapping(uintptr(unsafe.Pointer(&s[len(s)/2])), "Size")
	if err != nil {
		t.Fatal(err)
	}
	var kb int
	if _, err := fmt.Sscanf(v, "%d kB", &kb); err != nil || kb < 4096 {
		t.Errorf("Size of the slice's mapping %q (%d kB, %v), want ≥ 4096 kB", v, kb, err)
	}
	if _, err := Mapping(0, "Size"); err == nil {
		t.Error("address 0: no error")
	}
	if _, err := Mapping(uintptr(unsafe.Pointer(&s[0])), "NoSuchField"); err == nil {
		t.Error("unknown key: no error")
	}
	runtime.KeepAlive(s)
}
