package model_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// Save a fitted model and load it back: the reloaded model predicts the same
// values, bit for bit.
func ExampleSave() {
	x := mat.NewDense(5, 1, []float64{-2, -1, 0, 1, 2})
	y := []float64{4, 1, 0, 1, 4}
	m := &model.KRR{Kernel: kernel.Gaussian{Gamma: 0.5}, Lambda: 1e-6}
	if err := m.Fit(context.Background(), x, y); err != nil {
		fmt.Println(err)
		return
	}
	var buf bytes.Buffer // or model.SaveFile(path, m)
	if err := model.Save(&buf, m); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("file starts with %q\n", buf.Bytes()[:8])
	loaded, err := model.Load(&buf)
	if err != nil {
		fmt.Println(err)
		return
	}
	xt := mat.NewDense(2, 1, []float64{0.5, 1.5})
	before, _ := m.Predict(xt)
	after, _ := loaded.Predict(xt)
	fmt.Printf("%T predicts %.4f, same as before: %v\n", loaded, after, before[0] == after[0] && before[1] == after[1])
	// Output:
	// file starts with "LANDMARK"
	// *model.KRR predicts [0.1803 2.5602], same as before: true
}

// A loaded model keeps its whole configuration, sampler included: refitted
// on the same data it is the saved model again. A sampler of your own type
// cannot be saved; it loads as model.NotSaved and a refit asks for it.
func ExampleLoad_refit() {
	x := mat.NewDense(40, 1, nil)
	y := make([]float64, 40)
	for i := range y {
		v := float64(i)/10 - 2
		x.Set(i, 0, v)
		y[i] = v * v
	}
	m := &model.KRR{Kernel: kernel.Gaussian{Gamma: 0.5}, Lambda: 1e-4, Seed: 1,
		Approx: model.NystromKRR{M: 8, Sampler: approx.BLESS{Q2: 4}}}
	if err := m.Fit(context.Background(), x, y); err != nil {
		fmt.Println(err)
		return
	}
	b, err := model.Marshal(m)
	if err != nil {
		fmt.Println(err)
		return
	}
	loaded, err := model.Unmarshal(b)
	if err != nil {
		fmt.Println(err)
		return
	}
	k := loaded.(*model.KRR)
	fmt.Printf("backend %T with sampler %+v\n", k.Approx, k.Approx.(model.NystromKRR).Sampler)
	if err := k.Fit(context.Background(), x, y); err != nil {
		fmt.Println(err)
		return
	}
	xt := mat.NewDense(1, 1, []float64{0.25})
	before, _ := m.Predict(xt)
	after, _ := k.Predict(xt)
	fmt.Println("refit: same rank", k.Info().Rank == m.Info().Rank, "and same prediction", before[0] == after[0])

	m.Approx = model.NystromKRR{M: 8, Sampler: mySampler{}}
	if err := m.Fit(context.Background(), x, y); err != nil {
		fmt.Println(err)
		return
	}
	b, _ = model.Marshal(m)
	loaded, _ = model.Unmarshal(b)
	fmt.Printf("%+v\n", loaded.(*model.KRR).Approx)
	fmt.Println("to set again:", model.Unsaved(loaded))
	err = loaded.Fit(context.Background(), x, y)
	fmt.Println("refit:", errors.Is(err, model.ErrNotSaved))
	// Output:
	// backend model.NystromKRR with sampler {Lambda:0 Lambda0:0 Q:0 Q1:0 Q2:4 Workers:0 Progress:<nil>}
	// refit: same rank true and same prediction true
	// {M:8 Sampler:{Type:model_test.mySampler} Centers:<nil>}
	// to set again: [Approx.Sampler: model_test.mySampler]
	// refit: true
}

// mySampler is a sampler of the user's own: the first m rows.
type mySampler struct{}

func (mySampler) Sample(_ context.Context, x mat.Matrix, _ kernel.Kernel, m int, _ *rand.Rand) (*approx.Landmarks, error) {
	_, d := x.Dims()
	return &approx.Landmarks{Points: mat.DenseCopyOf(x.(*mat.Dense).Slice(0, m, 0, d))}, nil
}
