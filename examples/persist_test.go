package examples_test

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
)

// Save → Load → Predict gives the saved model's predictions bit for bit, and
// Load → Fit on the same data gives the same model again: the package
// documents both for every estimator and for KRR's backends with the default
// sampler.
func TestSaveLoadRefit(t *testing.T) {
	train, test := smooth(t, 400, 100, false, 8)
	cls := classLabels(train.Y)
	k := kernel.Gaussian{Gamma: 1}
	cases := []struct {
		name string
		est  model.Estimator
		y    []float64
	}{
		{"krr-exact", &model.KRR{Kernel: k, Lambda: 1e-4}, train.Y},
		{"krr-nystrom", &model.KRR{Kernel: k, Lambda: 1e-4, Approx: model.NystromKRR{M: 40}, Seed: 3}, train.Y},
		{"krr-meka", &model.KRR{Kernel: k, Lambda: 1e-4, Approx: &model.MEKAKRR{Clusters: 3, Rank: 15}, Seed: 3}, train.Y},
		{"krr-rff", &model.KRR{Kernel: k, Lambda: 1e-4, Approx: model.FeatureRidge{Features: model.RFFFeatures{RFF: approx.RFF{Features: 100}}}, Seed: 3}, train.Y},
		{"falkon", &model.Falkon{Kernel: k, Lambda: 1e-6, M: 50, Seed: 3}, train.Y},
		{"svm", &model.SVM{Kernel: k, C: 2}, cls},
		{"bka-svm", &model.BKASVM{Kernel: k, C: 2, Clusters: 4, Seed: 3}, cls},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			if err := c.est.Fit(ctx, train.X, c.y); err != nil {
				t.Fatal(err)
			}
			want := mustPredict(t, c.est, test.X)
			b, err := model.Marshal(c.est)
			if err != nil {
				t.Fatal(err)
			}
			loaded, err := model.Unmarshal(b)
			if err != nil {
				t.Fatal(err)
			}
			if got := mustPredict(t, loaded, test.X); !slices.Equal(got, want) {
				t.Errorf("loaded model predicts differently (max rel diff %.3g)", maxRelDiff(got, want))
			}
			again, err := model.Marshal(loaded)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, b) {
				t.Errorf("loaded model re-saves to different bytes (%d vs %d)", len(again), len(b))
			}
			if err := loaded.Fit(ctx, train.X, c.y); err != nil {
				t.Fatal(err)
			}
			if got := mustPredict(t, loaded, test.X); !slices.Equal(got, want) {
				t.Errorf("reloaded model refitted on the same data predicts differently (max rel diff %.3g)", maxRelDiff(got, want))
			}
		})
	}
}

// SaveFile and LoadFile through a real file.
func TestSaveFileLoadFile(t *testing.T) {
	train, test := smooth(t, 300, 50, false, 9)
	m := &model.Falkon{Kernel: kernel.Gaussian{Gamma: 1}, Lambda: 1e-6, M: 30, Seed: 1}
	if err := m.Fit(context.Background(), train.X, train.Y); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "falkon.lmk")
	if err := model.SaveFile(path, m); err != nil {
		t.Fatal(err)
	}
	e, err := model.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, ok := e.(*model.Falkon)
	if !ok {
		t.Fatalf("LoadFile returned %T, want *model.Falkon", e)
	}
	if !slices.Equal(mustPredict(t, f, test.X), mustPredict(t, m, test.X)) {
		t.Error("file round trip changed the predictions")
	}
	if f.Info().M != 30 {
		t.Errorf("loaded Info().M = %d, want 30", f.Info().M)
	}
}

// classLabels turns a regression target into two classes (its sign), for
// the classifiers of the persistence table.
func classLabels(y []float64) []float64 {
	out := make([]float64, len(y))
	for i, v := range y {
		out[i] = -1
		if v > 0 {
			out[i] = 1
		}
	}
	return out
}
