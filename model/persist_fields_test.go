package model

import (
	"reflect"
	"slices"
	"testing"
)

// The persistence code must know every field of the estimators, their
// fitted state and their Info. When a field is added to one of these types this test fails:
// save and load it in persist_*.go (with a round-trip case in
// persist_test.go) or, for code and data that cannot be saved, list it as
// unsaved here and in the package documentation ("Saved models").
func TestPersistCoversFields(t *testing.T) {
	for _, c := range []struct {
		v     any
		known []string
	}{
		{KRR{}, []string{"Kernel", "Lambda", "Task", "Approx", "Seed", "Resources", "Cholesky", "Probability" /* unsaved yet */, "Progress" /* unsaved */, "fit"}},
		{krrFit{}, []string{"task", "labels", "d", "pred", "info", "calib" /* unsaved yet: PredictProba after Load fails */}},
		{Falkon{}, []string{"Kernel", "Lambda", "M", "Sampler" /* unsaved */, "Centers" /* unsaved */, "CenterWeights" /* unsaved */, "CenterLambda", /* unsaved */
			"Preconditioner", "Epsilon", "MaxIter", "Tol", "Task", "Seed", "Resources", "BlockRows", "Float32", "CacheKnm", "Patience", "Probability", /* unsaved yet */
			"Cholesky", "Validation" /* unsaved */, "WarmStart" /* unsaved */, "Progress" /* unsaved */, "fit"}},
		{falkonFit{}, []string{"task", "labels", "d", "pred", "info", "calib" /* unsaved yet: PredictProba after Load fails */}},
		{SVM{}, []string{"Kernel", "C", "ClassWeights", "Multiclass", "NoBias", "Tol", "MaxIter", "CacheBytes", "CacheFloat32" /* unsaved */, "Resources", /* MemoryLimit unsaved */
			"NoShrinking", "Probability", "Seed", "Progress" /* unsaved */, "fit"}},
		{svmFit{}, []string{"labels", "ovo", "d", "dec", "info", "platt"}},
		{svmDecision{}, []string{"k", "sv", "w", "bias", "empty", "workers", "rows" /* as positions of BKA-SVM local SVs among the global ones */}},
		{BKASVM{}, []string{"Kernel", "C", "ClassWeights", "Multiclass", "Clusters", "Sketch", "KMeansSubsample", "Prediction",
			"Refine", "Tol", "MaxIter", "CacheBytes", "Resources" /* MemoryLimit unsaved */, "NoShrinking", "Probability" /* unsaved yet */, "Seed", "Progress" /* unsaved */, "Solver" /* unsaved */, "fit"}},
		{bkaFit{}, []string{"labels", "ovo", "d", "part", "global", "local", "ntasks", "info", "platt", "plattLocal" /* unsaved yet: PredictProba after Load fails */}},
		{KernelExpansion{}, []string{"Kernel", "Centers", "Coef", "Workers"}},
		{LinearFeatures{}, []string{"Map", "Weights"}},
		{MEKAExpansion{}, []string{"MEKA", "Beta", "Solution"}},
		{MEKAKRR{}, []string{"Rank", "Clusters", "Landmarks", "Rho", "Epsilon", "Strategy", "SkipPSD", "Solver", "CG", "BasisSolver" /* unsaved */}},
		{KRRInfo{}, []string{"Backend", "N", "D", "Outputs", "Rank", "Lambda", "Penalty", "Jitter", "CholAttempts", "MemoryBytes", "Kernel", "CenterForm" /* recomputed */}},
		{FalkonInfo{}, []string{"N", "D", "M", "Outputs", "Lambda", "Penalty", "Kernel", "Sampler", "CenterForm" /* recomputed */, "Preconditioner", "PrecondLambda" /* unsaved */, "Epsilon",
			"Shift", "JitterT", "JitterA", "Status", "Iterations", "Residual", "BestIteration", "History", "Plan", "CachedKnm", "SampleTime",
			"PrecondTime", "SolveTime"}},
		{FalkonIteration{}, []string{"Iteration", "Residual", "ValError", "Elapsed"}},
		{FalkonPlan{}, []string{"Data", "Centers", "Precond", "Engine", "Solver", "Validation", "Cache", "BlockRows", "Total"}},
		{SVMTaskInfo{}, []string{"Positive", "Negative", "N", "Objective", "Bias", "SV", "BoundedSV", "Iterations", "Status", "Violation"}},
		{SVMInfo{}, []string{"Tasks", "SV"}},
		{BKAInfo{}, []string{"ClusterSizes", "Tasks", "SV", "Refined"}},
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
