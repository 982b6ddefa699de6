package model

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
)

// BenchmarkSVMNews20Shaped fits model.SVM (C = 1, γ = 1, 200 MB cache) on
// the first 5,000 rows of datasets.SyntheticText's default news20-shaped
// draw (d = 1,355,191, ~80 non-zeros a row), with the float64 and the
// float32 column cache: the profile target of the sparse kernel column.
//
//	go test ./model -run '^$' -bench SVMNews20Shaped -benchtime 1x -cpuprofile cpu.out
func BenchmarkSVMNews20Shaped(b *testing.B) {
	x, y, err := datasets.SyntheticText(rand.New(rand.NewPCG(1, 0x7e47)), datasets.TextOptions{Rows: 5000})
	if err != nil {
		b.Fatal(err)
	}
	for _, f32 := range []bool{false, true} {
		name := "float64"
		if f32 {
			name = "float32"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				s := &SVM{C: 1, Kernel: kernel.Gaussian{Gamma: 1}, CacheFloat32: f32}
				if err := s.Fit(context.Background(), x, y); err != nil {
					b.Fatal(err)
				}
				info := s.Info()
				b.ReportMetric(float64(info.Tasks[0].Iterations), "updates")
				b.ReportMetric(float64(info.SV), "SV")
			}
		})
	}
}
