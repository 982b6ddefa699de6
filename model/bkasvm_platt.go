package model

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/landmark-ml/landmark/approx/cluster"
	"gonum.org/v1/gonum/mat"
)

// platt fits one Platt sigmoid per task (fitSigmoid, LIBSVM's -b 1) on
// cross-validated decision values, with the folds of SVM's Probability:
// task t's rows are shuffled with the PCG stream (Seed, t) and dealt to
// plattFolds folds; the rows of each fold are predicted, in the prediction
// mode local, by the cluster problems of the same partition solved on the
// task's other rows (with Refine when set), and a fold whose other rows hold
// one class only predicts that class with a unit decision value, as LIBSVM
// does. With one cluster this is SVM{NoBias: true, Probability: true}'s
// computation. The partition is reused: k-means never sees the labels, so
// no held-out label enters its fold's model; the held-out points did move
// the centroids, which cross-validating one SVM has no analogue of.
func (r *bkaRun) platt(ctx context.Context, part *cluster.Partition, local bool) ([]sigmoid, error) {
	folds := make([][]int, len(r.tasks)) // the fold of each row of each task
	dec := make([][]float64, len(r.tasks))
	for ti, t := range r.tasks {
		rng := rand.New(rand.NewPCG(r.b.Seed, uint64(ti)))
		k := min(plattFolds, len(t.rows))
		folds[ti] = make([]int, len(t.rows))
		for q, p := range rng.Perm(len(t.rows)) {
			folds[ti][p] = q % k
		}
		dec[ti] = make([]float64, len(t.rows))
	}
	at := make([]int, r.n) // position of a row among the held-out rows, −1 if not held out
	for f := range plattFolds {
		train := make([]svmTask, len(r.tasks))
		single := make([]float64, len(r.tasks)) // ±1: the one class of a task's training rows
		for i := range at {
			at[i] = -1
		}
		var held []int
		for ti, t := range r.tasks {
			q := svmTask{pos: t.pos, neg: t.neg}
			pos, neg := false, false
			for p, i := range t.rows {
				if folds[ti][p] != f {
					q.rows = append(q.rows, i)
					q.y = append(q.y, t.y[p])
					pos, neg = pos || t.y[p] > 0, neg || t.y[p] < 0
				} else if at[i] < 0 {
					at[i] = len(held)
					held = append(held, i)
				}
			}
			if pos != neg {
				single[ti] = -1
				if pos {
					single[ti] = 1
				}
			}
			train[ti] = q
		}
		if len(held) == 0 {
			continue
		}
		v, err := r.foldDecision(ctx, part, train, held, local)
		if err != nil {
			return nil, fmt.Errorf("fold %d: %w", f, err)
		}
		for ti, t := range r.tasks {
			for p, i := range t.rows {
				if folds[ti][p] != f {
					continue
				}
				if dec[ti][p] = v.At(at[i], ti); single[ti] != 0 {
					dec[ti][p] = single[ti]
				}
			}
		}
	}
	sig := make([]sigmoid, len(r.tasks))
	for ti, t := range r.tasks {
		sig[ti] = fitSigmoid(dec[ti], t.y)
	}
	return sig, nil
}

// foldDecision solves the cluster problems of train and returns the
// decision values of the training rows held (one column per task).
func (r *bkaRun) foldDecision(ctx context.Context, part *cluster.Partition, train []svmTask, held []int, local bool) (*mat.Dense, error) {
	parts, _, err := r.solve(ctx, part, train)
	if err != nil {
		return nil, err
	}
	global, locals := bkaDecisions(r.cfg, r.x, parts, part, r.k)
	xh := pickRows(r.x, held)
	if !local {
		return global.eval(ctx, xh)
	}
	lab := make([]int, len(held))
	for q, i := range held {
		lab[q] = part.Labels[i]
	}
	return bkaLocalEval(ctx, locals, xh, nil, lab, len(r.tasks), r.cfg.workers)
}

// PredictProba returns class probabilities (n × number of classes, columns
// in the order of Classes; rows sum to 1) for a BKASVM fitted with
// Probability set: the Platt sigmoids of each sub-problem, coupled for
// one-vs-one as SVM.PredictProba does. The sigmoids were fitted on the
// decision values of the Prediction mode set at Fit, which PredictProba
// uses whatever Prediction says now. As with LIBSVM's -b 1, the most
// probable class can differ from Predict's label near the decision
// boundary (the sigmoids need not give ½ at a zero decision value).
func (b *BKASVM) PredictProba(x mat.Matrix) (_ *mat.Dense, err error) {
	defer named(&err, "bka-svm")
	if b.fit == nil {
		return nil, ErrNotFitted
	}
	if b.fit.platt == nil {
		return nil, fmt.Errorf("%w: PredictProba needs a BKA-SVM fitted with Probability set", ErrInput)
	}
	dec, err := b.decision(x, b.fit.plattLocal)
	if err != nil {
		return nil, err
	}
	return plattProba(b.fit.labels, b.fit.ovo, b.fit.platt, dec), nil
}
