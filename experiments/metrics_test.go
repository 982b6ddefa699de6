package experiments

import (
	"math"
	"math/rand/v2"
	"testing"
)

func score(t *testing.T, name string, y, pred, s []float64) float64 {
	t.Helper()
	m, ok := metricByName(name)
	if !ok {
		t.Fatalf("no metric %s", name)
	}
	v, err := m.Score(y, pred, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestRegressionMetrics(t *testing.T) {
	y := []float64{1, 2, 3, 4}
	p := []float64{1.5, 2, 2, 5}
	// Errors 0.5, 0, −1, 1: squared 0.25+0+1+1 = 2.25; absolute 2.5; SST = 5.
	if v := score(t, "rmse", y, p, nil); math.Abs(v-math.Sqrt(2.25/4)) > 1e-15 {
		t.Errorf("rmse %v", v)
	}
	if v := score(t, "mae", y, p, nil); math.Abs(v-2.5/4) > 1e-15 {
		t.Errorf("mae %v", v)
	}
	if v := score(t, "r2", y, p, nil); math.Abs(v-(1-2.25/5)) > 1e-15 {
		t.Errorf("r2 %v", v)
	}
	if _, err := rmse(y, p[:3], nil); err == nil {
		t.Error("length mismatch accepted")
	}
}

func TestClassificationMetrics(t *testing.T) {
	y := []float64{0, 0, 0, 0, 1, 1, 2, 2}
	p := []float64{0, 0, 1, 0, 1, 0, 2, 1}
	// 5 of 8 right; recalls 3/4, 1/2, 1/2.
	if v := score(t, "accuracy", y, p, nil); v != 5.0/8 {
		t.Errorf("accuracy %v", v)
	}
	if v := score(t, "error", y, p, nil); v != 3.0/8 {
		t.Errorf("error %v", v)
	}
	if v := score(t, "balanced_accuracy", y, p, nil); math.Abs(v-(0.75+0.5+0.5)/3) > 1e-15 {
		t.Errorf("balanced accuracy %v", v)
	}
	// F1 per class: 0: TP3 FP1 FN1 → 6/8; 1: TP1 FP2 FN1 → 2/5; 2: TP1 FP0 FN1 → 2/3.
	if v := score(t, "f1", y, p, nil); math.Abs(v-(6.0/8+2.0/5+2.0/3)/3) > 1e-15 {
		t.Errorf("macro f1 %v", v)
	}
	yb := []float64{-1, -1, 1, 1, 1}
	pb := []float64{-1, 1, 1, 1, -1}
	// Positive = 1: TP 2, FP 1, FN 1 → 4/6.
	if v := score(t, "f1", yb, pb, nil); math.Abs(v-4.0/6) > 1e-15 {
		t.Errorf("binary f1 %v", v)
	}
}

// TestAUCBruteForce compares the rank formula with the O(n²) count over all
// (positive, negative) pairs, ties ½, on scores with many ties.
func TestAUCBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := 0; trial < 20; trial++ {
		n := 5 + rng.IntN(60)
		y := make([]float64, n)
		s := make([]float64, n)
		for i := range y {
			y[i] = float64(rng.IntN(2))*2 - 1
			s[i] = float64(rng.IntN(7)) // ties
		}
		y[0], y[1] = -1, 1
		var num, den float64
		for i := range y {
			for j := range y {
				if y[i] == 1 && y[j] == -1 {
					den++
					switch {
					case s[i] > s[j]:
						num++
					case s[i] == s[j]:
						num += 0.5
					}
				}
			}
		}
		if v := score(t, "auc", y, y, s); math.Abs(v-num/den) > 1e-12 {
			t.Fatalf("auc %v, brute force %v", v, num/den)
		}
	}
}

func TestTaskMetrics(t *testing.T) {
	for _, task := range []string{TaskRegression, TaskBinary, TaskMulticlass} {
		ms := taskMetrics(task)
		if len(ms) == 0 {
			t.Errorf("no metrics for %s", task)
		}
		if _, ok := metricByName(defaultMetric(task)); !ok {
			t.Errorf("default metric of %s unknown", task)
		}
	}
	if len(taskMetrics(TaskBinary)) != 5 || len(taskMetrics(TaskMulticlass)) != 4 || len(taskMetrics(TaskRegression)) != 3 {
		t.Error("metric/task table changed: binary has auc, multiclass not")
	}
}
