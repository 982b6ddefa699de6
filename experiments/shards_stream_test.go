package experiments

import (
	"context"
	"errors"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// A falkon fit over the cap streams the shards: it is the model
// model.Falkon.FitShardSet fits with the same options (the same
// coefficients, bit for bit), with the manifest's standardization on read
// as the fit's scaling, its test set scored as Predict scores it, one
// notice and a pass event per pass.
func TestFitManifestStreamed(t *testing.T) {
	man, _ := higgsSet(t, 3000)
	test, _ := higgsSet(t, 120)
	for _, scale := range []string{"", "standardize"} {
		// 2 MB: below the in-memory plan (3·672 kB of X and 0.9 MB),
		// above the streamed one (1.5 MB: row blocks, not X).
		s := shardSpecFor(t, man, "falkon", 2_000_000)
		s.Dataset.TestPath = test
		s.Dataset.Scale = scale
		sp, err := planShards(s)
		if err != nil || sp.fits() {
			t.Fatalf("plan %+v, err %v: want over the cap", sp, err)
		}
		var notes []string
		passes, iters := 0, 0
		res, err := FitWith(context.Background(), s, FitOptions{Notify: func(m string) { notes = append(notes, m) }, Limit: "--memory 2M",
			Progress: func(e Event) {
				switch e.Kind {
				case EventPass:
					passes++
					if e.Rows != 3000 || e.Pass != passes || e.RowsPerSec <= 0 {
						t.Errorf("pass event %+v", e)
					}
				case EventIteration:
					iters++
				}
			}})
		if err != nil {
			t.Fatal(err)
		}
		// The plan's engine scratch grows with the workers (GOMAXPROCS):
		// 3.86 MB at 2, 3.89 MB under go test ./... here, 5 MB at 8.
		if len(notes) != 1 || !regexp.MustCompile(`^X is 672 kB \(3,000 × 28 float64\); with the estimator's plan beside it the fit in memory would need [0-9.]+ MB, over --memory 2M: streaming it from the shards on every pass$`).MatchString(notes[0]) {
			t.Errorf("notices %q", notes)
		}
		if res.Storage != StorageStreamed || res.Train != nil || res.NTrain != 3000 || res.NTest != 120 || passes < 2 || iters < 1 {
			t.Errorf("storage %s train %v n %d/%d, %d passes %d iterations", res.Storage, res.Train, res.NTrain, res.NTest, passes, iters)
		}
		// The same fit by hand.
		want := model.Falkon{Kernel: kernel.Gaussian{Gamma: 1.0 / 18}, Lambda: 1e-6, M: 40, Seed: fitSeed(s.Seed, 1<<20, 0)}
		set, err := model.OpenShards(man)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := ReadManifest(man)
		if scale != "" {
			set.Mean, set.Std = m.Mean, m.Std
		}
		if err := want.FitShardSet(context.Background(), set); err != nil {
			t.Fatal(err)
		}
		got := res.Estimator.(*model.Falkon)
		ga, wa := got.Solution(), want.Solution()
		if !mat.Equal(ga.Coef, wa.Coef) || !mat.Equal(ga.Centers, wa.Centers) {
			t.Errorf("scale %q: centers or coefficients differ from FitShardSet's", scale)
		}
		// Predict applies the manifest's standardization to raw rows.
		xt, yt, err := readShards(context.Background(), test, mustManifest(t, test), 0)
		if err != nil {
			t.Fatal(err)
		}
		xs := mat.DenseCopyOf(xt)
		if scale != "" {
			for i := range 120 {
				for j, v := range xs.RawRowView(i) {
					xs.Set(i, j, (v-m.Mean[j])/m.Std[j])
				}
			}
		}
		p1, _ := res.Predict(xt)
		p2, _ := want.Predict(xs)
		acc := 0.0
		for i := range p1 {
			if p1[i] != p2[i] {
				t.Fatalf("scale %q: prediction %d: %v vs FitShardSet's %v", scale, i, p1[i], p2[i])
			}
			if p1[i] == yt[i] {
				acc++
			}
		}
		if a, _ := res.TestMetric("accuracy"); math.Abs(a.Mean-acc/120) > 1e-15 {
			t.Errorf("test accuracy %v, by hand %v", a.Mean, acc/120)
		}
	}
}

func mustManifest(t *testing.T, p string) *shard.Manifest {
	t.Helper()
	m, err := ReadManifest(p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Streamed fits refuse the data options that need the rows in memory,
// naming the key; other estimators over the cap are refused (ErrMemory).
func TestFitManifestStreamedRefusals(t *testing.T) {
	man, _ := higgsSet(t, 300)
	for key, edit := range map[string]func(*DatasetSpec){
		"test_fraction":      func(d *DatasetSpec) { d.TestFraction = 0.2 },
		"subsample":          func(d *DatasetSpec) { d.Subsample = 100 },
		"scale":              func(d *DatasetSpec) { d.Scale = "minmax" },
		"standardize_target": func(d *DatasetSpec) { d.StandardizeTarget = true },
	} {
		s := shardSpecFor(t, man, "falkon", 90_000)
		edit(&s.Dataset)
		_, err := Fit(context.Background(), s)
		if !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), key+" needs the training rows in memory") {
			t.Errorf("%s: err %v", key, err)
		}
	}
	// 60,000 bytes: under X's 67,200 (300 × 28 float64), held once.
	_, err := Fit(context.Background(), shardSpecFor(t, man, "svm", 60_000))
	if !errors.Is(err, model.ErrMemory) || !strings.Contains(err.Error(), "or fit falkon, which streams the shards") {
		t.Errorf("svm over the cap: err %v", err)
	}
	_ = datasets.ErrInput
}

// overLine says X is over the cap only when it is: X of 672 kB under a 2
// MB cap is streamed because X and the plan beside it (3.86 MB) are over
// it, and says so (it said "X is 672 kB …, over --memory 2M"); X of 11.2
// GB (two copies counted) over a 2 GB cap is named as before.
func TestOverLine(t *testing.T) {
	small := &shardPlan{m: &shard.Manifest{N: 3000, D: 28}, x: 672000, need: 3860000, copies: 1, limit: 2 << 20}
	big := &shardPlan{m: &shard.Manifest{N: 50000000, D: 28}, x: 11200000000, need: 12e9, copies: 1, limit: 2e9}
	opt := FitOptions{Limit: "--memory 2M"}
	if got, want := overLine(small, opt), "X is 672 kB (3,000 × 28 float64); with the estimator's plan beside it the fit in memory would need 3.86 MB, over --memory 2M"; got != want {
		t.Errorf("X under the cap: %q, want %q", got, want)
	}
	opt.Limit = "--memory 2G"
	if got, want := overLine(big, opt), "X is 11.2 GB (50,000,000 × 28 float64), over --memory 2G"; got != want {
		t.Errorf("X over the cap: %q, want %q", got, want)
	}
}
