package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/landmark-ml/landmark/experiments"
)

// progressUsage documents the --progress flag every long command takes.
const progressUsage = "progress on stderr: auto (a live line on a terminal; otherwise one plain line per finished unit of work — fold, grid point, benchmark fit or size, shard, batch of rows, 10 CG iterations — with the elapsed time and, where the total is known, an ETA), always (plain lines even on a terminal), never"

// iterBatch is how many solver iterations one plain progress line covers.
const iterBatch = 10

// progressFlag is the value of --progress.
type progressFlag string

func (p *progressFlag) String() string { return string(*p) }

func (p *progressFlag) Set(s string) error {
	switch s {
	case "auto", "always", "never":
		*p = progressFlag(s)
		return nil
	}
	return fmt.Errorf("want auto, always or never%s", experiments.DidYouMean(s, []string{"auto", "always", "never"}))
}

// addProgress registers --progress (default auto) on fs.
func addProgress(fs *flag.FlagSet) *progressFlag {
	p := progressFlag("auto")
	fs.Var(&p, "progress", progressUsage)
	return &p
}

// progress writes progress lines to stderr: on a terminal (mode auto) the
// solver's iterations overwrite one live line; otherwise every line is a
// whole line, so a log shows where a run is.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	live  bool // overwrite iteration lines with \r
	open  bool // a live line is on screen without its newline
	width int  // the longest live line so far, to pad shorter ones
}

// newProgress returns the progress writer for mode, or nil for never (or
// when quiet is set).
func newProgress(mode progressFlag, quiet bool, stderr io.Writer) *progress {
	if mode == "never" || quiet {
		return nil
	}
	return &progress{w: stderr, live: mode != "always" && isTerminal(stderr)}
}

// line prints one whole line, ending a live line first.
func (p *progress) line(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.open {
		fmt.Fprintln(p.w)
		p.open, p.width = false, 0
	}
	fmt.Fprintf(p.w, format+"\n", args...)
}

// iteration reports solver iteration it of maxIter (0: unknown) with
// elapsed the time so far and eta the solve's time left (0: unknown): live
// on a terminal, else one line per iterBatch iterations.
func (p *progress) iteration(prefix string, it, maxIter int, residual float64, elapsed, eta time.Duration) {
	of := ""
	if maxIter > 0 {
		of = fmt.Sprintf("/%d", maxIter)
	}
	left := ""
	if eta > 0 || (maxIter > 0 && it >= maxIter) {
		left = ", solve ETA " + fmtDuration(eta)
	}
	if p.live {
		p.mu.Lock()
		s := fmt.Sprintf("    %siteration %d%s, residual %.2e%s", prefix, it, of, residual, left)
		// Pad over the end of a longer previous line.
		fmt.Fprintf(p.w, "\r%-*s", p.width, s)
		p.width = max(p.width, len(s))
		p.open = true
		p.mu.Unlock()
		return
	}
	if it%iterBatch == 0 {
		p.line("    %siteration %d%s, residual %.2e, elapsed %s%s", prefix, it, of, residual, fmtDuration(elapsed), left)
	}
}

// done ends a live line.
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.open {
		fmt.Fprintln(p.w)
		p.open, p.width = false, 0
	}
}

// event formats one experiments.Event: a line when a point with a single
// fit starts, when a fold (or repeat) of a point with several finishes, per
// CG iteration batch and when a point finishes.
func (p *progress) event(e experiments.Event) {
	single := e.Folds <= 1 && e.Repeats <= 1
	switch e.Kind {
	case experiments.EventFold:
		// A point fitted once has no fold to finish before the point does:
		// say it started.
		if single {
			p.line("[%d/%d] %s: started (elapsed %s)", e.Point+1, e.Points, e.Key, fmtDuration(e.Elapsed))
		}
	case experiments.EventFoldDone:
		if single {
			return // the point's own line follows
		}
		var b strings.Builder
		fmt.Fprintf(&b, "[%d/%d] %s:", e.Point+1, e.Points, e.Key)
		if e.Folds > 1 {
			fmt.Fprintf(&b, " fold %d/%d", e.Fold+1, e.Folds)
		}
		if e.Repeats > 1 {
			fmt.Fprintf(&b, " repeat %d/%d", e.Repeat+1, e.Repeats)
		}
		p.line("%s done (elapsed %s, point ETA %s, ETA %s)", b.String(), fmtDuration(e.Elapsed), fmtDuration(e.PointETA), fmtDuration(e.ETA))
	case experiments.EventIteration:
		p.iteration("", e.Iteration, e.MaxIter, e.Residual, e.Elapsed, e.ETA)
	case experiments.EventPoint:
		eta := "ETA " + fmtDuration(e.ETA)
		if e.Point+1 == e.Points {
			eta = "grid done"
		}
		if e.Err != "" {
			p.line("[%d/%d] %s: failed: %s (elapsed %s, %s)", e.Point+1, e.Points, e.Key, e.Err, fmtDuration(e.Elapsed), eta)
			return
		}
		p.line("[%d/%d] %s: %s %.6g ± %.3g (fit %.3gs; elapsed %s, %s)", e.Point+1, e.Points, e.Key, e.Summary.Name, e.Summary.Mean, e.Summary.Std, e.FitSeconds, fmtDuration(e.Elapsed), eta)
	case experiments.EventRefit:
		p.line("refit %s on the whole training set and score the test set (elapsed %s)", e.Key, fmtDuration(e.Elapsed))
	}
}

// workClock estimates the time left of a job of known total work (units,
// rows, M³ flops) from its rate so far.
type workClock struct {
	start       time.Time
	total, done float64
}

// newWorkClock starts the clock of a job of total work.
func newWorkClock(total float64) *workClock {
	return &workClock{start: time.Now(), total: total}
}

// add records w more work finished and returns the elapsed time and the
// time left at the rate so far.
func (c *workClock) add(w float64) (elapsed, eta time.Duration) {
	c.done += w
	elapsed = time.Since(c.start)
	if c.done > 0 && c.total > c.done {
		eta = time.Duration(float64(elapsed) * (c.total - c.done) / c.done)
	}
	return elapsed, eta
}

// benchUnits prints one plain line per finished unit of a benchmark (a
// fit, a size): "PREFIX: [done/units] NAME: done in T (elapsed E, ETA R)",
// or "failed", with the ETA from its work clock. A nil pg prints nothing.
type benchUnits struct {
	pg          *progress
	prefix      string
	clock       *workClock
	done, units int
}

// newBenchUnits starts the count of units units holding total work.
func newBenchUnits(pg *progress, prefix string, units int, total float64) *benchUnits {
	return &benchUnits{pg: pg, prefix: prefix, clock: newWorkClock(total), units: units}
}

// finished records a unit of work w, started at t0, that ended with err.
func (u *benchUnits) finished(name string, w float64, t0 time.Time, err error) {
	u.done++
	elapsed, eta := u.clock.add(w)
	if u.pg == nil {
		return
	}
	what := "done in " + fmtDuration(time.Since(t0))
	if err != nil {
		what = "failed"
	}
	u.pg.line("%s: [%d/%d] %s: %s (elapsed %s, ETA %s)", u.prefix, u.done, u.units, name, what, fmtDuration(elapsed), fmtDuration(eta))
}

// fmtDuration prints d rounded to what a reader of a log needs.
func fmtDuration(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Hour:
		return d.Round(time.Second).String()
	}
	return d.Round(time.Minute).String()
}
