package beamfit

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/landmark-ml/landmark/experiments"
)

func init() {
	register.DoFn2x1[context.Context, int, error](&gridFn{})
}

// GridEvaluator returns an experiments.PointEvaluator (experiments.Options
// Remote) that computes a YAML experiment's grid points as one Beam
// pipeline: every point index is a PCollection element, and a worker
// decodes the spec at specPath and runs experiments.EvalPoint — the
// point's cross-validated fits, exactly as a local run computes them. The
// driver's experiments.Run then logs the results, so results.log,
// results.csv, resume and plots are those of a local run. specPath and the
// data it names, and workDir (empty: a local temporary folder), must be
// reachable by every worker; run nil means Prism.
func GridEvaluator(run Runner, specPath, workDir string) experiments.PointEvaluator {
	return func(ctx context.Context, points []int) ([]experiments.PointResult, error) {
		if run == nil {
			run = Prism
		}
		work := workDir
		if work == "" {
			var err error
			if work, err = os.MkdirTemp("", "landmark-beam-grid-"); err != nil {
				return nil, err
			}
			defer os.RemoveAll(work)
		}
		p, s := beam.NewPipelineWithRoot()
		col := beam.Reshuffle(s, beam.CreateList(s, points))
		beam.ParDo0(s, &gridFn{Spec: specPath, Dir: work}, col)
		if err := run(ctx, p); err != nil {
			return nil, fmt.Errorf("beamfit: grid pipeline: %w", err)
		}
		out := make([]experiments.PointResult, len(points))
		for q, i := range points {
			b, err := readFile(ctx, joinPath(work, fmt.Sprintf("point-%06d.json", i)))
			if err != nil {
				return nil, fmt.Errorf("beamfit: grid point %d: %w", i, err)
			}
			if err := json.Unmarshal(b, &out[q]); err != nil {
				return nil, fmt.Errorf("beamfit: grid point %d: %w", i, err)
			}
		}
		return out, nil
	}
}

// gridFn computes one grid point.
type gridFn struct {
	Spec string
	Dir  string
}

func (f *gridFn) ProcessElement(ctx context.Context, i int) error {
	s, err := experiments.DecodeFile(f.Spec)
	if err != nil {
		return err
	}
	pr, err := experiments.EvalPoint(ctx, s, i)
	if err != nil {
		return fmt.Errorf("beamfit: grid point %d: %w", i, err)
	}
	b, err := json.Marshal(pr)
	if err != nil {
		return err
	}
	return writeFile(ctx, joinPath(f.Dir, fmt.Sprintf("point-%06d.json", i)), b)
}
