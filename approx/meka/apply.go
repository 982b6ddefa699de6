package meka

import (
	"context"
	"fmt"

	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/internal/parallel"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// Products with the fitted approximation W L Wᵀ and its extension to new
// points (feature map, KRR predictions).

// Mul sets dst = W L Wᵀ V, the approximate kernel matrix times V (n×t).
func (m *Map) Mul(ctx context.Context, dst, v *mat.Dense) error {
	rv, t := v.Dims()
	if rd, td := dst.Dims(); rv != m.n || rd != m.n || td != t {
		return fmt.Errorf("approx: meka: Mul: dst %d×%d and V %d×%d, want %d×t", rd, td, rv, t, m.n)
	}
	u := m.wtMul(v)
	z := mat.NewDense(m.Rank(), t, nil)
	z.Mul(m.l, u)
	return m.wMul(ctx, dst, z)
}

// wtMul returns Wᵀ V (r × t).
func (m *Map) wtMul(v *mat.Dense) *mat.Dense {
	_, t := v.Dims()
	u := mat.NewDense(m.Rank(), t, nil)
	for s, mem := range m.members {
		if m.w[s] == nil || m.w[s].RawMatrix().Cols == 0 {
			continue
		}
		vs := points.Gather(v, mem)
		us := u.Slice(m.off[s], m.off[s+1], 0, t).(*mat.Dense)
		us.Mul(m.w[s].T(), vs)
	}
	return u
}

// wMul sets dst (n×t) = W Z for Z (r × t).
func (m *Map) wMul(ctx context.Context, dst, z *mat.Dense) error {
	_, t := z.Dims()
	return parallel.For(ctx, len(m.members), m.opt.Workers, func(_, s int) {
		mem := m.members[s]
		if len(mem) == 0 {
			return
		}
		out := mat.NewDense(len(mem), t, nil)
		if m.w[s] != nil && m.w[s].RawMatrix().Cols > 0 {
			out.Mul(m.w[s], z.Slice(m.off[s], m.off[s+1], 0, t))
		}
		for i, row := range mem {
			copy(dst.RawRowView(row), out.RawRowView(i))
		}
	})
}

// Rows writes rows idx of the approximation W L Wᵀ into dst (len(idx) × n),
// for measuring its error against exact kernel rows.
func (m *Map) Rows(ctx context.Context, dst *mat.Dense, idx []int) error {
	q := len(idx)
	if rd, cd := dst.Dims(); rd != q || cd != m.n {
		return fmt.Errorf("approx: meka: Rows: dst is %d×%d, want %d×%d", rd, cd, q, m.n)
	}
	r := m.Rank()
	// U_idx (q × r): row i holds W⁽ˢ⁾[pos] in block s.
	ui := mat.NewDense(q, r, nil)
	for i, row := range idx {
		if row < 0 || row >= m.n {
			return fmt.Errorf("approx: meka: Rows: %w: row %d out of [0, %d)", check.ErrInput, row, m.n)
		}
		s := m.labels[row]
		if m.w[s] == nil {
			continue
		}
		copy(ui.RawRowView(i)[m.off[s]:m.off[s+1]], m.w[s].RawRowView(m.pos[row]))
	}
	qm := mat.NewDense(q, r, nil)
	qm.Mul(ui, m.l)
	return parallel.For(ctx, len(m.members), m.opt.Workers, func(_, t int) {
		mem := m.members[t]
		out := mat.NewDense(q, len(mem), nil)
		if len(mem) > 0 && m.w[t] != nil && m.w[t].RawMatrix().Cols > 0 {
			out.Mul(qm.Slice(0, q, m.off[t], m.off[t+1]), m.w[t].T())
		}
		for i := 0; i < q; i++ {
			drow := dst.RawRowView(i)
			orow := out.RawRowView(i)
			for j, col := range mem {
				drow[col] = orow[j]
			}
		}
	})
}

// Dim returns the number of features of the PSD-fixed approximation: the
// number of positive eigenvalues of L kept. It eigendecomposes L on first use
// and returns 0 if that fails.
func (m *Map) Dim() int {
	if err := m.eigen(); err != nil {
		return 0
	}
	_, c := m.feat.Dims()
	return c
}

// Transform writes φ(x_i) into row i of dst (n×Dim()): x_i is assigned to its
// nearest centroid s, extended with that cluster's Nyström basis,
// w(x_i) = k(x_i, Z_s)·P_s (which reproduces row i of W⁽ˢ⁾ for training
// points), and φ(x_i) = w(x_i)ᵀ (V₊Λ₊^(1/2))_s. Then φ(x)·φ(y) is the
// PSD-fixed MEKA approximation of k(x, y), whether or not PSD was set.
//
// Sparse x is used as it is (with the training data's column count).
func (m *Map) Transform(ctx context.Context, dst *mat.Dense, xIn mat.Matrix) error {
	if err := check.Context(ctx); err != nil {
		return fmt.Errorf("approx: meka: %w", err)
	}
	if dst == nil {
		return fmt.Errorf("approx: meka: %w: nil dst", check.ErrInput)
	}
	var x mat.Matrix
	if xs, ok := xIn.(kernel.Sparse); ok {
		if err := points.CheckSparse(xs, m.d); err != nil {
			return fmt.Errorf("approx: meka: %w", err)
		}
		x = xs
	} else {
		xd := kernel.DenseOf(xIn)
		if err := check.Cols(xd, m.d); err != nil {
			return fmt.Errorf("approx: meka: %w", err)
		}
		x = xd
	}
	if err := m.eigen(); err != nil {
		return err
	}
	nx, _ := x.Dims()
	_, r := m.feat.Dims()
	if rd, cd := dst.Dims(); rd != nx || cd != r {
		return fmt.Errorf("approx: meka: Transform: dst is %d×%d, want %d×%d", rd, cd, nx, r)
	}
	return m.extend(ctx, dst, x, func(s int) *mat.Dense {
		return m.feat.Slice(m.off[s], m.off[s+1], 0, r).(*mat.Dense)
	})
}

// extend computes, for every row x_i assigned to cluster s,
// dst_i = k(x_i, Z_s)·P_s·right(s).
func (m *Map) extend(ctx context.Context, dst *mat.Dense, x mat.Matrix, right func(s int) *mat.Dense) error {
	lab, err := m.part.Assign(x)
	if err != nil {
		return fmt.Errorf("approx: meka: %w", err)
	}
	c := len(m.members)
	rows := make([][]int, c)
	for i, s := range lab {
		rows[s] = append(rows[s], i)
	}
	_, t := dst.Dims()
	return parallel.For(ctx, c, m.opt.Workers, func(_, s int) {
		if len(rows[s]) == 0 {
			return
		}
		if m.w[s] == nil || m.w[s].RawMatrix().Cols == 0 {
			for _, i := range rows[s] {
				clear(dst.RawRowView(i))
			}
			return
		}
		for lo := 0; lo < len(rows[s]); lo += 1024 {
			chunk := rows[s][lo:min(lo+1024, len(rows[s]))]
			kz := mat.NewDense(len(chunk), m.z[s].RawMatrix().Rows, nil)
			points.Block(m.kern, kz, x, chunk, m.z[s])
			var ws mat.Dense
			ws.Mul(kz, m.proj[s])
			out := mat.NewDense(len(chunk), t, nil)
			out.Mul(&ws, right(s))
			for i, row := range chunk {
				copy(dst.RawRowView(row), out.RawRowView(i))
			}
		}
	})
}

// CrossMul sets dst = K̃(X_new, X)·α for new points X_new (q×d) and
// coefficients α (n×t), through the out-of-sample extension: each new point
// gets the basis row w(x) of its cluster and K̃(x, X)α = w(x)ᵀ (L Wᵀα)_s.
// This is how KRR on MEKA predicts; Coefficients and Expand split it in two
// so that β = L Wᵀα is computed once.
func (m *Map) CrossMul(ctx context.Context, dst, xnew, alpha *mat.Dense) error {
	beta, err := m.Coefficients(alpha)
	if err != nil {
		return err
	}
	return m.Expand(ctx, dst, xnew, beta)
}

// Coefficients returns β = L Wᵀα ((Σk_s)×t) for coefficients α (n×t).
func (m *Map) Coefficients(alpha *mat.Dense) (*mat.Dense, error) {
	if err := check.Matrix("alpha", alpha); err != nil {
		return nil, fmt.Errorf("approx: meka: %w", err)
	}
	ra, t := alpha.Dims()
	if ra != m.n {
		return nil, fmt.Errorf("approx: meka: %w: α has %d rows, want n = %d", check.ErrInput, ra, m.n)
	}
	beta := mat.NewDense(m.Rank(), t, nil)
	beta.Mul(m.l, m.wtMul(alpha))
	return beta, nil
}

// Expand sets dst_i = w(x_i)ᵀ β_s for each new point x_i (q×d) assigned to
// cluster s, with β from Coefficients; dst is q×t. Memory and time are
// O(q·m_s·(d + k_s)): the basis rows of new points are never stored.
// Sparse xnew (kernel.Sparse, with the training data's column count) is used
// as it is.
func (m *Map) Expand(ctx context.Context, dst *mat.Dense, xIn mat.Matrix, beta *mat.Dense) error {
	var xnew mat.Matrix
	if xs, ok := xIn.(kernel.Sparse); ok {
		if err := points.CheckSparse(xs, m.d); err != nil {
			return fmt.Errorf("approx: meka: %w", err)
		}
		xnew = xs
	} else {
		xd := kernel.DenseOf(xIn)
		if err := check.Cols(xd, m.d); err != nil {
			return fmt.Errorf("approx: meka: %w", err)
		}
		xnew = xd
	}
	rb, t := beta.Dims()
	q, _ := xnew.Dims()
	if rd, td := dst.Dims(); rb != m.Rank() || rd != q || td != t {
		return fmt.Errorf("approx: meka: Expand: dst %d×%d and β %d×%d, want %d×t and %d×t", rd, td, rb, t, q, m.Rank())
	}
	return m.extend(ctx, dst, xnew, func(s int) *mat.Dense {
		return beta.Slice(m.off[s], m.off[s+1], 0, t).(*mat.Dense)
	})
}
