// Package hugemem allocates large float64 and float32 buffers that are
// reused many times after their first touch (the kernel engine's packed
// operands, kernel.Dense's and DenseF32's packing buffers) so that the
// operating system backs them with transparent huge pages where it can.
// Linux's default THP mode ("madvise") only gives huge pages to regions that
// ask for them.
//
// Fresh memory is paid for on first touch, and which page size is cheaper
// depends on the host. On the project's first virtual machine, faulting in
// 800 MB of 4 KiB pages took 3.3–3.5 CPU-seconds (205,000 page faults), and
// the same with MADV_HUGEPAGE 1.7–2.6 CPU-seconds (about 1,000 faults of
// 2 MiB pages), measured alternately under load 12. On machine D (AMD EPYC
// Zen 4, a Firecracker VM with a balloon device, 2026-11-27) it is the other
// way round for memory the guest has not used for a few seconds: 800 MB in
// 4 KiB pages took 0.32–0.39 CPU-seconds, in 2 MiB pages 1.2–1.9 (0.1 when
// the memory had just been freed by another process), four alternated runs
// each. So the buffers reused by every product of a factorization come from
// Float64s and Float32s, advised always, while the M×M matrices of FALKON's
// preconditioner, touched once when they are filled and then streamed
// (package model's FalkonBuilder.KMM, precond's second matrix), come from
// FreshFloat64s, advised only where a probe of the host finds 4 KiB faults
// slow (FaultCost): on machine E (AMD EPYC Zen 5, 2026-11-27) they cost
// 3.3–4.6 ms of CPU time per MiB, on machine D 0.4–0.5.
//
// LANDMARK_HUGEPAGES=0 in the environment turns the advice off (as it does
// for the kernel engine's packed centers), to measure without it;
// LANDMARK_HUGEPAGES=1 advises the fresh matrices too, without the probe.
package hugemem

import (
	"os"
	"unsafe"
)

// on says whether Float64s and Float32s advise the kernel; it is read once
// from LANDMARK_HUGEPAGES ("0" turns the advice off).
var on = os.Getenv("LANDMARK_HUGEPAGES") != "0"

// minBytes is the size below which Float64s does not advise the kernel: a
// region must span at least one whole aligned 2 MiB page to benefit.
const minBytes = 4 << 20

// Float64s returns a zeroed slice of n float64 values. On Linux, when the
// slice is at least minBytes long, the 2 MiB-aligned part of it is advised
// MADV_HUGEPAGE before anything touches it (errors are ignored: the advice
// is only a hint and the memory is usable either way).
func Float64s(n int) []float64 { return Slice[float64](n) }

// Float32s is Float64s for n float32 values (the packing buffers of the
// float32 factorizations).
func Float32s(n int) []float32 { return Slice[float32](n) }

// Slice is Float64s or Float32s for n values of T, for generic callers
// (the data readers' and the benchmarks' X in either precision).
func Slice[T float32 | float64](n int) []T {
	s := make([]T, n)
	var z T
	if size := int(unsafe.Sizeof(z)) * n; on && size >= minBytes {
		adviseHook(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), size))
	}
	return s
}
