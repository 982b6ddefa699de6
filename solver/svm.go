package solver

import (
	"context"
	"fmt"
	"math"

	"github.com/landmark-ml/landmark/internal/check"
)

// ErrSVMProblem is wrapped by errors about an ill-formed SVM dual problem. It
// wraps model.ErrInput (check.ErrInput).
var ErrSVMProblem = check.Sentinel("solver: invalid SVM problem", check.ErrInput)

// Columns gives the SVM solvers the kernel matrix K one column at a time; the
// solvers never ask for the whole n×n matrix. Q = yyᵀ∘K is formed on the fly.
type Columns interface {
	// Len returns n.
	Len() int
	// Column writes K(x_r, x_i) for r = 0…n−1 into dst (n elements).
	Column(i int, dst []float64)
	// Diag returns K(x_i, x_i).
	Diag(i int) float64
}

// Subsetter is implemented by Columns that can restrict themselves to a subset
// of their rows and columns. When the active set has shrunk the solvers use it
// so that a column costs the active size rather than n (LIBSVM gets the same
// effect by reordering the problem).
type Subsetter interface {
	// Subset returns the kernel matrix of points idx[0], idx[1], …: its
	// element (r, c) is K(x_idx[r], x_idx[c]).
	Subset(idx []int) Columns
}

// Multiplier is implemented by Columns that can multiply a block of K by a
// vector faster than column by column. The solvers use it to rebuild the
// gradient after shrinking and to start from a given α.
type Multiplier interface {
	// MulVec sets dst[r] = Σ_c K(x_rows[r], x_cols[c])·v[c].
	MulVec(ctx context.Context, rows, cols []int, v, dst []float64) error
}

// SVMProblem is the box-constrained dual
//
//	min ½αᵀQα + pᵀα,  0 ≤ α_i ≤ C_i,  Q = yyᵀ∘K,
//
// with, for SolveSMO only, the equality constraint yᵀα = Δ that comes from the
// bias term (Δ = Sum, 0 for the SVMs). The linear term p is −e for classification (C-SVC); ε-SVR
// doubles the variables and sets p = (ε − z, ε + z) for targets z (LIBSVM's
// formulation, Chang & Lin 2011, Sect. 2.4). Several variables may stand
// for one point (Rows): K is then the kernel matrix of the points and
// Q_ij = y_i y_j K(rows_i, rows_j), each point's column computed and cached
// once, as LIBSVM's SVR_Q does.
type SVMProblem struct {
	// K holds the kernel matrix of the points.
	K Columns
	// Rows maps each variable to its point, a row of K; nil means variable
	// i is point i (len(Y) = K.Len()). ε-SVR's α_i and α*_i share point i.
	Rows []int
	// Y holds the labels, each +1 or −1, one per variable.
	Y []float64
	// C holds the upper bound of each α_i (C times the class weight); all > 0.
	C []float64
	// P holds the linear term p (finite); nil means p_i = −1 for every i,
	// the classification dual min ½αᵀQα − eᵀα.
	P []float64
	// Sum is Δ of SolveSMO's equality constraint yᵀα = Δ: 0 for C-SVC and
	// ε-SVR, ν·n for the one-class SVM (Schölkopf et al. 2001; LIBSVM's -s
	// 2, y = e, p = 0, C = 1). A non-zero Sum needs SVMOptions.Init with
	// yᵀInit = Sum, since α = 0 is then infeasible. SolveDCD has no equality
	// constraint and refuses a non-zero Sum.
	Sum float64
}

// SVMOptions tunes the dual solvers. The zero value means: tolerance 1e-3,
// iteration cap max(10⁷, 100n), 200 MB of column cache, shrinking on.
type SVMOptions struct {
	// Tol is the stopping tolerance on the maximal KKT violation (LIBSVM's -e,
	// default 1e-3). For SMO it is max_{I_up} −y_tG_t + max_{I_low} y_tG_t;
	// for dual coordinate descent max(max_t PG_t, 0) − min(min_t PG_t, 0)
	// with PG the projected gradient (Hsieh et al. 2008, Sect. 3; the zeros
	// make it vanish only at the optimum).
	Tol float64
	// MaxIter caps the number of updates; 0 means max(10⁷, 100n) as LIBSVM.
	// Reaching it is reported by Status, not as an error.
	MaxIter int
	// CacheBytes is the kernel-column cache budget; 0 means 200 MB.
	CacheBytes int64
	// NoShrinking turns the shrinking heuristic off.
	NoShrinking bool
	// Init, when non-nil, is the starting α (n elements within the box; for
	// SolveSMO also with yᵀα = SVMProblem.Sum). Nil starts from α = 0.
	Init []float64
	// Progress, when non-nil, is called about every 1,000 updates.
	Progress func(SVMProgress)
	// SingleCoordinate makes SolveDCD update one coordinate at a time
	// (Hsieh et al. 2008) instead of two (Steinwart, Hush & Scovel 2011).
	// SolveSMO ignores it.
	SingleCoordinate bool
	// Float32Cache keeps the cached kernel columns in float32, as LIBSVM's
	// Qfloat cache, so CacheBytes holds twice as many columns. Columns are
	// computed in float64 and rounded once (relative error ≤ 2⁻²⁴ per
	// entry); α, the gradient, the bias and every update stay float64, but
	// the gradient accumulates the rounded entries, so the solution is that
	// of a kernel matrix perturbed by about 6·10⁻⁸ relative (within the
	// stopping tolerance's reach, not bit-identical to the float64 cache).
	Float32Cache bool
}

// SVMProgress is what the progress callback receives.
type SVMProgress struct {
	// Iter is the number of updates so far.
	Iter int
	// Violation is the current maximal KKT violation over the active set.
	Violation float64
	// Active is the size of the active (unshrunk) set.
	Active int
}

// SVMStatus says why a dual solver stopped.
type SVMStatus int

// The statuses.
const (
	// SVMConverged means the KKT violation fell below the tolerance.
	SVMConverged SVMStatus = iota
	// SVMMaxIter means the iteration cap was reached first.
	SVMMaxIter
)

// String returns "converged", "max-iter", or SVMStatus(n) for other values.
func (s SVMStatus) String() string {
	switch s {
	case SVMConverged:
		return "converged"
	case SVMMaxIter:
		return "max-iter"
	}
	return fmt.Sprintf("SVMStatus(%d)", int(s))
}

// SVMResult is the solution of an SVM dual problem.
type SVMResult struct {
	// Alpha is the dual solution (n elements).
	Alpha []float64
	// Bias is b in f(x) = Σ α_i y_i K(x_i, x) + b (LIBSVM's −ρ); 0 for the
	// problem without bias.
	Bias float64
	// Objective is ½αᵀQα + pᵀα at Alpha (p = −e unless SVMProblem.P is set).
	Objective float64
	// Gradient is Qα + p at Alpha (n elements).
	Gradient []float64
	// Iterations is the number of updates.
	Iterations int
	// SV counts the support vectors (α_i > 0), BoundedSV those with α_i = C_i.
	SV, BoundedSV int
	// Violation is the final maximal KKT violation on the whole problem.
	Violation float64
	// Status says why the solver stopped.
	Status SVMStatus
	// CacheHits and CacheMisses count kernel-column requests.
	CacheHits, CacheMisses int64
	// R is SolveNu's r, the mean of the two classes' offsets (LIBSVM's
	// si->r): ν-SVC divides α and ρ by it, and −R is ν-SVR's ε. 0 from the
	// other solvers.
	R float64
}

const (
	tau         = 1e-12 // LIBSVM's TAU: the curvature used when K_ii + K_jj − 2K_ij ≤ 0
	defaultTol  = 1e-3
	defaultMem  = 200 << 20
	shrinkEvery = 1000
)

// svm is the state shared by both solvers; T is the element type of the
// column cache (SVMOptions.Float32Cache).
type svm[T float32 | float64] struct {
	ctx     context.Context
	opt     SVMOptions
	n       int
	y, c    []float64
	p       []float64 // linear term; −1 everywhere unless SVMProblem.P
	alpha   []float64
	g       []float64 // gradient Qα + p; exact on the active set
	qd      []float64 // K_ii
	full    Columns
	rows    []int   // variable → row of full; nil means identity
	m       int     // rows of full
	prov    Columns // current provider: full or a subset of its rows
	base    []int   // base position → row of full, ascending; nil means all
	rowPos  []int32 // row of full → base position, −1 when not in the base
	pos     []int32 // variable → base position of its row, −1 when not in the base
	cache   *Cache[T]
	scratch []float64 // a float64 column for the float32 cache's fill
	active  []int     // active indices, ascending
	shrunk  bool      // some index is inactive
	unshr   bool      // the one-time unshrink has happened
	hits    int64
	misses  int64
}

func newSVM[T float32 | float64](ctx context.Context, p SVMProblem, opt SVMOptions, bias bool) (*svm[T], error) {
	if p.K == nil {
		return nil, fmt.Errorf("%w: nil kernel columns", ErrSVMProblem)
	}
	m := p.K.Len()
	n := m
	if p.Rows != nil {
		n = len(p.Rows)
		for i, r := range p.Rows {
			if r < 0 || r >= m {
				return nil, fmt.Errorf("%w: variable %d maps to row %d of %d kernel rows", ErrSVMProblem, i, r, m)
			}
		}
	}
	if n == 0 || m == 0 {
		return nil, fmt.Errorf("%w: empty problem", ErrSVMProblem)
	}
	if len(p.Y) != n || len(p.C) != n {
		return nil, fmt.Errorf("%w: %d variables, %d labels, %d bounds", ErrSVMProblem, n, len(p.Y), len(p.C))
	}
	for i := range n {
		if p.Y[i] != 1 && p.Y[i] != -1 {
			return nil, fmt.Errorf("%w: y[%d] = %g, want ±1", ErrSVMProblem, i, p.Y[i])
		}
		if !(p.C[i] > 0) || math.IsInf(p.C[i], 0) {
			return nil, fmt.Errorf("%w: C[%d] = %g, want finite and > 0", ErrSVMProblem, i, p.C[i])
		}
	}
	if math.IsNaN(p.Sum) || math.IsInf(p.Sum, 0) || !bias && p.Sum != 0 {
		return nil, fmt.Errorf("%w: equality constraint yᵀα = %g (only SolveSMO has one, and it must be finite)", ErrSVMProblem, p.Sum)
	}
	lin := p.P
	if lin == nil {
		lin = make([]float64, n)
		for i := range lin {
			lin[i] = -1
		}
	} else if len(lin) != n {
		return nil, fmt.Errorf("%w: %d variables, %d linear terms", ErrSVMProblem, n, len(lin))
	}
	for i, v := range lin {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: p[%d] = %g, want finite", ErrSVMProblem, i, v)
		}
	}
	if opt.Tol == 0 {
		opt.Tol = defaultTol
	}
	if !(opt.Tol > 0) || math.IsInf(opt.Tol, 0) {
		return nil, fmt.Errorf("%w: tolerance %g, want > 0", ErrSVMProblem, opt.Tol)
	}
	if opt.MaxIter < 0 {
		return nil, fmt.Errorf("%w: max iterations %d, want ≥ 0", ErrSVMProblem, opt.MaxIter)
	}
	if opt.MaxIter == 0 {
		opt.MaxIter = max(10_000_000, 100*n)
	}
	if opt.CacheBytes < 0 {
		return nil, fmt.Errorf("%w: cache budget %d bytes, want ≥ 0", ErrSVMProblem, opt.CacheBytes)
	}
	if opt.CacheBytes == 0 {
		opt.CacheBytes = defaultMem
	}
	s := &svm[T]{ctx: ctx, opt: opt, n: n, y: p.Y, c: p.C, p: lin, full: p.K, rows: p.Rows, m: m}
	s.alpha = make([]float64, n)
	s.g = make([]float64, n)
	s.qd = make([]float64, n)
	for i := range n {
		s.qd[i] = p.K.Diag(s.row(i))
		s.g[i] = lin[i]
	}
	if opt.Init != nil {
		if len(opt.Init) != n {
			return nil, fmt.Errorf("%w: initial α has %d elements, want %d", ErrSVMProblem, len(opt.Init), n)
		}
		var sum float64
		for i, a := range opt.Init {
			if !(a >= 0 && a <= p.C[i]) {
				return nil, fmt.Errorf("%w: initial α[%d] = %g outside [0, %g]", ErrSVMProblem, i, a, p.C[i])
			}
			sum += a * p.Y[i]
		}
		if bias && math.Abs(sum-p.Sum) > 1e-9*float64(n)*max(1, maxOf(p.C)) {
			return nil, fmt.Errorf("%w: initial α has yᵀα = %g, want %g", ErrSVMProblem, sum, p.Sum)
		}
		copy(s.alpha, opt.Init)
	} else if bias && p.Sum != 0 {
		return nil, fmt.Errorf("%w: yᵀα = %g needs a starting α (SVMOptions.Init)", ErrSVMProblem, p.Sum)
	}
	s.active = make([]int, n)
	for i := range s.active {
		s.active[i] = i
	}
	s.setBase(nil)
	if opt.Init != nil {
		if err := s.gradient(s.active); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// rules are the parts of one dual solver that loop drives: LIBSVM's
// Solver::Solve loop is the same for SMO, dual coordinate descent and the
// ν solver; they differ in how they pick, step, shrink and finish.
type rules struct {
	// pick returns the working set (j < 0 for one variable) and the
	// violation over the active set; i < 0 when nothing improves.
	pick func() (i, j int, gap float64)
	// gap is the violation over the active set, for the progress reports
	// and the result at the iteration cap.
	gap func() float64
	// step updates the working set and the gradient.
	step func(i, j int)
	// shrink drops variables that cannot move (LIBSVM's do_shrinking).
	shrink func() error
	// finish builds the result (the bias from the final gradient).
	finish func(iter int, gap float64, st SVMStatus) *SVMResult
}

// loop runs a dual solver to the tolerance or the iteration cap: every
// min(n, 1,000) updates it checks the context, shrinks and reports
// progress; when the active set looks optimal it unshrinks and checks the
// whole problem before stopping.
func (s *svm[T]) loop(ctx context.Context, r rules) (*SVMResult, error) {
	tol := s.opt.Tol
	iter := 0
	counter := min(s.n, shrinkEvery) + 1
	for {
		counter--
		if counter == 0 {
			counter = min(s.n, shrinkEvery)
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if !s.opt.NoShrinking {
				if err := r.shrink(); err != nil {
					return nil, err
				}
			}
			s.progress(iter, r.gap())
		}
		i, j, gap := r.pick()
		if i < 0 || gap < tol {
			if s.shrunk {
				if err := s.unshrink(); err != nil {
					return nil, err
				}
				i, j, gap = r.pick()
				counter = 1
			}
			if i < 0 || gap < tol {
				return r.finish(iter, gap, SVMConverged), nil
			}
		}
		if iter >= s.opt.MaxIter {
			if err := s.unshrink(); err != nil {
				return nil, err
			}
			return r.finish(iter, r.gap(), SVMMaxIter), nil
		}
		iter++
		r.step(i, j)
	}
}

func maxOf(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

// row returns the row of K that variable i stands for.
func (s *svm[T]) row(i int) int {
	if s.rows == nil {
		return i
	}
	return s.rows[i]
}

// setBase makes the cache serve columns restricted to the rows base of K
// (nil: all rows). base must be ascending and, when not nil, a subset of the
// current base. The cache is keyed by base position: variables that share a
// row share its column.
func (s *svm[T]) setBase(base []int) {
	prevBase, prevCache := s.base, s.cache
	if prevCache != nil {
		h, m := prevCache.Stats()
		s.hits += h
		s.misses += m
	}
	if s.pos == nil {
		s.pos = make([]int32, s.n)
		s.rowPos = make([]int32, s.m)
	}
	s.base = base
	m := s.m
	if base == nil {
		s.prov = s.full
		for r := range s.rowPos {
			s.rowPos[r] = int32(r)
		}
	} else {
		m = len(base)
		s.prov = s.full.(Subsetter).Subset(base)
		for r := range s.rowPos {
			s.rowPos[r] = -1
		}
		for p, r := range base {
			s.rowPos[r] = int32(p)
		}
	}
	for i := range s.pos {
		s.pos[i] = s.rowPos[s.row(i)]
	}
	prov := s.prov
	var fill func(k int, col []T)
	switch f := any(&fill).(type) {
	case *func(int, []float64):
		*f = func(k int, col []float64) { prov.Column(k, col) }
	case *func(int, []float32):
		// The column is computed in float64 and rounded once.
		if cap(s.scratch) < m {
			s.scratch = make([]float64, m)
		}
		scratch := s.scratch[:m]
		*f = func(k int, col []float32) {
			prov.Column(k, scratch)
			for r, v := range scratch {
				col[r] = float32(v)
			}
		}
	}
	if prevCache == nil {
		s.cache = NewCache(m, m, s.opt.CacheBytes, fill)
		return
	}
	if base == nil {
		// Back to all rows (unshrinking): no column can be restricted
		// from the shorter ones, but the memory is reused.
		s.cache = prevCache.Restrict(m, m, fill, func(int) int { return -1 }, nil)
		return
	}
	// Moving to a smaller base: keep the cached columns of the rows that
	// stay, restricted to the new rows (a copy instead of kernel
	// evaluations, in the same memory).
	global := func(q int) int { return q }
	if prevBase != nil {
		global = func(q int) int { return prevBase[q] }
	}
	from := make([]int32, len(base)) // new position → previous position
	q := 0
	for p, i := range base {
		for global(q) != i {
			q++
		}
		from[p] = int32(q)
	}
	s.cache = prevCache.Restrict(m, m, fill, func(key int) int { return int(s.rowPos[global(key)]) }, from)
}

// column returns K(·, x_{row(i)}) indexed by base position; variable i's row
// must be in the base.
func (s *svm[T]) column(i int) []T { return s.cache.Get(int(s.pos[i])) }

// maybeRebase restricts the provider to the rows of the active variables
// when they are less than half of the current base and the kernel supports
// subsets.
func (s *svm[T]) maybeRebase() {
	if _, ok := s.full.(Subsetter); !ok {
		return
	}
	cur := s.m
	if s.base != nil {
		cur = len(s.base)
	}
	if s.rows == nil && (len(s.active) >= cur/2 || len(s.active) < 2) {
		return // the common case decided without a copy
	}
	rows := s.activeRows()
	if len(rows) >= cur/2 || len(rows) < 2 {
		return
	}
	s.setBase(rows)
}

// activeRows returns the distinct rows of K of the active variables, ascending.
func (s *svm[T]) activeRows() []int {
	if s.rows == nil {
		return append([]int(nil), s.active...)
	}
	in := make([]bool, s.m)
	for _, t := range s.active {
		in[s.rows[t]] = true
	}
	var rows []int
	for r, ok := range in {
		if ok {
			rows = append(rows, r)
		}
	}
	return rows
}

// gradient recomputes g_t = y_t Σ_j α_j y_j K_tj + p_t for t in rows. The
// coefficients α_j y_j of the support variables are summed per row of K
// (one term each without Rows; ε-SVR's α_i − α*_i with it), each distinct
// row of rows is computed once, and g_t gets y_t times its row's value.
func (s *svm[T]) gradient(rows []int) error {
	if len(rows) == 0 {
		return nil
	}
	for _, t := range rows {
		s.g[t] = s.p[t]
	}
	coef := make([]float64, s.m)
	isCol := make([]bool, s.m)
	for j, a := range s.alpha { // ascending variables: a fixed order of the sums
		if a > 0 {
			r := s.row(j)
			coef[r] += a * s.y[j]
			isCol[r] = true
		}
	}
	var cols []int
	var cv []float64
	for r, ok := range isCol {
		if ok {
			cols = append(cols, r)
			cv = append(cv, coef[r])
		}
	}
	if len(cols) == 0 {
		return nil
	}
	at := make([]int32, s.m) // row → position in uniq, +1 (0: absent)
	var uniq []int
	for _, t := range rows {
		if r := s.row(t); at[r] == 0 {
			uniq = append(uniq, r)
			at[r] = int32(len(uniq))
		}
	}
	dst := make([]float64, len(uniq))
	if m, ok := s.full.(Multiplier); ok {
		if err := m.MulVec(s.ctx, uniq, cols, cv, dst); err != nil {
			return err
		}
	} else {
		col := make([]float64, s.m)
		for k, j := range cols {
			if k%64 == 0 {
				if err := s.ctx.Err(); err != nil {
					return err
				}
			}
			s.full.Column(j, col)
			for q, r := range uniq {
				dst[q] += cv[k] * col[r]
			}
		}
	}
	for _, t := range rows {
		s.g[t] += s.y[t] * dst[at[s.row(t)]-1]
	}
	return nil
}

// unshrink rebuilds the gradient of the inactive indices and activates all.
func (s *svm[T]) unshrink() error {
	if !s.shrunk {
		return nil
	}
	in := make([]bool, s.n)
	for _, t := range s.active {
		in[t] = true
	}
	var rows []int
	for t := range s.n {
		if !in[t] {
			rows = append(rows, t)
		}
	}
	if err := s.gradient(rows); err != nil {
		return err
	}
	s.active = s.active[:0]
	for t := range s.n {
		s.active = append(s.active, t)
	}
	s.shrunk = false
	if s.base != nil {
		s.setBase(nil)
	}
	return nil
}

// unshrinkOnce rebuilds the full gradient and activates every index the
// first time the violation gap is within 10·Tol (LIBSVM's do_shrinking), so
// that the solve ends on all of them.
func (s *svm[T]) unshrinkOnce(gap float64) error {
	if s.unshr || !(gap <= s.opt.Tol*10) {
		return nil
	}
	s.unshr = true
	return s.unshrink()
}

// dropBounded removes the bounded variables that cannot enter a violating
// pair: at the upper bound those with −G_t above upPos (y_t > 0) or upNeg
// (y_t < 0), at the lower bound those with G_t above lowPos or lowNeg
// (LIBSVM's be_shrunk; Solver_NU's with each label's own maxima).
func (s *svm[T]) dropBounded(upPos, upNeg, lowPos, lowNeg float64) {
	s.filter(func(t int) bool {
		switch {
		case s.atUpper(t):
			if s.y[t] > 0 {
				return -s.g[t] > upPos
			}
			return -s.g[t] > upNeg
		case s.atLower(t):
			if s.y[t] > 0 {
				return s.g[t] > lowPos
			}
			return s.g[t] > lowNeg
		}
		return false
	})
}

// filter keeps the active indices for which drop is false.
func (s *svm[T]) filter(drop func(t int) bool) {
	k := 0
	for _, t := range s.active {
		if !drop(t) {
			s.active[k] = t
			k++
		}
	}
	if k < len(s.active) {
		s.shrunk = true
		s.active = s.active[:k]
		s.maybeRebase()
	}
}

func (s *svm[T]) result(iter int, viol float64, st SVMStatus) *SVMResult {
	r := &SVMResult{Alpha: s.alpha, Gradient: s.g, Iterations: iter, Violation: viol, Status: st}
	// g = Qα + p, so ½αᵀQα + pᵀα = ½Σ α_i (g_i + p_i).
	for i, a := range s.alpha {
		r.Objective += a * (s.g[i] + s.p[i])
		if a > 0 {
			r.SV++
			if a >= s.c[i] {
				r.BoundedSV++
			}
		}
	}
	r.Objective /= 2
	h, m := s.cache.Stats()
	r.CacheHits, r.CacheMisses = s.hits+h, s.misses+m
	return r
}

func (s *svm[T]) progress(iter int, viol float64) {
	if s.opt.Progress != nil {
		s.opt.Progress(SVMProgress{Iter: iter, Violation: viol, Active: len(s.active)})
	}
}

// atUpper reports whether α_t is at its upper bound C_t.
func (s *svm[T]) atUpper(t int) bool { return s.alpha[t] >= s.c[t] }

// atLower reports whether α_t is at its lower bound 0.
func (s *svm[T]) atLower(t int) bool { return s.alpha[t] <= 0 }
