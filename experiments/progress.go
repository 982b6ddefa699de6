package experiments

import "time"

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
)

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
	// Iteration and Residual are set for EventIteration.
	Iteration int
	Residual  float64
	// Summary is the point's selection metric (EventPoint).
	Summary Summary
	// FitSeconds is the point's mean fit time (EventPoint).
	FitSeconds float64
	// Err is the point's error text when it failed (EventPoint).
	Err string
	// Elapsed is the time since Run started.
	Elapsed time.Duration
	// ETA estimates the time left for the grid: the mean time of the
	// points computed so far times the points left (0 until one finished).
	ETA time.Duration
}

// emit sends e, stamped with the elapsed time and the ETA, to the callback.
func (r *runner) emit(e Event) {
	if r.progress == nil {
		return
	}
	e.Elapsed = time.Since(r.start)
	if r.computed > 0 && e.Points > 0 {
		per := r.evalTime / time.Duration(r.computed)
		left := e.Points - e.Point
		if e.Kind == EventPoint || e.Kind == EventRefit {
			left--
		}
		e.ETA = per * time.Duration(max(left, 0))
	}
	r.progress(e)
}
