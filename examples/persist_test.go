package examples_test

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/approx/meka"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
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
		{"krr-meka", &model.KRR{Kernel: k, Lambda: 1e-4, Approx: model.MEKAKRR{Options: meka.Options{Clusters: 3, Rank: 15}}, Seed: 3}, train.Y},
		{"krr-rff", &model.KRR{Kernel: k, Lambda: 1e-4, Approx: model.FeatureRidge{Features: model.RFFFeatures{RFF: approx.RFF{Features: 100}}}, Seed: 3}, train.Y},
		{"krr-nystrom-bless", &model.KRR{Kernel: k, Lambda: 1e-4, Approx: model.NystromKRR{M: 40, Sampler: approx.BLESS{}}, Seed: 3}, train.Y},
		{"krr-nystrom-rls", &model.KRR{Kernel: k, Lambda: 1e-4, Approx: model.NystromKRR{M: 40, Sampler: approx.RecursiveRLS{}}, Seed: 3}, train.Y},
		{"falkon", &model.Falkon{Kernel: k, Lambda: 1e-6, M: 50, Seed: 3}, train.Y},
		{"falkon-bless", &model.Falkon{Kernel: k, Lambda: 1e-6, M: 50, Sampler: approx.BLESSR{}, Seed: 3}, train.Y},
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
			// The refit used the same algorithm: a BLESS Nyström KRR
			// used to reload without its backend and refit as exact KRR
			// (rank n instead of ~M), a FALKON-BLESS with uniform centers.
			switch m := c.est.(type) {
			case *model.KRR:
				a, b := m.Info(), loaded.(*model.KRR).Info()
				if a.Backend != b.Backend || a.Rank != b.Rank {
					t.Errorf("refit: backend %q rank %d, saved model %q rank %d", b.Backend, b.Rank, a.Backend, a.Rank)
				}
			case *model.Falkon:
				a, b := m.Info(), loaded.(*model.Falkon).Info()
				if a.Sampler != b.Sampler || a.Preconditioner != b.Preconditioner || a.M != b.M {
					t.Errorf("refit: sampler %q, %s preconditioner, M = %d; saved model %q, %s, %d",
						b.Sampler, b.Preconditioner, b.M, a.Sampler, a.Preconditioner, a.M)
				}
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

// firstRows is a sampler defined outside Landmark: the first m rows.
type firstRows struct{}

func (firstRows) Sample(_ context.Context, x mat.Matrix, _ kernel.Kernel, m int, _ *rand.Rand) (*approx.Landmarks, error) {
	_, d := x.Dims()
	pts := mat.NewDense(m, d, nil)
	idx := make([]int, m)
	for i := range m {
		idx[i] = i
		for j := range d {
			pts.Set(i, j, x.At(i, j))
		}
	}
	return &approx.Landmarks{Points: pts, Indices: idx}, nil
}

// A sampler of the user's own type cannot be saved: the loaded model
// predicts as the saved one, but a refit fails with ErrNotSaved (rather
// than silently refitting with another sampler) until the field is set
// again.
func TestSaveOwnSampler(t *testing.T) {
	train, test := smooth(t, 300, 50, false, 26)
	m := &model.KRR{Kernel: kernel.Gaussian{Gamma: 1}, Lambda: 1e-4, Approx: model.NystromKRR{M: 30, Sampler: firstRows{}}}
	if err := m.Fit(context.Background(), train.X, train.Y); err != nil {
		t.Fatal(err)
	}
	want := mustPredict(t, m, test.X)
	b, err := model.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	e, err := model.Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	loaded := e.(*model.KRR)
	if !slices.Equal(mustPredict(t, loaded, test.X), want) {
		t.Error("loaded model predicts differently")
	}
	err = loaded.Fit(context.Background(), train.X, train.Y)
	if !errors.Is(err, model.ErrNotSaved) {
		t.Fatalf("refit without the sampler: err = %v, want ErrNotSaved", err)
	}
	t.Logf("refit: %v", err)
	loaded.Approx = model.NystromKRR{M: 30, Sampler: firstRows{}}
	if err := loaded.Fit(context.Background(), train.X, train.Y); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(mustPredict(t, loaded, test.X), want) {
		t.Error("refit with the sampler set again predicts differently")
	}
}

// A damaged file is an error wrapping ErrFormat (and ErrChecksum for a
// flipped byte), never a panic or a silently different model.
func TestLoadDamagedFile(t *testing.T) {
	train, _ := smooth(t, 100, 1, false, 28)
	m := &model.KRR{Kernel: kernel.Gaussian{Gamma: 1}, Lambda: 1e-3}
	if err := m.Fit(context.Background(), train.X, train.Y); err != nil {
		t.Fatal(err)
	}
	b, err := model.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	flipped := bytes.Clone(b)
	flipped[len(flipped)/2] ^= 0x40
	if _, err := model.Unmarshal(flipped); !errors.Is(err, model.ErrChecksum) || !errors.Is(err, model.ErrFormat) {
		t.Errorf("flipped byte: err = %v, want ErrChecksum and ErrFormat", err)
	} else {
		checkStyle(t, "flipped byte", err)
	}
	for _, n := range []int{0, 5, 20, len(b) - 1} {
		if _, err := model.Unmarshal(b[:n]); !errors.Is(err, model.ErrFormat) {
			t.Errorf("truncated to %d of %d bytes: err = %v, want ErrFormat", n, len(b), err)
		} else {
			checkStyle(t, "truncated", err)
		}
	}
	path := filepath.Join(t.TempDir(), "not-a-model.lmk")
	if err := os.WriteFile(path, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = model.LoadFile(path)
	if !errors.Is(err, model.ErrFormat) || !strings.Contains(err.Error(), path) {
		t.Errorf("LoadFile of a text file: err = %v, want ErrFormat naming the file", err)
	}
	t.Logf("%v", err)
}

// Saved classifiers keep their calibration: a loaded model gives the same
// probabilities bit for bit (Platt sigmoids for the SVMs, the softmax
// temperature for the ridge models).
func TestSaveKeepsProbabilities(t *testing.T) {
	train, test := smooth(t, 300, 40, false, 29)
	cls := classLabels(train.Y)
	k := kernel.Gaussian{Gamma: 1}
	for _, c := range []model.Classifier{
		&model.SVM{Kernel: k, C: 2, Probability: true, Seed: 1},
		&model.BKASVM{Kernel: k, C: 2, Clusters: 3, Probability: true, Seed: 1},
		&model.KRR{Kernel: k, Lambda: 1e-3, Task: model.Classification, Probability: true, Seed: 1},
		&model.Falkon{Kernel: k, Lambda: 1e-5, M: 40, Task: model.Classification, Probability: true, Seed: 1},
	} {
		if err := c.Fit(context.Background(), train.X, cls); err != nil {
			t.Fatalf("%T: %v", c, err)
		}
		want, err := c.PredictProba(test.X)
		if err != nil {
			t.Fatalf("%T: %v", c, err)
		}
		b, err := model.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		e, err := model.Unmarshal(b)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.(model.Classifier).PredictProba(test.X)
		if err != nil {
			t.Fatalf("%T loaded: %v", c, err)
		}
		if !mat.Equal(got, want) {
			t.Errorf("%T: loaded model's probabilities differ", c)
		}
	}
}
