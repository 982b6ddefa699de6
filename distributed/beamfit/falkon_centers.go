package beamfit

import (
	"context"
	"fmt"

	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// The centers of a Beam fit are drawn on the driver over the global row
// indices, so that they do not depend on the sharding: uniform rows, or
// BLESS on a uniform sub-sample — model.FalkonBuilder.SampleShards, which
// model.Falkon.FitShards draws its centers with too.

// sampleRows draws m distinct row indices of [0, n) uniformly
// (model.ShardRows).
var sampleRows = model.ShardRows

// centers returns the given centers, or draws them on the driver: uniform
// rows, or BLESS on a uniform sub-sample (model.FalkonBuilder.SampleShards),
// and fills res's center fields.
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
	}
	set := &model.ShardSet{Manifest: r.man, Dir: dirOf(r.manifest), Open: openShard, Mean: r.mean, Std: r.std}
	sc, err := r.b.SampleShards(ctx, set, f.Sampler, f.M, f.Subsample, f.Seed)
	if err != nil {
		return model.FalkonCenters{}, err
	}
	res := r.res
	res.CenterRows = sc.Rows
	if sc.SubsampleRows == nil {
		sc.Sampler = "uniform (beam driver)"
		return sc.FalkonCenters, nil
	}
	res.SubsampleRows, res.CenterWeights, res.CenterLambda, res.BLESSRows = sc.SubsampleRows, sc.Weights, sc.Lambda, sc.BLESSRows
	sc.Sampler += " (beam driver)"
	return sc.FalkonCenters, nil
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
