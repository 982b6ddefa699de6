package kernel

// hasAVX512 reports whether the CPU and the operating system support the
// AVX-512 Foundation instructions the generated kernels use (CPUID leaf 7
// EBX bit 16, OSXSAVE, and XCR0 enabling the SSE, AVX and the three AVX-512
// state components).
var hasAVX512 = detectAVX512()

// hasAVX2 reports whether the CPU and OS support AVX2 and FMA (CPUID leaf 1
// ECX bit 12, leaf 7 EBX bit 5, OSXSAVE, XCR0 enabling SSE and AVX state).
var hasAVX2 = detectAVX2()

func detectAVX2() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const osxsave, fma = 1 << 27, 1 << 12
	if ecx1&osxsave == 0 || ecx1&fma == 0 {
		return false
	}
	const xcr0AVX = 1<<1 | 1<<2
	if xcr0, _ := xgetbv(); xcr0&xcr0AVX != xcr0AVX {
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	const avx2 = 1 << 5
	return ebx7&avx2 != 0
}

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
