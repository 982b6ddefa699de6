package meka

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/approx/cluster"
	"github.com/landmark-ml/landmark/internal/binfmt"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// FuzzDecodeMap wraps arbitrary payloads in a valid container with one of
// the feature-map tags (approx's Nyström and RFF maps, MEKA) or the
// partition tag, so that mutations reach every decoder of the approximation
// packages; seeds are the payloads of small fitted maps. A payload that
// decodes must give a map whose Dim and Transform do not panic. (It lived
// in package approx before MEKA and partitions moved out; LoadMap here
// reaches approx's decoders too.)
func FuzzDecodeMap(f *testing.F) {
	tags := []string{"approx.NystromMap", "approx.RFFMap", tagMEKA, "approx.Partition"}
	maps := mekaMaps(f)
	maps["nystrom"], maps["rff"] = fuzzApproxMaps(f)
	for name, m := range maps {
		b, err := MarshalMap(m)
		if err != nil {
			f.Fatal(name, err)
		}
		tag, payload, err := binfmt.Read(bytes.NewReader(b))
		if err != nil {
			f.Fatal(err)
		}
		for i, t := range tags {
			if t == tag {
				f.Add(byte(i), payload)
			}
		}
	}
	f.Fuzz(func(t *testing.T, which byte, payload []byte) {
		tag := tags[int(which)%len(tags)]
		var buf bytes.Buffer
		if err := binfmt.Write(&buf, tag, payload); err != nil {
			t.Fatal(err)
		}
		if tag == "approx.Partition" {
			p, err := cluster.LoadPartition(&buf)
			if err != nil {
				if !errors.Is(err, ErrFormat) {
					t.Fatalf("error not wrapping ErrFormat: %v", err)
				}
				return
			}
			_, d := p.Centroids.Dims()
			if _, err := p.Assign(mat.NewDense(2, d, nil)); err != nil && !errors.Is(err, approx.ErrInput) {
				t.Fatalf("Assign on a loaded partition: %v", err)
			}
			return
		}
		m, err := LoadMap(&buf)
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error not wrapping ErrFormat: %v", err)
			}
			return
		}
		for d := 1; d <= 3; d++ {
			dst := mat.NewDense(2, max(m.Dim(), 1), nil)
			_ = m.Transform(context.Background(), dst, mat.NewDense(2, d, []float64{0.1, -0.2, 0.3, 0.4, -0.5, 0.6}[:2*d]))
		}
	})
}

// fuzzApproxMaps fits a Nyström and a random-features map of package approx
// (the seeds of their tags).
func fuzzApproxMaps(f *testing.F) (approx.FeatureMap, approx.FeatureMap) {
	ctx := context.Background()
	x := persistData(80, 3, 1)
	g := kernel.Gaussian{Gamma: 2}
	rng := rand.New(rand.NewPCG(5, 6))
	lm, err := approx.Uniform{}.Sample(ctx, x, g, 15, rng)
	if err != nil {
		f.Fatal(err)
	}
	ny, err := approx.Nystrom{}.Fit(ctx, x, g, lm)
	if err != nil {
		f.Fatal(err)
	}
	rff, err := approx.RFF{Features: 20}.Fit(g, 3, rng)
	if err != nil {
		f.Fatal(err)
	}
	return ny, rff
}
