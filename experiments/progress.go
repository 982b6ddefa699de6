package experiments

import (
	"strconv"
	"time"
)

// EventKind says what a progress Event reports.
type EventKind int

const (
	// EventFold: a fold (or, for approximation runs, a repeat) of a grid
	// point is about to be fitted.
	EventFold EventKind = iota
	// EventIteration: the solver finished an iteration (FALKON's CG).
	EventIteration
	// EventPoint: a grid point finished (Summary holds its selection metric,
	// or Err its failure).
	EventPoint
	// EventRefit: the best point is about to be refitted on the whole
	// training set and scored on the test set.
	EventRefit
	// EventFoldDone: a fold (or repeat) of a grid point was fitted and
	// scored (a failed fit is reported by the point's EventPoint instead).
	// PointETA is the time left for the point, ETA for the run.
	EventFoldDone
	// EventPass: a pass of a fit streamed from shards finished (Pass of
	// Passes; Rows, RowsPerSec, MBPerSec, PassTime and IOWait say what it
	// read and how fast).
	EventPass
	// EventSetup: FALKON finished a step of its setup before CG (Step, the
	// StepsDone-th of Steps: model.StepCenters, StepPreconditioner,
	// StepRHS).
	EventSetup
)

// String names the kind as a log line would: "fold", "iteration",
// "point", "refit", "fold-done", "pass", "setup"; an unknown value prints as
// "EventKind(N)".
func (k EventKind) String() string {
	switch k {
	case EventFold:
		return "fold"
	case EventIteration:
		return "iteration"
	case EventPoint:
		return "point"
	case EventRefit:
		return "refit"
	case EventFoldDone:
		return "fold-done"
	case EventPass:
		return "pass"
	case EventSetup:
		return "setup"
	}
	return "EventKind(" + strconv.Itoa(int(k)) + ")"
}

// Event is one progress report of Run. Library code never prints: a caller
// that wants a log line per finished point formats Events itself.
type Event struct {
	// Kind is what happened.
	Kind EventKind
	// Point is the 0-based index of the grid point and Points their number.
	Point, Points int
	// Key names the grid point ("lambda=0.001,sigma=2").
	Key string
	// Fold and Repeat are 0-based; Folds and Repeats their numbers.
	Fold, Folds, Repeat, Repeats int
	// Iteration and Residual are set for EventIteration; MaxIter is the
	// solver's iteration budget (0 when unknown). The solver may stop
	// before it, at its tolerance.
	Iteration int
	MaxIter   int
	Residual  float64
	// Summary is the point's selection metric (EventPoint).
	Summary Summary
	// FitSeconds is the point's mean fit time (EventPoint).
	FitSeconds float64
	// Err is the point's error text when it failed (EventPoint).
	Err string
	// Elapsed is the time since Run started.
	Elapsed time.Duration
	// ETA estimates the time left. For EventFold, EventPoint and
	// EventRefit it is the grid's: the mean time of the points computed so
	// far times the points left (0 until one finished). For EventFoldDone it
	// is the run's: PointETA plus, for each point after this one, the mean
	// time of the points computed so far (before the first finished, this
	// point's mean fit time times its fits). For EventIteration it is the
	// solve's: (MaxIter − Iteration) times the mean time per iteration
	// since the first reported one (0 at the first, or without MaxIter);
	// an upper bound when the solver stops early at its tolerance.
	ETA time.Duration
	// PointETA estimates the time left for the grid point (EventFoldDone):
	// the mean time of its finished fits times its fits left.
	PointETA time.Duration
	// Pass and Passes count the passes of a streamed fit (EventPass;
	// Passes 0 when unknown); Rows is the rows the pass read, RowsPerSec
	// and MBPerSec (10⁶ bytes of shard files) its rates over PassTime, its
	// wall time, of which IOWait was spent waiting for the reader.
	Pass, Passes         int
	Rows                 int64
	RowsPerSec, MBPerSec float64
	PassTime, IOWait     time.Duration
	// Step is the setup step an EventSetup reports finished, the
	// StepsDone-th of Steps.
	Step             string
	StepsDone, Steps int
}

// emit sends e, stamped with the elapsed time and (except for EventIteration
// and EventFoldDone, whose ETA the caller sets, and EventSetup) the grid's
// ETA, to the callback.
func (r *runner) emit(e Event) {
	if r.progress == nil {
		return
	}
	e.Elapsed = time.Since(r.start)
	if e.Kind != EventIteration && e.Kind != EventFoldDone && e.Kind != EventSetup && r.computed > 0 && e.Points > 0 {
		per := r.evalTime / time.Duration(r.computed)
		left := e.Points - e.Point
		if e.Kind == EventPoint || e.Kind == EventRefit {
			left--
		}
		e.ETA = per * time.Duration(max(left, 0))
	}
	r.progress(e)
}

// pointStarted resets the per-point fit clock behind EventFoldDone's ETAs.
func (r *runner) pointStarted() {
	r.pointStart, r.pointDone = time.Now(), 0
}

// foldDone reports (as EventFoldDone) that the fit of e's fold and repeat
// finished, with the point's and the run's ETA.
func (r *runner) foldDone(e Event) {
	if r.progress == nil {
		return
	}
	r.pointDone++
	fits := max(e.Folds, 1) * max(e.Repeats, 1)
	per := time.Since(r.pointStart) / time.Duration(r.pointDone)
	e.Kind = EventFoldDone
	e.PointETA = per * time.Duration(max(fits-r.pointDone, 0))
	perPoint := per * time.Duration(fits)
	if r.computed > 0 {
		perPoint = r.evalTime / time.Duration(r.computed)
	}
	e.ETA = e.PointETA + perPoint*time.Duration(max(e.Points-e.Point-1, 0))
	r.emit(e)
}
