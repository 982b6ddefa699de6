package model

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/mat"
)

// Probability outputs for SVM by Platt scaling (Platt, "Probabilistic outputs
// for support vector machines", 1999), fitted with the Newton method of Lin,
// Lin & Weng ("A note on Platt's probabilistic outputs for support vector
// machines", Machine Learning 68, 2007, Alg. 1) on decision values from an
// internal 5-fold cross-validation, as LIBSVM's -b 1 does. One-vs-one
// probabilities are coupled by the second method of Wu, Lin & Weng
// ("Probability estimates for multi-class classification by pairwise
// coupling", JMLR 5, 2004, eq. (4) and Sect. 4); one-vs-rest sigmoids are
// normalized to sum to one.

// plattFolds is the number of cross-validation folds for Platt scaling.
const plattFolds = 5

// sigmoid is P(y = +1 | f) = 1 / (1 + exp(A·f + B)).
type sigmoid struct{ a, b float64 }

func (s sigmoid) prob(f float64) float64 {
	z := s.a*f + s.b
	if z >= 0 {
		e := math.Exp(-z)
		return e / (1 + e)
	}
	return 1 / (1 + math.Exp(z))
}

// fitSigmoid fits A, B to decision values f and labels y ∈ {±1} by
// regularized maximum likelihood with the targets (N₊+1)/(N₊+2) and
// 1/(N₋+2), by Newton's method with backtracking line search.
func fitSigmoid(f, y []float64) sigmoid {
	var npos, nneg float64
	for _, v := range y {
		if v > 0 {
			npos++
		} else {
			nneg++
		}
	}
	hi, lo := (npos+1)/(npos+2), 1/(nneg+2)
	t := make([]float64, len(y))
	for i, v := range y {
		t[i] = lo
		if v > 0 {
			t[i] = hi
		}
	}
	// obj is the negative log-likelihood, written to avoid overflow.
	obj := func(a, b float64) float64 {
		var s float64
		for i, fi := range f {
			z := fi*a + b
			if z >= 0 {
				s += t[i]*z + math.Log1p(math.Exp(-z))
			} else {
				s += (t[i]-1)*z + math.Log1p(math.Exp(z))
			}
		}
		return s
	}
	const (
		maxIter = 100
		minStep = 1e-10
		ridge   = 1e-12 // keeps the Hessian positive definite
		eps     = 1e-5
	)
	a, b := 0.0, math.Log((nneg+1)/(npos+1))
	fval := obj(a, b)
	for range maxIter {
		h11, h22, h21, g1, g2 := ridge, ridge, 0.0, 0.0, 0.0
		for i, fi := range f {
			p := sigmoid{a, b}.prob(fi)
			q := 1 - p
			d2 := p * q
			h11 += fi * fi * d2
			h22 += d2
			h21 += fi * d2
			d1 := t[i] - p
			g1 += fi * d1
			g2 += d1
		}
		if math.Abs(g1) < eps && math.Abs(g2) < eps {
			break
		}
		det := h11*h22 - h21*h21
		da := -(h22*g1 - h21*g2) / det
		db := -(-h21*g1 + h11*g2) / det
		gd := g1*da + g2*db
		step := 1.0
		for step >= minStep {
			na, nb := a+step*da, b+step*db
			if nf := obj(na, nb); nf < fval+1e-4*step*gd {
				a, b, fval = na, nb, nf
				break
			}
			step /= 2
		}
		if step < minStep {
			break // the line search failed: keep the last iterate
		}
	}
	return sigmoid{a, b}
}

// cvDecision returns cross-validated decision values of one binary task:
// the rows are shuffled with rng and split into plattFolds folds; each fold is
// predicted by an SVM trained on the others. For ν-SVC the folds are
// stratified (in the shuffled order, the positive rows are dealt to the
// folds in turn, then the negative ones), so that each fold's training rows
// keep the task's class shares and a ν feasible for the task stays feasible
// for them (up to a row of rounding); a fold for which it is not is refused
// with an error that names it. C-SVC keeps plain folds, as LIBSVM's.
func cvDecision(ctx context.Context, cfg svmConfig, noBias bool, x mat.Matrix, t svmTask, bounds []float64, rng *rand.Rand) ([]float64, error) {
	n := len(t.rows)
	perm := rng.Perm(n)
	dec := make([]float64, n)
	k := min(plattFolds, n)
	foldOf := make([]int, n) // by rank in perm
	for r := range foldOf {
		foldOf[r] = r % k
	}
	if cfg.nu > 0 {
		var npos int
		for _, y := range t.y {
			if y > 0 {
				npos++
			}
		}
		seen := [2]int{0, npos} // positives from 0, negatives after them
		for r, p := range perm {
			c := 0
			if t.y[p] < 0 {
				c = 1
			}
			foldOf[r] = seen[c] % k
			seen[c]++
		}
	}
	for fold := range k {
		var trn, tst []int // positions in the task
		for r, p := range perm {
			if foldOf[r] == fold {
				tst = append(tst, p)
			} else {
				trn = append(trn, p)
			}
		}
		if len(tst) == 0 {
			continue
		}
		rows := make([]int, len(trn))
		yy := make([]float64, len(trn))
		cc := make([]float64, len(trn))
		pos, neg := false, false
		for q, p := range trn {
			rows[q], yy[q], cc[q] = t.rows[p], t.y[p], bounds[p]
			pos = pos || yy[q] > 0
			neg = neg || yy[q] < 0
		}
		if !pos || !neg {
			// One class only: predict it with a unit decision value, as LIBSVM does.
			v := -1.0
			if pos {
				v = 1
			}
			for _, p := range tst {
				dec[p] = v
			}
			continue
		}
		prob := solver.SVMProblem{K: newKernelColumns(cfg.k, pickRows(x, rows), cfg.workers), Y: yy, C: cc}
		r, err := cfg.solve(ctx, noBias, prob, cfg.options(nil))
		if err != nil {
			var inf *infeasibleNu
			if errors.As(err, &inf) {
				return nil, fmt.Errorf("cross-validation fold %d of %d for Probability, on %d rows (weight %.6g and %.6g by label): %w; lower ν or fit without Probability", fold+1, k, len(trn), inf.pos, inf.neg, err)
			}
			return nil, err
		}
		d := newSVMDecision(cfg.k, x, []svmPart{{rows: rows, y: yy, alpha: r.Alpha, bias: r.Bias}}, cfg.workers)
		trow := make([]int, len(tst))
		for q, p := range tst {
			trow[q] = t.rows[p]
		}
		v, err := d.eval(ctx, pickRows(x, trow))
		if err != nil {
			return nil, err
		}
		for q, p := range tst {
			dec[p] = v.At(q, 0)
		}
	}
	return dec, nil
}

// coupleOvO turns pairwise probabilities r[a][b] = P(a | a or b) into class
// probabilities p (Wu, Lin & Weng 2004, method 2): it minimizes
// pᵀQp subject to Σp = 1 with Q_tt = Σ_{j≠t} r_jt², Q_tj = −r_jt·r_tj by the
// fixed-point iteration of their Sect. 4, stopping when
// max_t |(Qp)_t − pᵀQp| < 0.005/k.
func coupleOvO(r [][]float64, p []float64) {
	k := len(p)
	q := make([][]float64, k)
	for t := range k {
		q[t] = make([]float64, k)
		p[t] = 1 / float64(k)
		for j := range k {
			if j == t {
				continue
			}
			q[t][t] += r[j][t] * r[j][t]
			q[t][j] = -r[j][t] * r[t][j]
		}
	}
	qp := make([]float64, k)
	eps := 0.005 / float64(k)
	for range max(100, k) {
		var pqp float64
		for t := range k {
			qp[t] = 0
			for j := range k {
				qp[t] += q[t][j] * p[j]
			}
			pqp += p[t] * qp[t]
		}
		var worst float64
		for t := range k {
			worst = max(worst, math.Abs(qp[t]-pqp))
		}
		if worst < eps {
			return
		}
		for t := range k {
			if q[t][t] <= 0 {
				continue
			}
			diff := (pqp - qp[t]) / q[t][t]
			p[t] += diff
			pqp = (pqp + diff*(diff*q[t][t]+2*qp[t])) / ((1 + diff) * (1 + diff))
			for j := range k {
				qp[j] = (qp[j] + diff*q[t][j]) / (1 + diff)
				p[j] /= 1 + diff
			}
		}
	}
}

// PredictProba returns class probabilities (n × number of classes, columns
// in the order of Classes) for an SVM fitted with Probability set.
func (s *SVM) PredictProba(x mat.Matrix) (_ *mat.Dense, err error) {
	defer named(&err, "svm")
	if s.fit == nil {
		return nil, ErrNotFitted
	}
	if s.fit.platt == nil {
		return nil, fmt.Errorf("%w: PredictProba needs an SVM fitted with Probability set", ErrInput)
	}
	dec, err := s.DecisionFunction(x)
	if err != nil {
		return nil, err
	}
	return plattProba(s.fit.labels, s.fit.ovo, s.fit.platt, dec), nil
}

// plattProba maps decision values to class probabilities.
func plattProba(labels Labels, ovo bool, sig []sigmoid, dec *mat.Dense) *mat.Dense {
	n, _ := dec.Dims()
	k := len(labels.Classes)
	out := mat.NewDense(n, k, nil)
	// Probabilities are kept within [minProb, 1 − minProb] before coupling,
	// as LIBSVM does, so that r_ij·r_ji > 0.
	const minProb = 1e-7
	clip := func(v float64) float64 { return min(max(v, minProb), 1-minProb) }
	r := make([][]float64, k)
	for a := range r {
		r[a] = make([]float64, k)
	}
	for i := range n {
		row, o := dec.RawRowView(i), out.RawRowView(i)
		switch {
		case k == 2:
			p := clip(sig[0].prob(row[0]))
			o[0], o[1] = 1-p, p
		case ovo:
			col := 0
			for a := 0; a < k; a++ {
				for b := a + 1; b < k; b++ {
					pb := clip(sig[col].prob(row[col])) // P(b | a or b): +1 is b
					r[b][a], r[a][b] = pb, 1-pb
					col++
				}
			}
			coupleOvO(r, o)
		default:
			var sum float64
			for a := range k {
				o[a] = clip(sig[a].prob(row[a]))
				sum += o[a]
			}
			for a := range k {
				o[a] /= sum
			}
		}
	}
	return out
}
