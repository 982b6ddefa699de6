package model

import (
	"fmt"
	"slices"

	"github.com/landmark-ml/landmark/internal/check"
	"gonum.org/v1/gonum/mat"
)

// FittedFalkon returns a fitted Falkon whose solution was computed outside
// this package — the hook through which a fit whose data passes run
// elsewhere (module github.com/landmark-ml/landmark/distributed runs them as
// Apache Beam pipelines) hands back an estimator that Predict, Info and Save
// treat as any other. cfg is the configuration the fit used (copied; its
// fitted state is ignored); sol holds the kernel, the M×d centers and the
// M×t coefficients; classes are the class labels for classification (nil
// for regression); info describes the fit. Nothing is recomputed.
func FittedFalkon(cfg Falkon, sol *KernelExpansion, classes []float64, info FalkonInfo) (*Falkon, error) {
	if sol == nil || sol.Kernel == nil || sol.Centers == nil || sol.Coef == nil {
		return nil, fmt.Errorf("%w: fitted falkon needs a kernel, centers and coefficients", ErrInput)
	}
	if err := sol.Kernel.Validate(); err != nil {
		return nil, err
	}
	mc, d := sol.Centers.Dims()
	if r, t := sol.Coef.Dims(); r != mc || t < 1 {
		return nil, fmt.Errorf("%w: coefficients are %d×%d for %d centers", ErrInput, r, t, mc)
	}
	if err := checkCenters(sol.Centers, d); err != nil {
		return nil, fmt.Errorf("centers: %w", err)
	}
	if err := check.Matrix("coefficients", sol.Coef); err != nil {
		return nil, err
	}
	task, err := cfg.Task.resolve()
	if err != nil {
		return nil, err
	}
	var labels Labels
	if task == Classification {
		labels, err = labelsOf(classes)
		if err != nil {
			return nil, err
		}
		if _, t := sol.Coef.Dims(); t != labels.Outputs() {
			return nil, fmt.Errorf("%w: %d coefficient columns for %d classes, want %d", ErrInput, t, len(labels.Classes), labels.Outputs())
		}
	} else if len(classes) > 0 {
		return nil, fmt.Errorf("%w: class labels given for a regression fit", ErrInput)
	}
	m := cfg
	m.Kernel = sol.Kernel
	m.fit = &falkonFit{task: task, labels: labels, d: d, info: info,
		pred: &KernelExpansion{Kernel: sol.Kernel, Centers: ownCenters(sol.Kernel, sol.Centers, true),
			Coef: mat.DenseCopyOf(sol.Coef), Workers: cfg.Workers}}
	m.fit.info.History = slices.Clone(info.History)
	return &m, nil
}
