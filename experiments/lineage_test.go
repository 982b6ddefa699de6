package experiments_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/experiments"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"github.com/landmark-ml/landmark/precond"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/mat"
)

// TestErrorLineage checks the one error lineage of issue 22: every package's
// ErrInput, ErrMemory and ErrFormat is the same value, and every sentinel of
// a refusal of bad input wraps it, so one errors.Is(err, model.ErrInput)
// answers "was it my input?" whichever package refused.
func TestErrorLineage(t *testing.T) {
	same := []struct {
		name string
		errs []error
	}{
		{"ErrInput", []error{model.ErrInput, approx.ErrInput, datasets.ErrInput, shard.ErrInput, precond.ErrInput}},
		{"ErrMemory", []error{model.ErrMemory, approx.ErrMemory, datasets.ErrMemory}},
		{"ErrFormat", []error{datasets.ErrFormat, shard.ErrFormat}},
	}
	for _, s := range same {
		for i, e := range s.errs {
			if e != s.errs[0] {
				t.Errorf("%s #%d (%v) is not the same value as #0 (%v)", s.name, i, e, s.errs[0])
			}
			if !errors.Is(e, model.ErrInput) {
				t.Errorf("%s #%d (%v) does not wrap model.ErrInput", s.name, i, e)
			}
		}
	}
	// Sentinels of their own that still belong to the ErrInput lineage, and
	// are distinct from each other.
	own := map[string]error{
		"kernel.ErrParam":       kernel.ErrParam,
		"solver.ErrShape":       solver.ErrShape,
		"solver.ErrSVMProblem":  solver.ErrSVMProblem,
		"experiments.ErrSpec":   experiments.ErrSpec,
		"datasets.ErrTruncated": datasets.ErrTruncated,
		"datasets.ErrColumns":   datasets.ErrColumns,
		"model.ErrMemory":       model.ErrMemory,
		"datasets.ErrFormat":    datasets.ErrFormat,
	}
	for name, e := range own {
		if !errors.Is(e, model.ErrInput) {
			t.Errorf("%s (%v) does not wrap model.ErrInput", name, e)
		}
		for other, f := range own {
			if other != name && errors.Is(e, f) && !(other == "datasets.ErrFormat" && name == "datasets.ErrTruncated") {
				t.Errorf("%s (%v) is also %s", name, e, other)
			}
		}
	}
	// Errors that are not about input stay out of the lineage.
	for name, e := range map[string]error{"model.ErrNotFitted": model.ErrNotFitted, "solver.ErrNotPD": solver.ErrNotPD} {
		if errors.Is(e, model.ErrInput) {
			t.Errorf("%s (%v) wraps model.ErrInput; it is not about bad input", name, e)
		}
	}
}

// TestErrorLineageInUse checks real refusals from the packages whose
// sentinels were separate before (precond, shard, kernel, solver): each is
// errors.Is its own package's sentinel and model.ErrInput, and a cancelled
// fit still reports the context's error, not an input error.
func TestErrorLineageInUse(t *testing.T) {
	var bad bytes.Buffer
	bad.WriteString("NOTASHARD-and-some-more-bytes-than-the-header-needs-0123456789")
	_, _, shardErr := shard.Read(&bad, 1, 1)
	_, precondErr := precond.BuildFalkon(nil, 10, 1, precond.Options{})
	_, cholErr := solver.Cholesky(nil, solver.CholOptions{})
	cases := []struct {
		name string
		err  error
		own  error
	}{
		{"precond.BuildFalkon(nil)", precondErr, precond.ErrInput},
		{"shard.Read(garbage)", shardErr, shard.ErrFormat},
		{"kernel.Gaussian{Gamma: -1}.Validate", kernel.Gaussian{Gamma: -1}.Validate(), kernel.ErrParam},
		{"solver.Cholesky(nil)", cholErr, solver.ErrShape},
	}
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if !errors.Is(c.err, c.own) || !errors.Is(c.err, model.ErrInput) {
			t.Errorf("%s: %v: errors.Is own sentinel %v, model.ErrInput %v; want both", c.name, c.err, errors.Is(c.err, c.own), errors.Is(c.err, model.ErrInput))
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	x := mat.NewDense(20, 2, nil)
	y := make([]float64, 20)
	for i := range 20 {
		x.Set(i, 0, float64(i))
		x.Set(i, 1, float64(i%3))
		y[i] = float64(i % 2)
	}
	err := (&model.Falkon{Lambda: 1e-3, M: 5}).Fit(ctx, x, y)
	if !errors.Is(err, context.Canceled) || errors.Is(err, model.ErrInput) {
		t.Errorf("cancelled Falkon.Fit: %v; want context.Canceled and not ErrInput", err)
	}
}

func isInputErr(err error) bool { return errors.Is(err, model.ErrInput) }
