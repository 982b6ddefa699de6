package precond

import (
	"context"
	"fmt"
	"math"
	"unsafe"

	"github.com/landmark-ml/landmark/internal/hugemem"
	"github.com/landmark-ml/landmark/internal/parallel"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/mat"
)

// build32 is build's PrecisionFloat32 path, from kmm with the shift already
// on its diagonal (diag the diagonal before it): T = chol(K_MM + εMsI) on
// K_MM + shift rounded to float32, factored in the bytes of kmm's lower
// triangle (solver.CholeskyBlocked32Rows: row i of the float32 matrix,
// stride two float64 rows, takes the first (i+1)/2 float64 entries of row
// i; its values come from kmm's strict upper triangle, K_MM, which MulKMM
// keeps reading and nothing writes); C = (1/M) T A_J⁻¹ Tᵀ + λI by Lauum32
// in a new M×M float32 matrix and A = chol(C) in place (its upper triangle
// restores it between jitter attempts); the products on the float32 tiles
// (kernel.DenseF32). Memory: kmm and 4M² bytes, against 8M² for float64.
func build32(kmm *mat.Dense, diag []float64, shift, eps float64, n int, lambda float64, w []float64, opt Options) (*Falkon, error) {
	ctx := context.Background()
	m := len(diag)
	raw := kmm.RawMatrix()
	defer kernel.DenseF32{}.Reserve(m, m, min(m, solver.BlockedWidth))()
	s := raw.Stride
	tm := blas32.General{Rows: m, Cols: m, Stride: 2 * s,
		Data: unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(raw.Data))), 2*len(raw.Data))}
	t, err := solver.CholeskyBlocked32Rows(ctx, tm, func(i int, dst []float32) {
		for j := range i {
			dst[j] = float32(raw.Data[j*s+i]) // K_MM[i][j] from the upper triangle
		}
		dst[i] = float32(diag[i] + shift)
	}, opt.Cholesky, kernel.DenseF32{})
	if err != nil {
		return nil, fmt.Errorf("precond: T = chol(K_MM + εMsI) in float32: %w", err)
	}
	cm := blas32.General{Rows: m, Cols: m, Stride: m, Data: hugemem.Float32s(m * m)}
	if err := parallel.For(ctx, (m+copyRows-1)/copyRows, 0, func(_, task int) {
		for i := task * copyRows; i < min(m, (task+1)*copyRows); i++ {
			scale := 1 / math.Sqrt(float64(m))
			if w != nil {
				scale = 1 / math.Sqrt(float64(m)*w[i])
			}
			row := tm.Data[i*tm.Stride : i*tm.Stride+i+1]
			dst := cm.Data[i*m : i*m+i+1]
			for j, v := range row {
				dst[j] = float32(scale * float64(v))
			}
		}
	}); err != nil {
		return nil, err
	}
	if err := solver.Lauum32(ctx, cm, kernel.DenseF32{}); err != nil {
		return nil, fmt.Errorf("precond: T A⁻¹ Tᵀ in float32: %w", err)
	}
	for i := 0; i < m; i++ {
		cm.Data[i*m+i] = float32(float64(cm.Data[i*m+i]) + lambda)
	}
	if err := mirrorLower(ctx, cm.Data, m, m); err != nil {
		return nil, err
	}
	a, err := solver.CholeskyBlocked32(ctx, cm, opt.Cholesky, kernel.DenseF32{})
	if err != nil {
		return nil, fmt.Errorf("precond: A = chol(TTᵀ/M + λI) in float32: %w", err)
	}
	return &Falkon{
		kmm: kmm, diag: diag, t32: t, a32: a, n: n,
		Epsilon: eps, Shift: shift, JitterT: t.Jitter, JitterA: a.Jitter, Weighted: w != nil, Precision: PrecisionFloat32,
	}, nil
}
