package kernel

//go:generate go run ./internal/asm -out simd_amd64.s -stubs simd_stub_amd64.go -pkg kernel

import "os"

// noSIMDEnv is the environment variable that, when set to a non-empty value
// other than "0", makes the engine use its portable Go code even on CPUs with
// AVX-512 (read once, at program start).
const noSIMDEnv = "LANDMARK_NOSIMD"

// useAVX512 selects the AVX-512 micro-kernels. It is set at start-up from the
// CPU features and noSIMDEnv; tests flip it with setSIMD.
var useAVX512 = hasAVX512 && !envOff(os.Getenv(noSIMDEnv))

func envOff(v string) bool { return v != "" && v != "0" }

// Accel names the inner kernels the engine uses on this machine:
// "avx512" or "portable".
func Accel() string {
	if useAVX512 {
		return "avx512"
	}
	return "portable"
}

// setSIMD turns the AVX-512 kernels on (when the CPU has them) or off and
// returns a function restoring the previous state. For tests and benchmarks.
func setSIMD(on bool) (restore func()) {
	old := useAVX512
	useAVX512 = on && hasAVX512
	return func() { useAVX512 = old }
}
