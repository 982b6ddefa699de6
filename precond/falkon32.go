package precond

import (
	"context"
	"fmt"
	"math"
	"unsafe"

	"github.com/landmark-ml/landmark/internal/parallel"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/blas/blas32"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// build32 is build's PrecisionFloat32 path, from kmm with the shift already
// on its diagonal (diag the diagonal before it). Both float32 factors live
// in the bytes of kmm's lower triangle (diagonal included), whose strict
// upper triangle keeps K_MM for MulKMM and is never written: read as
// float32, row i of kmm holds 2·stride values, of which the first 2(i+1)
// lie on or below its diagonal; T takes the first i+1 of them (a float32
// matrix of stride 2·stride) and C, then A, the next i+1 (stride
// 2·stride + 1, one value in). So the float32 build holds K_MM alone (8M²
// bytes, against 16M² in float64) and faults in no fresh M×M memory.
//
// T = chol(K_MM + εMsI) on K_MM + shift rounded to float32, the diagonal
// from diag; C = (1/M) T A_J⁻¹ Tᵀ + λI by Lauum32 on the scaled copy
// W = (MD)^{-1/2} L_T; A = chol(C). The first attempt narrows K_MM's strict
// lower triangle to float32 in place, row by row (narrowRows), as the
// float64 build factors the lower triangle; a retry with jitter refills the
// matrix: T's from K_MM's upper triangle (the same values for a symmetric
// K_MM, as the kernel engine's are bit for bit), C's by recomputing it from
// T (another M³/3 flops, only when A needs jitter). The products run on the
// float32 tiles (kernel.DenseF32).
func build32(kmm *mat.Dense, diag []float64, shift, eps float64, n int, lambda float64, w []float64, opt Options) (*Falkon, error) {
	ctx := context.Background()
	m := len(diag)
	raw := kmm.RawMatrix()
	s := raw.Stride
	defer kernel.DenseF32{}.ReserveSyrk(m, min(m, solver.BlockedWidth))()
	all := unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(raw.Data))), 2*len(raw.Data))
	tm := blas32.General{Rows: m, Cols: m, Stride: 2 * s, Data: all}
	cm := blas32.General{Rows: m, Cols: m, Stride: 2*s + 1, Data: all[1:]}
	// T's matrix again for a retry, by tasks of copyRows rows: row j of
	// the upper triangle gives the entries (i, j) of rows i > j of a task, a
	// contiguous read (elementwise, so the values do not depend on the
	// split).
	fillT := func() error {
		return parallel.For(ctx, (m+copyRows-1)/copyRows, 0, func(_, task int) {
			i0, i1 := task*copyRows, min(m, (task+1)*copyRows)
			for j := 0; j < i1; j++ {
				lo := max(i0, j+1)
				for i, v := range raw.Data[j*s+lo : j*s+i1] {
					tm.Data[(lo+i)*tm.Stride+j] = float32(v)
				}
			}
			for i := i0; i < i1; i++ {
				tm.Data[i*tm.Stride+i] = float32(diag[i] + shift)
			}
		})
	}
	if err := narrowRows(ctx, raw, tm, diag, shift); err != nil {
		return nil, err
	}
	t, err := solver.CholeskyBlocked32Rows(ctx, tm, fillT, opt.Cholesky, kernel.DenseF32{})
	if err != nil {
		return nil, fmt.Errorf("precond: T = chol(K_MM + εMsI) in float32: %w", err)
	}
	fillC := func() error {
		if err := parallel.For(ctx, (m+copyRows-1)/copyRows, 0, func(_, task int) {
			for i := task * copyRows; i < min(m, (task+1)*copyRows); i++ {
				scale := 1 / math.Sqrt(float64(m))
				if w != nil {
					scale = 1 / math.Sqrt(float64(m)*w[i])
				}
				row := tm.Data[i*tm.Stride : i*tm.Stride+i+1]
				dst := cm.Data[i*cm.Stride : i*cm.Stride+i+1]
				for j, v := range row {
					dst[j] = float32(scale * float64(v))
				}
			}
		}); err != nil {
			return err
		}
		if err := solver.Lauum32(ctx, cm, kernel.DenseF32{}); err != nil {
			return fmt.Errorf("precond: T A⁻¹ Tᵀ in float32: %w", err)
		}
		for i := 0; i < m; i++ {
			cm.Data[i*cm.Stride+i] = float32(float64(cm.Data[i*cm.Stride+i]) + lambda)
		}
		return nil
	}
	if err := fillC(); err != nil {
		return nil, err
	}
	a, err := solver.CholeskyBlocked32Rows(ctx, cm, fillC, opt.Cholesky, kernel.DenseF32{})
	if err != nil {
		return nil, fmt.Errorf("precond: A = chol(TTᵀ/M + λI) in float32: %w", err)
	}
	return &Falkon{
		kmm: kmm, diag: diag, t32: t, a32: a, n: n,
		Epsilon: eps, Shift: shift, JitterT: t.Jitter, JitterA: a.Jitter, Weighted: w != nil, Precision: PrecisionFloat32,
	}, nil
}

// narrowRows sets T's matrix tm (float32, stride 2·raw.Stride, in raw's
// bytes) from K_MM's strict lower triangle in raw and its shifted diagonal
// diag + shift, each row in place: row i's float32 entries j < i take the
// bytes of its float64 entries j/2, already read when entry j is written
// (4j < 8j + 8), and the diagonal goes last, over entry i/2. Rows are
// independent, split over the workers in tasks of copyRows rows. Reading
// each row forwards, this costs a tenth of the CPU time of filling T from
// the upper triangle (fillT in build32, which writes down T's columns):
// 0.042–0.047 against 0.38–0.43 CPU-seconds at M = 10,000 in 4 KiB pages
// (three alternated runs on machine D, 2026-11-27, load 3.6).
func narrowRows(ctx context.Context, raw blas64.General, tm blas32.General, diag []float64, shift float64) error {
	m := len(diag)
	return parallel.For(ctx, (m+copyRows-1)/copyRows, 0, func(_, task int) {
		for i := task * copyRows; i < min(m, (task+1)*copyRows); i++ {
			src := raw.Data[i*raw.Stride : i*raw.Stride+i]
			dst := tm.Data[i*tm.Stride : i*tm.Stride+i+1]
			for j, v := range src {
				dst[j] = float32(v)
			}
			dst[i] = float32(diag[i] + shift)
		}
	})
}
