package model

import (
	"context"
	"fmt"
	"math"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/mat"
)

// NystromKRR is the KRR backend that solves the Nyström (subset of regressors)
// system directly:
//
//	(K_nMᵀK_nM + λn K_MM) α = K_nMᵀy,   f(x) = Σⱼ αⱼ k(x, c̃ⱼ),
//
// the same system Falkon solves iteratively (Rudi et al., FALKON, eq. 8), here
// by forming the M×M matrix in row chunks of K_nM (never held whole) and a
// Cholesky factorization with jitter. Cost O(nM² + M³) time, O(M² + chunk·M)
// memory besides the data. scikit-learn's Nystroem(n_components=M) +
// Ridge(alpha=λn) fits the same model up to the pseudo-inverse of K_MM.
type NystromKRR struct {
	// M is the number of centers; 0 means min(n, ⌈5√n⌉). M > n is an error.
	M int `yaml:"m"`
	// Sampler picks the centers; nil means approx.Uniform.
	Sampler approx.Sampler `yaml:"sampler"`
	// Centers, when set, are used as given (M and Sampler are ignored): a
	// *mat.Dense or CSR rows (kernel.Sparse), kept sparse unless at least a
	// quarter of their entries are non-zero (kernel.PreferDenseCenters).
	Centers mat.Matrix `yaml:"-"`
}

var _ KRRApprox = NystromKRR{}

// FitKRR implements KRRApprox.
func (b NystromKRR) FitKRR(ctx context.Context, p KRRProblem) (KRRPredictor, KRRInfo, error) {
	if err := checkContext(ctx, "nystrom krr"); err != nil {
		return nil, KRRInfo{}, err
	}
	return b.fit(ctx, p, p.X)
}

// fit is FitKRR on x, dense or sparse (validated by the caller; p.X unused):
// sparse x stays sparse through the sampler and the K_nM products.
func (b NystromKRR) fit(ctx context.Context, p KRRProblem, x mat.Matrix) (KRRPredictor, KRRInfo, error) {
	n, _ := x.Dims()
	info := KRRInfo{Backend: "nystrom", Penalty: p.Lambda * float64(n)}
	mc, err := b.centerCount(x)
	if err != nil {
		return nil, info, err
	}
	engine := kernel.Options{Workers: p.Workers}
	chunk := krrChunkRows(n, mc)
	if err := b.plan(p, x, mc, chunk, engine, &info); err != nil {
		return nil, info, err
	}
	centers, err := b.ownedCenters(ctx, p, x, mc)
	if err != nil {
		return nil, info, err
	}
	info.CenterForm = CenterForm(centers)
	mc, _ = centers.Dims()
	info.Rank = mc
	a, chunks, err := nystromSystem(ctx, p, x, centers, engine, chunk, info.Penalty)
	if err != nil {
		return nil, info, err
	}
	_, t := p.Y.Dims()
	rhs := mat.NewDense(mc, t, nil)
	y := p.Y
	if p.Weights != nil { // K_nMᵀWY
		y = mat.DenseCopyOf(y)
		scaleRows(y, p.Weights)
	}
	if err := kernel.NewOp(p.Kernel, x, centers, engine).MulT(ctx, rhs, y); err != nil {
		return nil, info, err
	}
	chol, err := solver.CholeskyInPlace(a, p.Cholesky)
	if err != nil {
		return nil, info, fmt.Errorf("model: krr: nystrom: %w", err)
	}
	info.Jitter, info.CholAttempts = chol.Jitter, chol.Attempts
	if err := chol.Solve(rhs); err != nil {
		return nil, info, err
	}
	if err := p.report(chunks+1, chunks+1); err != nil {
		return nil, info, err
	}
	return &KernelExpansion{Kernel: p.Kernel, Centers: centers, Coef: rhs, Workers: p.Workers}, info, nil
}

// centerCount is M for x: the rows of b.Centers (checked against x's d
// columns), else b.M, whose 0 means min(n, ⌈5√n⌉).
func (b NystromKRR) centerCount(x mat.Matrix) (int, error) {
	n, d := x.Dims()
	mc := b.M
	if b.Centers != nil {
		if err := checkCenters(b.Centers, d); err != nil {
			return 0, fmt.Errorf("nystrom centers: %w", err)
		}
		mc, _ = b.Centers.Dims()
	} else if mc < 0 || mc > n {
		return 0, fmt.Errorf("%w: nystrom: M = %d, want 0 (default) or 1 ≤ M ≤ n = %d", ErrInput, mc, n)
	} else if mc == 0 {
		mc = min(n, int(math.Ceil(5*math.Sqrt(float64(n)))))
	}
	return mc, nil
}

// plan sets info.MemoryBytes and info.CenterForm for mc centers and K_nM
// chunks of chunk rows, and checks the sampler's own plan and the total
// against p.MemoryLimit, before anything is allocated.
func (b NystromKRR) plan(p KRRProblem, x mat.Matrix, mc, chunk int, engine kernel.Options, info *KRRInfo) error {
	n, _ := x.Dims()
	_, t := p.Y.Dims()
	// The centers (CSR arrays when sparse, else 8·M·d) and their copy, A,
	// K_MM, a chunk of K_nM, the right-hand side, the data and targets, the
	// engine's scratch (with the column copy of sparse centers),
	// SyrkLower's panels for K_bᵀK_b and the M×M solve's scratch
	// (solver.SolveScratchBytes: with fewer than 16 outputs from M = 1,024,
	// x in rows of 16 values; gonum's, from 16, takes none, which this
	// bound over-counts).
	cs := sampledShape(p.Kernel, x, mc)
	if b.Centers != nil {
		cs = givenShape(p.Kernel, b.Centers)
	}
	info.MemoryBytes = inputBytes(x) + 2*cs.bytes() + bytesF64(int64(n)*int64(t)+2*int64(mc)*int64(mc)+int64(chunk)*int64(mc)+2*int64(mc)*int64(t)) +
		kernel.NewOp(p.Kernel, x, cs.stub(), engine).ScratchBytes(t) +
		kernel.Dense{}.PackBytes(mc, mc, min(chunk, n)) + solver.SolveScratchBytes(mc, t)
	info.CenterForm = cs.form()
	if b.Centers == nil {
		if err := checkSampler(b.sampler(), x, mc, p.MemoryLimit); err != nil {
			return fmt.Errorf("model: krr: nystrom: %w", err)
		}
	}
	return checkMemory(fmt.Sprintf("nystrom KRR (n=%d, M=%d)", n, mc), info.MemoryBytes, p.MemoryLimit)
}

// ownedCenters returns the fit's own copy of its centers: b.Centers, or mc
// landmarks the sampler draws from x with p.Rng (checked: present, d
// columns).
func (b NystromKRR) ownedCenters(ctx context.Context, p KRRProblem, x mat.Matrix, mc int) (mat.Matrix, error) {
	if b.Centers != nil {
		return ownCenters(p.Kernel, b.Centers, true), nil
	}
	_, d := x.Dims()
	s := b.sampler()
	lm, err := s.Sample(ctx, x, p.Kernel, mc, p.Rng)
	if err != nil {
		return nil, fmt.Errorf("model: krr: nystrom: sampling centers: %w", err)
	}
	if lm == nil || lm.Points == nil {
		return nil, fmt.Errorf("model: krr: nystrom: sampler %T returned no usable landmarks", s)
	}
	if _, c := lm.Points.Dims(); c != d {
		return nil, fmt.Errorf("model: krr: nystrom: sampler %T returned landmarks of %d columns, want %d", s, c, d)
	}
	return ownCenters(p.Kernel, lm.Points, false), nil
}

// nystromSystem forms A = K_nMᵀK_nM + penalty·K_MM (symmetrized), the
// matrix of the Nyström KRR normal equations, accumulating K_nMᵀK_nM over
// chunks of chunk rows (lower triangle, on the engine's packed
// micro-kernels) and reporting each chunk to p (of chunks+1 steps, the
// last the solve). It returns A and the number of chunks.
func nystromSystem(ctx context.Context, p KRRProblem, x, centers mat.Matrix, engine kernel.Options, chunk int, penalty float64) (*mat.Dense, int, error) {
	n, _ := x.Dims()
	mc, _ := centers.Dims()
	a := mat.NewDense(mc, mc, nil)
	gram := kernel.Dense{Workers: p.Workers}
	var gramErr error
	chunks := (n + chunk - 1) / chunk
	sw := p.rootWeights()
	if err := krrKernelChunks(ctx, p.Kernel, x, centers, engine, chunk, func(kb *mat.Dense, r0, r1 int) {
		if sw != nil { // K_nMᵀWK_nM = (W^½K_nM)ᵀ(W^½K_nM)
			scaleRows(kb, sw[r0:r1])
		}
		if gramErr == nil {
			gramErr = gram.SyrkLower(ctx, true, 1, kb, 1, a)
		}
		if gramErr == nil {
			gramErr = p.report(r0/chunk+1, chunks+1)
		}
	}); err != nil {
		return nil, 0, err
	}
	if gramErr != nil {
		return nil, 0, gramErr
	}
	kmm := mat.NewDense(mc, mc, nil)
	if err := kernel.NewOp(p.Kernel, centers, centers, engine).Block(ctx, kmm); err != nil {
		return nil, 0, err
	}
	a.Add(a, krrScaled(penalty, kmm))
	krrSymmetrize(a)
	return a, chunks, nil
}

// krrChunkRows is the number of rows of a K block of about 8 MiB with m columns.
func krrChunkRows(n, m int) int { return max(1, min(n, (8<<20)/(8*max(m, 1)))) }

// krrKernelChunks calls f with K(X[r0:r1], C) for consecutive chunks of rows,
// in order, each formed by the kernel engine in a reused buffer.
func krrKernelChunks(ctx context.Context, k kernel.Kernel, x, c mat.Matrix, opt kernel.Options, chunk int, f func(kb *mat.Dense, r0, r1 int)) error {
	n, _ := x.Dims()
	m, _ := c.Dims()
	buf := make([]float64, chunk*m)
	for r0 := 0; r0 < n; r0 += chunk {
		r1 := min(n, r0+chunk)
		kb := mat.NewDense(r1-r0, m, buf[:(r1-r0)*m])
		if err := kernel.NewOp(k, rowRange(x, r0, r1), c, opt).Block(ctx, kb); err != nil {
			return err
		}
		f(kb, r0, r1)
	}
	return nil
}

func krrScaled(s float64, a *mat.Dense) *mat.Dense {
	a.Scale(s, a)
	return a
}

// krrSymmetrize copies the lower triangle onto the upper one.
func krrSymmetrize(a *mat.Dense) {
	raw := a.RawMatrix()
	for i := 0; i < raw.Rows; i++ {
		for j := 0; j < i; j++ {
			raw.Data[j*raw.Stride+i] = raw.Data[i*raw.Stride+j]
		}
	}
}

// sampler is the resolved sampler: Sampler, or uniform when nil.
func (b NystromKRR) sampler() approx.Sampler {
	if b.Sampler == nil {
		return approx.Uniform{}
	}
	return b.Sampler
}
