package model

import (
	"bufio"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// fitSigmoid must reach a stationary point of its objective: the gradient
// Σ f_i(t_i − p_i), Σ(t_i − p_i) vanishes to the 1e-5 its Newton method
// stops at, and no nearby (A, B) is better.
func TestFitSigmoidIsStationary(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	n := 300
	f := make([]float64, n)
	y := make([]float64, n)
	for i := range n {
		y[i] = 1
		if rng.Float64() < 0.4 {
			y[i] = -1
		}
		f[i] = y[i]*1.5 + rng.NormFloat64() // overlapping classes
	}
	s := fitSigmoid(f, y)
	var npos, nneg float64
	for _, v := range y {
		if v > 0 {
			npos++
		} else {
			nneg++
		}
	}
	obj := func(a, b float64) float64 {
		var v float64
		for i, fi := range f {
			tt := 1 / (nneg + 2)
			if y[i] > 0 {
				tt = (npos + 1) / (npos + 2)
			}
			p := sigmoid{a, b}.prob(fi)
			v -= tt*math.Log(p) + (1-tt)*math.Log(1-p)
		}
		return v
	}
	var g1, g2 float64
	for i, fi := range f {
		tt := 1 / (nneg + 2)
		if y[i] > 0 {
			tt = (npos + 1) / (npos + 2)
		}
		p := s.prob(fi)
		g1 += fi * (tt - p)
		g2 += tt - p
	}
	if math.Abs(g1) > 1e-5 || math.Abs(g2) > 1e-5 {
		t.Errorf("gradient (%g, %g) at A = %g, B = %g", g1, g2, s.a, s.b)
	}
	if s.a >= 0 {
		t.Errorf("A = %g: larger decision values must mean a larger P(+1)", s.a)
	}
	best := obj(s.a, s.b)
	for _, d := range [][2]float64{{1e-3, 0}, {-1e-3, 0}, {0, 1e-3}, {0, -1e-3}} {
		if v := obj(s.a+d[0], s.b+d[1]); v < best-1e-9 {
			t.Errorf("objective %g at a step %v from the fit, %g at the fit", v, d, best)
		}
	}
}

// With consistent pairwise probabilities r_ab = p_a/(p_a + p_b), coupling
// recovers p (it is the exact minimizer, with pᵀQp = 0).
func TestCoupleOvORecoversConsistentProbabilities(t *testing.T) {
	want := []float64{0.5, 0.2, 0.2, 0.1}
	k := len(want)
	r := make([][]float64, k)
	for a := range r {
		r[a] = make([]float64, k)
		for b := range r[a] {
			if a != b {
				r[a][b] = want[a] / (want[a] + want[b])
			}
		}
	}
	got := make([]float64, k)
	coupleOvO(r, got)
	var sum float64
	for i := range got {
		sum += got[i]
		// The iteration stops when max|Qp − pᵀQp| < 0.005/k; 1e-3 on p
		// is well within what that leaves.
		if math.Abs(got[i]-want[i]) > 1e-3 {
			t.Errorf("p = %v, want %v", got, want)
			break
		}
	}
	if math.Abs(sum-1) > 1e-12 {
		t.Errorf("Σp = %g", sum)
	}
}

func TestSVMProbabilities(t *testing.T) {
	ctx := context.Background()
	for _, c := range []conformanceCase{conformanceBinary(3), conformanceMulticlass(4)} {
		for _, mc := range []string{OneVsOne, OneVsRest} {
			s := &SVM{C: 5, Kernel: kernel.Gaussian{Gamma: 2}, Probability: true, Multiclass: mc, Seed: 2}
			if _, err := s.PredictProba(c.xTest); !errors.Is(err, ErrNotFitted) {
				t.Errorf("PredictProba before Fit: %v", err)
			}
			if err := s.Fit(ctx, c.x, c.y); err != nil {
				t.Fatal(err)
			}
			p, err := s.PredictProba(c.xTest)
			if err != nil {
				t.Fatal(err)
			}
			pred, _ := s.Predict(c.xTest)
			n, k := p.Dims()
			agree := 0
			for i := range n {
				var sum float64
				best := 0
				for j := range k {
					v := p.At(i, j)
					if v < 0 || v > 1 {
						t.Fatalf("%s: probability %g", c.name, v)
					}
					sum += v
					if v > p.At(i, best) {
						best = j
					}
				}
				if math.Abs(sum-1) > 1e-9 {
					t.Fatalf("%s %s: row %d sums to %g", c.name, mc, i, sum)
				}
				if s.Classes()[best] == pred[i] {
					agree++
				}
			}
			// Platt's sigmoid is monotone, so for binary problems the most
			// probable class is the predicted one except where the sigmoid's
			// offset B moves the 0.5 point off f = 0; with well-separated
			// classes that is rare. Require 90%.
			if float64(agree) < 0.9*float64(n) {
				t.Errorf("%s %s: most probable class = predicted class on %d of %d rows", c.name, mc, agree, n)
			}
		}
	}
	s := &SVM{C: 5}
	c := conformanceBinary(3)
	_ = s.Fit(ctx, c.x, c.y)
	if _, err := s.PredictProba(c.xTest); !errors.Is(err, ErrInput) {
		t.Errorf("PredictProba without Probability: err = %v, want ErrInput", err)
	}
}

// Against svm-train -b 1 on heart_scale: LIBSVM draws its own random
// cross-validation folds, so the sigmoids differ a little; the test
// probabilities must agree to 0.05 on average.
func TestSVMProbabilitiesMatchLIBSVM(t *testing.T) {
	path, ok := datasets.SharedPath("heart_scale.libsvm")
	if !ok {
		t.Skip("heart_scale not in the shared datasets")
	}
	if _, err := exec.LookPath("svm-train"); err != nil {
		t.Skip("svm-train not installed")
	}
	ds, err := datasets.ReadLIBSVMFile(path)
	if err != nil {
		t.Fatal(err)
	}
	x := mat.DenseCopyOf(ds.X.Slice(0, 200, 0, ds.Dim()))
	xt := mat.DenseCopyOf(ds.X.Slice(200, 270, 0, ds.Dim()))
	dir := t.TempDir()
	tr, te, mod, out := filepath.Join(dir, "train"), filepath.Join(dir, "test"), filepath.Join(dir, "model"), filepath.Join(dir, "out")
	writeLIBSVM(t, tr, x, ds.Y[:200])
	writeLIBSVM(t, te, xt, ds.Y[200:])
	if b, err := exec.Command("svm-train", "-b", "1", "-c", "2", "-g", "0.1", tr, mod).CombinedOutput(); err != nil {
		t.Fatalf("svm-train: %v\n%s", err, b)
	}
	if b, err := exec.Command("svm-predict", "-b", "1", te, mod, out).CombinedOutput(); err != nil {
		t.Fatalf("svm-predict: %v\n%s", err, b)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan()
	hdr := strings.Fields(sc.Text()) // "labels 1 -1": column order of the probabilities
	col := 1
	if hdr[1] == "-1" {
		col = 2
	}
	var lib []float64 // P(+1)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		v, _ := strconv.ParseFloat(fs[col], 64)
		lib = append(lib, v)
	}
	s := &SVM{C: 2, Kernel: kernel.Gaussian{Gamma: 0.1}, Probability: true}
	if err := s.Fit(context.Background(), x, ds.Y[:200]); err != nil {
		t.Fatal(err)
	}
	p, _ := s.PredictProba(xt)
	var mad float64
	for i, v := range lib {
		mad += math.Abs(p.At(i, 1) - v)
	}
	mad /= float64(len(lib))
	t.Logf("mean |P_ours(+1) − P_libsvm(+1)| = %.4f over %d test points", mad, len(lib))
	if len(lib) != 70 || mad > 0.05 {
		t.Errorf("mean absolute difference %.4f over %d points", mad, len(lib))
	}
}
