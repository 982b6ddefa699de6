package parallel

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
)

func TestForVisitsEachIndexOnce(t *testing.T) {
	for _, w := range []int{1, 2, 8} {
		counts := make([]int32, 1000)
		if err := For(context.Background(), len(counts), w, func(worker, i int) {
			if worker < 0 || worker >= w {
				t.Errorf("worker %d out of range for %d workers", worker, w)
			}
			atomic.AddInt32(&counts[i], 1)
		}); err != nil {
			t.Fatal(err)
		}
		for i, c := range counts {
			if c != 1 {
				t.Fatalf("workers=%d: index %d visited %d times", w, i, c)
			}
		}
	}
}

func TestForCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var done atomic.Int32
	err := For(ctx, 1000, 2, func(_, i int) {
		if i == 10 {
			cancel()
		}
		done.Add(1)
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if done.Load() >= 1000 {
		t.Fatalf("all tasks ran despite cancellation")
	}
}

// TestForCancelDuringLastTask: a cancellation during the last task is
// reported with one worker as with several (the task may have stopped early).
func TestForCancelDuringLastTask(t *testing.T) {
	for _, w := range []int{1, 2} {
		ctx, cancel := context.WithCancel(context.Background())
		err := For(ctx, 3, w, func(_, i int) {
			if i == 2 {
				cancel()
			}
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%d workers: err = %v, want context.Canceled", w, err)
		}
	}
}

// TestForErr: with tasks 7 and 3 of 20 failing, the error of task 3 comes
// back whatever the worker count (1, 2, 8), after every task has run; a
// cancelled context wins over task errors; no failure gives nil.
func TestForErr(t *testing.T) {
	for _, w := range []int{1, 2, 8} {
		var ran atomic.Int64
		err := ForErr(context.Background(), 20, w, func(_, i int) error {
			ran.Add(1)
			if i == 7 || i == 3 {
				return fmt.Errorf("task %d", i)
			}
			return nil
		})
		if err == nil || err.Error() != "task 3" || ran.Load() != 20 {
			t.Errorf("%d workers: err %v after %d tasks, want task 3 after 20", w, err, ran.Load())
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := ForErr(ctx, 5, 2, func(_, i int) error { return errors.New("task") }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
	if err := ForErr(context.Background(), 5, 2, func(_, i int) error { return nil }); err != nil {
		t.Errorf("no failure: %v", err)
	}
}
