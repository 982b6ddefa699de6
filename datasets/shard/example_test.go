package shard_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/landmark-ml/landmark/datasets/shard"
	"gonum.org/v1/gonum/mat"
)

// Five rows in shards of two: three files and a manifest with the column
// statistics, then one shard read back.
func ExampleWriteDir() {
	dir, err := os.MkdirTemp("", "shards")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	x := mat.NewDense(5, 2, []float64{1, 10, 2, 20, 3, 30, 4, 40, 5, 50})
	y := []float64{0, 1, 0, 1, 1}
	m, err := shard.WriteDir(dir, x, y, 2, true)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.N, m.D, m.Task, m.Classes, m.Mean, len(m.Shards))
	f, err := os.Open(filepath.Join(dir, m.Shards[2].File))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	xs, ys, err := shard.Read(f, m.Shards[2].Rows, m.D)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(mat.Row(nil, 0, xs), ys)
	// Output:
	// 5 2 classification [0 1] [3 30] 3
	// [5 50] [1]
}
