// Package parallel holds the worker loops shared by Landmark's compute packages.
//
// Every loop hands out a fixed list of tasks; callers that reduce results must
// do so in task order, never in completion order, so that results do not
// depend on the number of workers.
package parallel

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
)

// Workers resolves a worker count: w itself when positive, GOMAXPROCS otherwise.
func Workers(w int) int {
	if w > 0 {
		return w
	}
	return runtime.GOMAXPROCS(0)
}

// For runs f(worker, i) for every i in [0, n) on at most workers goroutines
// (0 means GOMAXPROCS). worker is in [0, workers) and lets f use per-worker
// scratch space. Tasks are taken in increasing order. The context is checked
// before each task; on cancellation the remaining tasks are skipped and the
// context's error is returned, also when it is cancelled during the last task
// (whose work f may have cut short).
func For(ctx context.Context, n, workers int, f func(worker, i int)) error {
	if n <= 0 {
		return ctx.Err()
	}
	w := Workers(workers)
	if w > n {
		w = n
	}
	if w == 1 {
		for i := 0; i < n; i++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			f(0, i)
		}
		// As below: a cancellation during the last call may have cut its
		// work short.
		return ctx.Err()
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	wg.Add(w)
	for k := 0; k < w; k++ {
		go func(worker int) {
			defer wg.Done()
			for {
				if ctx.Err() != nil {
					return
				}
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(worker, i)
			}
		}(k)
	}
	wg.Wait()
	return ctx.Err()
}

// ForErr is For with tasks that can fail: it returns the context's error
// when cancelled, otherwise the error of the lowest-numbered failing task
// (so the error reported does not depend on the number of workers), or nil.
// Every task runs even after one fails.
func ForErr(ctx context.Context, n, workers int, f func(worker, i int) error) error {
	errs := make([]error, max(n, 0))
	if err := For(ctx, n, workers, func(worker, i int) { errs[i] = f(worker, i) }); err != nil {
		return err
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
