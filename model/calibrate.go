package model

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// Class probabilities of the ridge-type classifiers (KRR and Falkon with
// Task Classification and Probability set): temperature scaling of their
// one-vs-rest scores (Guo, Pleiss, Sun & Weinberger, "On calibration of
// modern neural networks", ICML 2017, Sect. 4.2), fitted on held-out scores.
//
// The scores f_c(x) are least-squares fits of ±1 one-vs-rest targets, all on
// the same scale, so one parameter serves every class: P(c | x) =
// softmax_c(β·f(x)), with two classes read as the scores (−f, f) (so P of
// the larger label is 1/(1 + exp(−2βf)), Platt's sigmoid with B = 0). The
// inverse temperature β ≥ 0 minimizes the cross-entropy of held-out scores
// from a stratified 5-fold cross-validation (as LIBSVM's -b 1 fits Platt
// on cross-validated values; training scores would make β too large),
// against Platt's regularized targets: (N_c + 1)/(N_c + 2) on the true class c
// and the rest shared by the others (for two classes exactly Platt's
// targets). We chose one temperature over per-class Platt sigmoids because
// softmax(β·f) is non-decreasing in each f_c with the same β, so Predict's
// label always has the largest probability (it can tie with others only
// when β times the difference of their scores is below rounding, as for
// scores of order 1e-30 from a kernel much too narrow for the data), and
// one parameter is well determined even on small folds. The objective is convex
// in β; β is found by bisection on its derivative.

// calibFolds is the number of cross-validation folds of the calibration.
const calibFolds = 5

// calibSeedStream is the second PCG word of the calibration folds.
const calibSeedStream = 0x63616c // "cal"

// stratifiedFolds deals the rows of each class, shuffled with rng, to k
// folds in turn (continuing across classes, so the folds have equal sizes
// to one row).
func stratifiedFolds(labels Labels, y []float64, k int, rng *rand.Rand) []int {
	byClass := make([][]int, len(labels.Classes))
	for i, v := range y {
		c, _ := slices.BinarySearch(labels.Classes, v)
		byClass[c] = append(byClass[c], i)
	}
	fold := make([]int, len(y))
	next := 0
	for _, rows := range byClass {
		for _, p := range rng.Perm(len(rows)) {
			fold[rows[p]] = next % k
			next++
		}
	}
	return fold
}

// heldOutScores returns each training row's decision values (n×outputs)
// from a model fitted by fitFold on the other folds, and which rows have
// them: a fold whose training rows lack a class (a class with fewer rows
// than folds) gives a model with other columns, whose rows are left out.
func heldOutScores(ctx context.Context, x mat.Matrix, y []float64, labels Labels, rng *rand.Rand,
	fitFold func(ctx context.Context, x mat.Matrix, y []float64) (Classifier, error)) (*mat.Dense, []bool, error) {
	n := len(y)
	k := min(calibFolds, n)
	fold := stratifiedFolds(labels, y, k, rng)
	scores := mat.NewDense(n, labels.Outputs(), nil)
	used := make([]bool, n)
	for f := range k {
		var trn, tst []int
		for i := range n {
			if fold[i] == f {
				tst = append(tst, i)
			} else {
				trn = append(trn, i)
			}
		}
		if len(tst) == 0 || len(trn) == 0 {
			continue
		}
		yt := pickValues(y, trn)
		if err := checkClassesOf(yt, labels); err != nil {
			continue
		}
		c, err := fitFold(ctx, pickRows(x, trn), yt)
		if err != nil {
			return nil, nil, fmt.Errorf("fold %d: %w", f, err)
		}
		dec, err := c.DecisionFunction(pickRows(x, tst))
		if err != nil {
			return nil, nil, fmt.Errorf("fold %d: %w", f, err)
		}
		for q, i := range tst {
			copy(scores.RawRowView(i), dec.RawRowView(q))
			used[i] = true
		}
	}
	return scores, used, nil
}

// checkClassesOf reports an error when y does not hold every class of labels.
func checkClassesOf(y []float64, labels Labels) error {
	seen := make([]bool, len(labels.Classes))
	for _, v := range y {
		c, _ := slices.BinarySearch(labels.Classes, v)
		seen[c] = true
	}
	if slices.Contains(seen, false) {
		return fmt.Errorf("%w: a fold lacks a class", ErrInput)
	}
	return nil
}

// calibrate fits the temperature of a KRR fit f on x, y.
func (m *KRR) calibrate(ctx context.Context, x mat.Matrix, y []float64, f *krrFit) (*temperature, error) {
	if f.task != Classification {
		return nil, fmt.Errorf("%w: probability needs task classification", ErrInput)
	}
	rng := rand.New(rand.NewPCG(m.Seed, calibSeedStream))
	scores, used, err := heldOutScores(ctx, x, y, f.labels, rng, func(ctx context.Context, x mat.Matrix, y []float64) (Classifier, error) {
		c := *m
		c.fit, c.Probability, c.Progress = nil, false, nil
		return &c, c.Fit(ctx, x, y)
	})
	if err != nil {
		return nil, err
	}
	beta, err := fitTemperature(scores, used, y, f.labels)
	if err != nil {
		return nil, err
	}
	return &temperature{beta}, nil
}

// scoreRow writes the softmax inputs of one row of decision values into
// dst (length = number of classes): (−f, f) for two classes.
func scoreRow(dst, dec []float64) {
	if len(dst) == 2 && len(dec) == 1 {
		dst[0], dst[1] = -dec[0], dec[0]
		return
	}
	copy(dst, dec)
}

// softmaxInto sets p = softmax(beta·s), computed from the largest entry.
func softmaxInto(p, s []float64, beta float64) {
	hi := slices.Max(s)
	var sum float64
	for j, v := range s {
		p[j] = math.Exp(beta * (v - hi))
		sum += p[j]
	}
	for j := range p {
		p[j] /= sum
	}
}

// fitTemperature returns the β ≥ 0 minimizing the cross-entropy of
// softmax(β·s_i) against Platt's regularized targets over the used rows.
// The derivative Σ_i Σ_c (p_ic − t_ic)·s_ic is non-decreasing in β (its
// derivative is a sum of variances), so bisection on log β over
// [1e-8, 1e8] finds the root to machine precision; a derivative already
// positive at 1e-8 (uninformative or reversed scores) gives β = 0, all
// classes equally likely, and one still negative at 1e8 gives 1e8.
func fitTemperature(scores *mat.Dense, used []bool, y []float64, labels Labels) (float64, error) {
	k := len(labels.Classes)
	count := make([]float64, k)
	var rows []int
	for i, u := range used {
		if u {
			c, _ := slices.BinarySearch(labels.Classes, y[i])
			count[c]++
			rows = append(rows, i)
		}
	}
	if len(rows) == 0 {
		return 0, fmt.Errorf("%w: no held-out scores to calibrate on (every fold lacked a class)", ErrInput)
	}
	s, p, t := make([]float64, k), make([]float64, k), make([]float64, k)
	grad := func(beta float64) float64 {
		var g float64
		for _, i := range rows {
			c, _ := slices.BinarySearch(labels.Classes, y[i])
			hi := (count[c] + 1) / (count[c] + 2)
			for j := range t {
				t[j] = (1 - hi) / float64(k-1)
			}
			t[c] = hi
			scoreRow(s, scores.RawRowView(i))
			softmaxInto(p, s, beta)
			for j := range s {
				g += (p[j] - t[j]) * s[j]
			}
		}
		return g
	}
	lo, hi := math.Log(1e-8), math.Log(1e8)
	if grad(math.Exp(lo)) >= 0 {
		return 0, nil
	}
	if grad(math.Exp(hi)) <= 0 {
		return math.Exp(hi), nil
	}
	for range 200 {
		mid := (lo + hi) / 2
		if grad(math.Exp(mid)) < 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Exp((lo + hi) / 2), nil
}

// softmaxProba maps decision values (n×outputs) to class probabilities
// (n×classes) with inverse temperature beta.
func softmaxProba(dec *mat.Dense, k int, beta float64) *mat.Dense {
	n, _ := dec.Dims()
	out := mat.NewDense(n, k, nil)
	s := make([]float64, k)
	for i := range n {
		scoreRow(s, dec.RawRowView(i))
		softmaxInto(out.RawRowView(i), s, beta)
	}
	return out
}

// PredictProba returns class probabilities (n × number of classes, columns
// in the order of Classes; rows sum to 1) for a classification fit with
// Probability set: softmax(β·DecisionFunction(x)) with the inverse
// temperature β fitted on held-out scores (two classes read as (−f, f));
// see the calibration notes in calibrate.go. Predict's label has the
// largest probability (tied only when the scores differ by less than
// rounding). It fails with ErrInput for a regression fit or without
// Probability.
func (m *KRR) PredictProba(x mat.Matrix) (_ *mat.Dense, err error) {
	defer named(&err, "krr")
	if m.fit == nil {
		return nil, ErrNotFitted
	}
	return temperedProba(m.fit.task, m.fit.calib, len(m.fit.labels.Classes), "krr", func() (*mat.Dense, error) { return m.DecisionFunction(x) })
}

// temperature is a fitted calibration: the inverse temperature β ≥ 0.
type temperature struct{ beta float64 }

// temperedProba is PredictProba of a calibrated ridge classifier (KRR,
// Falkon): softmax(β·dec()) over k classes, refused on a regression fit or
// one without Probability (t nil).
func temperedProba(task Task, t *temperature, k int, who string, dec func() (*mat.Dense, error)) (*mat.Dense, error) {
	if task != Classification {
		return nil, fmt.Errorf("model: %s: %w: PredictProba needs task classification", who, ErrInput)
	}
	if t == nil {
		return nil, fmt.Errorf("model: %s: %w: PredictProba needs a fit with Probability set", who, ErrInput)
	}
	d, err := dec()
	if err != nil {
		return nil, err
	}
	return softmaxProba(d, k, t.beta), nil
}

// PredictMulti returns all outputs of a regression fit (n×t; one column
// after Fit on a single target). It fails with ErrInput for a
// classification fit (use Predict, DecisionFunction or PredictProba).
func (m *KRR) PredictMulti(x mat.Matrix) (_ *mat.Dense, err error) {
	defer named(&err, "krr")
	if m.fit == nil {
		return nil, ErrNotFitted
	}
	if m.fit.task != Regression {
		return nil, fmt.Errorf("model: krr: %w: PredictMulti is for regression; use Predict or PredictProba", ErrInput)
	}
	return m.DecisionFunction(x)
}
