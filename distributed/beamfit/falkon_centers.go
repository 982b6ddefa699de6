package beamfit

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// The centers of a Beam fit are drawn on the driver over the global row
// indices, so that they do not depend on the sharding: uniform rows, or
// BLESS on a uniform sub-sample.

// centers returns the given centers, or draws them on the driver: uniform
// rows, or BLESS on a uniform sub-sample (blessCenters).
func (r *falkonRun) centers(ctx context.Context) (model.FalkonCenters, error) {
	f, n, d := r.f, r.man.N, r.man.D
	switch {
	case f.Centers != nil:
		if _, c := f.Centers.Dims(); c != d {
			return model.FalkonCenters{}, fmt.Errorf("beamfit: %w: centers have %d columns, data %d", ErrInput, c, d)
		}
		c, err := r.b.Given(f.Centers, nil, 0)
		return c, err
	case f.M < 1 || f.M > n:
		return model.FalkonCenters{}, fmt.Errorf("beamfit: %w: M = %d centers, want 1 ≤ M ≤ n = %d", ErrInput, f.M, n)
	case r.bless != nil:
		return r.blessCenters(ctx)
	}
	rows := sampleRows(n, f.M, rand.New(rand.NewPCG(f.Seed, falkonStream)))
	x, err := readRows(ctx, r.manifest, r.man, rows)
	if err != nil {
		return model.FalkonCenters{}, fmt.Errorf("beamfit: sampling centers: %w", err)
	}
	if r.mean != nil {
		standardize(x, r.mean, r.std)
	}
	r.res.CenterRows = rows
	return model.FalkonCenters{Points: x, Indices: rows, Sampler: "uniform (beam driver)"}, nil
}

// sampleRows draws m distinct row indices of [0, n) uniformly (Floyd's
// algorithm, O(m) memory whatever n) and returns them ascending. Drawn over
// the global row indices, they do not depend on how the rows are sharded.
func sampleRows(n, m int, rng *rand.Rand) []int {
	chosen := make(map[int]bool, m)
	for j := n - m; j < n; j++ {
		r := rng.IntN(j + 1)
		if chosen[r] {
			r = j
		}
		chosen[r] = true
	}
	idx := make([]int, 0, m)
	for i := range chosen {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	return idx
}

// readRows reads the rows idx (ascending global indices) from the shards
// that hold them, one shard at a time, as they are on disk (not
// standardized).
func readRows(ctx context.Context, manifestPath string, man *shard.Manifest, idx []int) (*mat.Dense, error) {
	m := len(idx)
	c := mat.NewDense(m, man.D, nil)
	dir := dirOf(manifestPath)
	k := 0
	for _, e := range man.Shards {
		if k == m {
			break
		}
		if idx[k] >= e.FirstRow+e.Rows {
			continue
		}
		x, _, err := loadShard(ctx, joinPath(dir, e.File), e.Rows, man.D, false, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("beamfit: reading rows: %w", err)
		}
		for ; k < m && idx[k] < e.FirstRow+e.Rows; k++ {
			c.SetRow(k, x.RawRowView(idx[k]-e.FirstRow))
		}
	}
	if k != m {
		return nil, fmt.Errorf("beamfit: %w: row %d is beyond the shards' rows", ErrInput, idx[k])
	}
	return c, nil
}

// blessOf returns the BLESS sampler s asks for (nil for uniform) and its
// final λ.
func blessOf(s approx.Sampler) (approx.Sampler, float64, error) {
	b, lambda, err := blessOf1(s)
	if err == nil && (lambda < 0 || math.IsNaN(lambda) || math.IsInf(lambda, 0)) {
		err = fmt.Errorf("beamfit: %w: bless lambda = %g, want 0 (fixed size) or > 0", ErrInput, lambda)
	}
	return b, lambda, err
}

func blessOf1(s approx.Sampler) (approx.Sampler, float64, error) {
	switch b := s.(type) {
	case nil, approx.Uniform:
		return nil, 0, nil
	case *approx.Uniform:
		if b != nil {
			return nil, 0, nil
		}
	case approx.BLESS:
		return b, b.Lambda, nil
	case *approx.BLESS:
		if b != nil {
			return *b, b.Lambda, nil
		}
	case approx.BLESSR:
		return b, b.Lambda, nil
	case *approx.BLESSR:
		if b != nil {
			return *b, b.Lambda, nil
		}
	}
	return nil, 0, fmt.Errorf("beamfit: %w: sampler %T, want nil, approx.Uniform, approx.BLESS or approx.BLESSR", ErrInput, s)
}

// blessCenters draws the centers by BLESS on a uniform sub-sample: the
// sub-sample's global row indices by Floyd's algorithm from Seed (so they
// do not depend on the sharding), its rows read on the driver and
// standardized as the workers will, then the sampler run on them with the
// same random source (model.FalkonBuilder.Sample). It returns the centers
// (standardized) with their weights on the full data's scale, and fills
// res's center fields.
//
// Weights: on the s rows, BLESS's A_h is M·π (Alg. 1 line 10, π_j the
// per-draw probability of row j among the s rows; BLESS-R's A_h is the
// inclusion probability, also on the s rows' scale), and the builder
// turns weights w on n rows into eq. 15's a = w·n/M = n·π (package
// precond). Row j of the sub-sample is a row of the data drawn with
// probability s/n, so its per-draw probability among all n rows is π·s/n:
// the weights on the full data's scale are w = A_h·s/n, and a = A_h·s/M.
// (Uniform BLESS scores give A_h = M/s, w = M/n and a = 1: eq. 14.)
func (r *falkonRun) blessCenters(ctx context.Context) (model.FalkonCenters, error) {
	f, n, d, res := r.f, r.man.N, r.man.D, r.res
	s := f.Subsample
	if s == 0 {
		s = DefaultSubsample(n, d, f.M, f.Kernel, r.blessLambda)
	}
	if s < f.M || s > n {
		return model.FalkonCenters{}, fmt.Errorf("beamfit: %w: subsample = %d rows, want M = %d ≤ subsample ≤ n = %d", ErrInput, s, f.M, n)
	}
	rng := rand.New(rand.NewPCG(f.Seed, falkonStream))
	sub := sampleRows(n, s, rng)
	xs, err := readRows(ctx, r.manifest, r.man, sub)
	if err != nil {
		return model.FalkonCenters{}, fmt.Errorf("beamfit: reading the bless sub-sample: %w", err)
	}
	if r.mean != nil {
		standardize(xs, r.mean, r.std)
	}
	c, err := r.b.Sample(ctx, r.bless, xs, f.M, rng)
	if err != nil {
		return model.FalkonCenters{}, err
	}
	if !c.BLESS || len(c.Indices) != c.M() {
		return model.FalkonCenters{}, fmt.Errorf("beamfit: sampling centers: %T returned no usable landmarks", r.bless)
	}
	res.SubsampleRows = sub
	res.CenterRows = make([]int, len(c.Indices))
	res.CenterWeights = make([]float64, len(c.Indices))
	scale := float64(s) / float64(n)
	for j, i := range c.Indices {
		res.CenterRows[j] = sub[i]
		res.CenterWeights[j] = c.Weights[j] * scale
	}
	res.CenterLambda = c.Lambda
	diag := make([]float64, s)
	f.Kernel.Diag(diag, xs)
	if kappa2 := slices.Max(diag); c.Lambda > 0 {
		res.BLESSRows = int(min(math.Ceil(kappa2/c.Lambda), math.MaxInt32))
	}
	c.Indices, c.Weights = res.CenterRows, res.CenterWeights
	c.Sampler = fmt.Sprintf("%T on a uniform sub-sample of %d rows (beam driver)", r.bless, len(sub))
	return c, nil
}

func writeCenters(ctx context.Context, p string, c *mat.Dense) error {
	var buf bytesBuffer
	r, _ := c.Dims()
	if err := shard.Write(&buf, c, make([]float64, r)); err != nil {
		return err
	}
	return writeFile(ctx, p, buf.b)
}

type bytesBuffer struct{ b []byte }

func (w *bytesBuffer) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}
