package datasets

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
)

// WriteLIBSVMSparse writes m with labels y in LIBSVM format, one line per row
// with its stored entries (explicit zeros are skipped), 1-based indices and
// the shortest decimal forms that read back to the same float64, so
// ReadLIBSVMSparse gives back the non-zero structure and values exactly. The
// last column is written on no line when it is zero everywhere, so pass the
// dimension to the reader to keep it.
func WriteLIBSVMSparse(w io.Writer, m *CSR, y []float64) error {
	return writeLIBSVMSparse(context.Background(), w, m, y, nil)
}

// writeLIBSVMSparse is WriteLIBSVMSparse that stops with ctx's error when
// ctx is cancelled, checked every textCheckRows rows, and calls progress,
// when non-nil, with the rows written every ProgressRows rows and once all
// are (flushed).
func writeLIBSVMSparse(ctx context.Context, w io.Writer, m *CSR, y []float64, progress func(rows int)) error {
	if r, _ := m.Dims(); len(y) != r {
		return fmt.Errorf("datasets: %w: %d labels for %d rows", ErrInput, len(y), r)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf []byte
	for i, label := range y {
		if i%textCheckRows == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if i > 0 && i%ProgressRows == 0 && progress != nil {
			progress(i)
		}
		buf = strconv.AppendFloat(buf[:0], label, 'g', -1, 64)
		for p := m.Indptr[i]; p < m.Indptr[i+1]; p++ {
			if m.Values[p] == 0 {
				continue
			}
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(m.Indices[p])+1, 10)
			buf = append(buf, ':')
			buf = strconv.AppendFloat(buf, m.Values[p], 'g', -1, 64)
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if progress != nil {
		progress(len(y))
	}
	return nil
}

// MaxAbsScale returns the per-column scale factors 1/max_i |x_ij| of m (1 for
// a column that is zero everywhere). Scaling only, no centering: subtracting
// a column mean would fill in every zero and destroy the sparsity, so sparse
// data are standardized by scale alone. Apply the factors with ScaleColumns,
// to training and test data alike.
func (m *CSR) MaxAbsScale() []float64 {
	s := make([]float64, m.cols)
	for p, j := range m.Indices {
		s[j] = math.Max(s[j], math.Abs(m.Values[p]))
	}
	for j, v := range s {
		if v == 0 {
			s[j] = 1
		} else {
			s[j] = 1 / v
		}
	}
	return s
}

// ScaleColumns returns a copy of m with column j multiplied by scale[j];
// the non-zero structure is unchanged.
func (m *CSR) ScaleColumns(scale []float64) (*CSR, error) {
	if len(scale) != m.cols {
		return nil, fmt.Errorf("datasets: %w: %d scale factors for %d columns", ErrInput, len(scale), m.cols)
	}
	out := &CSR{Indptr: append([]int(nil), m.Indptr...), Indices: append([]int32(nil), m.Indices...),
		Values: make([]float64, len(m.Values)), rows: m.rows, cols: m.cols}
	for p, j := range m.Indices {
		out.Values[p] = m.Values[p] * scale[j]
	}
	return out, nil
}

// SparseRegression draws an n×d CSR matrix with nnz distinct non-zero columns
// per row, chosen uniformly, with standard normal values, and targets
// y = w·x + 0.1·noise for a standard normal w drawn first; every draw comes
// from rng. It is the synthetic sparse set of issue 12 (e.g. 100,000 × 50,000
// with 50 non-zeros a row, 12 bytes per non-zero).
func SparseRegression(n, d, nnz int, rng *rand.Rand) (*CSR, []float64, error) {
	if n <= 0 || d <= 0 || nnz < 0 || nnz > d || d > math.MaxInt32 {
		return nil, nil, fmt.Errorf("datasets: %w: sparse regression n=%d d=%d nnz=%d (want n, d > 0, 0 ≤ nnz ≤ d)", ErrInput, n, d, nnz)
	}
	w := make([]float64, d)
	for j := range w {
		w[j] = rng.NormFloat64()
	}
	m := &CSR{Indptr: make([]int, n+1), Indices: make([]int32, 0, n*nnz), Values: make([]float64, 0, n*nnz), rows: n, cols: d}
	y := make([]float64, n)
	seen := make(map[int32]bool, nnz)
	cols := make([]int32, 0, nnz)
	for i := 0; i < n; i++ {
		clear(seen)
		cols = cols[:0]
		for len(cols) < nnz {
			j := int32(rng.IntN(d))
			if !seen[j] {
				seen[j] = true
				cols = append(cols, j)
			}
		}
		slices.Sort(cols)
		var dot float64
		for _, j := range cols {
			v := rng.NormFloat64()
			m.Indices = append(m.Indices, j)
			m.Values = append(m.Values, v)
			dot += w[j] * v
		}
		m.Indptr[i+1] = len(m.Values)
		y[i] = dot + 0.1*rng.NormFloat64()
	}
	return m, y, nil
}
