package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/landmark-ml/landmark/experiments"
	"github.com/landmark-ml/landmark/internal/check"
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

// classWeightsOf returns the class weights an SVM fit used (class_weight:
// balanced's computed ones among them), nil for other fits.
func classWeightsOf(res *experiments.FitResult) map[float64]float64 {
	switch e := res.Estimator.(type) {
	case *model.SVM:
		return e.ClassWeights
	case *model.BKASVM:
		return e.ClassWeights
	case *model.KRR:
		return e.ClassWeights
	case *model.Falkon:
		return e.ClassWeights
	}
	return nil
}

// weightsLine says which class weights the fit used, the classes by name;
// "" without weights.
func weightsLine(res *experiments.FitResult) string {
	w := classWeightsOf(res)
	if len(w) == 0 {
		return ""
	}
	labels := slices.Sorted(maps.Keys(w))
	parts := make([]string, len(labels))
	for i, l := range labels {
		parts[i] = fmt.Sprintf("%s × %.6g", res.ClassName(l), w[l])
	}
	what := "C per class"
	switch e := res.Estimator.(type) {
	case *model.KRR, *model.Falkon:
		what = "squared loss per class"
	case *model.SVM:
		if e.Nu > 0 {
			what = "ν-SVC row bound and share per class"
		}
	}
	return "class weights (" + what + "): " + strings.Join(parts, ", ")
}

// estimatorCenters says how a fitted Falkon or Nyström-KRR estimator held
// its centers ("centers dense", "centers sparse (CSR, N non-zeros)"), and
// for Falkon whether its K_nM passes were factored (model.Falkon.Factor:
// "; passes factored: 10 dense + 44 two-valued columns, 75 patterns") or
// read from K_nM kept in memory (model.Falkon.CacheKnm: "; K_nM kept in
// memory (588.2 MB)"), "" for estimators without centers.
func estimatorCenters(est model.Estimator) string {
	var form, factoring string
	var kept int64
	switch e := est.(type) {
	case interface{ Info() model.FalkonInfo }:
		info := e.Info()
		form, factoring = info.CenterForm, info.Plan.Factoring
		if info.CachedKnm {
			kept = info.Plan.Cache
		}
	case interface{ Info() model.KRRInfo }:
		form = e.Info().CenterForm
	}
	switch {
	case form == "":
		return ""
	case factoring != "":
		return "centers " + form + "; passes factored: " + factoring
	case kept > 0:
		return "centers " + form + "; K_nM kept in memory (" + check.FormatBytes(kept) + ")"
	}
	return "centers " + form
}
