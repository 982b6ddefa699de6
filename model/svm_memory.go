package model

import (
	"fmt"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/landmark-ml/landmark/kernel"
)

// svmStateBytes is the memory one SVM dual solve over n rows in d
// dimensions holds besides its kernel-column cache: a copy of its rows (8nd,
// an upper bound: a task over all rows shares X), the kernel diagonal and
// squared norms (16n), labels and bounds (16n), α, the gradient, K_ii and
// the linear term (32n), the active set (8n) and the index maps of the
// solver and the cache (three int32 per row, 12n): 8nd + 84n bytes.
func svmStateBytes(n, d int) int64 {
	return 8*int64(n)*int64(d) + 84*int64(n)
}

// svmCacheBytes is the most a kernel-column cache of the given budget can
// hold for a solve over n rows: whole columns of n float64 (elem = 8) or
// float32 (elem = 4), at most n of them and at least two (solver.NewCache's
// rule).
func svmCacheBytes(n int, budget, elem int64) int64 {
	per := elem * int64(max(n, 1))
	cols := min(int64(n), max(2, budget/per))
	return cols * per
}

// svmPlan plans the peak memory of an SVM fit whose binary sub-problems have
// the given sizes, solved one after the other on n×d data: the largest
// sub-problem's state and cache, plus what the fit keeps (the support
// vectors, at most n rows, and one coefficient per row and task). With a
// limit and no explicit cache budget (explicit = false), the cache budget is
// reduced to what the limit leaves, down to the two-column minimum; the
// resolved budget is returned. elem is the bytes of a cached kernel value
// (8, or 4 for the float32 cache).
func svmPlan(n, d int, sizes []int, budget, elem int64, explicit bool, limit int64) (need, cache int64) {
	kept := 8*int64(n)*int64(d) + 16*int64(n)*int64(len(sizes))
	var state int64
	big := 0
	for _, s := range sizes {
		state = max(state, svmStateBytes(s, d))
		big = max(big, s)
	}
	cache = budget
	if limit > 0 && !explicit {
		cache = max(0, min(budget, limit-kept-state))
	}
	return kept + state + svmCacheBytes(big, cache, elem), cache
}

// checkSVMMemory plans an SVM fit and resolves its cache budget; it fails
// with ErrMemory when even the smallest cache does not fit limit. extra is
// memory the fit holds besides svmPlan's terms (the sparse column index).
func checkSVMMemory(what string, n, d int, sizes []int, cfg *svmConfig, explicit bool, limit, extra int64) error {
	elem := int64(8)
	if cfg.float32 {
		elem = 4
	}
	planLimit := limit
	if limit > 0 {
		planLimit = max(1, limit-extra)
	}
	need, cache := svmPlan(n, d, sizes, cfg.cacheBytes, elem, explicit, planLimit)
	need += extra
	if err := checkMemory(fmt.Sprintf("%s (n=%d, d=%d, cache %s)", what, n, d, formatBytes(cache)), need, limit); err != nil {
		return err
	}
	cfg.cacheBytes = max(cache, 1)
	return nil
}

// bkaSVMPlan plans the peak memory of a BKA-SVM fit on n×d data: the
// cluster problems of jobs rows each, workers at a time sharing the cache
// budget, then (with refine) the exact solve of the largest task, whose
// sizes are given; the fit keeps the support vectors twice (global and
// local decision functions) and one coefficient per row and task. With a
// limit and no explicit budget the cache is reduced to what the limit
// leaves; the resolved budget is returned.
func bkaSVMPlan(n, d int, jobs, tasks []int, workers int, refine bool, budget int64, explicit bool, limit int64) (need, cache int64) {
	kept := 16*int64(n)*int64(d) + 24*int64(n)*int64(len(tasks))
	big := slices.Clone(jobs)
	slices.Sort(big)
	big = big[max(0, len(big)-max(workers, 1)):] // the largest jobs that can run at once
	var state int64
	for _, s := range big {
		state += svmStateBytes(s, d)
	}
	var refState int64
	bigTask := 0
	if refine {
		for _, s := range tasks {
			refState = max(refState, svmStateBytes(s, d))
			bigTask = max(bigTask, s)
		}
	}
	cache = budget
	if limit > 0 && !explicit {
		cache = max(0, min(budget, limit-kept-max(state, refState)))
	}
	per := max(cache/int64(max(len(big), 1)), 1)
	var caches int64
	for _, s := range big {
		caches += svmCacheBytes(s, per, 8)
	}
	need = kept + state + caches
	if refine {
		need = max(need, kept+refState+svmCacheBytes(bigTask, cache, 8))
	}
	return need, cache
}

// svmEngineBytes is what the block engine takes in an SVM solve over dense
// x when the solver rebuilds its gradient from the support vectors
// (kernelColumns.MulVec): the two gathered row sets, at most 16·n·d bytes,
// and the engine's scratch for them, planned by kernel.Op.ScratchBytes for
// all n rows against n support vectors (their packed copy, one block of rows
// and one packed block of X per worker). Sparse x takes the sparse paths,
// planned by sparseIndexPlan and scatterPlan: 0 here.
func svmEngineBytes(k kernel.Kernel, x mat.Matrix, workers int) int64 {
	xd, ok := x.(*mat.Dense)
	if !ok {
		return 0
	}
	n, d := xd.Dims()
	if n == 0 || d == 0 {
		return 0
	}
	return 16*int64(n)*int64(d) + kernel.NewOp(k, xd, xd, kernel.Options{Workers: workers}).ScratchBytes(1)
}
