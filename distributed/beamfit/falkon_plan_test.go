package beamfit

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// The Beam fit is assembled by model.FalkonBuilder: its Info reports the
// builder's driver plan for its centers — M·d·8 bytes of centers, at least
// (2M² + M)·8 of K_MM and factors, 8·M·t·8 of CG state, no data (the
// workers hold it) — and the builder's preconditioner fields; and the
// builder's checks refuse a negative Epsilon with ErrInput before any
// pipeline runs.
func TestFalkonBuilderPlan(t *testing.T) {
	x, y := cadata(t, 200)
	dir := filepath.Join(t.TempDir(), "data")
	if _, err := shard.WriteDir(dir, x, y, 100, false); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(dir, shard.ManifestName)
	k := kernel.GaussianSigma(2)
	const m = 10
	f := Falkon{Kernel: k, Lambda: 1e-3, M: m, MaxIter: 2, Seed: 1}
	res, err := f.Fit(context.Background(), manifest)
	if err != nil {
		t.Fatal(err)
	}
	info := res.Model.Info()
	c := model.FalkonCenters{Points: res.Model.Solution().Centers}
	want := model.FalkonBuilder{Kernel: k, Lambda: 1e-3}.Plan(c, 1)
	if info.Plan != want || want.Centers != m*8*8 || want.Solver != 8*m*8 || want.Precond < (2*m*m+m)*8 || want.Data != 0 {
		t.Errorf("plan %+v, want the builder's %+v", info.Plan, want)
	}
	if info.Preconditioner != model.PrecondFalkon || info.CenterForm != "dense" || !(info.Shift > 0) || info.Iterations != 2 {
		t.Errorf("info: preconditioner %q, centers %q, shift %g, %d iterations", info.Preconditioner, info.CenterForm, info.Shift, info.Iterations)
	}
	if _, ok := res.Model.Solution().Centers.(*mat.Dense); !ok {
		t.Errorf("centers are %T, want *mat.Dense", res.Model.Solution().Centers)
	}
	f.Epsilon = -1
	var launched int
	f.Run = func(ctx context.Context, p *beam.Pipeline) error { launched++; return Prism(ctx, p) }
	if _, err := f.Fit(context.Background(), manifest); !errors.Is(err, ErrInput) || launched != 0 {
		t.Errorf("negative epsilon: err = %v after %d launches, want ErrInput before any", err, launched)
	}
}
