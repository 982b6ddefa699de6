package main

import (
	"context"
	"fmt"
	"io"

	"github.com/landmark-ml/landmark/experiments"
	"github.com/landmark-ml/landmark/internal/cmdline"
	"github.com/landmark-ml/landmark/internal/eta"
	"github.com/landmark-ml/landmark/model"
)

// runDemo fits FALKON on a bundled dataset and scores it on a held-out split
// (experiments.Demo): the first thing a newcomer runs.
func runDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cmdline.NewFlags("demo", "[flags]", stderr)
	var o experiments.DemoOptions
	fs.StringVar(&o.Data, "data", "cadata", "bundled dataset (see \"landmark data list\")")
	fs.Float64Var(&o.Sigma, "sigma", 2, "Gaussian bandwidth σ (γ = 1/(2σ²)), on standardized features")
	fs.Float64Var(&o.Lambda, "lambda", 1e-6, "regularization λ (FALKON's penalty; scikit-learn alpha = λn)")
	fs.IntVar(&o.M, "m", 2000, "number of Nyström centers M")
	fs.IntVar(&o.MaxIter, "iter", 20, "conjugate-gradient iterations")
	fs.Float64Var(&o.TestFraction, "test-fraction", 0.2, "held-out fraction (sets with an official test split use it instead)")
	fs.Uint64Var(&o.Seed, "seed", 1, "random seed (split and centers)")
	quiet := fs.Bool("quiet", false, "no progress on stderr (same as --progress never)")
	prog := cmdline.AddProgress(fs)
	if err := cmdline.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if !(o.Sigma > 0) || !(o.Lambda > 0) || o.M < 1 || o.MaxIter < 1 || !(o.TestFraction > 0 && o.TestFraction < 1) {
		return fmt.Errorf("%w: --sigma, --lambda must be > 0, --m, --iter ≥ 1, --test-fraction in (0, 1)", errUsage)
	}
	pg := cmdline.NewProgress(*prog, *quiet, stderr)
	if pg != nil {
		var clock eta.Iter
		o.Progress = func(p model.Progress) error {
			pg.Model("", p, o.MaxIter, &clock)
			return nil
		}
	}
	r, err := experiments.Demo(ctx, o)
	if pg != nil {
		pg.Done()
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "dataset   %s: %d training, %d test rows, d = %d (%s)\n", o.Data, r.Train, r.Test, r.Dim, r.Info.Task)
	fmt.Fprintf(stdout, "model     FALKON, Gaussian σ = %g (γ = %.4g), λ = %g, M = %d uniform centers, %d CG iterations\n",
		o.Sigma, 1/(2*o.Sigma*o.Sigma), o.Lambda, r.M, o.MaxIter)
	fmt.Fprintf(stdout, "time      fit %.2f s, predict %.2f s\n", r.FitTime.Seconds(), r.PredictTime.Seconds())
	if r.Classification() {
		fmt.Fprintf(stdout, "test      error %.2f%% (%d of %d); predicting the majority class: %.2f%%\n",
			100*float64(r.Wrong)/float64(r.Test), r.Wrong, r.Test, 100*float64(r.Baseline)/float64(r.Test))
		return nil
	}
	fmt.Fprintf(stdout, "test      RMSE %.6g (original units); predicting the training mean: %.6g; R² = %.4f\n", r.RMSE, r.BaseRMSE, r.R2)
	return nil
}
