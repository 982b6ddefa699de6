package model

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/approx/meka"
	"github.com/landmark-ml/landmark/internal/binfmt"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// persistCase is one fitted estimator configuration to round-trip.
type persistCase struct {
	name string
	est  func() Estimator
	data conformanceCase
}

// sparseData names the conformanceCase of sparseConformance: a persistCase
// on it fits on the CSR form of data.x (its non-zeros), and predicts on the
// CSR form of data.xTest as well as the dense one.
const sparseData = "sparse-csr"

func (c persistCase) sparse() bool { return c.data.name == sparseData }

// sparseConformance is a sparse classification set (density 0.1, three
// classes) in the dense form conformanceCase holds; persistCase.sparse
// reports it.
func sparseConformance(seed uint64, n, nTest, d int) conformanceCase {
	rng := rand.New(rand.NewPCG(seed, 7))
	x, y := sparseClassification(rng, n, d, 0.1)
	xt, _ := sparseClassification(rng, nTest, d, 0.1)
	return conformanceCase{name: sparseData, x: x.ToDense(), y: y, xTest: xt.ToDense()}
}

// persistCases covers every estimator and every KRR backend (each predictor
// kind and feature map), binary, multi-class and regression.
func persistCases() []persistCase {
	reg, bin, multi := conformanceRegression(11), conformanceBinary(12), conformanceMulticlass(13)
	sp := sparseConformance(14, 120, 30, 50)
	g := kernel.Gaussian{Gamma: 1.5}
	return []persistCase{
		{"krr-exact-regression", func() Estimator {
			m := &KRR{Kernel: g, Lambda: 1e-3}
			m.Workers = 1 // by field: survives an embedded options struct
			return m
		}, reg},
		{"krr-exact-multiclass", func() Estimator {
			return &KRR{Kernel: kernel.Laplacian{Gamma: 0.7}, Lambda: 1e-3, Task: Classification}
		}, multi},
		{"krr-default-kernel-binary", func() Estimator { return &KRR{Lambda: 1e-2, Task: Classification} }, bin},
		{"krr-polynomial", func() Estimator {
			return &KRR{Kernel: kernel.Polynomial{Degree: 2, Gamma: 0.5, Coef0: 1}, Lambda: 1e-2}
		}, reg},
		{"krr-nystrom", func() Estimator {
			return &KRR{Kernel: g, Lambda: 1e-4, Seed: 3, Approx: NystromKRR{M: 20}}
		}, reg},
		{"krr-nystrom-features-qr", func() Estimator {
			return &KRR{Kernel: g, Lambda: 1e-4, Seed: 4, Approx: FeatureRidge{Features: NystromFeatures{M: 25, Nystrom: approx.Nystrom{Rank: 10, QR: true, Engine: kernel.Options{BlockRows: 7}}}}}
		}, reg},
		{"krr-rff", func() Estimator {
			return &KRR{Kernel: g, Lambda: 1e-3, Seed: 5, Task: Classification, Approx: FeatureRidge{Features: RFFFeatures{RFF: approx.RFF{Features: 40}}}}
		}, multi},
		{"krr-meka", func() Estimator {
			return &KRR{Kernel: g, Lambda: 1e-3, Seed: 6, Approx: &MEKAKRR{Options: meka.Options{Rank: 4, Clusters: 3}}}
		}, reg},
		{"krr-meka-features", func() Estimator {
			return &KRR{Kernel: g, Lambda: 1e-3, Seed: 7, Approx: FeatureRidge{Features: mekaMapper{opt: meka.Options{Rank: 4, Clusters: 2, PSD: true}}}}
		}, reg},
		{"krr-meka-features-builtin", func() Estimator {
			return &KRR{Kernel: g, Lambda: 1e-3, Seed: 8, Approx: FeatureRidge{Features: MEKAFeatures{MEKA: MEKAKRR{Options: meka.Options{Rank: 3, Clusters: 2}}}}}
		}, multi},
		{"falkon-regression", func() Estimator { return &Falkon{Kernel: g, Lambda: 1e-4, M: 20, Seed: 8, MaxIter: 5} }, reg},
		{"falkon-multiclass", func() Estimator {
			return &Falkon{Kernel: g, Lambda: 1e-4, M: 30, Seed: 9, Task: Classification}
		}, multi},
		{"svm-binary", func() Estimator { return &SVM{Kernel: g, C: 10, ClassWeights: map[float64]float64{3: 2, 7: 0.5}} }, bin},
		{"svm-ovo", func() Estimator { return &SVM{Kernel: g, C: 10} }, multi},
		{"svm-ovo-probability", func() Estimator { return &SVM{Kernel: g, C: 10, Probability: true, Seed: 3} }, multi},
		{"svm-ovr-nobias", func() Estimator { return &SVM{C: 10, Multiclass: OneVsRest, NoBias: true} }, multi},
		{"bkasvm-global", func() Estimator { return &BKASVM{Kernel: g, C: 10, Clusters: 3, Seed: 1} }, multi},
		{"bkasvm-local-sketch", func() Estimator {
			return &BKASVM{C: 10, Clusters: 4, Sketch: 1, Prediction: LocalPrediction, Multiclass: OneVsRest, Seed: 2}
		}, multi},
		{"svm-sparse-probability", func() Estimator {
			return &SVM{Kernel: kernel.Gaussian{Gamma: 0.1}, C: 4, Probability: true, Seed: 3}
		}, sp},
		{"svm-sparse-laplacian-ovr", func() Estimator {
			return &SVM{Kernel: kernel.Laplacian{Gamma: 0.1}, C: 2, Multiclass: OneVsRest}
		}, sp},
		{"bkasvm-sparse-local", func() Estimator {
			return &BKASVM{Kernel: kernel.Gaussian{Gamma: 0.1}, C: 4, Clusters: 3, Prediction: LocalPrediction, Seed: 2}
		}, sp},
		{"svr", func() Estimator { return &SVR{Kernel: g, C: 10, Epsilon: 0.05, CacheFloat32: true} }, reg},
		{"svr-sparse-laplacian", func() Estimator {
			return &SVR{Kernel: kernel.Laplacian{Gamma: 0.1}, C: 2, AbsoluteLoss: true, MaxIter: 100000}
		}, sp},
		{"krr-exact-sparse", func() Estimator {
			return &KRR{Kernel: kernel.Polynomial{Degree: 2, Gamma: 0.1, Coef0: 1}, Lambda: 1e-3, Task: Classification}
		}, sp},
	}
}

// mekaMapper fits a MEKA feature map (a FeatureMapper for FeatureRidge), to
// exercise saving a MEKA map inside LinearFeatures.
type mekaMapper struct{ opt meka.Options }

func (m mekaMapper) FitMap(ctx context.Context, x mat.Matrix, k kernel.Kernel, rng *rand.Rand) (approx.FeatureMap, error) {
	return meka.Fit(ctx, x, k, m.opt, rng)
}

func newTestRand() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }

func fitCase(t *testing.T, c persistCase) Estimator {
	t.Helper()
	est := c.est()
	var x mat.Matrix = c.data.x
	if c.sparse() {
		x = csrOf(t, c.data.x)
	}
	if err := est.Fit(context.Background(), x, c.data.y); err != nil {
		t.Fatalf("%s: fit: %v", c.name, err)
	}
	return est
}

type decider interface {
	DecisionFunction(x mat.Matrix) (*mat.Dense, error)
}

// A reloaded model predicts bit-identically (decision values included), and
// saving it again gives the same bytes: every piece of state survives.
func TestSaveLoadRoundTrip(t *testing.T) {
	for _, c := range persistCases() {
		t.Run(c.name, func(t *testing.T) {
			est := fitCase(t, c)
			var buf bytes.Buffer
			if err := Save(&buf, est); err != nil {
				t.Fatal(err)
			}
			saved := bytes.Clone(buf.Bytes())
			got, err := Load(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if buf.Len() != 0 {
				t.Errorf("Load left %d bytes unread", buf.Len())
			}
			// Dim: the training columns, fitted and reloaded (0 unfitted).
			_, d := c.data.xTest.Dims()
			type dimmer interface{ Dim() int }
			if a, b := est.(dimmer).Dim(), got.(dimmer).Dim(); a != d || b != d {
				t.Errorf("Dim() = %d fitted, %d reloaded; want %d", a, b, d)
			}
			if z := c.est().(dimmer).Dim(); z != 0 {
				t.Errorf("Dim() = %d before Fit, want 0", z)
			}
			inputs := []mat.Matrix{c.data.xTest}
			if c.sparse() {
				inputs = append(inputs, csrOf(t, c.data.xTest))
			}
			for _, xt := range inputs {
				want, err := est.Predict(xt)
				if err != nil {
					t.Fatal(err)
				}
				pred, err := got.Predict(xt)
				if err != nil {
					t.Fatal(err)
				}
				if !sameBits(pred, want) {
					t.Errorf("predictions differ after reload:\n got %v\nwant %v", pred, want)
				}
				if dec, ok := est.(decider); ok { // SVR predicts values only
					dw, err := dec.DecisionFunction(xt)
					if err != nil {
						t.Fatal(err)
					}
					dg, err := got.(decider).DecisionFunction(xt)
					if err != nil {
						t.Fatal(err)
					}
					if !sameBits(dg.RawMatrix().Data, dw.RawMatrix().Data) {
						t.Errorf("decision values differ after reload")
					}
				}
				if s, ok := est.(*SVM); ok && s.Probability {
					pw, err := s.PredictProba(xt)
					if err != nil {
						t.Fatal(err)
					}
					pg, err := got.(*SVM).PredictProba(xt)
					if err != nil {
						t.Fatal(err)
					}
					if !sameBits(pg.RawMatrix().Data, pw.RawMatrix().Data) {
						t.Errorf("probabilities differ after reload")
					}
				}
			}
			again, err := Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, saved) {
				t.Errorf("re-saving the loaded model gives different bytes (%d vs %d)", len(again), len(saved))
			}
		})
	}
}

// The reloaded estimator carries the configuration and fit information.
func TestLoadRestoresConfigAndInfo(t *testing.T) {
	c := persistCases()[1] // krr-exact-multiclass
	est := fitCase(t, c).(*KRR)
	b, err := Marshal(est)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	k := got.(*KRR)
	if k.Kernel != est.Kernel || k.Lambda != est.Lambda || k.Task != est.Task || k.Info() != est.Info() {
		t.Errorf("got %+v info %+v, want %+v info %+v", k, k.Info(), est, est.Info())
	}
	if !sameBits(k.Classes(), []float64{0, 1, 2}) {
		t.Errorf("classes %v", k.Classes())
	}

	s := fitCase(t, persistCases()[12]).(*SVM) // svm-binary
	b, _ = Marshal(s)
	g, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	gs := g.(*SVM)
	wi := s.Info()
	gi := gs.Info()
	if gs.C != 10 || gs.ClassWeights[3] != 2 || gs.ClassWeights[7] != 0.5 || gi.SV != wi.SV || len(gi.Tasks) != 1 || gi.Tasks[0] != wi.Tasks[0] {
		t.Errorf("svm config/info not restored: %+v %+v", gs, gi)
	}
}

func TestSaveFile(t *testing.T) {
	c := persistCases()[0]
	est := fitCase(t, c)
	path := filepath.Join(t.TempDir(), "m.lmk")
	if err := SaveFile(path, est); err != nil {
		t.Fatal(err)
	}
	got, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := est.Predict(c.data.xTest)
	b, _ := got.Predict(c.data.xTest)
	if !sameBits(a, b) {
		t.Error("file round trip changed predictions")
	}
	// Trailing garbage after a valid file is an error for LoadFile.
	raw, _ := os.ReadFile(path)
	if err := os.WriteFile(path, append(raw, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFile(path); !errors.Is(err, ErrFormat) {
		t.Errorf("trailing byte: err = %v, want ErrFormat", err)
	}
	if _, err := LoadFile(filepath.Join(t.TempDir(), "missing")); err == nil || errors.Is(err, ErrFormat) {
		t.Errorf("missing file: err = %v, want a file error", err)
	}
}

func TestSaveErrors(t *testing.T) {
	var buf bytes.Buffer
	for _, est := range []Estimator{&KRR{Lambda: 1}, &Falkon{Lambda: 1}, &SVM{}, &BKASVM{}, &SVR{}} {
		if err := Save(&buf, est); !errors.Is(err, ErrNotFitted) {
			t.Errorf("%T unfitted: err = %v, want ErrNotFitted", est, err)
		}
	}
	if err := Save(&buf, otherEstimator{}); err == nil {
		t.Error("foreign estimator saved")
	}
	c := conformanceRegression(1)
	m := &KRR{Kernel: scaledLinear{}, Lambda: 1}
	if err := m.Fit(context.Background(), c.x, c.y); err != nil {
		t.Fatal(err)
	}
	if err := Save(&buf, m); err == nil {
		t.Error("kernel without a Spec saved")
	}
	if buf.Len() != 0 {
		t.Errorf("failed saves wrote %d bytes", buf.Len())
	}
}

type otherEstimator struct{}

func (otherEstimator) Fit(context.Context, mat.Matrix, []float64) error { return nil }
func (otherEstimator) Predict(mat.Matrix) ([]float64, error)            { return nil, nil }

// scaledLinear is a kernel of this test only: kernel.SpecOf does not know it.
type scaledLinear struct{ kernel.Linear }

// rewrite replaces bytes of a saved file and recomputes its CRC-32C, so that
// the damage reaches the payload decoder.
func rewrite(b []byte, at int, repl ...byte) []byte {
	out := bytes.Clone(b)
	copy(out[at:], repl)
	n := len(out) - 4
	binary.LittleEndian.PutUint32(out[n:], crc32.Checksum(out[:n], crc32.MakeTable(crc32.Castagnoli)))
	return out
}

// Truncations, bit flips, wrong versions, wrong types and inconsistent
// contents are errors wrapping ErrFormat (and the right sub-sentinel), never
// panics.
func TestLoadRejectsDamagedFiles(t *testing.T) {
	good := make(map[string][]byte)
	for _, c := range persistCases() {
		b, err := Marshal(fitCase(t, c))
		if err != nil {
			t.Fatal(err)
		}
		good[c.name] = b
	}
	for name, b := range good {
		// Files of a few KB are checked at every byte; larger ones at about
		// 1500 evenly spaced bytes (keeps the test under a few seconds).
		step := max(1, len(b)/1500)
		// Every truncation.
		for n := 0; n < len(b); n += step {
			if _, err := Unmarshal(b[:n]); !errors.Is(err, ErrFormat) {
				t.Fatalf("%s cut to %d of %d bytes: err = %v", name, n, len(b), err)
			}
		}
		// A CRC detects every single-bit error; flip one bit in every byte.
		for i := 0; i < len(b); i += step {
			bad := bytes.Clone(b)
			bad[i] ^= 1 << (i % 8)
			if _, err := Unmarshal(bad); !errors.Is(err, ErrFormat) {
				t.Fatalf("%s bit flip at byte %d: err = %v", name, i, err)
			}
		}
		// Payload damage with a recomputed checksum must still be caught by
		// the decoder or give a model (never a panic); check every byte.
		tl := int(b[10])
		for i := 19 + tl; i < len(b)-4; i += step {
			est, err := Unmarshal(rewrite(b, i, b[i]^0xff))
			if err == nil {
				// Decoded: prediction must not panic either.
				_, _ = est.Predict(mat.NewDense(2, 3, []float64{0.1, 0.2, 0.3, -0.1, 0, 0.5}))
				_, _ = est.Predict(mat.NewDense(1, 2, []float64{0.1, 0.2}))
			} else if !errors.Is(err, ErrFormat) {
				t.Fatalf("%s payload byte %d: err = %v, want ErrFormat", name, i, err)
			}
		}
	}
	b := good["svm-ovo"]
	if _, err := Unmarshal(rewrite(b, 8, binfmt.Version+1, 0)); !errors.Is(err, ErrVersion) || !errors.Is(err, ErrFormat) {
		t.Errorf("version %d: err = %v, want ErrVersion and ErrFormat", binfmt.Version+1, err)
	}
	bad := bytes.Clone(b)
	bad[len(bad)-1] ^= 0x80
	if _, err := Unmarshal(bad); !errors.Is(err, ErrChecksum) {
		t.Errorf("bad CRC: err = %v, want ErrChecksum", err)
	}
	if _, err := Unmarshal(rewrite(b, 11+8, 'X')); !errors.Is(err, ErrFormat) {
		t.Errorf("wrong tag: err = %v", err)
	}
	// A feature-map file is not an estimator, and vice versa.
	var mb bytes.Buffer
	rff, _ := approx.RFF{Features: 3}.Fit(kernel.Gaussian{Gamma: 1}, 2, newTestRand())
	if err := approx.SaveMap(&mb, rff); err != nil {
		t.Fatal(err)
	}
	if _, err := Unmarshal(mb.Bytes()); !errors.Is(err, ErrFormat) {
		t.Errorf("feature map as estimator: err = %v", err)
	}
	if _, err := approx.LoadMap(bytes.NewReader(b)); !errors.Is(err, ErrFormat) {
		t.Errorf("estimator as feature map: err = %v", err)
	}
	if _, err := Unmarshal([]byte("LANDMARX\x01\x00")); !errors.Is(err, ErrFormat) {
		t.Errorf("bad magic: err = %v", err)
	}
}

// A loaded estimator carries the configuration it was fitted with: refitting
// it on the same data reproduces the original predictions bit for bit. The
// one exception among the cases, a custom FeatureMapper, is not saved: it
// loads as NotSaved, and refitting fails with ErrNotSaved.
func TestLoadedConfigRefits(t *testing.T) {
	for _, c := range persistCases() {
		t.Run(c.name, func(t *testing.T) {
			est := fitCase(t, c)
			b, err := Marshal(est)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Unmarshal(b)
			if err != nil {
				t.Fatal(err)
			}
			if c.name == "krr-meka-features" {
				want := FeatureRidge{Features: NotSaved{Type: "model.mekaMapper"}}
				if a := got.(*KRR).Approx; a != want {
					t.Errorf("custom backend restored as %#v, want %#v", a, want)
				}
				if u := Unsaved(got); len(u) != 1 || u[0] != "Approx.Features: model.mekaMapper" {
					t.Errorf("Unsaved = %q", u)
				}
				if err := got.Fit(context.Background(), c.data.x, c.data.y); !errors.Is(err, ErrNotSaved) {
					t.Errorf("refit with a backend that was not saved: %v", err)
				}
				return
			}
			// Refit on the data in the form fitCase used (sparse cases as
			// CSR: a dense refit of a regression differs by rounding).
			var x mat.Matrix = c.data.x
			if c.sparse() {
				x = csrOf(t, c.data.x)
			}
			if err := got.Fit(context.Background(), x, c.data.y); err != nil {
				t.Fatal(err)
			}
			want, _ := est.Predict(c.data.xTest)
			pred, err := got.Predict(c.data.xTest)
			if err != nil {
				t.Fatal(err)
			}
			if !sameBits(pred, want) {
				t.Errorf("refitted loaded estimator predicts differently")
			}
		})
	}
}
