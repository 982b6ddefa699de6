package hugemem

import (
	"os"
	"sync"
	"unsafe"
)

// Matrices filled once and then streamed (FALKON's M×M K_MM and the
// preconditioner's second matrix) pay for their pages once, when they are
// filled, and which page size makes that cheaper depends on the host:
//
//   - machine E (AMD EPYC Zen 5 VM, 2026-11-27): 4 KiB pages cost
//     3.3–3.5 ms of CPU time per MiB on 16 MB and 4.0–4.1 on 800 MB (three
//     alternated rounds each, load 4), advised 2 MiB pages 0.8–2.4 ms per
//     MiB on 800 MB;
//   - machine D (AMD EPYC Zen 4 VM with a balloon device): 4 KiB pages
//     0.40–0.49 ms per MiB, 2 MiB pages 1.5–2.4 ms per MiB (see the
//     package doc).
//
// So FreshFloat64s measures the host's 4 KiB fault cost once (probeFaults)
// and advises huge pages only above slowFaultCost, which lies above what
// huge pages cost on either host and between the two hosts' 4 KiB costs.
const slowFaultCost = 2.5e-3 // CPU-seconds per MiB

var fresh struct {
	once   sync.Once
	cost   float64
	advise bool
}

// freshPolicy is how FreshFloat64s decides, from LANDMARK_HUGEPAGES: "0"
// never advises (as for Float64s), "1" always advises, and anything else
// (unset) leaves it to the probe.
func freshPolicy(env string, cost float64) bool {
	switch env {
	case "0":
		return false
	case "1":
		return true
	}
	return cost > slowFaultCost
}

// FaultCost returns the CPU time per MiB this host took to fault in fresh
// memory in 4 KiB pages (measured once per process, on 8 MiB; 0 if it
// could not be measured or is not measured on this system, as with
// LANDMARK_HUGEPAGES set to 0 or 1), and whether FreshFloat64s advises
// huge pages.
func FaultCost() (secondsPerMiB float64, advised bool) {
	fresh.once.Do(func() {
		env := os.Getenv("LANDMARK_HUGEPAGES")
		if env != "0" && env != "1" {
			fresh.cost = probeFaults()
		}
		fresh.advise = freshPolicy(env, fresh.cost)
	})
	return fresh.cost, fresh.advise
}

// FreshFloat64s returns a zeroed slice of n float64 values for a matrix
// that is filled once and then read: advised MADV_HUGEPAGE, as Float64s
// does, only when FaultCost says that 4 KiB pages cost more than huge
// ones on this host; otherwise a plain Go slice. Slices under minBytes are
// never advised, and sizes below that do not run the probe.
func FreshFloat64s(n int) []float64 { return FreshSlice[float64](n) }

// FreshSlice is FreshFloat64s for float64 or float32 values (an SVM
// solver's kernel-column cache, filled column by column and then read).
func FreshSlice[T float32 | float64](n int) []T {
	s := make([]T, n)
	var z T
	size := int(unsafe.Sizeof(z)) * n
	if size < minBytes {
		return s
	}
	if _, ok := FaultCost(); ok {
		adviseHook(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), size))
	}
	return s
}

// adviseHook is advise, a variable so that tests can count its calls.
var adviseHook = advise
