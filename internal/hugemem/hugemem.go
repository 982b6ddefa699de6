// Package hugemem allocates the large float64 buffers of the M×M matrices
// (FALKON's K_MM and preconditioner factors) so that the operating system
// backs them with transparent huge pages where it can.
//
// Fresh memory is paid for on first touch: on the project's virtual machine,
// faulting in 800 MB of 4 KiB pages took 3.3–3.5 CPU-seconds (205,000 page
// faults), and the same with MADV_HUGEPAGE 1.7–2.6 CPU-seconds (about 1,000
// faults of 2 MiB pages), measured alternately under load 12. Linux's default
// THP mode ("madvise") only gives huge pages to regions that ask for them.
package hugemem

import "unsafe"

// minBytes is the size below which Float64s does not advise the kernel: a
// region must span at least one whole aligned 2 MiB page to benefit.
const minBytes = 4 << 20

// Float64s returns a zeroed slice of n float64 values. On Linux, when the
// slice is at least minBytes long, the 2 MiB-aligned part of it is advised
// MADV_HUGEPAGE before anything touches it (errors are ignored: the advice
// is only a hint and the memory is usable either way).
func Float64s(n int) []float64 {
	s := make([]float64, n)
	if 8*n >= minBytes {
		advise(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), 8*n))
	}
	return s
}

// Float32s is Float64s for n float32 values (the float32 factors of
// FALKON's preconditioner and their packing buffers).
func Float32s(n int) []float32 {
	s := make([]float32, n)
	if 4*n >= minBytes {
		advise(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), 4*n))
	}
	return s
}
