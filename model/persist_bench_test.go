package model

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
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

// BenchmarkSparseSVMFile is the case: an SVM fitted on 2,000 ×
// 50,000 rows with 20 non-zeros each (every row a support vector), saved
// with SaveFile, loaded with LoadFile, and the loaded model predicting 500
// sparse rows. It reports the file's size.
//
//	go test ./model -run '^$' -bench SparseSVMFile -benchmem -benchtime 5x
func BenchmarkSparseSVMFile(b *testing.B) {
	x, y := wideSparse(b, 1, 2000, 50000, 20)
	xt, _ := wideSparse(b, 2, 500, 50000, 20)
	s := &SVM{Kernel: kernel.Gaussian{Gamma: 0.05}, C: 1}
	if err := s.Fit(context.Background(), x, y); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "svm.lmk")
	b.Run("save", func(b *testing.B) {
		for b.Loop() {
			if err := SaveFile(path, s); err != nil {
				b.Fatal(err)
			}
		}
		fi, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(fi.Size()), "file-bytes")
	})
	b.Run("load", func(b *testing.B) {
		for b.Loop() {
			if _, err := LoadFile(path); err != nil {
				b.Fatal(err)
			}
		}
	})
	l, err := LoadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("predict-500", func(b *testing.B) {
		for b.Loop() {
			if _, err := l.Predict(xt); err != nil {
				b.Fatal(err)
			}
		}
	})
}
