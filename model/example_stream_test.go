package model_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// FALKON on data read from shards on every pass: 2,000 rows of
// y = sin(x₁) + x₂/2 written as four float32 shards, then fitted without
// holding X in memory. Each pass reports the rows and bytes it read.
func ExampleFalkon_FitShards() {
	dir, err := os.MkdirTemp("", "shards")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	const n = 2000
	x := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := range n {
		a, b := 6*float64(i)/n-3, math.Cos(float64(i))
		x.SetRow(i, []float64{a, b})
		y[i] = math.Sin(a) + b/2
	}
	if _, err := shard.WriteDirWith(dir, x, y, shard.Options{Rows: 500, Type: shard.Float32}); err != nil {
		fmt.Println(err)
		return
	}
	passes := 0
	var bytes int64
	m := &model.Falkon{Kernel: kernel.GaussianSigma(1), Lambda: 1e-6, M: 100, MaxIter: 10,
		Progress: func(p model.Progress) error {
			if p.Stage == model.StagePass {
				passes++
				bytes = p.Bytes
			}
			return nil
		}}
	if err := m.FitShards(context.Background(), filepath.Join(dir, shard.ManifestName)); err != nil {
		fmt.Println(err)
		return
	}
	pred, _ := m.Predict(mat.NewDense(1, 2, []float64{1, 0.5}))
	fmt.Printf("f(1, 0.5) = %.2f (sin 1 + 0.25 = %.2f)\n", pred[0], math.Sin(1)+0.25)
	fmt.Printf("%d passes of %d bytes each, n = %d, M = %d\n", passes, bytes, m.Info().N, m.Info().M)
	// Output:
	// f(1, 0.5) = 1.09 (sin 1 + 0.25 = 1.09)
	// 11 passes of 32144 bytes each, n = 2000, M = 100
}
