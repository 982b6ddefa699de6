package model_test

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// sine returns n points of y = sin(x) on [−3, 3].
func sine(n int) (*mat.Dense, []float64) {
	x := mat.NewDense(n, 1, nil)
	y := make([]float64, n)
	for i := range n {
		v := -3 + 6*float64(i)/float64(n-1)
		x.Set(i, 0, v)
		y[i] = math.Sin(v)
	}
	return x, y
}

// Progress sees each step of FALKON's setup and every CG iteration, and
// can stop the fit: returning an error makes Fit fail with an error
// wrapping model.ErrStopped and the callback's own error; the estimator
// keeps the model it had (none here).
func ExampleFalkon_progress() {
	x, y := sine(500)
	enough := errors.New("enough")
	m := &model.Falkon{Kernel: kernel.Gaussian{Gamma: 0.5}, Lambda: 1e-9, M: 50, MaxIter: 100, Seed: 1,
		Progress: func(p model.Progress) error {
			if p.Stage == model.StageSetup {
				fmt.Printf("setup %d of %d: %s\n", p.Done, p.Total, p.Step)
				return nil
			}
			fmt.Printf("%s %d of %d, relative residual %.0e\n", p.Stage, p.Done, p.Total, p.Residual)
			if p.Done == 3 {
				return enough // stop after the third iteration
			}
			return nil
		}}
	err := m.Fit(context.Background(), x, y)
	fmt.Println("stopped:", errors.Is(err, model.ErrStopped), errors.Is(err, enough))
	_, err = m.Predict(x)
	fmt.Println("not fitted:", errors.Is(err, model.ErrNotFitted))
	// Output:
	// setup 1 of 3: centers
	// setup 2 of 3: preconditioner
	// setup 3 of 3: rhs
	// iteration 1 of 100, relative residual 4e-01
	// iteration 2 of 100, relative residual 1e-01
	// iteration 3 of 100, relative residual 4e-02
	// stopped: true true
	// not fitted: true
}

// Cancelling the context stops a fit at its next check (every FALKON
// iteration, every kernel block): Fit returns an error wrapping
// context.Canceled, and an estimator not fitted before stays unfitted.
func ExampleFalkon_cancel() {
	x, y := sine(500)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := &model.Falkon{Kernel: kernel.Gaussian{Gamma: 0.5}, Lambda: 1e-9, M: 50, MaxIter: 100, Seed: 1,
		Progress: func(p model.Progress) error {
			if p.Stage == model.StageIteration && p.Done == 2 {
				cancel() // as a signal handler or a deadline would
			}
			return nil
		}}
	err := m.Fit(ctx, x, y)
	fmt.Println("cancelled:", errors.Is(err, context.Canceled))
	_, err = m.Predict(x)
	fmt.Println("not fitted:", errors.Is(err, model.ErrNotFitted))
	// Output:
	// cancelled: true
	// not fitted: true
}

// MemoryLimit caps a fit's planned peak memory. Plan shows the plan without
// fitting; a fit whose plan exceeds the cap fails with ErrMemory before
// allocating anything large.
func ExampleFalkon_memoryLimit() {
	x, y := sine(20000)
	// The plan counts the kernel engine's scratch per worker, so Workers is
	// fixed here: with the default (GOMAXPROCS) the plan grows with the cores.
	m := &model.Falkon{Kernel: kernel.Gaussian{Gamma: 0.5}, Lambda: 1e-9, M: 1000, Seed: 1}
	m.Workers = 2
	plan, err := m.Plan(x, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	// K_MM and the preconditioner's factor are 2·8·M² bytes = 16 MB.
	fmt.Println("M = 1000 plans more than 16 MB:", plan.Total > 16e6)

	m.MemoryLimit = 10 << 20 // 10 MiB
	err = m.Fit(context.Background(), x, y)
	fmt.Println("refused under a 10 MiB cap:", errors.Is(err, model.ErrMemory))

	m.M = 200 // fewer centers: K_MM shrinks with M²
	if err := m.Fit(context.Background(), x, y); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("M = 200 fits, planned peak within the cap:", m.Info().Plan.Total <= m.MemoryLimit)
	// Output:
	// M = 1000 plans more than 16 MB: true
	// refused under a 10 MiB cap: true
	// M = 200 fits, planned peak within the cap: true
}
