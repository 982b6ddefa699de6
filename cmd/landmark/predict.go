package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/experiments"
	"github.com/landmark-ml/landmark/internal/cmdline"
	"github.com/landmark-ml/landmark/internal/outfile"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// runPredict is landmark predict: it loads a model saved by landmark fit
// --save, predicts the rows of --data (shard by shard when a manifest's
// rows are over --memory), writes what --output asks, and prints the
// scores against the file's targets when it has them.
func runPredict(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	pa, err := parsePredict(args, stderr)
	if err != nil {
		return err
	}
	pg, t0 := cmdline.NewProgress(pa.prog, false, stderr), time.Now()
	fit, err := experiments.LoadFitFile(pa.model)
	if err != nil {
		return err
	}
	if pa.output == outProba {
		// Refuse before reading the data: the model decides. A regression
		// model has no probabilities to fit for (ErrNoProba's hint says how).
		if fit.Task == experiments.TaskRegression || fit.Task == "" {
			return errors.New("--output proba: a regression model predicts values, not classes: --output labels (the default) or scores writes them")
		}
		if err := fit.HasProba(); err != nil {
			if strings.Contains(err.Error(), "--output scores") {
				return fmt.Errorf("--output proba: %w", err)
			}
			return fmt.Errorf("--output proba: %w; --output scores gives the raw outputs", err)
		}
	}
	if pa.output == outInterval {
		if err := fit.HasInterval(); err != nil {
			return fmt.Errorf("--output interval: %w", err)
		}
	}
	var x mat.Matrix
	var y []float64
	var notes []string
	if experiments.IsManifest(pa.data) {
		if x, y, err = fit.ReadShards(ctx, pa.data, pa.mem.bytes); errors.Is(err, model.ErrMemory) {
			fmt.Fprintf(stderr, "landmark predict: %s: predicting shard by shard\n", strings.TrimPrefix(err.Error(), model.ErrMemory.Error()+": "))
			return cmdline.PredictShards(ctx, fit, pa.data, pa.out, pa.output, pa.coverage, pg, stdout, stderr)
		}
	} else if in, oerr := datasets.OpenInput(ctx, pa.data, pa.read.Format); oerr != nil {
		return oerr
	} else {
		// Opened once (a pipe or standard input cannot be read twice): the
		// format comes from --format, the name or the content.
		defer in.Close()
		if in.Format == datasets.LIBSVM && fit.ZeroBased && !pa.zeroGiven && precomputedFit(fit) {
			// LIBSVM's -t 4 rows are 0-based by definition (0:? first).
			pa.read.ZeroBased, pa.zeroGiven = true, true
		}
		if in.Format == datasets.LIBSVM && fit.ZeroBased && !pa.zeroGiven {
			// Never guessed: a 0-based file without index 0 reads
			// without error one column off.
			what := pa.data
			if what == "-" {
				what = "standard input"
			}
			return fmt.Errorf("%w: %s was fitted on a LIBSVM file with 0-based indices (zero_based): give --zero-based if %s is 0-based, --zero-based=false if it is 1-based", errUsage, pa.model, what)
		}
		x, y, notes, err = fit.ReadInput(ctx, in, pa.read, pa.model)
	}
	if err != nil {
		return err
	}
	for _, n := range notes {
		fmt.Fprintln(stderr, n)
	}
	if pg != nil {
		n, d := x.Dims()
		pg.Line("predict: read %d rows × %d features (elapsed %s)", n, d, cmdline.Duration(time.Since(t0)))
	}
	var res, both *mat.Dense
	if y != nil && fit.Task == experiments.TaskBinary && (pa.output == outLabels || pa.output == outScores) {
		// A binary file with labels is scored on labels and decision
		// values: one prediction gives both.
		if both, err = predictBatches(ctx, x, labelsAndScores(fit), pg); err != nil {
			return err
		}
		col := 0
		if pa.output == outScores {
			col = 1
		}
		rows, _ := both.Dims()
		res = mat.NewDense(rows, 1, mat.Col(nil, col, both))
	} else if res, err = predictOutput(ctx, fit, x, pa.output, pa.coverage, pg); err != nil {
		return err
	}
	if pa.output != outLabels && pa.output != outInterval {
		if note := fit.ColumnsNote(pa.output == outProba, res); note != "" {
			fmt.Fprintln(stderr, note)
		}
	}
	var name func(float64) string
	if pa.output == outLabels && fit.ClassNames != nil {
		name = fit.ClassName // the training file's text labels
	}
	if err := writePredictions(res, pa.out, name, stdout); err != nil {
		return err
	}
	n, _ := res.Dims()
	return scoreFile(fit, x, y, res, both, pa.output, n, stderr)
}

// predictArgs are landmark predict's flags, parsed and checked.
type predictArgs struct {
	model, data string               // --model, --data
	out, output string               // --out, --output
	coverage    float64              // --coverage (--output interval)
	read        datasets.ReadOptions // --format and the CSV flags
	mem         memoryFlag           // --memory
	prog        cmdline.Mode         // --progress
	zeroGiven   bool                 // --zero-based given (true or false)
}

// parsePredict parses and checks landmark predict's flags, before any
// work: --model and --data given, --output known, the read options valid,
// and --out (when given) neither a directory nor the data or the model.
func parsePredict(args []string, stderr io.Writer) (*predictArgs, error) {
	fs := cmdline.NewFlags("predict", "--model FILE --data FILE|- [--out FILE|-] [--output labels|scores|proba|interval]", stderr)
	modelPath := fs.String("model", "", "model saved by landmark fit --save")
	data := fs.String("data", "", "data to predict (LIBSVM, CSV or a shard manifest DIR/manifest.json, read into memory; raw features as given to fit; - or a pipe for standard input); the target column or LIBSVM label may be absent, and a CSV header is matched to the training columns by name")
	format := fs.String("format", "", "data format: libsvm or csv (default from the file name, else the content)")
	out := fs.String("out", "", "write the predictions here, one row per line (default, or -: stdout); a regular file is replaced atomically, a link written through, a FIFO or device in place")
	output := fs.String("output", outLabels, "what to write: labels (class labels or regression predictions), scores (decision values; regression predictions), proba (class probabilities, columns in class order; classifiers fitted with --set probability=true only) or interval (the lower and upper ends of a prediction interval of --coverage; svr fitted with --set probability=true only, svm-train -s 3 -b 1's Laplace model)")
	coverage := fs.Float64("coverage", defaultCoverage, "--output interval: the probability 0 < p < 1 that the interval holds the target")
	var rf readFlags
	rf.registerCSV(fs)
	var mem memoryFlag
	fs.Var(&mem, "memory", "cap on X read into memory from a shard manifest (default 75% of physical memory); over it the shards are predicted one at a time")
	prog := cmdline.AddProgress(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) > 0 {
		// svm-predict's habit, "TEST MODEL OUTPUT": an OUTPUT ignored
		// would leave the predictions on stdout and no file.
		return nil, fmt.Errorf("%w: unexpected argument%s %s: predict takes its files as flags (svm-predict's TEST MODEL OUTPUT are --data TEST --model MODEL --out OUTPUT)", errUsage, map[bool]string{true: "s"}[len(pos) > 1], strings.Join(pos, " "))
	}
	var missing []string
	if *modelPath == "" {
		missing = append(missing, "--model FILE")
	}
	if *data == "" {
		missing = append(missing, "--data FILE (- for standard input)")
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: need %s", errUsage, strings.Join(missing, " and "))
	}
	switch *output {
	case outLabels, outScores, outProba, outInterval:
	default:
		return nil, fmt.Errorf("%w: --output %q: want labels, scores, proba or interval%s", errUsage, *output, experiments.DidYouMean(*output, []string{outLabels, outScores, outProba, outInterval}))
	}
	coverageGiven := false
	fs.Visit(func(f *flag.Flag) { coverageGiven = coverageGiven || f.Name == "coverage" })
	switch {
	case coverageGiven && *output != outInterval:
		return nil, fmt.Errorf("%w: --coverage is the probability of --output interval's intervals; give --output interval with it", errUsage)
	case !(*coverage > 0 && *coverage < 1):
		return nil, fmt.Errorf("%w: --coverage %g: want a probability strictly between 0 and 1 (0.9 for 90%% intervals)", errUsage, *coverage)
	}
	rf.format, rf.notify = *format, noteTo(stderr)
	ropt, err := rf.options()
	if err != nil {
		return nil, err
	}
	// The output is checked before any work: not a directory, not the
	// data or the model.
	if *out != "" {
		if err := outfile.Check(*out, *data, *modelPath); err != nil {
			return nil, err
		}
	}
	pa := &predictArgs{model: *modelPath, data: *data, out: *out, output: *output, coverage: *coverage, read: ropt, mem: mem, prog: *prog}
	fs.Visit(func(f *flag.Flag) {
		pa.zeroGiven = pa.zeroGiven || f.Name == "zero-based"
		if f.Name == "drop" && pa.read.Drop == nil {
			// --drop= given empty: drop nothing, not the model's drop
			// (ReadInput takes that for a nil Drop).
			pa.read.Drop = []string{}
		}
	})
	return pa, nil
}

// predictOutput computes what --output asks of fit on x (labels, scores
// or probabilities) in batches, reporting them to pg; a cancelled ctx
// stops it between batches.
func predictOutput(ctx context.Context, fit *experiments.FitResult, x mat.Matrix, output string, coverage float64, pg *cmdline.Progress) (*mat.Dense, error) {
	switch output {
	case outInterval:
		return predictBatches(ctx, x, func(x mat.Matrix) (*mat.Dense, error) { return fit.Interval(x, coverage) }, pg)
	case outScores:
		return predictBatches(ctx, x, fit.Scores, pg)
	case outProba:
		return predictBatches(ctx, x, fit.Proba, pg)
	default:
		return predictBatches(ctx, x, labelsOf(fit), pg)
	}
}

// writePredictions writes res, one row per line, values comma-separated
// in the shortest form that reads back exactly (or as name gives them,
// when it is non-nil: the class names of text labels), to stdout (out
// empty or -) or to the file out (outfile.WriteBytes).
func writePredictions(res *mat.Dense, out string, name func(float64) string, stdout io.Writer) error {
	var b bytes.Buffer
	n, _ := res.Dims()
	for i := range n {
		for j, v := range res.RawRowView(i) {
			if j > 0 {
				b.WriteByte(',')
			}
			if name != nil {
				b.WriteString(name(v))
				continue
			}
			b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
		b.WriteByte('\n')
	}
	if out == "" || outfile.IsStdout(out) {
		_, err := stdout.Write(b.Bytes())
		return err
	}
	return outfile.WriteBytes(out, b.Bytes())
}

// The --output values of predict.
const (
	outLabels = "labels"
	outScores = "scores"
	outProba  = "proba"
	// outInterval writes prediction intervals (lower, upper) of --coverage.
	outInterval = "interval"
)

// defaultCoverage is --coverage's default: 90% intervals.
const defaultCoverage = 0.9

// labelsAndScores is fit.PredictScores as two columns: the label, then the
// (first) decision value.
func labelsAndScores(fit *experiments.FitResult) func(mat.Matrix) (*mat.Dense, error) {
	return func(x mat.Matrix) (*mat.Dense, error) {
		p, s, err := fit.PredictScores(x)
		if err != nil {
			return nil, err
		}
		out := mat.NewDense(len(p), 2, nil)
		out.SetCol(0, p)
		out.SetCol(1, mat.Col(nil, 0, s))
		return out, nil
	}
}

// labelsOf is fit.Predict as one column.
func labelsOf(fit *experiments.FitResult) func(mat.Matrix) (*mat.Dense, error) {
	return func(x mat.Matrix) (*mat.Dense, error) {
		p, err := fit.Predict(x)
		if err != nil {
			return nil, err
		}
		return mat.NewDense(len(p), 1, p), nil
	}
}

// scoreFile prints the metrics against the file's labels, when it has
// them; binary auc ranks by decision values, as fit --test-data does. both,
// when not nil, holds the labels and decision values already predicted
// (labelsAndScores).
func scoreFile(fit *experiments.FitResult, x mat.Matrix, y []float64, res, both *mat.Dense, output string, n int, stderr io.Writer) error {
	if fit.Task == "" {
		return nil
	}
	if y == nil {
		fmt.Fprintf(stderr, "%d rows; the file has no labels, so no scores\n", n)
		return nil
	}
	if both != nil {
		if sc, err := experiments.ScoreWith(fit.Task, y, mat.Col(nil, 0, both), mat.Col(nil, 1, both)); err == nil {
			fmt.Fprintf(stderr, "%d rows; against the file's targets: %s\n", n, cmdline.ScoreLine(sc, y))
		}
		return nil
	}
	pred := mat.Col(nil, 0, res)
	if output != outLabels {
		p, err := predictBatches(context.Background(), x, labelsOf(fit), nil)
		if err != nil {
			return err
		}
		pred = mat.Col(nil, 0, p)
	}
	var scores []float64
	if fit.Task == experiments.TaskBinary {
		s := res
		if output != outScores {
			var err error
			if s, err = predictBatches(context.Background(), x, fit.Scores, nil); err != nil {
				return err
			}
		}
		scores = mat.Col(nil, 0, s)
	}
	if sc, err := experiments.ScoreWith(fit.Task, y, pred, scores); err == nil {
		fmt.Fprintf(stderr, "%d rows; against the file's targets: %s\n", n, cmdline.ScoreLine(sc, y))
	}
	return nil
}

// predictBatch is how many rows one prediction call (and one plain progress
// line) covers.
var predictBatch = 1 << 16

// predictBatches applies fn to x's rows predictBatch at a time (predictions
// are row by row, so the batches give the same values as one call),
// reporting each batch with the elapsed time and an ETA when pg is non-nil;
// a cancelled ctx stops it before each batch.
func predictBatches(ctx context.Context, x mat.Matrix, fn func(mat.Matrix) (*mat.Dense, error), pg *cmdline.Progress) (*mat.Dense, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	n, d := x.Dims()
	if n <= predictBatch {
		t0 := time.Now()
		pred, err := fn(x)
		if err == nil && pg != nil {
			pg.Line("predict: %d/%d rows (elapsed %s, ETA 0s)", n, n, cmdline.Duration(time.Since(t0)))
		}
		return pred, err
	}
	clock := cmdline.NewClock(float64(n))
	var out *mat.Dense
	for r0 := 0; r0 < n; r0 += predictBatch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r1 := min(n, r0+predictBatch)
		var rows mat.Matrix
		switch m := x.(type) {
		case *mat.Dense:
			rows = m.Slice(r0, r1, 0, d)
		case *datasets.CSR:
			idx := make([]int, r1-r0)
			for i := range idx {
				idx[i] = r0 + i
			}
			var err error
			if rows, err = m.Rows(idx); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("predict: unexpected matrix type %T", x)
		}
		p, err := fn(rows)
		if err != nil {
			return nil, err
		}
		_, c := p.Dims()
		if out == nil {
			out = mat.NewDense(n, c, nil)
		}
		out.Slice(r0, r1, 0, c).(*mat.Dense).Copy(p)
		elapsed, eta := clock.Add(float64(r1 - r0))
		if pg != nil {
			pg.Line("predict: %d/%d rows (elapsed %s, ETA %s)", r1, n, cmdline.Duration(elapsed), cmdline.Duration(eta))
		}
	}
	return out, nil
}

// precomputedFit reports whether fit's estimator used a precomputed kernel
// (kernel.Precomputed), whose LIBSVM rows start with index 0.
func precomputedFit(fit *experiments.FitResult) bool {
	return kernelOf(fit.Estimator) == kernel.Precomputed{}.String()
}
