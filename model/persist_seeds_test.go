package model

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/approx/meka"
	"github.com/landmark-ml/landmark/internal/binfmt"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

var updateSeeds = flag.Bool("update-seeds", false, "rewrite the seed-* fuzz corpus files in testdata/fuzz")

// seedCases are small fitted models of every type and backend: the fuzz
// seeds (a few hundred bytes to a few KB each).
func seedCases() []persistCase {
	small := func(c conformanceCase, n int) conformanceCase {
		_, d := c.x.Dims()
		c.x = mat.DenseCopyOf(c.x.Slice(0, n, 0, d))
		c.y = c.y[:n]
		return c
	}
	reg := small(conformanceRegression(21), 12)
	bin := small(conformanceBinary(22), 16)
	multi := small(conformanceMulticlass(23), 18)
	sp := sparseConformance(24, 15, 1, 12)
	g := kernel.Gaussian{Gamma: 1}
	return []persistCase{
		{"krr", func() Estimator { return &KRR{Kernel: g, Lambda: 1e-2} }, reg},
		{"krr-class", func() Estimator {
			return &KRR{Kernel: kernel.Polynomial{Degree: 2, Gamma: 1, Coef0: 1}, Lambda: 1e-2, Task: Classification}
		}, multi},
		{"krr-nystrom", func() Estimator { return &KRR{Kernel: g, Lambda: 1e-2, Approx: NystromKRR{M: 4}} }, reg},
		{"krr-nyfeat", func() Estimator {
			return &KRR{Kernel: g, Lambda: 1e-2, Approx: FeatureRidge{Features: NystromFeatures{M: 4}}}
		}, reg},
		{"krr-rff", func() Estimator {
			return &KRR{Kernel: g, Lambda: 1e-2, Approx: FeatureRidge{Features: RFFFeatures{RFF: approx.RFF{Features: 4}}}}
		}, bin},
		{"krr-meka", func() Estimator {
			return &KRR{Kernel: g, Lambda: 1e-2, Approx: &MEKAKRR{Options: meka.Options{Rank: 2, Clusters: 2}}}
		}, reg},
		{"falkon", func() Estimator { return &Falkon{Kernel: g, Lambda: 1e-3, M: 4, MaxIter: 3} }, reg},
		// Format version 4: samplers, given centers, weights and a warm start.
		{"krr-bless", func() Estimator {
			return &KRR{Kernel: g, Lambda: 1e-2, Approx: NystromKRR{M: 4, Sampler: approx.BLESS{Q2: 4}}}
		}, reg},
		{"krr-rls-features", func() Estimator {
			return &KRR{Kernel: g, Lambda: 1e-2, Approx: FeatureRidge{Features: NystromFeatures{M: 4, Sampler: approx.RecursiveRLS{Accelerated: true}}}}
		}, reg},
		{"falkon-given", func() Estimator {
			c := mat.DenseCopyOf(reg.x.Slice(0, 3, 0, 3))
			return &Falkon{Kernel: g, Lambda: 1e-3, MaxIter: 3, Centers: c, CenterWeights: []float64{1, 2, 3}, CenterLambda: 1e-2,
				WarmStart: &KernelExpansion{Kernel: g, Centers: c, Coef: mat.NewDense(3, 1, []float64{0.5, -1, 2})},
				Sampler:   approx.KMeansCenters{MaxIter: 2}}
		}, reg},
		{"svm", func() Estimator { return &SVM{Kernel: g, C: 5} }, multi},
		{"svm-proba", func() Estimator { return &SVM{Kernel: g, C: 5, Probability: true} }, bin},
		{"bkasvm", func() Estimator { return &BKASVM{Kernel: g, C: 5, Clusters: 2, Prediction: LocalPrediction} }, bin},
		// Sparse fits: support vectors and training rows saved as CSR.
		{"svm-sparse", func() Estimator { return &SVM{Kernel: g, C: 5} }, sp},
		{"krr-sparse", func() Estimator { return &KRR{Kernel: g, Lambda: 1e-2, Task: Classification} }, sp},
		{"bkasvm-sparse", func() Estimator { return &BKASVM{Kernel: g, C: 5, Clusters: 2, Prediction: LocalPrediction} }, sp},
		{"svr", func() Estimator { return &SVR{Kernel: g, C: 5, Epsilon: 0.05} }, reg},
		{"svr-sparse", func() Estimator { return &SVR{Kernel: g, C: 5, AbsoluteLoss: true} }, sp},
		{"one-class-svm", func() Estimator { return &OneClassSVM{Kernel: g, Nu: 0.2} }, bin},
		{"one-class-svm-sparse", func() Estimator { return &OneClassSVM{Kernel: g, Nu: 0.4} }, sp},
		{"svm-nu", func() Estimator { return &SVM{Kernel: g, Nu: 0.5} }, bin},
		{"svr-nu", func() Estimator { return &SVR{Kernel: g, C: 5, Nu: 0.5} }, reg},
	}
}

// The checked-in seeds must be valid files of the current format, or the
// fuzzers would start from noise: every FuzzLoad seed loads and every
// FuzzDecode seed decodes. After a format change, regenerate them with
//
//	go test ./model -run TestFuzzSeeds -update-seeds
func TestFuzzSeeds(t *testing.T) {
	tags := fuzzTags
	for _, c := range seedCases() {
		load := filepath.Join("testdata", "fuzz", "FuzzLoad", "seed-"+c.name)
		dec := filepath.Join("testdata", "fuzz", "FuzzDecode", "seed-"+c.name)
		if *updateSeeds {
			b, err := Marshal(fitCase(t, c))
			if err != nil {
				t.Fatal(err)
			}
			tag, payload, err := binfmt.Read(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			which := 0
			for i, s := range tags {
				if s == tag {
					which = i
				}
			}
			writeSeed(t, load, fmt.Sprintf("[]byte(%q)\n", b))
			writeSeed(t, dec, fmt.Sprintf("byte(%d)\n[]byte(%q)\n", which, payload))
			continue
		}
		lines := readSeed(t, load)
		if _, err := Unmarshal(seedBytes(t, lines[0])); err != nil {
			t.Errorf("%s: %v (regenerate with -update-seeds)", load, err)
		}
		lines = readSeed(t, dec)
		which, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(lines[0], "byte("), ")"))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := binfmt.Write(&buf, tags[which%len(tags)], seedBytes(t, lines[1])); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(&buf); err != nil {
			t.Errorf("%s: %v (regenerate with -update-seeds)", dec, err)
		}
	}
}

func writeSeed(t *testing.T, path, body string) {
	if err := os.WriteFile(path, []byte("go test fuzz v1\n"+body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readSeed returns the value lines of a corpus file.
func readSeed(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) < 2 || lines[0] != "go test fuzz v1" {
		t.Fatalf("%s: not a fuzz corpus file", path)
	}
	return lines[1:]
}

// seedBytes parses a []byte("…") corpus line.
func seedBytes(t *testing.T, line string) []byte {
	t.Helper()
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(line, "[]byte("), ")"))
	if err != nil {
		t.Fatalf("corpus line %.40q: %v", line, err)
	}
	return []byte(s)
}
