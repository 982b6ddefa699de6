package experiments

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// streamPath is the PCG stream of BLESS path runs.
const streamPath = 0x70617468 // "path"

// chainKey identifies a regularization chain: the point without λ.
func chainKey(p Point) string {
	q := Point{}
	for _, v := range p {
		if !isReg(v.Name) {
			q = append(q, v)
		}
	}
	return q.Key()
}

// pathCenters sets cfg's centers from a BLESS path (Rudi et al. 2018, Alg. 1
// or 2) run once per training fold and λ chain down to the chain's smallest
// λ: the centers of λ are J_h, with weights A_h, of the first step with
// λ_h ≤ λ. One path thus serves every λ of the grid. The path depends only
// on the fold's rows, the kernel and the fold's seed, so a resumed run
// recomputes the same path.
func (r *runner) pathCenters(ctx context.Context, cfg *Config, p Point, key string, xtr mat.Matrix) error {
	chain := chainKey(p)
	if chain != r.pathChain || r.pathCache == nil {
		r.pathChain, r.pathCache = chain, map[string][]approx.PathStep{}
	}
	lambda := cfg.Float("lambda", 0)
	steps, ok := r.pathCache[key]
	if !ok {
		n, _ := xtr.Dims()
		lmin := lambda
		for _, v := range r.s.Grid["lambda"] {
			lmin = math.Min(lmin, v)
		}
		for _, v := range r.s.Grid["alpha"] {
			lmin = math.Min(lmin, v/float64(n))
		}
		k, err := kernel.New(cfg.Kernel)
		if err != nil {
			return err
		}
		rng := rand.New(rand.NewPCG(cfg.Seed, streamPath))
		switch cfg.Approx {
		case "bless":
			steps, err = approx.BLESS{}.Path(ctx, xtr, k, lmin, rng)
		case "bless-r":
			steps, err = approx.BLESSR{}.Path(ctx, xtr, k, lmin, rng)
		default:
			err = fmt.Errorf("%w: path needs approx bless or bless-r, not %q", ErrSpec, cfg.Approx)
		}
		if err != nil {
			return err
		}
		if len(steps) == 0 {
			return fmt.Errorf("experiments: BLESS path down to λ = %g is empty", lmin)
		}
		r.pathCache[key] = steps
		r.pathRuns++
	}
	st := pathStep(steps, lambda)
	if xs, ok := xtr.(kernel.Sparse); ok {
		cfg.Centers = kernel.SubsetRows(xs, st.Indices) // CSR rows: no n·d or M·d copy
	} else {
		xd := xtr.(*mat.Dense)
		_, d := xd.Dims()
		c := mat.NewDense(len(st.Indices), d, nil)
		for i, j := range st.Indices {
			c.SetRow(i, xd.RawRowView(j))
		}
		cfg.Centers = c
	}
	cfg.CenterWeights = append([]float64(nil), st.Weights...)
	cfg.CenterLambda = st.Lambda
	return nil
}

// pathStep returns the first step of a path with λ_h ≤ λ (the last step when
// none is): the dictionary built for λ or a slightly smaller one.
func pathStep(steps []approx.PathStep, lambda float64) approx.PathStep {
	for _, s := range steps {
		if s.Lambda <= lambda*(1+1e-12) {
			return s
		}
	}
	return steps[len(steps)-1]
}

// pathData is the training matrix a BLESS path reads: sparse rows as they
// are (BLESS keeps them sparse, approx.BLESS.Path), anything else dense.
func pathData(x mat.Matrix) mat.Matrix {
	if s, ok := x.(kernel.Sparse); ok {
		return s
	}
	return kernel.DenseOf(x)
}
