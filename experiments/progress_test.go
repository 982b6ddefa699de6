package experiments

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/model"
)

// TestProgressEvents: a 2-point × 3-fold FALKON grid reports each fold when
// it finishes (EventFoldDone, in order, after its EventFold and before the
// point's EventPoint) with the point's ETA reaching 0 at its last fold, and
// each CG iteration with the budget max_iter and an ETA that is 0 at the
// first iteration and at the last; each fit's three setup steps come in
// order before its first iteration.
func TestProgressEvents(t *testing.T) {
	dir := writeSine(t, 150)
	spec := strings.NewReplacer("  warm_start: true\n", "", "gamma: 1}", "}", "  lambda: [1.0e-2, 1.0e-4, 1.0e-6]", "  lambda: [1.0e-6]", "max_iter: 3", "max_iter: 4").Replace(warmSpec)
	var evs []Event
	_, err := Run(context.Background(), decodeIn(t, spec, dir), Options{Out: filepath.Join(t.TempDir(), "out"), NoPlots: true,
		Progress: func(e Event) { evs = append(evs, e) }})
	if err != nil {
		t.Fatal(err)
	}
	var done, points, iters, setups int
	started := -1 // fold of the last EventFold
	steps := []string{model.StepCenters, model.StepPreconditioner, model.StepRHS}
	for i, e := range evs {
		switch e.Kind {
		case EventFold:
			started = e.Fold
		case EventFoldDone:
			if e.Fold != started || e.Folds != 3 || e.Point != done/3 || e.Fold != done%3 {
				t.Errorf("event %d: fold done %d/%d of point %d after fold %d started (%d done before)", i, e.Fold, e.Folds, e.Point, started, done)
			}
			if (e.PointETA == 0) != (e.Fold == 2) || e.ETA < e.PointETA || (e.Point == 0) != (e.ETA > e.PointETA) {
				t.Errorf("event %d: point %d fold %d: point ETA %v, run ETA %v", i, e.Point, e.Fold, e.PointETA, e.ETA)
			}
			done++
		case EventPoint:
			if done != 3*(points+1) {
				t.Errorf("point %d finished after %d folds", e.Point, done)
			}
			points++
		case EventSetup:
			if step := setups % 3; e.Step != steps[step] || e.StepsDone != step+1 || e.Steps != 3 || iters != 4*(setups/3) {
				t.Errorf("event %d: setup %q %d/%d after %d iterations (%d steps before)", i, e.Step, e.StepsDone, e.Steps, iters, setups)
			}
			setups++
		case EventIteration:
			if iters%4 == 0 && setups != 3*(iters/4+1) {
				t.Errorf("event %d: a fit's first iteration after %d setup steps", i, setups)
			}
			if e.MaxIter != 4 || e.Iteration < 1 || e.Iteration > 4 {
				t.Errorf("event %d: iteration %d of %d", i, e.Iteration, e.MaxIter)
			}
			if (e.ETA == 0) != (e.Iteration == 1 || e.Iteration == 4) {
				t.Errorf("event %d: iteration %d/4 ETA %v", i, e.Iteration, e.ETA)
			}
			iters++
		}
	}
	// 2 points × 3 folds, and the refit: 4 iterations each (tol 1e-8 is
	// not reached in 4 iterations at λ = 1e-6).
	if done != 6 || points != 2 || iters != 7*4 || setups != 7*3 {
		t.Errorf("%d folds done, %d points, %d iterations, %d setup steps; want 6, 2, 28, 21", done, points, iters, setups)
	}
}

// TestEventKindString: every kind has its own lower-case name, and a value
// outside the list still prints something that says what it is.
func TestEventKindString(t *testing.T) {
	want := map[EventKind]string{EventFold: "fold", EventIteration: "iteration", EventPoint: "point", EventRefit: "refit", EventFoldDone: "fold-done", EventPass: "pass", EventSetup: "setup", EventKind(99): "EventKind(99)"}
	for k, w := range want {
		if got := k.String(); got != w {
			t.Errorf("EventKind(%d).String() = %q, want %q", int(k), got, w)
		}
	}
	if got := fmt.Sprint(EventRefit); got != "refit" {
		t.Errorf("fmt.Sprint(EventRefit) = %q, want refit (Stringer)", got)
	}
}
