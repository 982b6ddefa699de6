package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/internal/cmdline"
	"github.com/landmark-ml/landmark/internal/eta"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
)

// runDemo fits FALKON on a bundled dataset and scores it on a held-out split:
// the first thing a newcomer runs.
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cmdline.NewFlags("demo", "[flags]", stderr)
	name := fs.String("data", "cadata", "bundled dataset (see \"landmark data list\")")
	sigma := fs.Float64("sigma", 2, "Gaussian bandwidth σ (γ = 1/(2σ²)), on standardized features")
	lambda := fs.Float64("lambda", 1e-6, "regularization λ (FALKON's penalty; scikit-learn alpha = λn)")
	m := fs.Int("m", 2000, "number of Nyström centers M")
	iters := fs.Int("iter", 20, "conjugate-gradient iterations")
	testFrac := fs.Float64("test-fraction", 0.2, "held-out fraction (sets with an official test split use it instead)")
	seed := fs.Uint64("seed", 1, "random seed (split and centers)")
	quiet := fs.Bool("quiet", false, "no progress on stderr (same as --progress never)")
	prog := cmdline.AddProgress(fs)
	if err := cmdline.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	info, ok := datasets.Lookup(*name)
	if !ok {
		_, err := datasets.Load(*name) // for the error listing the bundled names
		return err
	}
	classify := info.Task != datasets.Regression
	rng := rand.New(rand.NewPCG(*seed, 0x6c616e646d61726b))

	var train, test *datasets.Dataset
	var err error
	if tr, te, e := datasets.LoadSplit(*name); e == nil {
		train, test = tr, te
	} else {
		all, err := datasets.Load(*name)
		if err != nil {
			return err
		}
		if train, test, err = all.TrainTest(*testFrac, classify, rng); err != nil {
			return err
		}
	}
	var scaler datasets.Standardizer
	if err := scaler.Fit(train.X); err != nil {
		return err
	}
	xtr, err := scaler.Transform(train.X)
	if err != nil {
		return err
	}
	xte, err := scaler.Transform(test.X)
	if err != nil {
		return err
	}
	ytr := train.Y
	var ys datasets.TargetScaler
	if !classify {
		if err := ys.Fit(train.Y); err != nil {
			return err
		}
		ytr = ys.Transform(train.Y)
	}

	mm := min(*m, train.Len())
	est := &model.Falkon{
		Kernel:  kernel.GaussianSigma(*sigma),
		Lambda:  *lambda,
		M:       mm,
		MaxIter: *iters,
		Seed:    *seed,
	}
	if classify {
		est.Task = model.Classification
	}
	pg := cmdline.NewProgress(*prog, *quiet, stderr)
	if pg != nil {
		t0 := time.Now()
		var clock eta.Iter
		maxIter := *iters
		if maxIter <= 0 {
			maxIter = model.DefaultFalkonMaxIter
		}
		est.Progress = func(it model.FalkonIteration) bool {
			pg.Iteration("CG ", it.Iteration, maxIter, it.Residual, time.Since(t0), clock.Left(it.Iteration, maxIter))
			return true
		}
	}
	fmt.Fprintf(stdout, "dataset   %s: %d training, %d test rows, d = %d (%s)\n", *name, train.Len(), test.Len(), train.Dim(), info.Task)
	fmt.Fprintf(stdout, "model     FALKON, Gaussian σ = %g (γ = %.4g), λ = %g, M = %d uniform centers, %d CG iterations\n",
		*sigma, 1/(2**sigma**sigma), *lambda, mm, *iters)
	start := time.Now()
	if err := est.Fit(ctx, xtr, ytr); err != nil {
		return err
	}
	fitTime := time.Since(start)
	if pg != nil {
		pg.Done()
	}
	start = time.Now()
	pred, err := est.Predict(xte)
	if err != nil {
		return err
	}
	predTime := time.Since(start)
	fmt.Fprintf(stdout, "time      fit %.2f s, predict %.2f s\n", fitTime.Seconds(), predTime.Seconds())
	if classify {
		wrong := 0
		for i, p := range pred {
			if p != test.Y[i] {
				wrong++
			}
		}
		major := majority(train.Y)
		base := 0
		for _, v := range test.Y {
			if v != major {
				base++
			}
		}
		fmt.Fprintf(stdout, "test      error %.2f%% (%d of %d); predicting the majority class: %.2f%%\n",
			100*float64(wrong)/float64(len(pred)), wrong, len(pred), 100*float64(base)/float64(len(pred)))
		return nil
	}
	pred = ys.Inverse(pred)
	var se, sc float64
	for i, p := range pred {
		se += (p - test.Y[i]) * (p - test.Y[i])
		sc += (ys.Mean - test.Y[i]) * (ys.Mean - test.Y[i])
	}
	rmse, base := math.Sqrt(se/float64(len(pred))), math.Sqrt(sc/float64(len(pred)))
	fmt.Fprintf(stdout, "test      RMSE %.6g (original units); predicting the training mean: %.6g; R² = %.4f\n",
		rmse, base, 1-se/sc)
	return nil
}

// majority returns the most frequent label (the smallest on ties).
func majority(y []float64) float64 {
	best, bestN := 0.0, -1
	for _, c := range datasets.ClassCounts(y) {
		if c.Count > bestN {
			best, bestN = c.Label, c.Count
		}
	}
	return best
}
