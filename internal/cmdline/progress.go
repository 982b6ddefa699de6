package cmdline

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/landmark-ml/landmark/experiments"
	"github.com/landmark-ml/landmark/internal/eta"
	"github.com/landmark-ml/landmark/model"
)

// ProgressUsage documents the --progress flag every long command takes.
const ProgressUsage = "progress on stderr: auto (a live line on a terminal; otherwise one plain line per finished unit of work — fold, grid point, benchmark fit or size, shard, batch of rows, 10 CG iterations — with the elapsed time and, where the total is known, an ETA), always (plain lines even on a terminal), never"

// IterBatch is how many solver iterations one plain progress line covers.
const IterBatch = 10

// Mode is the value of --progress.
type Mode string

// String returns the mode.
func (p *Mode) String() string { return string(*p) }

// Set accepts auto, always or never.
func (p *Mode) Set(s string) error {
	switch s {
	case "auto", "always", "never":
		*p = Mode(s)
		return nil
	}
	return fmt.Errorf("want auto, always or never%s", experiments.DidYouMean(s, []string{"auto", "always", "never"}))
}

// AddProgress registers --progress (default auto) on fs.
func AddProgress(fs *flag.FlagSet) *Mode {
	p := Mode("auto")
	fs.Var(&p, "progress", ProgressUsage)
	return &p
}

// Progress writes progress lines to stderr: on a terminal (mode auto) the
// solver's iterations overwrite one live line; otherwise every line is a
// whole line, so a log shows where a run is.
type Progress struct {
	mu    sync.Mutex
	w     io.Writer
	live  bool // overwrite iteration lines with \r
	open  bool // a live line is on screen without its newline
	width int  // the longest live line so far, to pad shorter ones
}

// NewProgress returns the progress writer for mode, or nil for never (or
// when quiet is set).
func NewProgress(mode Mode, quiet bool, stderr io.Writer) *Progress {
	if mode == "never" || quiet {
		return nil
	}
	return &Progress{w: stderr, live: mode != "always" && IsTerminal(stderr)}
}

// Line prints one whole line, ending a live line first.
func (p *Progress) Line(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.open {
		fmt.Fprintln(p.w)
		p.open, p.width = false, 0
	}
	fmt.Fprintf(p.w, format+"\n", args...)
}

// Iteration reports solver iteration it of maxIter (0: unknown) with
// elapsed the time so far and eta the solve's time left (0: unknown): live
// on a terminal, else one line per IterBatch iterations.
func (p *Progress) Iteration(prefix string, it, maxIter int, residual float64, elapsed, eta time.Duration) {
	of := ""
	if maxIter > 0 {
		of = fmt.Sprintf("/%d", maxIter)
	}
	left := ""
	if eta > 0 || (maxIter > 0 && it >= maxIter) {
		left = ", solve ETA " + Duration(eta)
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
	if it%IterBatch == 0 {
		p.Line("    %siteration %d%s, residual %.2e, elapsed %s%s", prefix, it, of, residual, Duration(elapsed), left)
	}
}

// setupWords say what each step of FALKON's setup did.
var setupWords = map[string]string{
	model.StepCenters:        "centers drawn",
	model.StepPreconditioner: "preconditioner built",
	model.StepRHS:            "K_nMᵀY formed",
}

// Setup reports that step, the done-th of total of FALKON's setup,
// finished, elapsed into the fit (or run): one line, live or not, since
// each may take seconds at a large M.
func (p *Progress) Setup(prefix, step string, done, total int, elapsed time.Duration) {
	what, ok := setupWords[step]
	if !ok {
		what = step
	}
	p.Line("    %ssetup %d/%d: %s (elapsed %s)", prefix, done, total, what, Duration(elapsed))
}

// Model reports a Falkon fit's model.Progress after prefix: CG iterations
// of maxIter ("CG iteration …", with the solve's ETA from clock) and setup
// steps ("setup …"); other stages are not printed.
func (p *Progress) Model(prefix string, pr model.Progress, maxIter int, clock *eta.Iter) {
	switch pr.Stage {
	case model.StageIteration:
		p.Iteration(prefix+"CG ", pr.Done, maxIter, pr.Residual, pr.Elapsed, clock.Left(pr.Done, maxIter))
	case model.StageSetup:
		p.Setup(prefix, pr.Step, pr.Done, pr.Total, pr.Elapsed)
	}
}

// Done ends a live line.
func (p *Progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.open {
		fmt.Fprintln(p.w)
		p.open, p.width = false, 0
	}
}

// Event formats one experiments.Event: a line when a point with a single
// fit starts, when a fold (or repeat) of a point with several finishes, per
// CG iteration batch and when a point finishes.
func (p *Progress) Event(e experiments.Event) {
	single := e.Folds <= 1 && e.Repeats <= 1
	switch e.Kind {
	case experiments.EventFold:
		// A point fitted once has no fold to finish before the point does:
		// say it started.
		if single {
			p.Line("[%d/%d] %s: started (elapsed %s)", e.Point+1, e.Points, e.Key, Duration(e.Elapsed))
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
		p.Line("%s done (elapsed %s, point ETA %s, ETA %s)", b.String(), Duration(e.Elapsed), Duration(e.PointETA), Duration(e.ETA))
	case experiments.EventIteration:
		p.Iteration("", e.Iteration, e.MaxIter, e.Residual, e.Elapsed, e.ETA)
	case experiments.EventSetup:
		p.Setup("", e.Step, e.StepsDone, e.Steps, e.Elapsed)
	case experiments.EventPoint:
		eta := "ETA " + Duration(e.ETA)
		if e.Point+1 == e.Points {
			eta = "grid done"
		}
		if e.Err != "" {
			p.Line("[%d/%d] %s: failed: %s (elapsed %s, %s)", e.Point+1, e.Points, e.Key, e.Err, Duration(e.Elapsed), eta)
			return
		}
		p.Line("[%d/%d] %s: %s %.6g ± %.3g (fit %.3gs; elapsed %s, %s)", e.Point+1, e.Points, e.Key, e.Summary.Name, e.Summary.Mean, e.Summary.Std, e.FitSeconds, Duration(e.Elapsed), eta)
	case experiments.EventPass:
		of := ""
		if e.Passes > 0 {
			of = fmt.Sprintf("/%d", e.Passes)
		}
		p.Line("    pass %d%s: %d rows in %s, %.3g rows/s, %.0f MB/s (waited %s for reads; elapsed %s)", e.Pass, of, e.Rows,
			Duration(e.PassTime), e.RowsPerSec, e.MBPerSec, Duration(e.IOWait), Duration(e.Elapsed))
	case experiments.EventRefit:
		p.Line("refit %s on the whole training set and score the test set (elapsed %s)", e.Key, Duration(e.Elapsed))
	}
}

// Clock estimates the time left of a job of known total work (units,
// rows, M³ flops) from its rate so far.
type Clock struct {
	start       time.Time
	total, done float64
}

// NewClock starts the clock of a job of total work.
func NewClock(total float64) *Clock {
	return &Clock{start: time.Now(), total: total}
}

// Elapsed is the time since the clock started.
func (c *Clock) Elapsed() time.Duration { return time.Since(c.start) }

// Add records w more work finished and returns the elapsed time and the
// time left at the rate so far.
func (c *Clock) Add(w float64) (elapsed, eta time.Duration) {
	c.done += w
	elapsed = time.Since(c.start)
	if c.done > 0 && c.total > c.done {
		eta = time.Duration(float64(elapsed) * (c.total - c.done) / c.done)
	}
	return elapsed, eta
}

// Units prints one plain line per finished unit of a benchmark (a
// fit, a size): "PREFIX: [done/units] NAME: done in T (elapsed E, ETA R)",
// or "failed", with the ETA from its work clock. A nil pg prints nothing.
type Units struct {
	pg          *Progress
	prefix      string
	clock       *Clock
	done, units int
}

// NewUnits starts the count of units units holding total work.
func NewUnits(pg *Progress, prefix string, units int, total float64) *Units {
	return &Units{pg: pg, prefix: prefix, clock: NewClock(total), units: units}
}

// Finished records a unit of work w, started at t0, that ended with err.
func (u *Units) Finished(name string, w float64, t0 time.Time, err error) {
	u.done++
	elapsed, eta := u.clock.Add(w)
	if u.pg == nil {
		return
	}
	what := "done in " + Duration(time.Since(t0))
	if err != nil {
		what = "failed"
	}
	u.pg.Line("%s: [%d/%d] %s: %s (elapsed %s, ETA %s)", u.prefix, u.done, u.units, name, what, Duration(elapsed), Duration(eta))
}

// Duration prints d rounded to what a reader of a log needs.
func Duration(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Hour:
		return d.Round(time.Second).String()
	}
	return d.Round(time.Minute).String()
}
