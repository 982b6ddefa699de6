package main

import (
	"fmt"

	"github.com/landmark-ml/landmark/experiments"
	"github.com/landmark-ml/landmark/model"
)

// supportVectors returns the number of distinct training rows an SVM, BKA-SVM
// or SVR fit keeps as support vectors (svm-train's nSV; experiments.FitInfo);
// false for other fits.
func supportVectors(res *experiments.FitResult) (int, bool) {
	sv, ok := experiments.FitInfo(res.Estimator)["support_vectors"]
	return int(sv), ok
}

// supportLine says how many training rows the fit keeps as support vectors
// (svm-train's nSV; for svr also nBSV and the dual objective, its obj; for
// one-class-svm also ν, ρ and the training rows outside); "" for fits
// without support vectors.
func supportLine(res *experiments.FitResult) string {
	sv, ok := supportVectors(res)
	if !ok {
		return ""
	}
	l := fmt.Sprintf("support vectors: %d of %d training rows", sv, res.NTrain)
	switch e := res.Estimator.(type) {
	case *model.SVR:
		in := e.Info()
		l += fmt.Sprintf(" (%d at the bound C; ε = %g, dual objective %.6f)", in.BoundedSV, in.Epsilon, in.Objective)
	case *model.OneClassSVM:
		in := e.Info()
		l += fmt.Sprintf(" (%d at the bound; ν = %g, ρ = %.6g, dual objective %.6f); %d training rows outside (f(x) ≤ 0)",
			in.BoundedSV, in.Nu, in.Rho, in.Objective, in.Outliers)
	}
	return l
}

// kernelOf is the kernel the fitted estimator used, after its defaults
// (kernel.Kernel's String: "sigmoid(gamma=0.1, coef0=-1)"), "" when the
// estimator does not say.
func kernelOf(est model.Estimator) string {
	switch e := est.(type) {
	case *model.KRR:
		return e.Info().Kernel
	case *model.Falkon:
		return e.Info().Kernel
	case *model.SVM:
		return e.Info().Kernel
	case *model.SVR:
		return e.Info().Kernel
	case *model.OneClassSVM:
		return e.Info().Kernel
	case *model.BKASVM:
		return e.Info().Kernel
	}
	return ""
}
