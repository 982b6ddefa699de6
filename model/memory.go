package model

import (
	"gonum.org/v1/gonum/mat"

	"fmt"
	"math"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/internal/check"
)

// ErrMemory is returned when a fit would need more memory than the
// estimator's MemoryLimit allows. Nothing large has been allocated when it is
// returned: memory is planned before allocation. approx.ErrMemory is the same
// error.
var ErrMemory = check.ErrMemory

// bytesF64 is the size of n float64 values in bytes.
func bytesF64(n int64) int64 { return 8 * n }

// checkMemory compares a planned peak with a limit (0 means no limit); the
// error names the bytes needed and the limit.
func checkMemory(what string, need, limit int64) error {
	return check.Memory(what, need, limit)
}

// formatBytes prints a byte count with a binary unit.
func formatBytes(b int64) string { return check.FormatBytes(b) }

// samplerPlanner is what the approx samplers implement to plan their memory
// before sampling (approx/plan.go).
type samplerPlanner interface {
	PlanBytes(n, d, m int) int64
}

// checkSampler refuses, before sampling, a sampler whose planned peak for m
// landmarks of the data x exceeds limit (approx.PlanSample: the sampler's
// arrays, the kernel engine's scratch and any copy of X it makes, such as
// ExactRLS's dense copy of sparse X; landmarks of sparse x counted as CSR
// rows; X itself, the caller's, not counted). Samplers without a plan pass.
func checkSampler(s approx.Sampler, x mat.Matrix, m int, limit int64) error {
	b, ok := approx.PlanSample(s, x, m)
	if !ok {
		return nil
	}
	n, _ := x.Dims()
	return checkMemory(fmt.Sprintf("sampler %T (n=%d, m=%d; its arrays, engine scratch and copies of X, not X itself)", s, n, m), b, limit)
}

// mapPlanner is what feature mappers implement to plan the peak memory of
// FitMap on n×d data before it allocates, and to bound the dimension r of
// the map (so that FeatureRidge can plan its r×r system too).
type mapPlanner interface {
	PlanBytes(n, d int) (bytes int64, dim int)
}

// PlanBytes plans FitMap on n×d data: the sampler's peak, or the Nyström
// map's (W = K(L, L) and its eigendecomposition, 3·8M², the landmarks, and
// in the QR variant C = K(X, L) and its factor, 2·8nM), whichever is larger;
// the map has at most M features.
func (f NystromFeatures) PlanBytes(n, d int) (int64, int) {
	m := f.M
	if m <= 0 || m > n {
		m = min(n, int(math.Ceil(5*math.Sqrt(float64(n)))))
	}
	var s int64
	if p, ok := f.Sampler.(samplerPlanner); ok {
		s = p.PlanBytes(n, d, m)
	} else if f.Sampler == nil {
		s = approx.Uniform{}.PlanBytes(n, d, m)
	}
	mm := int64(m)
	fit := 3*mm*mm + mm*int64(d)
	if f.Nystrom.QR {
		fit += 2 * int64(n) * mm
	}
	return max(s, bytesF64(fit)), m
}

// planFor is PlanBytes for the data x itself: landmarks drawn from the
// rows of sparse x are counted as the CSR rows they are
// (approx.LandmarkBytes), the sampler's and the map's copy, instead of
// 8·M·d.
func (f NystromFeatures) planFor(x mat.Matrix) (int64, int) {
	n, _ := x.Dims()
	m := f.M
	if m <= 0 || m > n {
		m = min(n, int(math.Ceil(5*math.Sqrt(float64(n)))))
	}
	var smp approx.Sampler = approx.Uniform{}
	if f.Sampler != nil {
		smp = f.Sampler
	}
	s, _ := approx.PlanSample(smp, x, m)
	mm := int64(m)
	fit := bytesF64(3*mm*mm) + 2*approx.LandmarkBytes(x, m)
	if f.Nystrom.QR {
		fit += bytesF64(2 * int64(n) * mm)
	}
	return max(s, fit), m
}

// PlanBytes plans FitMap: the D×d frequencies and D offsets; the map has D
// features.
func (f RFFFeatures) PlanBytes(n, d int) (int64, int) {
	r := f.dim(n)
	return bytesF64(int64(r) * int64(d+1)), r
}
