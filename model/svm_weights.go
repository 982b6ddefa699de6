package model

import (
	"fmt"
	"slices"
)

// The SVMs' per-row bounds: C times the class weight and the sample
// weight, and the rows of weight 0 left out of every sub-problem.

// bounds returns the per-sample upper bounds of a task: C times the class
// weight times the sample weight; for ν-SVC, which has no C, the class
// weight times the sample weight (1 without weights, as in LIBSVM's
// solve_nu_svc; scikit-learn's NuSVC takes the sample weight alone and
// ignores class_weight, its issue 30332).
func (cfg svmConfig) bounds(labels Labels, cls []int, t svmTask, sample []float64) []float64 {
	b := make([]float64, len(t.rows))
	c := cfg.c
	if cfg.nu > 0 {
		c = 1
	}
	for r, i := range t.rows {
		w, ok := cfg.weights[labels.Classes[cls[i]]]
		if !ok {
			w = 1
		}
		b[r] = c * w
		if sample != nil {
			b[r] *= sample[i]
		}
	}
	return b
}

// weightedTasks drops the rows of sample weight 0 from every task (nil w
// keeps them all) and refuses a task left without a row of either class.
func weightedTasks(tasks []svmTask, labels Labels, w []float64) ([]svmTask, error) {
	if w == nil {
		return tasks, nil
	}
	for ti, t := range tasks {
		kept := svmTask{pos: t.pos, neg: t.neg}
		pos, neg := false, false
		for r, i := range t.rows {
			if w[i] > 0 {
				kept.rows = append(kept.rows, i)
				kept.y = append(kept.y, t.y[r])
				pos = pos || t.y[r] > 0
				neg = neg || t.y[r] < 0
			}
		}
		if !pos || !neg {
			var what string
			switch {
			case !pos:
				what = fmt.Sprintf("class %g", labels.Classes[t.pos])
			case t.neg < 0: // one-vs-rest: the rest
				what = fmt.Sprintf("the classes other than %g", labels.Classes[t.pos])
			default:
				what = fmt.Sprintf("class %g", labels.Classes[t.neg])
			}
			return nil, fmt.Errorf("%w: every row of %s has sample weight 0", ErrInput, what)
		}
		tasks[ti] = kept
	}
	return tasks, nil
}

func (cfg svmConfig) checkWeights(labels Labels) error {
	keys := make([]float64, 0, len(cfg.weights))
	for l := range cfg.weights {
		keys = append(keys, l)
	}
	slices.Sort(keys) // deterministic error message
	for _, l := range keys {
		if _, ok := slices.BinarySearch(labels.Classes, l); !ok {
			return fmt.Errorf("%w: class weight for label %g, which is not in y", ErrInput, l)
		}
	}
	return nil
}
