package bench

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/landmark-ml/landmark/internal/hugemem"
	"github.com/landmark-ml/landmark/kernel"
)

// cpuModel returns the CPU's model name from /proc/cpuinfo's first "model
// name" line, or "unknown CPU (GOOS/GOARCH)" where that file does not exist
// or does not say.
func cpuModel() string {
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer f.Close()
		if m := cpuModelFrom(f); m != "" {
			return m
		}
	}
	return fmt.Sprintf("unknown CPU (%s/%s)", runtime.GOOS, runtime.GOARCH)
}

// cpuModelFrom reads the first "model name" field of a /proc/cpuinfo text
// ("" when there is none).
func cpuModelFrom(r io.Reader) string {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// printEngineHost prints the line naming the CPU and the engine's inner
// kernels (with how LANDMARK_SIMD or LANDMARK_NOSIMD chose them), so that a
// saved benchmark says which path ran where.
func printEngineHost(w io.Writer) {
	fmt.Fprintln(w, engineHost())
}

// engineHost is printEngineHost's line without the newline.
func engineHost() string {
	return fmt.Sprintf("host: %s, %d logical CPUs; engine path: %s", cpuModel(), runtime.NumCPU(), kernel.AccelChoice())
}

// pagesLine reports the host's cost of fresh 4 KiB pages as hugemem
// measures it and what that makes Landmark do with the M×M matrices of
// FALKON's preconditioner (each Landmark process probes for itself; this is
// the benchmark process's probe).
func pagesLine() string {
	cost, advised := hugemem.FaultCost()
	choice := "4 KiB pages"
	if advised {
		choice = "transparent huge pages"
	}
	if cost == 0 {
		return "fresh memory: not probed (LANDMARK_HUGEPAGES=" + os.Getenv("LANDMARK_HUGEPAGES") + " or not Linux); K_MM and the preconditioner's M×M matrix in " + choice
	}
	return fmt.Sprintf("fresh memory: 4 KiB page faults cost %.2f ms of CPU per MiB (probe of 8 MiB); K_MM and the preconditioner's M×M matrix in %s", 1e3*cost, choice)
}
