package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/landmark-ml/landmark/experiments"
	"github.com/landmark-ml/landmark/internal/cmdline"
)

// parseInterleaved parses flags that may come before or after positional
// arguments ("run SPEC.yaml --out DIR") and returns the positional ones.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := cmdline.Parse(fs, args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

func runRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	for _, a := range args {
		if a == "--runner" || a == "-runner" || strings.HasPrefix(a, "--runner=") || strings.HasPrefix(a, "-runner=") {
			return runOnBeam(ctx, args, stdout, stderr)
		}
	}
	fs := cmdline.NewFlags("run", "SPEC.yaml [--out DIR] [--fresh] [--quiet] [--json] [--smoke] | --list | SPEC.yaml --runner prism|flink|spark|dataflow [Beam flags]", stderr)
	out := fs.String("out", "", "output folder (default: the spec's output, else results/NAME)")
	fresh := fs.Bool("fresh", false, "discard results already in the output folder instead of resuming")
	quiet := fs.Bool("quiet", false, "no progress on stderr (same as --progress never)")
	prog := cmdline.AddProgress(fs)
	asJSON := fs.Bool("json", false, "print the result as JSON on stdout")
	smoke := fs.Bool("smoke", false, "shrink the experiment for a quick end-to-end check (≤400 rows, 2 folds, ≤2 grid points)")
	list := fs.Bool("list", false, "list estimators, approximations, kernels and metrics")
	dense := fs.Bool("dense", false, denseUsage)
	var mem memoryFlag
	fs.Var(&mem, "memory", memoryUsage)
	var csv readFlags
	csv.registerCSV(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if *list {
		cmdline.PrintList(stdout)
		return nil
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: want one SPEC.yaml, got %d arguments", errUsage, len(pos))
	}
	if err := dataArg("run", pos[0]); err != nil {
		return err
	}
	spec, err := experiments.DecodeFile(pos[0])
	if err != nil {
		if e := specArg("run", pos[0]); e != nil {
			return e
		}
		return err
	}
	if err := applyMemory(spec, mem); err != nil {
		return err
	}
	defer goLimit(spec)()
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if err := applyCSV(spec, csv, given, stderr); err != nil {
		return err
	}
	if *dense {
		spec.Dataset.Storage = experiments.StorageDense
	}
	if *smoke {
		spec = spec.Smoke()
	}
	opt := experiments.Options{Out: *out, Fresh: *fresh, Version: version, Notify: noteTo(stderr)}
	if p := cmdline.NewProgress(*prog, *quiet, stderr); p != nil {
		opt.Progress = p.Event
		defer p.Done()
	}
	if *smoke && opt.Out == "" {
		// Smoke results go beside, never into, the full run's folder.
		dir := spec.Output
		if dir == "" {
			dir = "results/" + spec.Name
		} else {
			dir += "-smoke"
		}
		opt.Out = dir
	}
	res, err := experiments.Run(ctx, spec, opt)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("interrupted; finished grid points are kept, rerun the same command to resume%w", silent{err})
		}
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	printResult(stdout, res)
	printPaper(stdout, res)
	return nil
}

// silent wraps an error for errors.Is and errors.As without adding its
// text: "…%w" with silent{err} keeps a message as it was.
type silent struct{ err error }

func (q silent) Error() string { return "" }
func (q silent) Unwrap() error { return q.err }

// applyCSV sets the spec's dataset target, delim, header, drop and
// zero_based from the command line's --target, --delim, --header, --drop
// and --zero-based
// (those given), saying on stderr which values of the spec they override,
// and checks the result as a spec.
func applyCSV(spec *experiments.Spec, f readFlags, given map[string]bool, stderr io.Writer) error {
	d := &spec.Dataset
	for _, o := range []struct {
		flag, val string
		dst       *string
	}{{"target", f.target, &d.Target}, {"delim", f.delim, &d.Delim}, {"header", f.header, &d.Header}} {
		if !given[o.flag] || o.val == *o.dst {
			continue
		}
		if *o.dst != "" {
			fmt.Fprintf(stderr, "landmark: --%s %s overrides the spec's dataset %s: %s\n", o.flag, o.val, o.flag, *o.dst)
		}
		*o.dst = o.val
	}
	if drop := splitDrop(f.drop); given["drop"] && !slices.Equal(drop, d.Drop) {
		if d.Drop != nil {
			fmt.Fprintf(stderr, "landmark: --drop %s overrides the spec's dataset drop: %s\n", f.drop, strings.Join(d.Drop, ","))
		}
		d.Drop = drop
	}
	if given["zero-based"] && f.zeroBased != d.ZeroBased {
		fmt.Fprintf(stderr, "landmark: --zero-based=%t overrides the spec's dataset zero_based: %t\n", f.zeroBased, d.ZeroBased)
		d.ZeroBased = f.zeroBased
	}
	return spec.Validate()
}

// printPaper prints the spec's paper figures and claims beside the run's.
func printPaper(w io.Writer, r *experiments.Result) {
	lines := r.Paper()
	if lines == nil {
		return
	}
	fmt.Fprintf(w, "beside the paper (%s):\n", r.Spec.Paper.Source)
	for _, l := range lines {
		fmt.Fprintf(w, "  %s: paper %s, this run %s\n", l.What, l.Paper, l.Ours)
	}
	if r.Spec.Paper.Note != "" {
		fmt.Fprintf(w, "  (%s)\n", r.Spec.Paper.Note)
	}
}

// printResult prints the best point, its scores and where the outputs are.
func printResult(w io.Writer, r *experiments.Result) {
	if r.Spec.Approximation != nil {
		printApprox(w, r)
		return
	}
	b := r.Points[r.Best]
	s, _ := b.Metric(r.Metric)
	key := b.Key
	if key == "" {
		key = "(no grid)"
	}
	fmt.Fprintf(w, "%s: %d grid points (%d computed, %d resumed), %d training rows × %d features\n", r.Spec.Name, len(r.Points), r.Computed, r.Resumed, r.NTrain, r.Dim)
	if r.TaskRule != "" {
		fmt.Fprintf(w, "task: %s (inferred from the labels: %s)\n", r.Task, r.TaskRule)
	}
	fmt.Fprintln(w, storageLine(r.Storage, r.Density, r.StorageReason, ""))
	if r.Scaling != "" {
		fmt.Fprintf(w, "scaling: %s\n", r.Scaling)
	}
	if r.BeyondRows > 0 {
		fmt.Fprintln(w, "test data: "+experiments.BeyondLine(r.BeyondRows, r.BeyondCols, r.Dim))
	}
	cv := fmt.Sprintf("%.6g ± %.3g", s.Mean, s.Std)
	if r.Metric == "auc" && math.IsNaN(s.Mean) {
		// No ROC curve on a test fold of one class (warned above).
		cv = "undefined (a test fold holds one class)"
	}
	fmt.Fprintf(w, "best %s: CV %s %s over %d fits, fit %.3g s\n", key, r.Metric, cv, b.Fits, b.FitSeconds)
	if rule := r.Spec.Estimator.GammaRule; rule != "" {
		// Each fit resolved its own γ; the folds' mean, and the refit's.
		line := fmt.Sprintf("gamma: %s = %s on each fit's training rows (the best point's folds: mean %s", rule, map[string]string{experiments.GammaScale: "1/(d·Var(X))", experiments.GammaAuto: "1/d"}[rule], strconv.FormatFloat(b.Info["gamma"], 'g', -1, 64))
		if r.Test != nil {
			line += "; the refit: " + strconv.FormatFloat(r.Test.Gamma, 'g', -1, 64)
		}
		fmt.Fprintln(w, line+")")
	}
	if r.Test != nil {
		fmt.Fprintf(w, "test (%d rows, refit on %d in %.3g s): %s\n", r.Test.NTest, r.Test.NTrain, r.Test.FitSeconds, cmdline.ScoreLine(r.Test.Metrics, nil))
	}
	fmt.Fprintf(w, "results in %s (results.csv, results.json, summary.md, manifest.json, plots)\n", r.Out)
}

// printApprox prints one line per method: its error (the first measure) at
// each grid point.
func printApprox(w io.Writer, r *experiments.Result) {
	fmt.Fprintf(w, "%s: %d points (%d computed, %d resumed), %d rows × %d features; relative %s error (mean over repeats):\n", r.Spec.Name, len(r.Points), r.Computed, r.Resumed, r.NTrain, r.Dim, r.Metric)
	for _, m := range r.Spec.Approximation.Methods {
		var parts []string
		for _, p := range r.Points {
			if p.Method != m {
				continue
			}
			key := strings.TrimPrefix(strings.TrimPrefix(p.Key, "method="+m), ",")
			if p.Error != "" {
				parts = append(parts, key+" failed")
				continue
			}
			s, _ := p.Metric(r.Metric)
			parts = append(parts, fmt.Sprintf("%s %.4g", key, s.Mean))
		}
		fmt.Fprintf(w, "  %-16s %s\n", m, strings.Join(parts, ", "))
	}
	fmt.Fprintf(w, "results in %s (results.csv, results.json, summary.md, manifest.json, plots)\n", r.Out)
}
