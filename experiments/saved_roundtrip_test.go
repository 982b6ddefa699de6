package experiments

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// roundTripData is 80 training and 10 test rows of 3 columns, uniform in
// [−1, 1] from PCG(seed, 3), with targets sin(2x₀) + x₁ (regression) or 3
// classes by the signs of x₀ and x₁.
func roundTripData(seed uint64, classes bool) (x, xt *mat.Dense, y []float64) {
	rng := rand.New(rand.NewPCG(seed, 3))
	draw := func(n int) *mat.Dense {
		m := mat.NewDense(n, 3, nil)
		for i := range m.RawMatrix().Data {
			m.RawMatrix().Data[i] = 2*rng.Float64() - 1
		}
		return m
	}
	x, xt = draw(80), draw(10)
	y = make([]float64, 80)
	for i := range y {
		a, b := x.At(i, 0), x.At(i, 1)
		switch {
		case !classes:
			y[i] = math.Sin(2*a) + b
		case a > 0 && b > 0:
			y[i] = 2
		case a > 0 || b > 0:
			y[i] = 1
		}
	}
	return x, xt, y
}

// roundTripConfig is the Config of one estimator × backend of the table for
// the round-trip test: the required λ or C and the backend's sizes (m = 15
// landmarks or features, rank 5 for the QR maps, MEKA's rank 3 on 2
// clusters, BKA-SVM's 3 clusters).
func roundTripConfig(e EstimatorEntry, backend string, task model.Task) Config {
	o := map[string]any{}
	switch e.Name {
	case "krr":
		o["lambda"] = 1e-3
		switch {
		case backend == "meka":
			o["rank"], o["clusters"] = 3.0, 2.0
		case backend != "" && backend != "exact":
			o["m"] = 15.0
		}
		if strings.HasSuffix(backend, "-qr") {
			o["rank"] = 5.0
		}
	case "falkon":
		o["lambda"], o["m"] = 1e-4, 15.0
	case "bka-svm":
		o["c"], o["clusters"] = 5.0, 3.0
	default:
		o["c"] = 5.0
	}
	return Config{Task: task, Kernel: kernel.Spec{Type: "gaussian", Gamma: 1.5}, Approx: backend, Options: o, N: 80, Seed: 7}
}

// roundTripDecider is an estimator's decision function.
type roundTripDecider interface {
	DecisionFunction(mat.Matrix) (*mat.Dense, error)
}

// Every estimator × backend of the table (experiments' names, as a YAML
// spec names them), plus FALKON's warm start and BLESS-path centers (the
// runner's warm_start and approx path) and every estimator's probability
// option (probabilities compared too), saved and loaded, refits on the same
// data to the saved model: decision values equal bit for bit (the fits are
// seeded and deterministic, so any configuration lost in the file — a
// sampler, a backend, an option — shows as a difference; before format
// version 4 a BLESS Nyström KRR refitted as exact KRR). KRR's rank is
// compared too.
func TestSavedFitRefitsEveryBackend(t *testing.T) {
	reg, regT, yReg := roundTripData(1, false)
	cls, clsT, yCls := roundTripData(2, true)
	type row struct {
		name    string
		est     model.Estimator
		x, xt   *mat.Dense
		y       []float64
		entry   EstimatorEntry
		backend string
	}
	var rows []row
	for _, e := range Estimators() {
		task, x, xt, y := model.Regression, reg, regT, yReg
		if !strings.Contains(strings.Join(e.Tasks, " "), TaskRegression) {
			task, x, xt, y = model.Classification, cls, clsT, yCls
		}
		for _, b := range append([]string{""}, e.Approx...) {
			est, err := NewEstimator(e.Name, roundTripConfig(e, b, task))
			if err != nil {
				t.Fatalf("%s %s: %v", e.Name, b, err)
			}
			rows = append(rows, row{e.Name + "/" + b, est, x, xt, y, e, b})
		}
	}
	if len(rows) < 4+19+8 {
		t.Fatalf("%d estimator × backend rows: the table lost entries", len(rows))
	}
	// Every estimator with a probability option, calibrated on a
	// classification task (KRR on BLESS landmarks).
	for _, e := range Estimators() {
		if _, ok := e.option("probability"); !ok {
			continue
		}
		b := ""
		if e.Name == "krr" {
			b = "bless"
		}
		if e.Name == "svr" {
			// svr's probability is the Laplace model of a regression's
			// residuals: its σ must survive the round trip and the refit.
			cfg := roundTripConfig(e, "", model.Regression)
			cfg.Options["probability"] = true
			est, err := e.New(cfg)
			if err != nil {
				t.Fatalf("svr probability: %v", err)
			}
			rows = append(rows, row{"svr/ laplace", est, reg, regT, yReg, e, ""})
			continue
		}
		cfg := roundTripConfig(e, b, model.Classification)
		cfg.Options["probability"] = true
		est, err := e.New(cfg)
		if err != nil {
			t.Fatalf("%s probability: %v", e.Name, err)
		}
		rows = append(rows, row{e.Name + "/" + b + " probability", est, cls, clsT, yCls, e, b})
	}
	// FALKON from a BLESS path's centers, weights and λ_h, and warm-started.
	falkon, _ := estimatorByName("falkon")
	k := kernel.Gaussian{Gamma: 1.5}
	steps, err := approx.BLESS{}.Path(context.Background(), reg, k, 1e-4, rand.New(rand.NewPCG(7, 1)))
	if err != nil {
		t.Fatal(err)
	}
	st := steps[len(steps)-1]
	cfg := roundTripConfig(falkon, "bless", model.Regression)
	delete(cfg.Options, "m")
	c := mat.NewDense(len(st.Indices), 3, nil)
	for i, j := range st.Indices {
		c.SetRow(i, reg.RawRowView(j))
	}
	cfg.Centers, cfg.CenterWeights, cfg.CenterLambda = c, st.Weights, st.Lambda
	path, err := falkon.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	rows = append(rows, row{"falkon/bless path", path, reg, regT, yReg, falkon, "bless"})
	prevCfg := roundTripConfig(falkon, "", model.Regression)
	prevCfg.Options["lambda"] = 1e-2
	prev, err := falkon.New(prevCfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := prev.Fit(context.Background(), reg, yReg); err != nil {
		t.Fatal(err)
	}
	warm, err := falkon.New(roundTripConfig(falkon, "", model.Regression))
	if err != nil {
		t.Fatal(err)
	}
	if err := falkon.Warm(warm, prev); err != nil {
		t.Fatal(err)
	}
	rows = append(rows, row{"falkon/warm start", warm, reg, regT, yReg, falkon, ""})

	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			if err := r.est.Fit(context.Background(), r.x, r.y); err != nil {
				t.Fatal(err)
			}
			b, err := model.Marshal(r.est)
			if err != nil {
				t.Fatal(err)
			}
			got, err := model.Unmarshal(b)
			if err != nil {
				t.Fatal(err)
			}
			type proba interface {
				PredictProba(mat.Matrix) (*mat.Dense, error)
			}
			var p0 *mat.Dense
			if strings.HasSuffix(r.name, " probability") {
				if p0, err = r.est.(proba).PredictProba(r.xt); err != nil {
					t.Fatal(err)
				}
				if pl, err := got.(proba).PredictProba(r.xt); err != nil || !mat.Equal(pl, p0) {
					t.Errorf("loaded model: probabilities differ (%v)", err)
				}
			}
			sigma := func(e model.Estimator) float64 {
				if s, ok := e.(*model.SVR); ok {
					return s.Info().Sigma
				}
				return 0
			}
			s0 := sigma(r.est)
			if strings.HasSuffix(r.name, " laplace") && (s0 <= 0 || sigma(got) != s0) {
				t.Errorf("loaded svr: σ %g, saved %g", sigma(got), s0)
			}
			if err := got.Fit(context.Background(), r.x, r.y); err != nil {
				t.Fatal(err)
			}
			if s := sigma(got); s != s0 {
				t.Errorf("refitted loaded model: σ %g, saved %g", s, s0)
			}
			if p0 != nil {
				if pr, err := got.(proba).PredictProba(r.xt); err != nil || !mat.Equal(pr, p0) {
					t.Errorf("refitted loaded model: probabilities differ (%v)", err)
				}
			}
			want, err := roundTripScores(r.est, r.xt)
			if err != nil {
				t.Fatal(err)
			}
			have, err := roundTripScores(got, r.xt)
			if err != nil {
				t.Fatal(err)
			}
			if !mat.Equal(have, want) {
				t.Errorf("refitted loaded model: decision values differ by up to %g", roundTripDiff(have, want))
			}
			if k, ok := r.est.(*model.KRR); ok {
				if a, b := got.(*model.KRR).Info().Rank, k.Info().Rank; a != b {
					t.Errorf("refitted rank %d, saved %d", a, b)
				}
			}
		})
	}
}

// roundTripScores is est's DecisionFunction, or for a regressor without
// one (svr) its predictions as one column.
func roundTripScores(est model.Estimator, x mat.Matrix) (*mat.Dense, error) {
	if d, ok := est.(roundTripDecider); ok {
		return d.DecisionFunction(x)
	}
	p, err := est.Predict(x)
	if err != nil {
		return nil, err
	}
	return mat.NewDense(len(p), 1, p), nil
}

func roundTripDiff(a, b *mat.Dense) float64 {
	var d float64
	for i, v := range a.RawMatrix().Data {
		d = math.Max(d, math.Abs(v-b.RawMatrix().Data[i]))
	}
	return d
}
