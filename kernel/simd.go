package kernel

//go:generate go run ./internal/asm -out simd_amd64.s -stubs simd_stub_amd64.go -pkg kernel

// The three generators (./internal/asml1 from l1.go, ./internal/asmmulti
// from multi.go, ./internal/asm here) write through internal/genout: their
// outputs change only when generation succeeds, so a package that does not
// compile yet leaves the previous files in place rather than truncated.

import (
	"fmt"
	"os"
	"strings"
)

// Environment variables read once, at program start, to choose the inner
// kernels (see accelFromEnv).
const (
	// simdEnv names the widest set of inner kernels the engine may use:
	// "avx512", "avx2" or "portable" (case-insensitive), capped at what the
	// CPU and OS support. Unset or empty means the widest supported.
	simdEnv = "LANDMARK_SIMD"
	// noSIMDEnv, set to a non-empty value other than "0", forces the
	// portable Go code whatever simdEnv says.
	noSIMDEnv = "LANDMARK_NOSIMD"
	// hugePagesEnv, set to "0", stops the engine from asking Linux for
	// transparent huge pages for its packed centers (adviseHuge); for
	// measuring what they bring.
	hugePagesEnv = "LANDMARK_HUGEPAGES"
)

// accel is a set of inner kernels.
type accel int

const (
	accelPortable accel = iota // Go code
	accelAVX2                  // AVX2 + FMA assembly (4-wide)
	accelAVX512                // AVX-512F assembly (8-wide)
)

var accelNames = [...]string{"portable", "avx2", "avx512"}

func (a accel) String() string { return accelNames[a] }

// cpuAccel is the widest set of inner kernels this CPU and OS support.
var cpuAccel = func() accel {
	switch {
	case hasAVX512:
		return accelAVX512
	case hasAVX2:
		return accelAVX2
	}
	return accelPortable
}()

// bestAccel is the widest set of inner kernels this process may use: cpuAccel
// capped by the environment. With LANDMARK_SIMD=avx2 on an AVX-512 CPU the
// process behaves as on an AVX2-only CPU (tests that loop over the available
// paths skip AVX-512 too), so every path can be tested on one host.
// accelNote says how it was chosen (empty when the environment is silent).
var bestAccel, accelNote = accelFromEnv(cpuAccel, os.Getenv(simdEnv), os.Getenv(noSIMDEnv))

// useAccel is the set of inner kernels in use: bestAccel unless a test changes
// it with setAccel.
var useAccel = bestAccel

func init() {
	if strings.HasPrefix(accelNote, "warning: ") {
		// An unknown value cannot be returned as an error from package
		// initialization; say so once rather than ignore it silently.
		fmt.Fprintf(os.Stderr, "landmark: kernel: %s\n", strings.TrimPrefix(accelNote, "warning: "))
	}
}

// accelFromEnv returns the inner kernels to use on a CPU supporting at most
// cpu, given the values of LANDMARK_SIMD (simd) and LANDMARK_NOSIMD (nosimd),
// and a note saying how the environment changed the choice ("" when it did
// not). LANDMARK_NOSIMD=1 wins over LANDMARK_SIMD (it is the switch that
// turns the assembly off). An unknown LANDMARK_SIMD value is ignored with a
// note starting "warning: ", naming the value and the accepted ones: the
// paths differ in speed only (they agree to 1e-12 relative), so a typo in a
// tuning variable must not stop a program, but it must not pass unnoticed.
func accelFromEnv(cpu accel, simd, nosimd string) (accel, string) {
	if envOff(nosimd) {
		return accelPortable, fmt.Sprintf("%s=%s; the CPU supports %v", noSIMDEnv, nosimd, cpu)
	}
	v := strings.ToLower(strings.TrimSpace(simd))
	if v == "" {
		return cpu, ""
	}
	for a, name := range accelNames {
		if v != name {
			continue
		}
		if want := accel(a); want > cpu {
			return cpu, fmt.Sprintf("%s=%s capped: the CPU supports %v at most", simdEnv, simd, cpu)
		} else if want < cpu {
			return want, fmt.Sprintf("%s=%s; the CPU supports %v", simdEnv, simd, cpu)
		}
		return cpu, fmt.Sprintf("%s=%s", simdEnv, simd)
	}
	return cpu, fmt.Sprintf("warning: %s=%q ignored: not avx512, avx2 or portable; using %v", simdEnv, simd, cpu)
}

func envOff(v string) bool { return v != "" && v != "0" }

// Accel names the inner kernels the engine uses on this machine:
// "avx512", "avx2" or "portable".
func Accel() string { return useAccel.String() }

// Tiles describes the register tiles of the engine's distance product on
// the inner kernels in use (rows of X × centers, float64 and Options.Float32),
// e.g. "6×16 f64, 6×32 f32" with AVX2; benchmarks print it beside Accel.
func Tiles() string {
	switch useAccel {
	case accelAVX512:
		return "8×16 f64, 8×32 f32"
	case accelAVX2:
		return fmt.Sprintf("%d×16 f64, %d×32 f32", avx2TileRows, avx2TileRows)
	}
	return "Go loops (d ≤ 16) or gonum Dgemm"
}

// AccelChoice describes how the inner kernels were chosen: Accel's answer
// followed, when LANDMARK_SIMD or LANDMARK_NOSIMD changed or tried to change
// the choice, by a note in parentheses, e.g. "avx2 (LANDMARK_SIMD=avx2; the
// CPU supports avx512)" or "avx2 (LANDMARK_SIMD=avx512 capped: the CPU
// supports avx2 at most)". Benchmarks print it beside their timings.
func AccelChoice() string {
	if accelNote == "" || useAccel != bestAccel {
		return useAccel.String()
	}
	return useAccel.String() + " (" + accelNote + ")"
}

// setAccel selects the inner kernels (at most bestAccel) and returns a
// function restoring the previous choice. For tests and benchmarks; it must
// not be called while the engine runs.
func setAccel(a accel) (restore func()) {
	old := useAccel
	useAccel = min(a, bestAccel)
	return func() { useAccel = old }
}

// setSIMD selects the best inner kernels (on) or the portable code (off).
func setSIMD(on bool) (restore func()) {
	if on {
		return setAccel(bestAccel)
	}
	return setAccel(accelPortable)
}
