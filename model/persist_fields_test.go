package model

import (
	"reflect"
	"slices"
	"testing"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/approx/meka"
	"github.com/landmark-ml/landmark/kernel"
)

// The persistence code must know every field of the estimators, their
// fitted state and their Info, of the KRR backends and of the samplers and
// options they save (a field added to approx.BLESS, say, would otherwise
// be silently dropped by Save). When a field is added to one of these types this test fails:
// save and load it in persist_*.go (with a round-trip case in
// persist_test.go) or, for code and data that cannot be saved, list it as
// unsaved here and in the package documentation ("Saved models").
func TestPersistCoversFields(t *testing.T) {
	for _, c := range []struct {
		v     any
		known []string
	}{
		{KRR{}, []string{"Kernel", "Lambda", "Task", "ClassWeights", "Approx", "Seed", "Resources", "Cholesky",
			"Probability", "Progress" /* a callback: not saved */, "fit"}},
		{krrFit{}, []string{"task", "labels", "d", "pred", "info", "calib"}},
		{Falkon{}, []string{"Kernel", "Lambda", "M", "Sampler", "Centers", "CenterWeights", "CenterLambda",
			"Preconditioner", "Epsilon", "MaxIter", "Tol", "Task", "ClassWeights", "Seed", "Resources", "BlockRows", "Float32", "Float32Storage", "PrecondPrecision", "Factor", "CacheKnm", "NeverCacheKnm", "Patience",
			"Probability", "Cholesky", "Validation", "WarmStart", "Progress" /* a callback: not saved */, "fit"}},
		{falkonFit{}, []string{"task", "labels", "d", "pred", "info", "calib"}},
		{SVM{}, []string{"Kernel", "C", "ClassWeights", "Multiclass", "NoBias", "Nu", "Tol", "MaxIter", "CacheBytes", "CacheFloat32", "Resources",
			"NoShrinking", "Probability", "Seed", "Progress" /* a callback: not saved */, "fit"}},
		{svmFit{}, []string{"labels", "ovo", "d", "dec", "info", "platt"}},
		{svmDecision{}, []string{"k", "sv", "w", "bias", "empty", "workers", "rows" /* as positions of BKA-SVM local SVs among the global ones */}},
		{BKASVM{}, []string{"Kernel", "C", "ClassWeights", "Multiclass", "Clusters", "Sketch", "KMeansSubsample", "Prediction",
			"Refine", "Tol", "MaxIter", "CacheBytes", "Resources", "NoShrinking", "Probability", "Seed",
			"Progress" /* a callback: not saved */, "Solver" /* code: not saved */, "fit"}},
		{SVR{}, []string{"Kernel", "C", "Epsilon", "AbsoluteLoss", "Nu", "Tol", "MaxIter", "CacheBytes", "CacheFloat32", "NoShrinking", "Probability", "Seed",
			"Resources", "Progress" /* a callback: not saved */, "fit"}},
		{svrFit{}, []string{"d", "dec", "info", "laplace"}},
		{bkaFit{}, []string{"labels", "ovo", "d", "part", "global", "local", "ntasks", "info", "platt", "plattLocal"}},
		{KernelExpansion{}, []string{"Kernel", "Centers", "Coef", "Workers"}},
		{LinearFeatures{}, []string{"Map", "Weights"}},
		{MEKAExpansion{}, []string{"MEKA", "Beta", "Solution"}},
		{MEKAKRR{}, []string{"Options", "SkipPSD", "Solver", "CG" /* Tol and MaxIter; its Callback is not saved */}},
		{meka.Options{}, []string{"Rank", "Clusters", "Landmarks", "Rho", "Epsilon", "Strategy", "PSD", /* MEKAKRR's SkipPSD decides */
			"KMeans", "Partition", "Progress", "BasisSolver" /* fitting inputs: not saved */, "MaxBytes", "Workers" /* the estimator's Resources */}},
		{NystromKRR{}, []string{"M", "Sampler", "Centers"}},
		{NystromFeatures{}, []string{"M", "Sampler", "Nystrom"}},
		{RFFFeatures{}, []string{"RFF"}},
		{MEKAFeatures{}, []string{"MEKA"}},
		{FixedFeatures{}, []string{"Map"}},
		{FeatureRidge{}, []string{"Features"}},
		{approx.BLESS{}, []string{"Lambda", "Lambda0", "Q", "Q1", "Q2", "Workers", "Progress" /* a callback: not saved */}},
		{approx.RandomizedClustered{}, []string{"Dim", "Compression", "MaxIter", "Subsample", "Tol", "MaxBytes"}},
		{approx.KMeansCenters{}, []string{"MaxIter", "Subsample", "Tol", "MaxBytes"}},
		{approx.ExactRLS{}, []string{"Ridge"}},
		{approx.RecursiveRLS{}, []string{"Delta", "Oversample", "Accelerated", "Workers", "Progress" /* a callback: not saved */}},
		{approx.Uniform{}, nil},
		{approx.Nystrom{}, []string{"Rank", "QR", "Floor", "MaxBytes", "Engine"}},
		{kernel.Options{}, []string{"Workers", "BlockRows", "Float32"}},
		{approx.RFF{}, []string{"Features"}},
		{KRRInfo{}, []string{"Backend", "N", "D", "Outputs", "Rank", "Lambda", "Penalty", "Jitter", "CholAttempts", "MemoryBytes", "Kernel", "CenterForm" /* recomputed */}},
		{FalkonInfo{}, []string{"N", "D", "M", "Outputs", "Lambda", "Penalty", "Kernel", "Sampler", "CenterForm" /* recomputed */, "Preconditioner", "PrecondLambda", "PrecondPrecision" /* unsaved */, "Epsilon",
			"Shift", "JitterT", "JitterA", "Status", "Iterations", "Residual", "BestIteration", "History", "Plan", "CachedKnm", "SampleTime",
			"PrecondTime", "SolveTime", "KMMTime", "FactorTime", "RHSTime" /* unsaved */}},
		{FalkonIteration{}, []string{"Iteration", "Residual", "ValError", "Elapsed"}},
		{FalkonPlan{}, []string{"Data", "Centers", "Precond", "Engine", "Solver", "Validation", "Cache", "Factored", "Factoring", "BlockRows", "Total"}},
		{SVMTaskInfo{}, []string{"Positive", "Negative", "N", "Objective", "Bias", "SV", "BoundedSV", "Iterations", "Status", "Violation", "R"}},
		{SVMInfo{}, []string{"Tasks", "SV", "Kernel" /* recomputed */}},
		{BKAInfo{}, []string{"ClusterSizes", "Tasks", "SV", "Refined", "Kernel" /* recomputed */}},
	} {
		typ := reflect.TypeOf(c.v)
		var have []string
		for i := 0; i < typ.NumField(); i++ {
			have = append(have, typ.Field(i).Name)
		}
		for _, f := range have {
			if !slices.Contains(c.known, f) {
				t.Errorf("%s.%s is not handled by the persistence code (persist_*.go)", typ.Name(), f)
			}
		}
		for _, f := range c.known {
			if !slices.Contains(have, f) {
				t.Errorf("%s.%s no longer exists: update persist_*.go and this list", typ.Name(), f)
			}
		}
	}
}
