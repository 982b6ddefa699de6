package approx

import (
	"context"
	"fmt"
	"math"

	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// DefaultNystromFloor is the default relative eigenvalue floor of Nystrom.
// Eigenvalues of the symmetric M×M matrix W are computed with an absolute
// error of order M·ε·λ_max (ε ≈ 2.2e-16), about 1e-13·λ_max for M in the
// thousands; eigenvalues below 1e-10·λ_max are therefore mostly rounding
// noise, and inverting them would blow the approximation up.
const DefaultNystromFloor = 1e-10

// DefaultNystromMaxBytes bounds the memory of the QR variant's fit
// (Nystrom.PlanQR: the n×M matrix C = K(X, L), 8·n·M bytes, and what
// forming and factoring it takes): 2 GiB.
const DefaultNystromMaxBytes = 2 << 30

// Nystrom configures a Nyström approximation K̃ ≈ K built from landmarks L
// (Pourkamali-Anaraki & Becker, Sec. 2–3). With C = K(X, L) (n×M) and
// W = K(L, L) (M×M):
//
//   - standard (QR false): K̃ = C W_k⁺ Cᵀ, where W_k is the best rank-k
//     approximation of W (their Alg. 1); Rank 0 means the full W⁺;
//   - QR (QR true): the best rank-k approximation of C W⁺ Cᵀ itself (their
//     Alg. 2): thin QR C = QR, eigendecomposition R W⁺ Rᵀ = U Σ Uᵀ,
//     K̃ = Q U_k Σ_k U_kᵀ Qᵀ. Its error is never larger than the standard
//     rank-k error from the same landmarks, and equal at k = M. QR stores C
//     on the training set: 8·n·M bytes, planned with the rest of its fit
//     (PlanQR) and bounded by MaxBytes.
//
// W⁺ is the pseudo-inverse with eigenvalues ≤ Floor·λ_max(W) treated as zero
// (reported in NystromMap.Dropped), rather than inverted. Landmark weights are
// ignored: C W⁺ Cᵀ does not change when the landmarks are rescaled. Zero
// values mean defaults.
type Nystrom struct {
	// Rank is the target rank k; 0 keeps every eigenvalue above the floor.
	Rank int
	// QR selects the best rank-k approximation (Alg. 2) instead of Alg. 1.
	QR bool
	// Floor is the relative eigenvalue floor in [0, 1); 0 means
	// DefaultNystromFloor.
	Floor float64
	// MaxBytes bounds what the QR variant's fit allocates (PlanQR: C, the
	// kernel engine's scratch, a dense copy of X other than a *mat.Dense,
	// the landmarks' copy and the M×M matrices; not X itself), checked
	// before anything is allocated; 0 means DefaultNystromMaxBytes.
	MaxBytes int64
	// Kernel engine options for K(X, L).
	Engine kernel.Options
}

// NystromMap is a fitted Nyström feature map φ(x) = K(x, L)·T with
// K̃(x, y) = φ(x)·φ(y).
type NystromMap struct {
	Kernel kernel.Kernel
	// Landmarks are the M landmarks (M×d): a *mat.Dense, or CSR rows
	// (*kernel.CSRRows) when they came sparse from the sampler.
	Landmarks mat.Matrix
	// T is the M×r projection: V_k Λ_k^{-1/2} for the standard map,
	// V_r Λ_r^{-1/2} Z_k for QR (Z_k: top right singular vectors of
	// R V_r Λ_r^{-1/2}).
	T *mat.Dense
	// Values are, for QR maps, the approximate top-r eigenvalues of K (those
	// of K̃), descending; the matching approximate eigenvectors on the
	// training rows are the columns of φ(X) divided by √Values. For standard
	// maps they are the eigenvalues of W that were kept, descending.
	Values []float64
	// Dropped counts the eigenvalues of W at or below the floor.
	Dropped int
	engine  kernel.Options
	qr      bool
}

var _ FeatureMap = (*NystromMap)(nil)

// Dim returns the number of features r.
func (m *NystromMap) Dim() int { _, r := m.T.Dims(); return r }

// Transform writes φ(x_i) = K(x_i, L)·T into row i of dst (n×r), through the
// kernel engine. Sparse x stays sparse (see inputCols for its columns).
func (m *NystromMap) Transform(ctx context.Context, dst *mat.Dense, xIn mat.Matrix) error {
	if err := transformArgs(ctx, dst); err != nil {
		return fmt.Errorf("approx: nyström: %w", err)
	}
	_, d := m.Landmarks.Dims()
	x, err := inputCols(xIn, d)
	if err != nil {
		return err
	}
	n, _ := x.Dims()
	if r, c := dst.Dims(); r != n || c != m.Dim() {
		return fmt.Errorf("approx: nyström: %w: dst is %d×%d, want %d×%d", check.ErrInput, r, c, n, m.Dim())
	}
	return kernel.NewOp(m.Kernel, x, m.Landmarks, m.engine).Mul(ctx, dst, m.T)
}

// Eigenvectors returns the approximate top-r eigenvectors of K(X, X) on the
// training rows x of a QR map (Pourkamali-Anaraki & Becker, Alg. 2: Q·U_k),
// as the columns of an n×r matrix with orthonormal columns; the matching
// eigenvalues are Values. Standard maps have no such eigenvectors (their
// features are not orthogonal) and return an error.
func (m *NystromMap) Eigenvectors(ctx context.Context, xIn mat.Matrix) (*mat.Dense, error) {
	x := kernel.DenseOf(xIn)
	if !m.qr {
		return nil, fmt.Errorf("approx: nyström: %w: eigenvectors need a QR map (Nystrom.QR)", check.ErrInput)
	}
	n, _ := x.Dims()
	if err := check.Matrix("X", x); err != nil {
		return nil, err
	}
	v := mat.NewDense(n, m.Dim(), nil)
	if err := m.Transform(ctx, v, x); err != nil {
		return nil, err
	}
	for j, s := range m.Values {
		col := 1 / math.Sqrt(s)
		for i := 0; i < n; i++ {
			v.Set(i, j, v.At(i, j)*col)
		}
	}
	return v, nil
}

// Fit builds the Nyström map of k on x from the landmarks lm. x is used only
// by the QR variant (which needs C on the training rows); the standard map
// depends on the landmarks alone.
func (ny Nystrom) Fit(ctx context.Context, xIn mat.Matrix, k kernel.Kernel, lm *Landmarks) (*NystromMap, error) {
	if err := check.Context(ctx); err != nil {
		return nil, fmt.Errorf("approx: nyström: %w", err)
	}
	if err := checkNystromInputs(k, lm); err != nil {
		return nil, err
	}
	mLm, _ := lm.Points.Dims()
	cfg, rank, err := ny.resolve(mLm)
	if err != nil {
		return nil, err
	}
	var n int
	var x mat.Matrix
	if cfg.QR {
		if x, n, err = cfg.qrInput(xIn, k, lm.Points); err != nil {
			return nil, err
		}
	}
	t0, vals, dropped, err := cfg.whitening(ctx, k, lm.Points)
	if err != nil {
		return nil, err
	}
	out := &NystromMap{Kernel: k, Landmarks: copyLandmarks(lm.Points), Dropped: dropped, engine: cfg.Engine, qr: cfg.QR}
	if !cfg.QR {
		keep := min(rank, len(vals))
		out.T = mat.DenseCopyOf(t0.Slice(0, mLm, 0, keep))
		out.Values = append([]float64(nil), vals[:keep]...)
		return out, nil
	}
	if err := cfg.fitQR(ctx, out, x, n, lm.Points, t0, rank); err != nil {
		return nil, err
	}
	return out, nil
}

// checkNystromInputs validates Fit's kernel and landmarks.
func checkNystromInputs(k kernel.Kernel, lm *Landmarks) error {
	if k == nil {
		return fmt.Errorf("approx: nyström: %w: kernel is nil", check.ErrInput)
	}
	if err := k.Validate(); err != nil {
		return fmt.Errorf("approx: nyström: %w", err)
	}
	if lm == nil {
		return fmt.Errorf("approx: nyström: %w: landmarks are nil", check.ErrInput)
	}
	if lm.Points == nil {
		return fmt.Errorf("approx: nyström: %w: landmarks have no points", check.ErrInput)
	}
	return checkLandmarks(lm.Points)
}

// resolve validates ny for m landmarks and returns a copy with the
// defaults filled in and the target rank k (m when Rank is 0).
func (ny Nystrom) resolve(m int) (Nystrom, int, error) {
	cfg := ny
	switch {
	case cfg.Rank < 0 || cfg.Rank > m:
		return cfg, 0, fmt.Errorf("approx: nyström: %w: Rank = %d, want 0 ≤ Rank ≤ M = %d", check.ErrInput, cfg.Rank, m)
	case !(cfg.Floor >= 0 && cfg.Floor < 1):
		return cfg, 0, fmt.Errorf("approx: nyström: %w: Floor = %g, want in [0, 1)", check.ErrInput, cfg.Floor)
	case cfg.MaxBytes < 0:
		return cfg, 0, fmt.Errorf("approx: nyström: %w: MaxBytes = %d < 0", check.ErrInput, cfg.MaxBytes)
	}
	if cfg.Floor == 0 {
		cfg.Floor = DefaultNystromFloor
	}
	if cfg.MaxBytes == 0 {
		cfg.MaxBytes = DefaultNystromMaxBytes
	}
	rank := cfg.Rank
	if rank == 0 {
		rank = m
	}
	return cfg, rank, nil
}

// qrInput checks the QR variant's training rows x against the landmarks'
// columns and plans the fit (PlanQR) against MaxBytes before anything is
// allocated; it returns the rows to use (points.Data: sparse as they are,
// other X than a *mat.Dense as a dense copy) and n.
func (ny Nystrom) qrInput(xIn mat.Matrix, k kernel.Kernel, pts mat.Matrix) (mat.Matrix, int, error) {
	m, d := pts.Dims()
	if xd, ok := xIn.(*mat.Dense); ok {
		if err := check.Cols(xd, d); err != nil { // before the plan, which reads its shape
			return nil, 0, err
		}
	}
	n, _ := xIn.Dims()
	if need := ny.PlanQR(xIn, k, pts); need > ny.MaxBytes {
		return nil, 0, fmt.Errorf("approx: nyström QR: %w: the fit needs %d bytes (%s: C = K(X, L) %d (n = %d, M = %d), the kernel engine's scratch forming it and W %d, X's dense copy %d, the landmarks' copy %d, %d M×M matrices %d), over MaxBytes = %d",
			check.ErrMemory, need, check.FormatBytes(need), 8*int64(n)*int64(m), n, m, ny.engineQR(xIn, k, pts), dataCopyBytes(xIn), landmarkCopyBytes(pts), qrSquares, 8*qrSquares*int64(m)*int64(m), ny.MaxBytes)
	}
	xc, err := inputCols(points.Data(xIn), d)
	if err != nil {
		return nil, 0, err
	}
	return xc, n, nil
}

// PlanQR is what Fit allocates in the QR variant for the training rows x
// and the landmarks pts, the figure MaxBytes bounds (X itself, the
// caller's, is not counted): C = K(X, L) (8·n·M bytes); the kernel
// engine's scratch forming W = K(L, L) and C (kernel.Op.ScratchBytes(0):
// the packed landmarks, the norms of X, each worker's block of K and
// packed block of X, up to 8 MiB a worker at large d); the dense copy of X
// when it is neither a *mat.Dense nor sparse (8·n·d); the map's copy of
// the landmarks; and qrSquares M×M matrices. Every allocation counts, the
// short-lived ones too, so that it bounds the fit's TotalAlloc
// (TestNystromQRPlan). Before, MaxBytes was held against C alone: at
// n = 2,000, M = 16, d = 2,000 the fit allocated 18.2 MB for a C of
// 0.26 MB, most of it two workers' 520-row packed blocks of X.
func (ny Nystrom) PlanQR(x mat.Matrix, k kernel.Kernel, pts mat.Matrix) int64 {
	n, _ := x.Dims()
	m, _ := pts.Dims()
	nm, mm := int64(n)*int64(m), int64(m)*int64(m)
	return 8*nm + ny.engineQR(x, k, pts) + dataCopyBytes(x) + landmarkCopyBytes(pts) + 8*qrSquares*mm
}

// qrSquares counts the M×M matrices (or smaller: M×r, r×r) the QR fit
// allocates, all of them, short-lived ones included: W, the eigensolver's
// copy, vectors and workspace, their reordered copy and T0, then R, B =
// R·T0, the SVD's factors and workspace, Z and T. Measured 12.8–13.0 M²
// of allocations beside C, the engine and the landmarks at M = 400, 800
// and 1,000 (n = 1,000–3,000, d = 5–20): counted as 14.
const qrSquares = 14

// engineQR is the kernel engine's scratch in the QR fit: for W = K(L, L),
// then for C = K(X, L), both counted (the first is garbage by the time of
// the second, but it was allocated).
func (ny Nystrom) engineQR(x mat.Matrix, k kernel.Kernel, pts mat.Matrix) int64 {
	m, d := pts.Dims()
	n, _ := x.Dims()
	xs := mat.Matrix(shapeOnly(n, d))
	if s, ok := x.(kernel.Sparse); ok {
		xs = s
	}
	ps := mat.Matrix(shapeOnly(m, d))
	if s, ok := pts.(kernel.Sparse); ok {
		ps = s
	}
	return kernel.NewOp(k, xs, ps, ny.Engine).ScratchBytes(0) + kernel.NewOp(k, ps, ps, ny.Engine).ScratchBytes(0)
}

// landmarkCopyBytes is the size of copyLandmarks(p): 8·M·d dense, the CSR
// arrays (12 bytes a non-zero, 8 a row and one more) sparse.
func landmarkCopyBytes(p mat.Matrix) int64 {
	if s, ok := p.(kernel.Sparse); ok {
		r, _ := s.Dims()
		_, _, values := s.CSR()
		return kernel.CSRBytes(r, int64(len(values)))
	}
	m, d := p.Dims()
	return 8 * int64(m) * int64(d)
}

// dataCopyBytes is the dense copy points.Data makes of x (the QR fit, the
// leverage-score samplers): 8nd when x is
// neither a *mat.Dense nor sparse, else 0.
func dataCopyBytes(x mat.Matrix) int64 {
	if _, ok := x.(kernel.Sparse); ok {
		return 0
	}
	return denseCopyBytes(x)
}

// whitening forms W = K(L, L) for the landmarks pts and its eigenvalues
// above the floor (descending) and returns T0 = V_r Λ_r^{-1/2}, those
// eigenvalues and how many were dropped: W⁺ = T0 T0ᵀ (Alg. 1's W_k⁺ when
// T0 is cut to its first k columns).
func (ny Nystrom) whitening(ctx context.Context, k kernel.Kernel, pts mat.Matrix) (*mat.Dense, []float64, int, error) {
	m, _ := pts.Dims()
	w := mat.NewDense(m, m, nil)
	if err := kernel.NewOp(k, pts, pts, ny.Engine).Block(ctx, w); err != nil {
		return nil, nil, 0, err
	}
	vals, vecs, dropped, err := floorEig(w, ny.Floor)
	if err != nil {
		return nil, nil, 0, err
	}
	r := len(vals)
	// T0 = V_r Λ_r^{-1/2}, columns in decreasing eigenvalue order.
	t0 := mat.NewDense(m, r, nil)
	for j := 0; j < r; j++ {
		s := 1 / math.Sqrt(vals[j])
		for i := 0; i < m; i++ {
			t0.Set(i, j, vecs.At(i, j)*s)
		}
	}
	return t0, vals, dropped, nil
}

// fitQR sets out.T and out.Values of the QR variant (Alg. 2) from the n
// training rows x, the landmarks pts and T0 (see whitening), keeping at
// most rank of them: C = QR, B = R·T0 (M×r); R W⁺ Rᵀ = B Bᵀ, so its
// eigenpairs come from the SVD B = U S Zᵀ: Σ = S², and
// Q U_k Σ_k^{1/2} = C T0 Z_k.
func (ny Nystrom) fitQR(ctx context.Context, out *NystromMap, x mat.Matrix, n int, pts mat.Matrix, t0 *mat.Dense, rank int) error {
	mLm, r := t0.Dims()
	c := mat.NewDense(n, mLm, nil)
	if err := kernel.NewOp(out.Kernel, x, pts, ny.Engine).Block(ctx, c); err != nil {
		return err
	}
	// In-place Householder QR (LAPACK dgeqrf): R is the upper triangle of
	// the first min(n, M) rows; nothing else of size n×M is allocated.
	rc := c.RawMatrix()
	tau := make([]float64, min(n, mLm))
	work := []float64{0}
	lapack64.Geqrf(rc, tau, work, -1)
	work = make([]float64, max(1, int(work[0])))
	lapack64.Geqrf(rc, tau, work, len(work))
	rows := min(n, mLm)
	rm := mat.NewDense(rows, mLm, nil)
	for i := 0; i < rows; i++ {
		copy(rm.RawRowView(i)[i:], c.RawRowView(i)[i:])
	}
	var b mat.Dense
	b.Mul(rm, t0)
	var svd mat.SVD
	if !svd.Factorize(&b, mat.SVDThin) {
		return fmt.Errorf("nyström QR: SVD of R·W^(-1/2) did not converge")
	}
	sv := svd.Values(nil)
	var z mat.Dense
	svd.VTo(&z)
	keep := min(rank, len(sv))
	// Singular values below the floor carry no information: drop them too.
	for keep > 0 && sv[keep-1]*sv[keep-1] <= ny.Floor*sv[0]*sv[0] {
		keep--
	}
	var t mat.Dense
	t.Mul(t0, z.Slice(0, r, 0, keep))
	out.T = &t
	out.Values = make([]float64, keep)
	for j := range out.Values {
		out.Values[j] = sv[j] * sv[j]
	}
	return nil
}

// floorEig returns the eigenvalues of the symmetric w above floor·λ_max in
// decreasing order, their eigenvectors as columns, and how many were dropped.
func floorEig(w *mat.Dense, floor float64) ([]float64, *mat.Dense, int, error) {
	m, _ := w.Dims()
	var es mat.EigenSym
	if !es.Factorize(mat.NewSymDense(m, w.RawMatrix().Data), true) {
		return nil, nil, 0, fmt.Errorf("nyström: eigendecomposition of W did not converge")
	}
	asc := es.Values(nil)
	var v mat.Dense
	es.VectorsTo(&v)
	top := asc[m-1]
	if !(top > 0) {
		return nil, nil, 0, fmt.Errorf("approx: nyström: %w: W = K(L, L) has no positive eigenvalue (largest %g)", check.ErrInput, top)
	}
	var vals []float64
	for j := m - 1; j >= 0 && asc[j] > floor*top; j-- {
		vals = append(vals, asc[j])
	}
	r := len(vals)
	vecs := mat.NewDense(m, r, nil)
	for j := 0; j < r; j++ {
		for i := 0; i < m; i++ {
			vecs.Set(i, j, v.At(i, m-1-j))
		}
	}
	return vals, vecs, m - r, nil
}
