package cmdline

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/landmark-ml/landmark/experiments"
	"github.com/landmark-ml/landmark/internal/eta"
	"github.com/landmark-ml/landmark/model"
)

// On a terminal the iteration line is rewritten in place: each rewrite is
// padded to the longest one so far so no tail of a longer line is left,
// and the next whole line starts on a fresh line.
func TestLiveIterationLine(t *testing.T) {
	var b bytes.Buffer
	p := &Progress{w: &b, live: true}
	p.Iteration("", 9, 10, 1e-3, time.Second, 1500*time.Millisecond)
	p.Iteration("", 10, 10, 1e-4, 2*time.Second, 0)
	p.Line("done")
	parts := strings.Split(b.String(), "\r")
	if len(parts) != 3 || !strings.Contains(parts[1], "iteration 9/10, residual 1.00e-03, solve ETA 1.5s") {
		t.Fatalf("live output %q", b.String())
	}
	second, rest, _ := strings.Cut(parts[2], "\n")
	if len(second) != len(parts[1]) || !strings.HasPrefix(second, "    iteration 10/10, residual 1.00e-04, solve ETA 0s ") || rest != "done\n" {
		t.Errorf("second live line %q (want padded to %d), then %q", second, len(parts[1]), rest)
	}
}

// A setup step ends a live iteration line and is a whole line of its own,
// after the prefix (Model, whose iterations say "CG iteration"), as an
// EventSetup is (Event); model reports of other stages print nothing.
func TestSetupLines(t *testing.T) {
	var b bytes.Buffer
	p := &Progress{w: &b, live: true}
	var clock eta.Iter
	p.Iteration("", 1, 10, 1e-3, time.Second, 0)
	p.Model("M = 10 uniform: ", model.Progress{Stage: model.StageSetup, Step: model.StepPreconditioner, Done: 2, Total: 3, Elapsed: 279 * time.Millisecond}, 10, &clock)
	p.Model("M = 10 uniform: ", model.Progress{Stage: model.StageIteration, Done: 2, Residual: 1e-4, Elapsed: time.Second}, 10, &clock)
	p.Model("M = 10 uniform: ", model.Progress{Stage: model.StagePass, Done: 1}, 10, &clock)
	p.Event(experiments.Event{Kind: experiments.EventSetup, Step: model.StepRHS, StepsDone: 3, Steps: 3, Elapsed: 2 * time.Second})
	want := "\r    iteration 1/10, residual 1.00e-03\n" +
		"    M = 10 uniform: setup 2/3: preconditioner built (elapsed 279ms)\n" +
		"\r    M = 10 uniform: CG iteration 2/10, residual 1.00e-04\n" +
		"    setup 3/3: K_nMᵀY formed (elapsed 2s)\n"
	if b.String() != want {
		t.Errorf("output\n%q\nwant\n%q", b.String(), want)
	}
}
