package kernel

//go:generate go run ./internal/asm -out simd_amd64.s -stubs simd_stub_amd64.go -pkg kernel

import "os"

// noSIMDEnv is the environment variable that, when set to a non-empty value
// other than "0", makes the engine use its portable Go code even on CPUs with
// AVX2 or AVX-512 (read once, at program start).
const noSIMDEnv = "LANDMARK_NOSIMD"

// accel is a set of inner kernels.
type accel int

const (
	accelPortable accel = iota // Go code
	accelAVX2                  // AVX2 + FMA assembly (4-wide)
	accelAVX512                // AVX-512F assembly (8-wide)
)

func (a accel) String() string { return [...]string{"portable", "avx2", "avx512"}[a] }

// bestAccel is the widest set of inner kernels this CPU and OS support.
var bestAccel = func() accel {
	switch {
	case hasAVX512:
		return accelAVX512
	case hasAVX2:
		return accelAVX2
	}
	return accelPortable
}()

// useAccel is the set of inner kernels in use: bestAccel unless noSIMDEnv
// says otherwise. Tests change it with setAccel.
var useAccel = func() accel {
	if envOff(os.Getenv(noSIMDEnv)) {
		return accelPortable
	}
	return bestAccel
}()

func envOff(v string) bool { return v != "" && v != "0" }

// Accel names the inner kernels the engine uses on this machine:
// "avx512", "avx2" or "portable".
func Accel() string { return useAccel.String() }

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
