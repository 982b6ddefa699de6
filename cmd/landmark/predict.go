package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/experiments"
	"github.com/landmark-ml/landmark/internal/outfile"
	"gonum.org/v1/gonum/mat"
)

func runPredict(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("predict", "--model FILE --data FILE|- [--out FILE|-]", stderr)
	modelPath := fs.String("model", "", "model saved by landmark fit --save")
	data := fs.String("data", "", "data to predict (LIBSVM or CSV, raw features as given to fit; - or a pipe for standard input)")
	format := fs.String("format", "", "data format: libsvm or csv (default from the file name, else the content)")
	out := fs.String("out", "", "write the predictions here, one per line (default, or -: stdout); a regular file is replaced atomically, a link written through, a FIFO or device in place")
	var rf readFlags
	rf.registerCSV(fs)
	prog := addProgress(fs)
	if _, err := parseInterleaved(fs, args); err != nil {
		return err
	}
	if *modelPath == "" || *data == "" {
		return fmt.Errorf("%w: need --model FILE and --data FILE", errUsage)
	}
	rf.format, rf.notify = *format, noteTo(stderr)
	ropt, err := rf.options()
	if err != nil {
		return err
	}
	// The output is checked before any work: not a directory, not the
	// data or the model.
	if *out != "" {
		if err := outfile.Check(*out, *data, *modelPath); err != nil {
			return err
		}
	}
	pg, t0 := newProgress(*prog, false, stderr), time.Now()
	fit, err := experiments.LoadFitFile(*modelPath)
	if err != nil {
		return err
	}
	// The data is opened once (a pipe or standard input cannot be read
	// twice): its format comes from --format, the name or the content.
	in, err := datasets.OpenInput(ctx, *data, ropt.Format)
	if err != nil {
		return err
	}
	defer in.Close()
	// A LIBSVM file for a model without feature scaling, or with one that
	// keeps zeros (maxabs, std), is read sparse and kept so below the
	// density at which fit keeps data sparse.
	var x mat.Matrix
	var y []float64
	if in.Format == datasets.LIBSVM && fit.Scaling.KeepsSparse() {
		xs, ys, rows, cols, err := in.ReadTest(ctx, fit.Dim)
		if err != nil {
			return err
		}
		x, y = xs, ys
		if rows > 0 {
			fmt.Fprintf(stderr, "%s: %s\n", *data, beyondLine(rows, cols, fit.Dim))
		} else if xs.Density() >= experiments.SparseDensity {
			x = xs.ToDense()
		}
	} else {
		ropt.Dim = fit.Dim
		d, err := in.Read(ctx, ropt)
		if err != nil {
			return err
		}
		if d.Dim() != fit.Dim {
			return fmt.Errorf("%w: %s has %d features, the model was fitted on %d", datasets.ErrInput, *data, d.Dim(), fit.Dim)
		}
		x, y = d.X, d.Y
	}
	if pg != nil {
		n, d := x.Dims()
		pg.line("predict: read %d rows × %d features (elapsed %s)", n, d, fmtDuration(time.Since(t0)))
	}
	pred, err := predictBatches(fit, x, pg)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	for _, p := range pred {
		b.WriteString(strconv.FormatFloat(p, 'g', -1, 64))
		b.WriteByte('\n')
	}
	if *out == "" || outfile.IsStdout(*out) {
		_, err = stdout.Write(b.Bytes())
	} else {
		err = outfile.WriteBytes(*out, b.Bytes())
	}
	if err != nil {
		return err
	}
	if fit.Task != "" {
		// The file's own targets or labels give a score for free.
		if sc, err := experiments.Score(fit.Task, y, pred); err == nil {
			fmt.Fprintf(stderr, "%d rows; against the file's targets: %s\n", len(pred), scoreLine(sc))
		}
	}
	return nil
}

// predictBatch is how many rows one prediction call (and one plain progress
// line) covers.
var predictBatch = 1 << 16

// predictBatches predicts x's rows predictBatch at a time (predictions are
// row by row, so the batches give the same values as one call), reporting
// each batch with the elapsed time and an ETA when pg is non-nil.
func predictBatches(fit *experiments.FitResult, x mat.Matrix, pg *progress) ([]float64, error) {
	n, d := x.Dims()
	if n <= predictBatch {
		t0 := time.Now()
		pred, err := fit.Predict(x)
		if err == nil && pg != nil {
			pg.line("predict: %d/%d rows (elapsed %s, ETA 0s)", n, n, fmtDuration(time.Since(t0)))
		}
		return pred, err
	}
	clock := newWorkClock(float64(n))
	pred := make([]float64, 0, n)
	for r0 := 0; r0 < n; r0 += predictBatch {
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
		p, err := fit.Predict(rows)
		if err != nil {
			return nil, err
		}
		pred = append(pred, p...)
		elapsed, eta := clock.add(float64(r1 - r0))
		if pg != nil {
			pg.line("predict: %d/%d rows (elapsed %s, ETA %s)", r1, n, fmtDuration(elapsed), fmtDuration(eta))
		}
	}
	return pred, nil
}
