package model

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/approx/meka"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// configCase is an estimator whose every saved configuration field is set
// away from its default; want is the configuration Load must restore (nil:
// the estimator's own, as built).
type configCase struct {
	name string
	est  func() Estimator
	want func() Estimator
	data fixtureData
}

func configCases() []configCase {
	reg := newFixtureData(21, 60, 3, false, false)
	cls := newFixtureData(22, 60, 3, true, false)
	sp := newFixtureData(23, 60, 30, true, true)
	g := kernel.Gaussian{Gamma: 1.5}
	nys := func(s approx.Sampler) func() Estimator {
		return func() Estimator { return &KRR{Kernel: g, Lambda: 1e-3, Seed: 5, Approx: NystromKRR{M: 12, Sampler: s}} }
	}
	rls := approx.RecursiveRLS{Delta: 0.01, Oversample: 2, Accelerated: true, Workers: 1}
	bless := approx.BLESS{Q2: 4, Q: 3, Q1: 9, Lambda0: 2, Workers: 1}
	sub := func(x mat.Matrix, n int) mat.Matrix {
		if s, ok := x.(kernel.Sparse); ok {
			idx := make([]int, n)
			for i := range idx {
				idx[i] = 3 * i
			}
			return kernel.SubsetRows(s, idx)
		}
		_, d := x.Dims()
		return mat.DenseCopyOf(x.(*mat.Dense).Slice(0, n, 0, d))
	}
	weights := func(n int) []float64 {
		w := make([]float64, n)
		for i := range w {
			w[i] = 0.25 + float64(i)/float64(2*n)
		}
		return w
	}
	return []configCase{
		{"exact-backend", func() Estimator { return &KRR{Kernel: g, Lambda: 1e-3, Approx: ExactKRR{}} }, nil, reg},
		{"krr-probability", func() Estimator {
			return &KRR{Kernel: g, Lambda: 1e-3, Seed: 4, Task: Classification, Probability: true, Approx: NystromKRR{M: 20, Sampler: bless}}
		}, nil, cls},
		{"falkon-probability", func() Estimator {
			return &Falkon{Kernel: g, Lambda: 1e-4, M: 20, Seed: 4, Task: Classification, Probability: true}
		}, nil, cls},
		{"bkasvm-probability-local", func() Estimator {
			return &BKASVM{Kernel: g, C: 5, Clusters: 3, Seed: 4, Probability: true, Prediction: LocalPrediction}
		}, nil, cls},
		{"bkasvm-probability-global", func() Estimator {
			return &BKASVM{Kernel: g, C: 5, Clusters: 2, Seed: 5, Probability: true}
		}, nil, cls},
		{"nystrom-uniform", nys(approx.Uniform{}), nil, reg},
		{"nystrom-bless", nys(bless), nil, reg},
		{"nystrom-bless-pointer", nys(&bless), nys(bless), reg},
		{"nystrom-bless-lambda", nys(approx.BLESS{Lambda: 1e-3, Q2: 5}), nil, reg},
		{"nystrom-bless-r", nys(approx.BLESSR{Q2: 3.5, Workers: 2}), nil, reg},
		{"nystrom-clustered", nys(approx.RandomizedClustered{Dim: 2, MaxIter: 5, Subsample: 40, Tol: 1e-3, MaxBytes: 1 << 20}), nil, reg},
		{"nystrom-clustered-compression", nys(approx.RandomizedClustered{Compression: 0.5}), nil, reg},
		{"nystrom-kmeans", nys(approx.KMeansCenters{MaxIter: 7, Subsample: 50, Tol: 1e-3, MaxBytes: 1 << 20}), nil, reg},
		{"nystrom-exact-rls", nys(approx.ExactRLS{Ridge: 0.05}), nil, reg},
		{"nystrom-rls", nys(rls), nil, reg},
		{"nystrom-given-centers", func() Estimator {
			return &KRR{Kernel: g, Lambda: 1e-3, Approx: NystromKRR{Centers: sub(reg.x, 10)}}
		}, nil, reg},
		{"nystrom-given-sparse-centers", func() Estimator {
			return &KRR{Kernel: kernel.Gaussian{Gamma: 0.1}, Lambda: 1e-3, Task: Classification, Approx: NystromKRR{Centers: sub(sp.x, 15)}}
		}, nil, sp},
		{"nystrom-features", func() Estimator {
			return &KRR{Kernel: g, Lambda: 1e-3, Seed: 6, Approx: FeatureRidge{Features: NystromFeatures{M: 14, Sampler: rls,
				Nystrom: approx.Nystrom{Rank: 5, QR: true, Floor: 1e-8, MaxBytes: 1 << 24, Engine: kernel.Options{Workers: 2, BlockRows: 7, Float32: true}}}}}
		}, nil, reg},
		{"meka-features", func() Estimator {
			return &KRR{Kernel: g, Lambda: 1e-3, Seed: 7, Approx: FeatureRidge{Features: MEKAFeatures{MEKA: MEKAKRR{Options: meka.Options{Rank: 3, Clusters: 2, Landmarks: 6, Rho: 3, Epsilon: 0.01, Strategy: meka.RankProportional}}}}}
		}, nil, reg},
		{"meka-cg", func() Estimator {
			return &KRR{Kernel: g, Lambda: 1e-3, Seed: 8, Approx: &MEKAKRR{Options: meka.Options{Rank: 3, Clusters: 2, Strategy: meka.RankSame}, SkipPSD: true, Solver: "cg", CG: meka.CG{Tol: 1e-9, MaxIter: 50}}}
		}, nil, reg},
		{"fixed-features", func() Estimator {
			fm, err := approx.Nystrom{Rank: 6}.Fit(context.Background(), reg.x, g, &approx.Landmarks{Points: sub(reg.x, 9)})
			if err != nil {
				panic(err)
			}
			return &KRR{Kernel: g, Lambda: 1e-3, Approx: FeatureRidge{Features: FixedFeatures{Map: fm}}}
		}, nil, reg},
		{"falkon-sampler", func() Estimator {
			return &Falkon{Kernel: g, Lambda: 1e-4, M: 12, Seed: 9, Sampler: rls, Float32: true, BlockRows: 16, CacheKnm: true, Epsilon: 1e-10, Tol: 1e-9}
		}, nil, reg},
		{"falkon-float32-storage", func() Estimator {
			return &Falkon{Kernel: g, Lambda: 1e-4, M: 12, Seed: 16, Float32Storage: true}
		}, nil, reg},
		{"falkon-sparse-given-centers", func() Estimator {
			c := sub(sp.x, 15)
			return &Falkon{Kernel: kernel.Gaussian{Gamma: 0.1}, Lambda: 1e-4, Task: Classification, Centers: c,
				CenterWeights: weights(15), CenterLambda: 1e-3, Preconditioner: PrecondBLESS}
		}, nil, sp},
		{"falkon-warm-validation", func() Estimator {
			prev := &Falkon{Kernel: g, Lambda: 1e-2, M: 12, Seed: 10}
			if err := prev.Fit(context.Background(), reg.x, reg.y); err != nil {
				panic(err)
			}
			v := &ValidationSet{X: mat.DenseCopyOf(reg.xTest), Y: make([]float64, 8)}
			for i := range v.Y {
				v.Y[i] = float64(i) / 8
			}
			return &Falkon{Kernel: g, Lambda: 1e-4, Seed: 10, WarmStart: prev.Solution(), Validation: v, Patience: 3, MaxIter: 40}
		}, nil, reg},
		{"svm", func() Estimator {
			s := &SVM{Kernel: g, C: 5, CacheFloat32: true}
			s.MemoryLimit = 1 << 30 // by field: survives an embedded options struct
			return s
		}, nil, cls},
		{"bkasvm", func() Estimator {
			b := &BKASVM{Kernel: g, C: 5, Clusters: 3, Seed: 3}
			b.MemoryLimit = 1 << 30
			return b
		}, nil, cls},
	}
}

// predictProba is est's PredictProba, or an error when it has none.
func predictProba(est Estimator, x mat.Matrix) (*mat.Dense, error) {
	p, ok := est.(interface {
		PredictProba(mat.Matrix) (*mat.Dense, error)
	})
	if !ok {
		return nil, errors.New("no PredictProba")
	}
	return p.PredictProba(x)
}

// configOf returns a copy of est's configuration without its fitted state.
func configOf(est Estimator) any {
	switch m := est.(type) {
	case *KRR:
		c := *m
		c.fit = nil
		return c
	case *Falkon:
		c := *m
		c.fit = nil
		return c
	case *SVM:
		c := *m
		c.fit = nil
		return c
	case *BKASVM:
		c := *m
		c.fit = nil
		return c
	}
	panic("unknown estimator")
}

// Load restores every saved configuration field (samplers with all their
// options, given centers and weights, warm start, validation set, memory
// limits, the SVM's float32 cache), the loaded estimator re-saves to the
// same bytes, and refitting it on the same data gives the saved model's
// decision values bit for bit: the fit is deterministic (seeded, fixed
// reduction order) and the configuration is the same.
func TestSavedConfigRoundTrip(t *testing.T) {
	for _, c := range configCases() {
		t.Run(c.name, func(t *testing.T) {
			est := c.est()
			if err := est.Fit(context.Background(), c.data.x, c.data.y); err != nil {
				t.Fatal(err)
			}
			b, err := Marshal(est)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Unmarshal(b)
			if err != nil {
				t.Fatal(err)
			}
			want := c.est
			if c.want != nil {
				want = c.want
			}
			if g, w := configOf(got), configOf(want()); !reflect.DeepEqual(g, w) {
				t.Fatalf("loaded configuration\n%#v\nwant\n%#v", g, w)
			}
			again, err := Marshal(got)
			if err != nil || !bytes.Equal(again, b) {
				t.Fatalf("re-saved file differs (%v)", err)
			}
			d0, err := est.(decider).DecisionFunction(c.data.xTest)
			if err != nil {
				t.Fatal(err)
			}
			dl, err := got.(decider).DecisionFunction(c.data.xTest)
			if err != nil || !sameBits(dl.RawMatrix().Data, d0.RawMatrix().Data) {
				t.Fatalf("loaded estimator: decision values differ from the saved model's (%v)", err)
			}
			p0, probaErr := predictProba(est, c.data.xTest)
			if strings.Contains(c.name, "probability") && probaErr != nil {
				t.Fatalf("fitted with Probability: %v", probaErr)
			}
			if probaErr == nil {
				pl, err := predictProba(got, c.data.xTest)
				if err != nil || !sameBits(pl.RawMatrix().Data, p0.RawMatrix().Data) {
					t.Fatalf("loaded estimator: probabilities differ from the saved model's (%v)", err)
				}
			} else if _, err := predictProba(got, c.data.xTest); err == nil {
				t.Fatalf("loaded estimator gives probabilities, the saved one refused: %v", probaErr)
			}
			if err := got.Fit(context.Background(), c.data.x, c.data.y); err != nil {
				t.Fatal(err)
			}
			if probaErr == nil {
				pr, err := predictProba(got, c.data.xTest)
				if err != nil || !sameBits(pr.RawMatrix().Data, p0.RawMatrix().Data) {
					t.Fatalf("refitted loaded estimator: probabilities differ from the saved model's (%v)", err)
				}
			}
			d1, err := got.(decider).DecisionFunction(c.data.xTest)
			if err != nil {
				t.Fatal(err)
			}
			if !sameBits(d1.RawMatrix().Data, d0.RawMatrix().Data) {
				t.Fatalf("refitted loaded estimator: decision values differ from the saved model's")
			}
		})
	}
}

// customBackend is a KRRApprox defined outside the module (as far as Save
// knows): exact KRR through NystromKRR on all rows.
type customBackend struct{}

func (customBackend) FitKRR(ctx context.Context, p KRRProblem) (KRRPredictor, KRRInfo, error) {
	n, _ := p.X.Dims()
	return NystromKRR{M: n}.FitKRR(ctx, p)
}

// Configuration Save cannot write — a sampler, KRR backend or feature
// mapper of a type defined outside the module — is saved as not saved with
// its type name: the loaded estimator predicts bit-identically, holds a
// NotSaved marker naming the type, refuses to refit with ErrNotSaved, and
// re-saves to the same bytes; Unsaved names the field. Setting the field
// again makes it refit.
func TestNotSavedMarker(t *testing.T) {
	reg := newFixtureData(24, 40, 3, false, false)
	g := kernel.Gaussian{Gamma: 1.5}
	for _, c := range []struct {
		est    Estimator
		want   any    // the loaded marker
		field  string // the type Unsaved names
		marker func(Estimator) any
		reset  func(Estimator)
	}{
		{&KRR{Kernel: g, Lambda: 1e-3, Approx: NystromKRR{M: 10, Sampler: fixtureSampler{}}},
			NystromKRR{M: 10, Sampler: NotSaved{Type: "model.fixtureSampler"}}, "model.fixtureSampler",
			func(e Estimator) any { return e.(*KRR).Approx },
			func(e Estimator) { e.(*KRR).Approx = NystromKRR{M: 10, Sampler: fixtureSampler{}} }},
		{&KRR{Kernel: g, Lambda: 1e-3, Approx: customBackend{}}, NotSaved{Type: "model.customBackend"}, "model.customBackend",
			func(e Estimator) any { return e.(*KRR).Approx },
			func(e Estimator) { e.(*KRR).Approx = customBackend{} }},
		{&Falkon{Kernel: g, Lambda: 1e-4, M: 10, Sampler: &fixtureSampler{}}, NotSaved{Type: "*model.fixtureSampler"}, "*model.fixtureSampler",
			func(e Estimator) any { return e.(*Falkon).Sampler },
			func(e Estimator) { e.(*Falkon).Sampler = fixtureSampler{} }},
	} {
		if err := c.est.Fit(context.Background(), reg.x, reg.y); err != nil {
			t.Fatal(err)
		}
		b, err := Marshal(c.est)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Unmarshal(b)
		if err != nil {
			t.Fatal(err)
		}
		if m := c.marker(got); m != c.want {
			t.Errorf("loaded %#v, want %#v", m, c.want)
		}
		p0, _ := c.est.Predict(reg.xTest)
		p1, err := got.Predict(reg.xTest)
		if err != nil || !sameBits(p0, p1) {
			t.Errorf("%T: loaded model predicts differently (%v)", c.want, err)
		}
		if again, err := Marshal(got); err != nil || !bytes.Equal(again, b) {
			t.Errorf("%#v: re-saved file differs (%v)", c.want, err)
		}
		if u := Unsaved(got); len(u) != 1 || !strings.HasSuffix(u[0], ": "+c.field) {
			t.Errorf("Unsaved = %q, want one field of type %s", u, c.field)
		}
		if u := Unsaved(c.est); u != nil {
			t.Errorf("Unsaved of the original = %q", u)
		}
		err = got.Fit(context.Background(), reg.x, reg.y)
		if !errors.Is(err, ErrNotSaved) {
			t.Errorf("%#v: refit error %v, want ErrNotSaved", c.want, err)
		}
		c.reset(got)
		if err := got.Fit(context.Background(), reg.x, reg.y); err != nil {
			t.Errorf("%#v: refit after setting the field again: %v", c.want, err)
		}
		if p2, _ := got.Predict(reg.xTest); !sameBits(p0, p2) {
			t.Errorf("%#v: refit after setting the field again predicts differently", c.want)
		}
	}
}

// Every KRR backend, feature mapper and sampler type of this module is
// saved with its options, not as NotSaved: the test lists those Save knows
// and fails when a new type appears in model or approx (found by its
// compile-time interface check, `var _ KRRApprox = X{}`), so that it gets a
// codec in persist_krr.go or persist_config.go before a saved model of it
// refuses to refit.
func TestPersistKnowsEveryBackendType(t *testing.T) {
	known := map[string]bool{
		"KRRApprox ExactKRR": true, "KRRApprox NystromKRR": true, "KRRApprox FeatureRidge": true, "KRRApprox MEKAKRR": true,
		"KRRApprox NotSaved": true, "FeatureMapper NystromFeatures": true, "FeatureMapper RFFFeatures": true,
		"FeatureMapper MEKAFeatures": true, "FeatureMapper FixedFeatures": true, "FeatureMapper NotSaved": true,
		"Sampler BLESS": true, "Sampler BLESSR": true, "Sampler KMeansCenters": true, "Sampler RandomizedClustered": true,
		"Sampler ExactRLS": true, "Sampler RecursiveRLS": true, "Sampler Uniform": true, "Sampler NotSaved": true,
	}
	re := regexp.MustCompile(`_\s+(?:approx\.)?(KRRApprox|FeatureMapper|Sampler)\s*=\s*\(?\*?([A-Z]\w*)`)
	var files []string
	for _, dir := range []string{".", "../approx"} {
		f, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f...)
	}
	found := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			found++
			if !known[m[1]+" "+m[2]] {
				t.Errorf("%s: %s %s has no saved form: add it to encBackend/encSampler (persist_*.go) and to this list", f, m[1], m[2])
			}
		}
	}
	if found < len(known) {
		t.Errorf("found %d interface checks, want at least %d: the pattern no longer matches the sources", found, len(known))
	}
}
