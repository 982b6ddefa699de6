package model

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkSaveLoad saves and loads a Falkon model with M = 2000 centers in
// d = 16 (about 270 KB) and reports the throughput of each direction.
func BenchmarkSaveLoad(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	n, d := 4000, 16
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range d {
			x.Set(i, j, rng.NormFloat64())
		}
		y[i] = x.At(i, 0) + rng.NormFloat64()
	}
	m := &Falkon{Kernel: kernel.Gaussian{Gamma: 0.1}, Lambda: 1e-6, M: 2000, MaxIter: 2}
	if err := m.Fit(context.Background(), x, y); err != nil {
		b.Fatal(err)
	}
	blob, err := Marshal(m)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("save", func(b *testing.B) {
		b.SetBytes(int64(len(blob)))
		var buf bytes.Buffer
		for b.Loop() {
			buf.Reset()
			if err := Save(&buf, m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("load", func(b *testing.B) {
		b.SetBytes(int64(len(blob)))
		for b.Loop() {
			if _, err := Unmarshal(blob); err != nil {
				b.Fatal(err)
			}
		}
	})
}
