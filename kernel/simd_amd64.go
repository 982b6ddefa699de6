package kernel

// hasAVX512 reports whether the CPU and the operating system support the
// AVX-512 Foundation instructions the generated kernels use (CPUID leaf 7
// EBX bit 16, OSXSAVE, and XCR0 enabling the SSE, AVX and the three AVX-512
// state components).
var hasAVX512 = detectAVX512()

func detectAVX512() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const osxsave = 1 << 27
	if ecx1&osxsave == 0 {
		return false
	}
	const xcr0AVX512 = 1<<1 | 1<<2 | 1<<5 | 1<<6 | 1<<7
	if xcr0, _ := xgetbv(); xcr0&xcr0AVX512 != xcr0AVX512 {
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	const avx512f = 1 << 16
	return ebx7&avx512f != 0
}
