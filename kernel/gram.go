package kernel

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// gramChunk is the number of rows of c updated per engine call in SubLowerGram.
const gramChunk = 128

// SubLowerGram sets the lower triangle (j ≤ i) of the m×m matrix c to
// c − a·aᵀ, with a m×k, leaving the strict upper triangle alone. It is the
// trailing update of a blocked Cholesky factorization (LAPACK's dsyrk step),
// computed with the engine's blocked, vectorized products: row chunk
// [r0, r1) of c takes a[r0:r1]·a[0:r1]ᵀ, so only the lower triangle's
// products (plus the chunk's diagonal square) are formed.
func SubLowerGram(ctx context.Context, c, a *mat.Dense, opt Options) error {
	m, k := a.Dims()
	if r, cc := c.Dims(); r != m || cc != m {
		return fmt.Errorf("kernel: SubLowerGram: c is %d×%d, want %d×%d", r, cc, m, m)
	}
	if m == 0 || k == 0 {
		return nil
	}
	rc := c.RawMatrix()
	tmp := make([]float64, gramChunk*m)
	for r0 := 0; r0 < m; r0 += gramChunk {
		r1 := min(r0+gramChunk, m)
		x := a.Slice(r0, r1, 0, k).(*mat.Dense)
		y := a.Slice(0, r1, 0, k).(*mat.Dense)
		dst := mat.NewDense(r1-r0, r1, tmp[:(r1-r0)*r1])
		if err := NewOp(Linear{}, x, y, opt).Block(ctx, dst); err != nil {
			return err
		}
		for i := r0; i < r1; i++ {
			row := rc.Data[i*rc.Stride : i*rc.Stride+i+1]
			src := tmp[(i-r0)*r1 : (i-r0)*r1+i+1]
			for j, v := range src {
				row[j] -= v
			}
		}
	}
	return nil
}
