//go:build linux

package kernel

import (
	"os"
	"syscall"
	"unsafe"
)

// hugePage is the size of a transparent huge page (2 MiB on amd64 and
// arm64 Linux).
const hugePage = 2 << 20

// madvCollapse is MADV_COLLAPSE (Linux 6.1; not in package syscall).
const madvCollapse = 25

// hugePages reports whether adviseHuge asks for huge pages; it is read once
// from LANDMARK_HUGEPAGES ("0" turns the hint off, to measure without it).
var hugePages = os.Getenv(hugePagesEnv) != "0"

// adviseHuge asks Linux to back the whole 2 MiB pages inside s with
// transparent huge pages: madvise MADV_HUGEPAGE (pages faulted in later come
// as huge pages; the call itself costs microseconds) and, when collapse is
// set, MADV_COLLAPSE (pages already present, as in heap memory Go reuses,
// are merged into huge pages now). It is a hint: errors (THP disabled, a
// kernel before 6.1) are ignored and the contents of s are unchanged. The
// part of s outside the whole pages (under 2 MiB at each end) keeps its
// pages; slices under 2 MiB are left alone.
//
// The packed centers want it (plan.prepare): a 256-row block at d = 784,
// M = 2,000 sweeps all 12.5 MB of them, about 3,000 pages of 4 KiB, beyond
// the 3,072-entry second-level data TLB of a Zen 4 core once the block of
// X and the block of K are added; with 2 MiB pages they take 7 entries.
// MADV_COLLAPSE of 12.5 MB of present pages took 0.02–51 ms on machine D
// (it may have to compact memory), which is why plan.prepare asks for it
// only for plans of many rows (collapseWork).
func adviseHuge[T float32 | float64](s []T, collapse bool) {
	if !hugePages || len(s) == 0 {
		return
	}
	start := uintptr(unsafe.Pointer(&s[0]))
	lo, hi := hugeRange(start, start+uintptr(len(s))*unsafe.Sizeof(s[0]))
	if hi <= lo {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(&s[0]), lo-start)), hi-lo)
	if syscall.Madvise(b, syscall.MADV_HUGEPAGE) == nil && collapse {
		syscall.Madvise(b, madvCollapse)
	}
}

// hugeRange returns the whole huge pages [lo, hi) inside the bytes
// [start, end): start rounded up and end rounded down to multiples of
// hugePage (hi ≤ lo when there is none).
func hugeRange(start, end uintptr) (lo, hi uintptr) {
	return (start + hugePage - 1) &^ (hugePage - 1), end &^ (hugePage - 1)
}
