package experiments

import (
	"cmp"
	"context"
	"math"
	"math/rand/v2"
	"time"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
)

// DemoOptions configure Demo; zero values mean the defaults of "landmark demo".
type DemoOptions struct {
	// Data is a bundled dataset (default cadata).
	Data string
	// Sigma is the Gaussian bandwidth σ on standardized features (default 2).
	Sigma float64
	// Lambda is FALKON's λ (default 1e-6).
	Lambda float64
	// M is the number of uniform centers (default 2,000, at most the training rows).
	M int
	// MaxIter is the number of CG iterations (default model.DefaultFalkonMaxIter).
	MaxIter int
	// TestFraction is held out when the set has no official test part (default 0.2).
	TestFraction float64
	// Seed drives the split and the centers.
	Seed uint64
	// Progress, when set, is called after every CG iteration (model.Falkon.Progress).
	Progress model.ProgressFunc
}

// DemoResult is what Demo measured.
type DemoResult struct {
	// Info describes the bundled set.
	Info datasets.Info
	// Train and Test are the rows of each part, Dim the features, M the centers used.
	Train, Test, Dim, M int
	// Options are the options with defaults resolved.
	Options DemoOptions
	// FitTime and PredictTime are the wall times of the fit and of predicting the test part.
	FitTime, PredictTime time.Duration
	// Classification: Wrong test predictions, and Baseline, the errors of
	// predicting the training majority class.
	Wrong, Baseline int
	// Regression: the test RMSE in original units, the RMSE of predicting
	// the training mean, and R² = 1 − SSE/SS around that mean.
	RMSE, BaseRMSE, R2 float64
}

// Classification reports whether the demo's set is a classification task.
func (r *DemoResult) Classification() bool { return r.Info.Task != datasets.Regression }

// Demo fits FALKON (uniform centers, Gaussian kernel) on a bundled set's
// training part, standardized with its statistics (and a regression target
// standardized too), and scores the test part against the simplest
// baseline: the first thing a newcomer runs.
func Demo(ctx context.Context, opt DemoOptions) (*DemoResult, error) {
	o := opt
	o.Data = cmp.Or(o.Data, "cadata")
	o.Sigma, o.Lambda, o.TestFraction = cmp.Or(o.Sigma, 2), cmp.Or(o.Lambda, 1e-6), cmp.Or(o.TestFraction, 0.2)
	o.M, o.MaxIter = cmp.Or(o.M, 2000), cmp.Or(o.MaxIter, model.DefaultFalkonMaxIter)
	info, ok := datasets.Lookup(o.Data)
	if !ok {
		_, err := datasets.Load(o.Data) // for the error listing the bundled names
		return nil, err
	}
	r := &DemoResult{Info: info, Options: o}
	classify := r.Classification()
	train, test, err := datasets.LoadSplit(o.Data)
	if err != nil {
		all, err := datasets.Load(o.Data)
		if err != nil {
			return nil, err
		}
		if train, test, err = all.TrainTest(o.TestFraction, classify, rand.New(rand.NewPCG(o.Seed, 0x6c616e646d61726b))); err != nil {
			return nil, err
		}
	}
	var scaler datasets.Standardizer
	if err := scaler.Fit(train.X); err != nil {
		return nil, err
	}
	xtr, err := scaler.Transform(train.X)
	if err != nil {
		return nil, err
	}
	xte, err := scaler.Transform(test.X)
	if err != nil {
		return nil, err
	}
	ytr := train.Y
	var ys datasets.TargetScaler
	if !classify {
		if err := ys.Fit(train.Y); err != nil {
			return nil, err
		}
		ytr = ys.Transform(train.Y)
	}
	r.Train, r.Test, r.Dim, r.M = train.Len(), test.Len(), train.Dim(), min(o.M, train.Len())
	est := &model.Falkon{Kernel: kernel.GaussianSigma(o.Sigma), Lambda: o.Lambda, M: r.M, MaxIter: o.MaxIter, Seed: o.Seed, Progress: o.Progress}
	if classify {
		est.Task = model.Classification
	}
	start := time.Now()
	if err := est.Fit(ctx, xtr, ytr); err != nil {
		return nil, err
	}
	r.FitTime = time.Since(start)
	start = time.Now()
	pred, err := est.Predict(xte)
	if err != nil {
		return nil, err
	}
	r.PredictTime = time.Since(start)
	if classify {
		major := majority(train.Y)
		for i, p := range pred {
			if p != test.Y[i] {
				r.Wrong++
			}
			if test.Y[i] != major {
				r.Baseline++
			}
		}
		return r, nil
	}
	pred = ys.Inverse(pred)
	var se, sc float64
	for i, p := range pred {
		se += (p - test.Y[i]) * (p - test.Y[i])
		sc += (ys.Mean - test.Y[i]) * (ys.Mean - test.Y[i])
	}
	r.RMSE, r.BaseRMSE, r.R2 = math.Sqrt(se/float64(len(pred))), math.Sqrt(sc/float64(len(pred))), 1-se/sc
	return r, nil
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
