package model

import (
	"context"
	"fmt"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// calibrate fits the temperature of the fit f just made on x, y: held-out
// scores of Falkon fits with the same configuration on the other folds (no
// validation data, no progress reports), as KRR.calibrate.
func (m *Falkon) calibrate(ctx context.Context, x mat.Matrix, y []float64, f *falkonFit) (*temperature, error) {
	if f.task != Classification {
		return nil, fmt.Errorf("%w: probability needs task classification", ErrInput)
	}
	rng := rand.New(rand.NewPCG(m.Seed, calibSeedStream))
	scores, used, err := heldOutScores(ctx, x, y, f.labels, rng, func(ctx context.Context, x mat.Matrix, y []float64) (Classifier, error) {
		c := *m
		c.fit, c.Probability, c.Progress, c.Validation, c.Patience = nil, false, nil, nil, 0
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

// PredictProba returns class probabilities (n × number of classes, columns
// in the order of Classes; rows sum to 1) for a classification fit with
// Probability set: softmax(β·DecisionFunction(x)), the inverse temperature
// β fitted on held-out scores, exactly as KRR.PredictProba. Predict's label
// has the largest probability (tied only when the scores differ by less
// than rounding). It fails with ErrInput for a
// regression fit or without Probability.
func (m *Falkon) PredictProba(x mat.Matrix) (_ *mat.Dense, err error) {
	defer named(&err, "falkon")
	if m.fit == nil {
		return nil, ErrNotFitted
	}
	return temperedProba(m.fit.task, m.fit.calib, len(m.fit.labels.Classes), "falkon", func() (*mat.Dense, error) { return m.DecisionFunction(x) })
}

// PredictMulti returns all outputs of a regression fit (n×t; one column
// after Fit on a single target). It fails with ErrInput for a
// classification fit (use Predict, DecisionFunction or PredictProba).
func (m *Falkon) PredictMulti(x mat.Matrix) (_ *mat.Dense, err error) {
	defer named(&err, "falkon")
	if m.fit == nil {
		return nil, ErrNotFitted
	}
	if m.fit.task != Regression {
		return nil, fmt.Errorf("model: falkon: %w: PredictMulti is for regression; use Predict or PredictProba", ErrInput)
	}
	return m.DecisionFunction(x)
}
