package approx

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/internal/parallel"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// RFF configures random Fourier features (Rahimi & Recht, "Random Features for
// Large-Scale Kernel Machines", NIPS 2007): for a shift-invariant kernel
// k(x, y) = κ(x − y) with spectral density p(ω) (Bochner's theorem),
// φ(x) = √(2/D)·cos(Ωx + b) with the D rows of Ω drawn from p and b uniform
// on [0, 2π), so that E[φ(x)·φ(y)] = k(x, y) and the error decays as 1/√D.
//
// Supported kernels: Gaussian exp(−γ‖x−y‖²), whose density is N(0, 2γI), and
// the L1 Laplacian exp(−γ‖x−y‖₁), whose density is a product of Cauchy
// densities of scale γ.
type RFF struct {
	// Features is D, the number of random features (required, ≥ 1).
	Features int
}

// RFFMap is a fitted random Fourier feature map.
type RFFMap struct {
	Omega  *mat.Dense // D×d frequencies
	Offset []float64  // D phases in [0, 2π)
}

var _ FeatureMap = (*RFFMap)(nil)

// Fit draws the frequencies and phases for kernel k on d-dimensional inputs.
func (f RFF) Fit(k kernel.Kernel, d int, rng *rand.Rand) (*RFFMap, error) {
	if f.Features < 1 {
		return nil, fmt.Errorf("approx: rff: %w: Features = %d, want ≥ 1", check.ErrInput, f.Features)
	}
	if d < 1 {
		return nil, fmt.Errorf("approx: rff: %w: d = %d, want ≥ 1", check.ErrInput, d)
	}
	if rng == nil {
		return nil, fmt.Errorf("approx: rff: %w: rng is nil", check.ErrInput)
	}
	if k == nil {
		return nil, fmt.Errorf("approx: rff: %w: kernel is nil", check.ErrInput)
	}
	if err := k.Validate(); err != nil {
		return nil, fmt.Errorf("approx: rff: %w", err)
	}
	var draw func() float64
	switch kk := k.(type) {
	case kernel.Gaussian:
		s := math.Sqrt(2 * kk.Gamma)
		draw = func() float64 { return s * rng.NormFloat64() }
	case kernel.Laplacian:
		g := kk.Gamma
		draw = func() float64 { return g * math.Tan(math.Pi*(rng.Float64()-0.5)) }
	default:
		return nil, fmt.Errorf("approx: rff: %w: kernel %v has no random Fourier features here (gaussian or laplacian)", check.ErrInput, k)
	}
	om := mat.NewDense(f.Features, d, nil)
	raw := om.RawMatrix().Data
	for i := range raw {
		raw[i] = draw()
	}
	b := make([]float64, f.Features)
	for i := range b {
		b[i] = 2 * math.Pi * rng.Float64()
	}
	return &RFFMap{Omega: om, Offset: b}, nil
}

// Dim returns D.
func (m *RFFMap) Dim() int { return len(m.Offset) }

// Transform writes φ(x_i) = √(2/D)·cos(Ωx_i + b) into row i of dst (n×D).
// Sparse x stays sparse: Ωx_i is summed over the non-zeros of x_i, each
// adding x_ik times column k of Ω (see inputCols for its columns).
func (m *RFFMap) Transform(ctx context.Context, dst *mat.Dense, xIn mat.Matrix) error {
	if err := transformArgs(ctx, dst); err != nil {
		return fmt.Errorf("approx: rff: %w", err)
	}
	if m == nil || m.Omega == nil || m.Omega.IsEmpty() {
		return fmt.Errorf("approx: rff: %w: map has no frequencies (not fitted)", check.ErrInput)
	}
	if r, _ := m.Omega.Dims(); r != len(m.Offset) {
		return fmt.Errorf("approx: rff: %w: Omega has %d rows but there are %d offsets", check.ErrInput, r, len(m.Offset))
	}
	_, d := m.Omega.Dims()
	xm, err := inputCols(xIn, d)
	if err != nil {
		return err
	}
	n, _ := xm.Dims()
	D := m.Dim()
	if r, c := dst.Dims(); r != n || c != D {
		return fmt.Errorf("approx: rff: %w: dst is %d×%d, want %d×%d", check.ErrInput, r, c, n, D)
	}
	scale := math.Sqrt(2 / float64(D))
	const rows = 256
	xs, sparse := xm.(kernel.Sparse)
	var omT []float64 // Ωᵀ, d×D, for sparse x
	if sparse {
		omT = make([]float64, d*D)
		for j := 0; j < D; j++ {
			for k, v := range m.Omega.RawRowView(j) {
				omT[k*D+j] = v
			}
		}
	}
	return parallel.For(ctx, (n+rows-1)/rows, 0, func(_, b int) {
		r0, r1 := b*rows, min((b+1)*rows, n)
		out := dst.Slice(r0, r1, 0, D).(*mat.Dense)
		if sparse {
			indptr, indices, values := xs.CSR()
			for i := r0; i < r1; i++ {
				row := out.RawRowView(i - r0)
				clear(row)
				for p := indptr[i]; p < indptr[i+1]; p++ {
					v, col := values[p], omT[int(indices[p])*D:int(indices[p]+1)*D]
					for j, w := range col {
						row[j] += v * w
					}
				}
			}
		} else {
			// X_b·Ωᵀ on the engine's packed micro-kernels (one worker: the
			// blocks are already spread). The shapes were checked above, so
			// it errs only on cancellation, which parallel.For reports.
			x := xm.(*mat.Dense)
			_ = kernel.Dense{Workers: 1}.Gemm(ctx, false, true, 1, x.Slice(r0, r1, 0, d).(*mat.Dense), m.Omega, 0, out)
		}
		for i := 0; i < r1-r0; i++ {
			row := out.RawRowView(i)
			for j, v := range row {
				row[j] = scale * math.Cos(v+m.Offset[j])
			}
		}
	})
}
