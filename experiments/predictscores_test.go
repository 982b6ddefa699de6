package experiments

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"gonum.org/v1/gonum/mat"
)

// TestPredictScores: FitResult.PredictScores gives, bit for bit, Predict's
// values and Scores' on heart_scale (270 rows, labels ±1) for the
// estimators that give both from one prediction (falkon, krr), for one
// that does not (svm), on the binary task and as a regression on the same
// labels with a standardized target (whose predictions are mapped back);
// and the binary scores of a fit are those of its labels and decision
// values (the scoring that takes both from one prediction).
func TestPredictScores(t *testing.T) {
	heart, err := datasets.Load("heart_scale")
	if err != nil {
		t.Fatal(err)
	}
	const spec = "name: ps\ndataset: {name: heart_scale, scale: maxabs STD}\ntask: TASK\nestimator: {type: EST, kernel: {type: gaussian, gamma: 0.077}, OPT}\nseed: 2\n"
	for _, c := range []struct{ est, task, opt string }{
		{"falkon", "binary", "lambda: 1.0e-4, m: 40"},
		{"krr", "binary", "lambda: 1.0e-4"},
		{"svm", "binary", "c: 1"},
		{"falkon", "regression", "lambda: 1.0e-4, m: 40"},
	} {
		std := ""
		if c.task == "regression" {
			std = ", standardize_target: true"
		}
		text := strings.NewReplacer("EST", c.est, "TASK", c.task, "OPT", c.opt, " STD", std).Replace(spec)
		res, err := Fit(context.Background(), mustDecode(t, text))
		if err != nil {
			t.Fatalf("%s %s: %v", c.est, c.task, err)
		}
		p, err := res.Predict(heart.X)
		if err != nil {
			t.Fatal(err)
		}
		s, err := res.Scores(heart.X)
		if err != nil {
			t.Fatal(err)
		}
		gp, gs, err := res.PredictScores(heart.X)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(gp, p) || !mat.Equal(gs, s) {
			t.Errorf("%s %s: PredictScores differs from Predict and Scores", c.est, c.task)
		}
		if c.task != "binary" {
			continue
		}
		want, err := ScoreWith(TaskBinary, heart.Y, p, mat.Col(nil, 0, s))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Train, want) || len(want) < 2 {
			t.Errorf("%s: train scores %v, from Predict and Scores %v", c.est, res.Train, want)
		}
	}
}
