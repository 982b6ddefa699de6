package model

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// crossEntropy is the objective fitTemperature minimizes, written out: the
// cross-entropy of softmax(β·s_i) against Platt's targets, summed.
func crossEntropy(scores *mat.Dense, y []float64, labels Labels, beta float64) float64 {
	k := len(labels.Classes)
	count := make([]float64, k)
	for _, v := range y {
		c, _ := slices.BinarySearch(labels.Classes, v)
		count[c]++
	}
	var obj float64
	s, p := make([]float64, k), make([]float64, k)
	for i, v := range y {
		c, _ := slices.BinarySearch(labels.Classes, v)
		hi := (count[c] + 1) / (count[c] + 2)
		scoreRow(s, scores.RawRowView(i))
		softmaxInto(p, s, beta)
		for j := range k {
			t := (1 - hi) / float64(k-1)
			if j == c {
				t = hi
			}
			obj -= t * math.Log(p[j])
		}
	}
	return obj
}

// goldenMin minimizes f on [lo, hi] by golden-section search (f convex).
func goldenMin(f func(float64) float64, lo, hi float64) float64 {
	g := (math.Sqrt(5) - 1) / 2
	a, b := lo, hi
	for range 200 {
		c, d := b-g*(b-a), a+g*(b-a)
		if f(c) < f(d) {
			b = d
		} else {
			a = c
		}
	}
	return (a + b) / 2
}

// fitTemperature finds the minimizer of the written-out cross-entropy, on
// noisy binary and three-class scores, as golden-section search does (to
// 1e-7 relative: golden section on a smooth convex function is accurate to
// about √ε of the objective's flatness); two classes read as (−f, f) give
// Platt's sigmoid with A = −2β, B = 0; and scores that carry no
// information give β = 0.
func TestFitTemperature(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, k := range []int{2, 3} {
		classes := make([]float64, k)
		for j := range classes {
			classes[j] = float64(10 * j)
		}
		labels := Labels{Classes: classes}
		n := 200
		y := make([]float64, n)
		scores := mat.NewDense(n, labels.Outputs(), nil)
		for i := range n {
			c := rng.IntN(k)
			y[i] = classes[c]
			row := scores.RawRowView(i)
			for j := range row {
				row[j] = -1 + 0.8*rng.NormFloat64()
				if k > 2 && j == c || k == 2 && c == 1 {
					row[j] += 2 // the true class's column (binary: f > 0 means the larger label)
				}
			}
		}
		used := make([]bool, n)
		for i := range used {
			used[i] = true
		}
		beta, err := fitTemperature(scores, used, y, labels)
		if err != nil {
			t.Fatal(err)
		}
		want := goldenMin(func(b float64) float64 { return crossEntropy(scores, y, labels, b) }, 0, 50)
		if math.Abs(beta-want) > 1e-7*want {
			t.Errorf("%d classes: β = %v, golden section %v", k, beta, want)
		}
		p := softmaxProba(scores, k, beta)
		if k == 2 {
			for i := range n {
				sig := 1 / (1 + math.Exp(-2*beta*scores.At(i, 0)))
				if math.Abs(p.At(i, 1)-sig) > 1e-15 || math.Abs(p.At(i, 0)+p.At(i, 1)-1) > 1e-15 {
					t.Fatalf("row %d: P = %v, sigmoid %v", i, p.RawRowView(i), sig)
				}
			}
		}
	}
	// Scores equal for every row: no information, β = 0, uniform.
	labels := Labels{Classes: []float64{0, 1, 2}}
	flat := mat.NewDense(6, 3, nil)
	beta, err := fitTemperature(flat, []bool{true, true, true, true, true, true}, []float64{0, 1, 2, 0, 1, 2}, labels)
	if err != nil || beta != 0 {
		t.Errorf("flat scores: β = %v (err %v), want 0", beta, err)
	}
	if _, err := fitTemperature(flat, make([]bool, 6), []float64{0, 1, 2, 0, 1, 2}, labels); err == nil {
		t.Error("no held-out rows: want an error")
	}
}

// KRR's calibration by hand: stratified folds (each class shuffled with the
// PCG stream (Seed, "cal") and dealt in turn), an exact KRR fitted on the
// other folds' rows, its held-out scores, and the temperature minimizing
// the written-out cross-entropy. Exact KRR is the same computation on the
// same rows, so β agrees to the golden section's accuracy.
func TestKRRCalibrationByHand(t *testing.T) {
	c := conformanceMulticlass(31)
	k := kernel.Gaussian{Gamma: 2}
	m := &KRR{Kernel: k, Lambda: 1e-3, Task: Classification, Probability: true, Seed: 9}
	if err := m.Fit(context.Background(), c.x, c.y); err != nil {
		t.Fatal(err)
	}
	labels, _ := NewLabels(c.y)
	fold := stratifiedFolds(labels, c.y, calibFolds, rand.New(rand.NewPCG(9, calibSeedStream)))
	n := len(c.y)
	scores := mat.NewDense(n, labels.Outputs(), nil)
	for f := range calibFolds {
		var trn, tst []int
		for i := range n {
			if fold[i] == f {
				tst = append(tst, i)
			} else {
				trn = append(trn, i)
			}
		}
		yt := make([]float64, len(trn))
		for q, i := range trn {
			yt[q] = c.y[i]
		}
		sub := &KRR{Kernel: k, Lambda: 1e-3, Task: Classification}
		if err := sub.Fit(context.Background(), pickRows(c.x, trn), yt); err != nil {
			t.Fatal(err)
		}
		d, err := sub.DecisionFunction(pickRows(c.x, tst))
		if err != nil {
			t.Fatal(err)
		}
		for q, i := range tst {
			copy(scores.RawRowView(i), d.RawRowView(q))
		}
	}
	want := goldenMin(func(b float64) float64 { return crossEntropy(scores, c.y, labels, b) }, 0, 100)
	if got := m.fit.calib.beta; math.Abs(got-want) > 1e-6*want {
		t.Errorf("β = %v, by hand %v", got, want)
	}
	// Stratified: each fold holds ⌊n_c/5⌋ or ⌈n_c/5⌉ rows of each class c.
	for ci, cl := range labels.Classes {
		nc := 0
		perFold := make([]int, calibFolds)
		for i, v := range fold {
			if c.y[i] == cl {
				nc++
				perFold[v]++
			}
		}
		for f, m := range perFold {
			if m < nc/calibFolds || m > (nc+calibFolds-1)/calibFolds {
				t.Errorf("fold %d holds %d of the %d rows of class %d", f, m, nc, ci)
			}
		}
	}
}
