package meka

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/landmark-ml/landmark/internal/pin"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// TestBKAPinned fits BKA with fixed seeds on dense and sparse (CSR) rows
// and compares the partition, the diagonal blocks and the progress calls
// with what the code gave before FitBKA was split into pieces (commit
// 7d2b573), pinned to catch a reordered random draw (see package pin for
// the tolerance).
func TestBKAPinned(t *testing.T) {
	x, _ := blobs(4, 50, 5, 2, rand.New(rand.NewPCG(51, 52)))
	cases := []struct {
		x          mat.Matrix
		want       []float64
		wantDigest string
	}{
		{x, []float64{2579, 4456.763492884787, 68592, 50, 21}, "b2dd46fcdad40ee4"},
		{kernel.CSRRowsOf(x), []float64{2116, 4421.507760094042, 68272, 50, 16}, "93eb3701a203bb50"},
	}
	for i, c := range cases {
		var mu sync.Mutex
		var calls []string
		opt := BKAOptions{Clusters: 6, Workers: 2, Progress: func(stage string, done, total int) {
			mu.Lock()
			calls = append(calls, fmt.Sprintf("%s %d/%d", stage, done, total))
			mu.Unlock()
		}}
		b, err := FitBKA(context.Background(), c.x, kernel.Gaussian{Gamma: 0.2}, opt, rand.New(rand.NewPCG(uint64(i)+5, 9)))
		if err != nil {
			t.Fatal(err)
		}
		if want := "cluster 1/1 block 1/6 block 2/6 block 3/6 block 4/6 block 5/6 block 6/6"; strings.Join(calls, " ") != want {
			t.Errorf("case %d: progress %q, want %q", i, strings.Join(calls, " "), want)
		}
		labels := make([]float64, b.Len())
		var sum float64
		for j, l := range b.Partition().Labels {
			labels[j] = float64(l)
			sum += float64(l * (j%11 + 1))
		}
		all := [][]float64{labels}
		var tr float64
		for s := range 6 {
			blk := b.Block(s)
			if blk == nil {
				continue
			}
			n, _ := blk.Dims()
			for j := 0; j < n; j++ {
				tr += blk.At(j, j) * float64(j+1)
				if j > 0 {
					tr += blk.At(j, j-1) * float64(s+1)
				}
			}
			all = append(all, blk.RawSymmetric().Data)
		}
		st := b.Stats()
		got := []float64{sum, tr, float64(st.Bytes), float64(st.Sizes[0]), float64(st.Sizes[5])}
		pin.Floats(t, fmt.Sprintf("case %d", i), pin.Tol, got, c.want, c.wantDigest, all...)
	}
}
