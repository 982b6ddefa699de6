package examples_test

import (
	"context"
	"errors"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
)

// withLimit sets MemoryLimit on any estimator of the table.
func withLimit(t *testing.T, e model.Estimator, limit int64) {
	t.Helper()
	switch m := e.(type) {
	case *model.KRR:
		m.MemoryLimit = limit
	case *model.Falkon:
		m.MemoryLimit = limit
	case *model.SVM:
		m.MemoryLimit = limit
	case *model.BKASVM:
		m.MemoryLimit = limit
	default:
		t.Fatalf("no MemoryLimit on %T", e)
	}
}

// A memory cap far below any fit's needs: every estimator refuses with
// ErrMemory (which is also ErrInput) before fitting, and stays unfitted.
func TestMemoryLimitTooSmall(t *testing.T) {
	train, test := smooth(t, 300, 10, false, 15)
	for _, c := range estimators(train.Y) {
		withLimit(t, c.est, 4096)
		err := c.est.Fit(context.Background(), train.X, c.y)
		if !errors.Is(err, model.ErrMemory) || !errors.Is(err, model.ErrInput) {
			t.Errorf("%s: Fit with a 4 KiB cap: err = %v, want ErrMemory", c.name, err)
			continue
		}
		t.Logf("%s: %v", c.name, err)
		checkStyle(t, c.name, err)
		if _, err := c.est.Predict(test.X); !errors.Is(err, model.ErrNotFitted) {
			t.Errorf("%s: Predict after the refused fit: err = %v, want ErrNotFitted", c.name, err)
		}
	}
}

// Falkon's plan is the cap a fit is checked against, to the byte: a cap of
// exactly Plan().Total fits, one byte less is refused.
func TestFalkonPlanIsTheCap(t *testing.T) {
	train, _ := smooth(t, 2000, 1, false, 16)
	f := &model.Falkon{Kernel: kernel.Gaussian{Gamma: 1}, Lambda: 1e-6, M: 100, Seed: 1}
	p, err := f.Plan(train.X, 1)
	if err != nil {
		t.Fatal(err)
	}
	sum := p.Data + p.Centers + p.Precond + p.Engine + p.Solver + p.Validation + p.Cache
	if p.Total != sum {
		t.Errorf("Plan().Total = %d, the parts sum to %d", p.Total, sum)
	}
	// K_MM and the preconditioner's triangular factor alone are 2·8·M² bytes.
	if p.Precond < 2*8*100*100 {
		t.Errorf("Plan().Precond = %d bytes, below 2·8M² = %d", p.Precond, 2*8*100*100)
	}
	f.MemoryLimit = p.Total - 1
	if err := f.Fit(context.Background(), train.X, train.Y); !errors.Is(err, model.ErrMemory) {
		t.Errorf("cap one byte below the plan (%d): err = %v, want ErrMemory", p.Total-1, err)
	}
	f.MemoryLimit = p.Total
	if err := f.Fit(context.Background(), train.X, train.Y); err != nil {
		t.Errorf("cap equal to the plan (%d): %v", p.Total, err)
	}
	if got := f.Info().Plan.Total; got != p.Total {
		t.Errorf("Info().Plan.Total = %d, Plan() said %d", got, p.Total)
	}
}
