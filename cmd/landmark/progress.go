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
const progressUsage = "progress on stderr: auto (a live line on a terminal, one plain line per fold, iteration batch and finished point otherwise), always (plain lines even on a terminal), never"

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
	mu   sync.Mutex
	w    io.Writer
	live bool // overwrite iteration lines with \r
	open bool // a live line is on screen without its newline
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
		p.open = false
	}
	fmt.Fprintf(p.w, format+"\n", args...)
}

// iteration reports solver iteration it: live on a terminal, else one line
// per iterBatch iterations.
func (p *progress) iteration(prefix string, it int, residual float64, elapsed time.Duration) {
	if p.live {
		p.mu.Lock()
		fmt.Fprintf(p.w, "\r    %siteration %d, residual %.2e", prefix, it, residual)
		p.open = true
		p.mu.Unlock()
		return
	}
	if it%iterBatch == 0 {
		p.line("    %siteration %d, residual %.2e, elapsed %s", prefix, it, residual, fmtDuration(elapsed))
	}
}

// done ends a live line.
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.open {
		fmt.Fprintln(p.w)
		p.open = false
	}
}

// event formats one experiments.Event.
func (p *progress) event(e experiments.Event) {
	switch e.Kind {
	case experiments.EventFold:
		var b strings.Builder
		fmt.Fprintf(&b, "[%d/%d] %s:", e.Point+1, e.Points, e.Key)
		if e.Folds > 1 {
			fmt.Fprintf(&b, " fold %d/%d", e.Fold+1, e.Folds)
		}
		if e.Repeats > 1 {
			fmt.Fprintf(&b, " repeat %d/%d", e.Repeat+1, e.Repeats)
		}
		if e.Folds <= 1 && e.Repeats <= 1 {
			b.WriteString(" started")
		}
		p.line("%s (elapsed %s)", b.String(), fmtDuration(e.Elapsed))
	case experiments.EventIteration:
		p.iteration("", e.Iteration, e.Residual, e.Elapsed)
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
