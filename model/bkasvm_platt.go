package model

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/landmark-ml/landmark/approx/cluster"
	"gonum.org/v1/gonum/mat"
)

// bkaPlattStream is the second PCG word of the folds of BKASVM.Probability.
const bkaPlattStream = 0x706c6174 // "plat"

// platt fits one Platt sigmoid per task (fitSigmoid, LIBSVM's -b 1) on
// cross-validated decision values: the n training rows are shuffled with
// Seed and dealt to plattFolds folds; the rows of each fold are predicted,
// in the prediction mode local, by the cluster problems of the same
// partition solved on the rows of the other folds (with Refine when set).
// The partition is reused: k-means never sees the labels, so no held-out
// label enters its fold's model; the held-out points did move the
// centroids, which LIBSVM's cross-validation of one SVM has no analogue of.
func (r *bkaRun) platt(ctx context.Context, part *cluster.Partition, local bool) ([]sigmoid, error) {
	rng := rand.New(rand.NewPCG(r.b.Seed, bkaPlattStream))
	k := min(plattFolds, r.n)
	fold := make([]int, r.n)
	for pos, i := range rng.Perm(r.n) {
		fold[i] = pos % k
	}
	dec := make([][]float64, len(r.tasks))
	for ti, t := range r.tasks {
		dec[ti] = make([]float64, len(t.rows))
	}
	at := make([]int, r.n) // position of a training row among its fold's rows
	for f := range k {
		train := make([]svmTask, len(r.tasks))
		for ti, t := range r.tasks {
			q := svmTask{pos: t.pos, neg: t.neg}
			for p, i := range t.rows {
				if fold[i] != f {
					q.rows = append(q.rows, i)
					q.y = append(q.y, t.y[p])
				}
			}
			train[ti] = q
		}
		parts, _, err := r.solve(ctx, part, train)
		if err != nil {
			return nil, fmt.Errorf("fold %d: %w", f, err)
		}
		global, locals := bkaDecisions(r.cfg, r.x, parts, part, r.k)
		var held, lab []int
		for i := range r.n {
			if fold[i] == f {
				at[i] = len(held)
				held = append(held, i)
				lab = append(lab, part.Labels[i])
			}
		}
		xh := pickRows(r.x, held)
		var v *mat.Dense
		if local {
			v, err = bkaLocalEval(ctx, locals, xh, nil, lab, len(r.tasks), r.cfg.workers)
		} else {
			v, err = global.eval(ctx, xh)
		}
		if err != nil {
			return nil, fmt.Errorf("fold %d: %w", f, err)
		}
		for ti, t := range r.tasks {
			for p, i := range t.rows {
				if fold[i] == f {
					dec[ti][p] = v.At(at[i], ti)
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

// PredictProba returns class probabilities (n × number of classes, columns
// in the order of Classes; rows sum to 1) for a BKASVM fitted with
// Probability set: the Platt sigmoids of each sub-problem, coupled for
// one-vs-one as SVM.PredictProba does. The sigmoids were fitted on the
// decision values of the Prediction mode set at Fit, which PredictProba
// uses whatever Prediction says now. As with LIBSVM's -b 1, the most
// probable class can differ from Predict's label near the decision
// boundary (the sigmoids need not give ½ at a zero decision value).
func (b *BKASVM) PredictProba(x mat.Matrix) (_ *mat.Dense, err error) {
	defer named(&err, "bkasvm")
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
