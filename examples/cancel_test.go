package examples_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/approx/meka"
	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
)

// estimators returns one fresh, unfitted estimator of every kind (KRR with
// each backend), with the labels each expects for the problem y.
func estimators(y []float64) []struct {
	name string
	est  model.Estimator
	y    []float64
} {
	k := kernel.Gaussian{Gamma: 1}
	cls := classLabels(y)
	return []struct {
		name string
		est  model.Estimator
		y    []float64
	}{
		{"krr-exact", &model.KRR{Kernel: k, Lambda: 1e-4}, y},
		{"krr-nystrom", &model.KRR{Kernel: k, Lambda: 1e-4, Approx: model.NystromKRR{M: 30}}, y},
		{"krr-meka", &model.KRR{Kernel: k, Lambda: 1e-4, Approx: model.MEKAKRR{Options: meka.Options{Clusters: 2, Rank: 10}}}, y},
		{"krr-rff", &model.KRR{Kernel: k, Lambda: 1e-4, Approx: model.FeatureRidge{Features: model.RFFFeatures{RFF: approx.RFF{Features: 50}}}}, y},
		{"falkon", &model.Falkon{Kernel: k, Lambda: 1e-6, M: 30}, y},
		{"svm", &model.SVM{Kernel: k}, cls},
		{"bka-svm", &model.BKASVM{Kernel: k, Clusters: 2}, cls},
	}
}

// A context cancelled before Fit: every estimator returns an error wrapping
// context.Canceled and stays unfitted.
func TestFitCancelledContext(t *testing.T) {
	train, test := smooth(t, 200, 10, false, 13)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range estimators(train.Y) {
		err := c.est.Fit(ctx, train.X, c.y)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: Fit with a cancelled context: err = %v, want context.Canceled", c.name, err)
		}
		if _, err := c.est.Predict(test.X); !errors.Is(err, model.ErrNotFitted) {
			t.Errorf("%s: Predict after a cancelled first fit: err = %v, want ErrNotFitted", c.name, err)
		}
	}
}

// Cancelling during a fit stops it within one step of the solver: counted in
// progress callbacks, not in seconds.
func TestFitCancelledMidway(t *testing.T) {
	d, err := datasets.Moons{N: 3000, Noise: 0.2}.Generate(rand.New(rand.NewPCG(14, 1)))
	if err != nil {
		t.Fatal(err)
	}
	k := kernel.Gaussian{Gamma: 2}

	t.Run("falkon", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		after := 0
		f := &model.Falkon{Kernel: k, Lambda: 1e-9, M: 200, MaxIter: 100, Tol: 1e-300,
			Progress: func(p model.Progress) error {
				if ctx.Err() != nil {
					after++
				}
				if p.Stage == model.StageIteration && p.Done == 3 {
					cancel()
				}
				return nil
			}}
		err := f.Fit(ctx, d.X, d.Y)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if after > 1 {
			t.Errorf("%d iterations ran after the cancel, want ≤ 1", after)
		}
	})

	t.Run("svm", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		calls, after := 0, 0
		s := &model.SVM{Kernel: k, C: 100, Tol: 1e-9,
			Progress: func(model.Progress) error {
				calls++
				if ctx.Err() != nil {
					after++
				}
				cancel()
				return nil
			}}
		err := s.Fit(ctx, d.X, d.Y)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v (after %d progress calls), want context.Canceled", err, calls)
		}
		if after > 1 {
			t.Errorf("%d progress reports after the cancel, want ≤ 1", after)
		}
	})

	t.Run("bka-svm", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		last, total := 0, 0
		b := &model.BKASVM{Kernel: k, C: 10, Clusters: 12, Seed: 1,
			Progress: func(p model.Progress) error {
				last, total = p.Done, p.Total
				if p.Done == 2 {
					cancel()
				}
				return nil
			}}
		b.Workers = 1
		err := b.Fit(ctx, d.X, d.Y)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		// With one worker the cluster problems run one at a time: the one
		// running at the cancel may finish, no further one starts.
		if last > 3 || total != 12 {
			t.Errorf("%d of %d cluster problems solved, want ≤ 3 of 12", last, total)
		}
	})

	// KRR has no progress callback: cancel from another goroutine while
	// exact KRR factors a 3,000 × 3,000 matrix (about 0.3 s on a 2-core
	// EPYC), and require the cancellation error rather than a
	// fitted model.
	t.Run("krr-exact", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		start := time.Now()
		cancelled := make(chan time.Time, 1)
		time.AfterFunc(20*time.Millisecond, func() { cancelled <- time.Now(); cancel() })
		m := &model.KRR{Kernel: k, Lambda: 1e-6}
		err := m.Fit(ctx, d.X, d.Y)
		end := time.Now()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v after %v, want context.Canceled", err, end.Sub(start))
		}
		t.Logf("exact KRR returned %v after the cancel (fit ran %v)", end.Sub(<-cancelled), end.Sub(start))
	})
}
