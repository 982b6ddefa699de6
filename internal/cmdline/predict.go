package cmdline

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/landmark-ml/landmark/experiments"
	"github.com/landmark-ml/landmark/internal/outfile"
	"gonum.org/v1/gonum/mat"
)

// PredictShards is landmark predict on a shard manifest too large to read
// at once: it predicts shard by shard (fit.EachShard), writing output
// ("labels", "scores", "proba" or "interval", the last with coverage) to
// out (standard output when "" or "-"),
// one line per row as predict writes them (labels by their class names
// for a model fitted on text labels), with a progress line per shard
// on pg; then it scores the predictions against the shards' targets, which
// keeps 8–24 bytes a row (labels, targets and, for binary tasks, decision
// values) rather than X.
func PredictShards(ctx context.Context, fit *experiments.FitResult, path, out, output string, coverage float64, pg *Progress, stdout, stderr io.Writer) error {
	var ys, preds, scores []float64
	note := ""
	named := output == "labels" && fit.ClassNames != nil
	write := func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<16)
		clock, n := NewClock(0), 0
		err := fit.EachShard(ctx, path, func(x *mat.Dense, y []float64) error {
			res, pred, dec, err := predictRows(fit, output, coverage, x)
			if err != nil {
				return err
			}
			if note == "" && output != "labels" && output != "interval" {
				note = fit.ColumnsNote(output == "proba", res)
			}
			rows, _ := res.Dims()
			for i := range rows {
				for j, v := range res.RawRowView(i) {
					if j > 0 {
						bw.WriteByte(',')
					}
					if named {
						bw.WriteString(fit.ClassName(v)) // the training file's text labels
						continue
					}
					bw.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
				}
				bw.WriteByte('\n')
			}
			ys, preds, scores = append(ys, y...), append(preds, pred...), append(scores, dec...)
			n += rows
			if pg != nil {
				elapsed, _ := clock.Add(float64(rows))
				pg.Line("predict: %d rows of %s (shard by shard; elapsed %s, %.3g rows/s)", n, path, Duration(elapsed), float64(n)/max(elapsed.Seconds(), 1e-9))
			}
			return nil
		})
		if err != nil {
			return err
		}
		return bw.Flush()
	}
	var err error
	if out == "" || outfile.IsStdout(out) {
		err = write(stdout)
	} else {
		err = outfile.Write(out, write)
	}
	if err != nil {
		return err
	}
	if note != "" {
		fmt.Fprintln(stderr, note)
	}
	if fit.Task == "" {
		return nil
	}
	if len(scores) == 0 {
		scores = nil
	}
	sc, err := experiments.ScoreWith(fit.Task, ys, preds, scores)
	if err == nil {
		fmt.Fprintf(stderr, "%d rows; against the file's targets: %s\n", len(ys), ScoreLine(sc, ys))
	}
	return nil
}

// predictRows returns the output rows of x and, for scoring, the predicted
// labels (or values) and, for binary tasks, the decision values.
func predictRows(fit *experiments.FitResult, output string, coverage float64, x *mat.Dense) (res *mat.Dense, pred, dec []float64, err error) {
	if fit.Task == experiments.TaskBinary || output == "scores" {
		// Both from one prediction where the estimator gives them.
		var s *mat.Dense
		if pred, s, err = fit.PredictScores(x); err != nil {
			return nil, nil, nil, err
		}
		res = mat.NewDense(len(pred), 1, pred)
		if fit.Task == experiments.TaskBinary {
			dec = mat.Col(nil, 0, s)
		}
		if output == "scores" {
			res = s
		}
	} else {
		if pred, err = fit.Predict(x); err != nil {
			return nil, nil, nil, err
		}
		res = mat.NewDense(len(pred), 1, pred)
	}
	switch output {
	case "proba":
		if res, err = fit.Proba(x); err != nil {
			return nil, nil, nil, err
		}
	case "interval":
		if res, err = fit.Interval(x, coverage); err != nil {
			return nil, nil, nil, err
		}
	}
	return res, pred, dec, nil
}
