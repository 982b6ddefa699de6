package model

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// The centers of a fit on shards (Falkon.FitShards, beamfit.Falkon) are
// drawn over the global row indices, so that they do not depend on the
// sharding: uniform rows, or BLESS on a uniform sub-sample, the rows read
// from the shards by their offsets.

// ShardSeedStream is the second word of the PCG source (rand.NewPCG(seed,
// ShardSeedStream)) from which SampleShards draws the centers.
const ShardSeedStream = 0x6265616d // "beam"

// ShardSubsamplePerCenter is the default BLESS sub-sample size per center
// (see DefaultShardSubsample).
const ShardSubsamplePerCenter = 20

// DefaultShardSubsample is the sub-sample size a BLESS sampler runs on in
// a fit on shards, for n rows of d columns, m centers, kernel k and
// BLESS's final λ blessLambda (0 for its fixed-size mode):
//
//	min(n, max(ShardSubsamplePerCenter·m, ⌈κ²/blessLambda⌉)),
//
// the second term only when blessLambda > 0 and k is shift-invariant
// (κ² = k(x, x), the same for every x, known before any row is read).
//
// Rudi et al. 2018 (Alg. 1 line 4, and §2.5: "BLESS computes leverage
// scores for sets of size at most 1/λ") draw R_h = q1·min(κ²/λ_h, n)
// uniform candidates at step h, so on any number of rows BLESS looks at
// O(min(n, 1/λ)) rows per step, and from a uniform sub-sample of
// s ≥ κ²/λ_H rows every step draws exactly as many candidates as from all
// n: the sub-sample changes which uniform rows are candidates, not how
// many, nor BLESS's cost, which depends on R_h and M_h only. With
// blessLambda set, ⌈κ²/blessLambda⌉ is that size. In the fixed-size mode
// λ_H is known only once the path has run; on bundled cadata (σ = 2,
// standardized) it gave κ²/λ_H ≈ 2.6·M, 6.8·M and 16·M for M = 100, 300
// and 1,000, within 20·M (ShardCenters.BLESSRows reports κ²/λ_H after a
// draw, so a larger sub-sample can be chosen when it exceeds the default).
func DefaultShardSubsample(n, d, m int, k kernel.Kernel, blessLambda float64) int {
	s := ShardSubsamplePerCenter * m
	if blessLambda > 0 && k != nil && k.ShiftInvariant() && d > 0 {
		zero := make([]float64, d)
		if r := math.Ceil(k.Eval(zero, zero) / blessLambda); r > float64(s) {
			s = int(min(r, float64(n)))
		}
	}
	return max(0, min(n, s))
}

// ShardRows draws m distinct row indices of [0, n) uniformly (Floyd's
// algorithm, O(m) memory whatever n) and returns them ascending. Drawn over
// the global row indices, they do not depend on how the rows are sharded.
func ShardRows(n, m int, rng *rand.Rand) []int {
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

// ReadRows reads the rows idx (ascending global indices) from the shards
// that hold them, standardized as the set says. Each shard holding one of
// them is read in full, in blocks, and its checksum checked: a damaged
// shard is an error naming it (shard.ErrChecksum), never a center drawn
// from unchecked bytes.
func (set *ShardSet) ReadRows(ctx context.Context, idx []int) (*mat.Dense, error) {
	if err := set.check(); err != nil {
		return nil, err
	}
	man := set.Manifest
	m := len(idx)
	if m == 0 {
		return nil, fmt.Errorf("shards: %w: no rows to read", ErrInput)
	}
	c := mat.NewDense(m, man.D, nil)
	k := 0
	for s, e := range man.Shards {
		if k == m {
			break
		}
		if idx[k] >= e.FirstRow+e.Rows {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := set.readShardRows(ctx, s, idx, &k, c); err != nil {
			return nil, err
		}
	}
	if k != m {
		return nil, fmt.Errorf("shards: %w: row %d is beyond the shards' %d rows", ErrInput, idx[k], man.N)
	}
	set.Standardize(c.RawMatrix().Data)
	return c, nil
}

// readShardRows reads the rows idx[*k:] that shard s holds into c.
func (set *ShardSet) readShardRows(ctx context.Context, s int, idx []int, k *int, c *mat.Dense) error {
	e := set.Manifest.Shards[s]
	d := set.Manifest.D
	name := set.Path(s)
	f, err := set.open(ctx, s)
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	defer f.Close()
	st, err := shard.NewStream(f, f.Size(), e.Rows, d, false)
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	first := *k
	b := min(set.blockRows(), e.Rows)
	buf := make([]float64, b*d)
	for r0 := 0; r0 < e.Rows; {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := st.Read(buf, nil)
		if err != nil {
			*k = first
			return fmt.Errorf("read %s: %w", name, err)
		}
		for ; *k < len(idx) && idx[*k]-e.FirstRow < r0+n; *k++ {
			i := idx[*k] - e.FirstRow
			if i < r0 || *k > first && idx[*k] <= idx[*k-1] {
				return fmt.Errorf("shards: %w: rows to read are not ascending at %d", ErrInput, idx[*k])
			}
			copy(c.RawRowView(*k), buf[(i-r0)*d:(i-r0+1)*d])
		}
		r0 += n
	}
	return nil
}

// ShardCenters are centers drawn from a ShardSet by SampleShards, with
// where they come from.
type ShardCenters struct {
	FalkonCenters
	// Rows are the centers' global row indices (FalkonCenters.Indices):
	// ascending for uniform centers, in BLESS's order otherwise.
	Rows []int
	// SubsampleRows are the global row indices of the rows BLESS ran on,
	// ascending; nil for uniform centers.
	SubsampleRows []int
	// BLESSRows is ⌈κ²/λ_h⌉ (κ² = the largest k(x, x) on the sub-sample)
	// for BLESS centers, 0 otherwise: from a sub-sample of at least that
	// many rows every BLESS step draws as many candidates as it would from
	// all n rows (Alg. 1 line 4: R_h = q1·min(κ²/λ_h, rows)), so a smaller
	// sub-sample made BLESS's last steps draw from fewer rows than it
	// would on the full data.
	BLESSRows int
}

// BLESSSampler returns the BLESS sampler s asks for (nil for uniform: nil,
// approx.Uniform) and its final λ; other samplers are refused (ErrInput),
// as is a BLESS λ that is negative or not finite.
func BLESSSampler(s approx.Sampler) (approx.Sampler, float64, error) {
	b, lambda, err := blessSampler(s)
	if err == nil && (lambda < 0 || math.IsNaN(lambda) || math.IsInf(lambda, 0)) {
		err = fmt.Errorf("%w: bless lambda = %g, want 0 (fixed size) or > 0", ErrInput, lambda)
	}
	return b, lambda, err
}

func blessSampler(s approx.Sampler) (approx.Sampler, float64, error) {
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
	return nil, 0, fmt.Errorf("%w: sampler %T, want nil, approx.Uniform, approx.BLESS or approx.BLESSR", ErrInput, s)
}

// SampleShards draws at most m centers from set's rows with the random
// source rand.NewPCG(seed, ShardSeedStream): uniformly without replacement
// over all n rows (ShardRows; sampler nil or approx.Uniform), or, for
// approx.BLESS or approx.BLESSR (value or pointer; Rudi et al. 2018, Alg.
// 1 / Alg. 2), BLESS run by Sample on a uniform sub-sample of subsample
// rows (0 means DefaultShardSubsample; M ≤ subsample ≤ n) drawn first from
// the same source, its rows read from the shards and held (subsample·d·8
// bytes). The centers are standardized as the set says.
//
// Weights: on the s rows, BLESS's A_h is M·π (Alg. 1 line 10, π_j the
// per-draw probability of row j among the s rows; BLESS-R's A_h is the
// inclusion probability, also on the s rows' scale), and Build turns
// weights w on n rows into eq. 15's a = w·n/M = n·π (package precond).
// Row j of the sub-sample is a row of the data drawn with probability s/n,
// so its per-draw probability among all n rows is π·s/n: the weights on
// the full data's scale are w = A_h·s/n, and a = A_h·s/M. (Uniform BLESS
// scores give A_h = M/s, w = M/n and a = 1: eq. 14.)
func (b FalkonBuilder) SampleShards(ctx context.Context, set *ShardSet, sampler approx.Sampler, m, subsample int, seed uint64) (ShardCenters, error) {
	if err := set.check(); err != nil {
		return ShardCenters{}, err
	}
	n, d := set.Manifest.N, set.Manifest.D
	bless, blessLambda, err := BLESSSampler(sampler)
	if err != nil {
		return ShardCenters{}, fmt.Errorf("%s: %w", b.name(), err)
	}
	if m < 1 || m > n {
		return ShardCenters{}, fmt.Errorf("%s: %w: M = %d centers, want 1 ≤ M ≤ n = %d", b.name(), ErrInput, m, n)
	}
	rng := rand.New(rand.NewPCG(seed, ShardSeedStream))
	if bless == nil {
		if subsample != 0 {
			return ShardCenters{}, fmt.Errorf("%s: %w: subsample = %d is for a BLESS sampler drawing the centers", b.name(), ErrInput, subsample)
		}
		rows := ShardRows(n, m, rng)
		x, err := set.ReadRows(ctx, rows)
		if err != nil {
			return ShardCenters{}, fmt.Errorf("%s: sampling centers: %w", b.name(), err)
		}
		return ShardCenters{FalkonCenters: FalkonCenters{Points: x, Indices: rows, Sampler: "uniform over the shards' rows"}, Rows: rows}, nil
	}
	s := subsample
	if s == 0 {
		s = DefaultShardSubsample(n, d, m, b.Kernel, blessLambda)
	}
	if s < m || s > n {
		return ShardCenters{}, fmt.Errorf("%s: %w: subsample = %d rows, want M = %d ≤ subsample ≤ n = %d", b.name(), ErrInput, s, m, n)
	}
	sub := ShardRows(n, s, rng)
	xs, err := set.ReadRows(ctx, sub)
	if err != nil {
		return ShardCenters{}, fmt.Errorf("%s: reading the bless sub-sample: %w", b.name(), err)
	}
	c, err := b.Sample(ctx, bless, xs, m, rng)
	if err != nil {
		return ShardCenters{}, err
	}
	if !c.BLESS || len(c.Indices) != c.M() {
		return ShardCenters{}, fmt.Errorf("%s: sampling centers: %T returned no usable landmarks", b.name(), bless)
	}
	out := ShardCenters{SubsampleRows: sub, Rows: make([]int, len(c.Indices))}
	w := make([]float64, len(c.Indices))
	scale := float64(s) / float64(n)
	for j, i := range c.Indices {
		out.Rows[j] = sub[i]
		w[j] = c.Weights[j] * scale
	}
	diag := make([]float64, s)
	b.Kernel.Diag(diag, xs)
	if kappa2 := slices.Max(diag); c.Lambda > 0 {
		out.BLESSRows = int(min(math.Ceil(kappa2/c.Lambda), math.MaxInt32))
	}
	c.Indices, c.Weights = out.Rows, w
	c.Sampler = fmt.Sprintf("%T on a uniform sub-sample of %d rows", bless, len(sub))
	out.FalkonCenters = c
	return out, nil
}
