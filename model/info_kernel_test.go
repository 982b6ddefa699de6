package model

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
)

// TestInfoKernel: every SVM-family estimator's Info names the kernel it
// used after defaults, as KRRInfo and FalkonInfo do: SVM and SVR without a
// kernel use the Gaussian with γ = 1/d (LIBSVM's default; d = 4 here, so
// γ = 0.25), one given is named as given, and a saved and loaded model
// names the same kernel.
func TestInfoKernel(t *testing.T) {
	// 40 points in [−1, 1]⁴ labelled by the sign of their first coordinate.
	x, y := conformancePoints(rand.New(rand.NewPCG(1, 2)), 40, 4, 0, func(r []float64) float64 {
		if r[0] < 0 {
			return -1
		}
		return 1
	})
	sig := kernel.Sigmoid{Gamma: 0.1, Coef0: -1}
	for _, c := range []struct {
		name string
		est  Estimator
		info func(Estimator) string
		want string
	}{
		{"svm default", &SVM{}, func(e Estimator) string { return e.(*SVM).Info().Kernel }, "gaussian(gamma=0.25)"},
		{"svm sigmoid", &SVM{Kernel: sig}, func(e Estimator) string { return e.(*SVM).Info().Kernel }, "sigmoid(gamma=0.1, coef0=-1)"},
		{"svr default", &SVR{}, func(e Estimator) string { return e.(*SVR).Info().Kernel }, "gaussian(gamma=0.25)"},
		{"one-class", &OneClassSVM{Kernel: kernel.Laplacian{Gamma: 0.5}}, func(e Estimator) string { return e.(*OneClassSVM).Info().Kernel }, "laplacian(gamma=0.5)"},
		{"bka-svm", &BKASVM{Kernel: kernel.Gaussian{Gamma: 0.3}, Clusters: 2, Seed: 1}, func(e Estimator) string { return e.(*BKASVM).Info().Kernel }, "gaussian(gamma=0.3)"},
	} {
		if got := c.info(c.est); got != "" {
			t.Errorf("%s before Fit: kernel %q, want none", c.name, got)
		}
		if err := c.est.Fit(context.Background(), x, y); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := c.info(c.est); got != c.want {
			t.Errorf("%s: Info().Kernel = %q, want %q", c.name, got, c.want)
		}
		var b bytes.Buffer
		if err := Save(&b, c.est); err != nil {
			t.Fatal(err)
		}
		back, err := Load(&b)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.info(back); got != c.want {
			t.Errorf("%s loaded: Info().Kernel = %q, want %q", c.name, got, c.want)
		}
	}
}
