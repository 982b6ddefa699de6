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
// pipeline: every (grid point, fold) fit is a PCollection element, and a
// worker decodes the spec at specPath and runs experiments.EvalFold — the
// fit a local run makes for that fold. The driver gathers the fold results
// and summarizes each point with experiments.AssemblePoints (the local
// run's own code), then experiments.Run logs them, so results.log,
// results.csv, resume and plots are those of a local run. specPath and the
// data it names, and workDir (empty: a local temporary folder), must be
// reachable by every worker; run nil means Prism.
func GridEvaluator(run Runner, specPath, workDir string) experiments.PointEvaluator {
	return GridEvaluatorEdit(run, specPath, workDir, SpecEdit{})
}

// SpecEdit is what the command line changed in the spec of a YAML file
// (landmark run's --smoke, --dense and --memory); the driver and every
// worker apply it after decoding the file, so that they evaluate the same
// spec. The zero value changes nothing.
type SpecEdit struct {
	// Smoke shrinks the experiment (experiments.Spec.Smoke).
	Smoke bool
	// Dense holds X dense (dataset storage: dense).
	Dense bool
	// MemoryLimit, when positive, sets the estimator option memory_limit
	// (bytes).
	MemoryLimit int64
}

// Apply returns the edited spec (s itself when the edit is the zero value;
// s is never modified).
func (e SpecEdit) Apply(s *experiments.Spec) *experiments.Spec {
	if e == (SpecEdit{}) {
		return s
	}
	c := *s
	if e.Dense {
		c.Dataset.Storage = experiments.StorageDense
	}
	if e.MemoryLimit > 0 && c.Approximation == nil {
		opts := make(map[string]any, len(c.Estimator.Options)+1)
		for k, v := range c.Estimator.Options {
			opts[k] = v
		}
		opts["memory_limit"] = float64(e.MemoryLimit)
		c.Estimator.Options = opts
	}
	if e.Smoke {
		return c.Smoke()
	}
	return &c
}

// GridEvaluatorEdit is GridEvaluator for the spec at specPath as edit
// changes it.
func GridEvaluatorEdit(run Runner, specPath, workDir string, edit SpecEdit) experiments.PointEvaluator {
	return func(ctx context.Context, points []int) ([]experiments.PointResult, error) {
		if run == nil {
			run = Prism
		}
		spec, err := experiments.DecodeFile(specPath)
		if err != nil {
			return nil, err
		}
		spec = edit.Apply(spec)
		nf, err := experiments.Folds(spec)
		if err != nil {
			return nil, err
		}
		work := workDir
		if work == "" {
			if work, err = os.MkdirTemp("", "landmark-beam-grid-"); err != nil {
				return nil, err
			}
			defer os.RemoveAll(work)
		}
		var fits []int
		for _, i := range points {
			for j := range nf {
				fits = append(fits, i*nf+j)
			}
		}
		p, s := beam.NewPipelineWithRoot()
		col := beam.Reshuffle(s, beam.CreateList(s, fits))
		beam.ParDo0(s, &gridFn{Spec: specPath, Dir: work, Folds: nf, Edit: edit}, col)
		if err := run(ctx, p); err != nil {
			return nil, fmt.Errorf("beamfit: grid pipeline: %w", err)
		}
		res := make([][]experiments.FoldResult, len(points))
		for q, i := range points {
			res[q] = make([]experiments.FoldResult, nf)
			for j := range nf {
				b, err := readFile(ctx, joinPath(work, foldFile(i, j)))
				if err != nil {
					return nil, fmt.Errorf("beamfit: grid point %d fold %d: %w", i, j, err)
				}
				if err := json.Unmarshal(b, &res[q][j]); err != nil {
					return nil, fmt.Errorf("beamfit: grid point %d fold %d: %w", i, j, err)
				}
			}
		}
		return experiments.AssemblePoints(spec, points, res)
	}
}

func foldFile(point, fold int) string { return fmt.Sprintf("point-%06d-fold-%03d.json", point, fold) }

// gridFn computes one (grid point, fold) fit; its element is
// point·Folds + fold.
type gridFn struct {
	Spec  string
	Dir   string
	Folds int
	Edit  SpecEdit
}

func (f *gridFn) ProcessElement(ctx context.Context, e int) error {
	s, err := experiments.DecodeFile(f.Spec)
	if err != nil {
		return err
	}
	s = f.Edit.Apply(s)
	i, j := e/f.Folds, e%f.Folds
	fr, err := experiments.EvalFold(ctx, s, i, j)
	if err != nil {
		return fmt.Errorf("beamfit: grid point %d fold %d: %w", i, j, err)
	}
	b, err := json.Marshal(fr)
	if err != nil {
		return err
	}
	return writeFile(ctx, joinPath(f.Dir, foldFile(i, j)), b)
}
