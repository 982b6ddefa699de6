package beamfit

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"github.com/landmark-ml/landmark/solver"
)

func init() {
	register.DoFn2x1[context.Context, int, error](&bkaFn{})
}

// BKASolver returns a model.BKASolver that solves a BKA-SVM fit's cluster
// problems as one Beam pipeline: the k-means partition is fitted on the
// driver (model.BKASVM.Fit, on its sample), every cluster's dual problem is
// one element of a PCollection solved on a worker by
// model.SolveBKAProblem — the function the local fit runs — and the α are
// gathered on the driver, so the model equals the local fit exactly.
// Problems and results travel through workDir (storage every worker
// reaches; empty means a local temporary folder); run nil means Prism.
//
//	est := &model.BKASVM{C: 1, Clusters: 64, Solver: beamfit.BKASolver(nil, "")}
func BKASolver(run Runner, workDir string) model.BKASolver {
	return func(ctx context.Context, k kernel.Kernel, problems []model.BKAProblem) ([]*solver.SVMResult, error) {
		spec, ok := kernel.SpecOf(k)
		if !ok {
			return nil, fmt.Errorf("beamfit: %w: kernel %s has no spec to send to the workers", ErrInput, k)
		}
		if run == nil {
			run = Prism
		}
		work := workDir
		if work == "" {
			var err error
			if work, err = os.MkdirTemp("", "landmark-beam-bka-"); err != nil {
				return nil, err
			}
			defer os.RemoveAll(work)
		}
		idx := make([]int, len(problems))
		for j, p := range problems {
			b, err := json.Marshal(p)
			if err != nil {
				return nil, err
			}
			if err := writeFile(ctx, joinPath(work, fmt.Sprintf("bka-problem-%06d.json", j)), b); err != nil {
				return nil, err
			}
			idx[j] = j
		}
		p, s := beam.NewPipelineWithRoot()
		col := beam.Reshuffle(s, beam.CreateList(s, idx))
		beam.ParDo0(s, &bkaFn{Dir: work, Kernel: spec}, col)
		if err := run(ctx, p); err != nil {
			return nil, fmt.Errorf("beamfit: bka pipeline: %w", err)
		}
		out := make([]*solver.SVMResult, len(problems))
		for j := range problems {
			b, err := readFile(ctx, joinPath(work, fmt.Sprintf("bka-result-%06d.json", j)))
			if err != nil {
				return nil, fmt.Errorf("beamfit: bka result %d: %w", j, err)
			}
			var r solver.SVMResult
			if err := json.Unmarshal(b, &r); err != nil {
				return nil, fmt.Errorf("beamfit: bka result %d: %w", j, err)
			}
			out[j] = &r
		}
		return out, nil
	}
}

// bkaFn solves one cluster problem.
type bkaFn struct {
	Dir    string
	Kernel kernel.Spec
}

func (f *bkaFn) ProcessElement(ctx context.Context, j int) error {
	k, err := kernel.New(f.Kernel)
	if err != nil {
		return err
	}
	b, err := readFile(ctx, joinPath(f.Dir, fmt.Sprintf("bka-problem-%06d.json", j)))
	if err != nil {
		return err
	}
	var p model.BKAProblem
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	r, err := model.SolveBKAProblem(ctx, k, p)
	if err != nil {
		return fmt.Errorf("beamfit: bka problem %d: %w", j, err)
	}
	if b, err = json.Marshal(r); err != nil {
		return err
	}
	return writeFile(ctx, joinPath(f.Dir, fmt.Sprintf("bka-result-%06d.json", j)), b)
}
