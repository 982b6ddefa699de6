package hugemem

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of an x86-64 and arm64 transparent huge page.
const hugePage = 2 << 20

// madvHugepage is MADV_HUGEPAGE from <linux/mman.h>.
const madvHugepage = 14

func advise(b []byte) {
	off := int((hugePage - uintptr(unsafe.Pointer(unsafe.SliceData(b)))%hugePage) % hugePage)
	if off >= len(b) {
		return
	}
	n := (len(b) - off) &^ (hugePage - 1)
	if n == 0 {
		return
	}
	_ = syscall.Madvise(b[off:off+n], madvHugepage)
}
