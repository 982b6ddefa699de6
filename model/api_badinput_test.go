package model_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/approx/cluster"
	"github.com/landmark-ml/landmark/approx/meka"
	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"github.com/landmark-ml/landmark/precond"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/mat"
)

// badData returns a 20×3 data set with a smooth target and ±1 labels, and
// copies of its X with a NaN and with an +Inf.
func badData() (x, nanX, infX *mat.Dense, y, labels []float64) {
	rng := rand.New(rand.NewPCG(5, 5))
	x = mat.NewDense(20, 3, nil)
	y = make([]float64, 20)
	labels = make([]float64, 20)
	for i := range 20 {
		r := x.RawRowView(i)
		for j := range r {
			r[j] = 2*rng.Float64() - 1
		}
		y[i] = r[0] + r[1]
		labels[i] = 1
		if y[i] < 0 {
			labels[i] = -1
		}
	}
	nanX = mat.DenseCopyOf(x)
	nanX.Set(3, 1, math.NaN())
	infX = mat.DenseCopyOf(x)
	infX.Set(7, 2, math.Inf(1))
	return
}

// TestAPIBadInput is the API half of the bad-input table: each case calls an
// exported function of kernel, approx, precond, solver, model or datasets
// with a mismatched shape, a NaN or Inf, an empty or nil input, or an
// out-of-range setting, and must get an error — wrapping want when want is
// set — and never a panic (recovered and reported as a failure).
func TestAPIBadInput(t *testing.T) {
	ctx := context.Background()
	x, nanX, infX, y, labels := badData()
	k := kernel.Gaussian{Gamma: 1}
	rng := func() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }
	fitted := &model.KRR{Kernel: k, Lambda: 1e-2}
	if err := fitted.Fit(ctx, x, y); err != nil {
		t.Fatal(err)
	}
	svm := &model.SVM{Kernel: k}
	if err := svm.Fit(ctx, x, labels); err != nil {
		t.Fatal(err)
	}
	part, err := cluster.KMeans{K: 3}.Fit(ctx, x, rng())
	if err != nil {
		t.Fatal(err)
	}
	mk, err := meka.Fit(ctx, x, k, meka.Options{Clusters: 2, Rank: 4}, rng())
	if err != nil {
		t.Fatal(err)
	}
	ny, err := approx.Nystrom{}.Fit(ctx, x, k, &approx.Landmarks{Points: mat.DenseCopyOf(x.Slice(0, 5, 0, 3))})
	if err != nil {
		t.Fatal(err)
	}
	kmm := mat.NewDense(5, 5, nil)
	if err := kernel.NewOp(k, x.Slice(0, 5, 0, 3).(*mat.Dense), x.Slice(0, 5, 0, 3).(*mat.Dense), kernel.Options{}).Block(ctx, kmm); err != nil {
		t.Fatal(err)
	}
	pre, err := precond.BuildFalkon(mat.DenseCopyOf(kmm), 20, 1e-3, precond.Options{})
	if err != nil {
		t.Fatal(err)
	}
	chol, err := solver.Cholesky(mat.NewSymDense(2, []float64{2, 1, 1, 2}), solver.CholOptions{})
	if err != nil {
		t.Fatal(err)
	}
	x4 := mat.NewDense(4, 4, nil) // four columns where the models want three
	empty := &mat.Dense{}
	op := kernel.NewOp(k, x, x, kernel.Options{})

	cases := []struct {
		name string
		call func() error
		want error // nil: any error
	}{
		// model: training data.
		{"KRR.Fit nil X", func() error { return (&model.KRR{Lambda: 1}).Fit(ctx, nil, y) }, model.ErrInput},
		{"KRR.Fit empty X", func() error { return (&model.KRR{Lambda: 1}).Fit(ctx, empty, nil) }, model.ErrInput},
		{"KRR.Fit NaN in X", func() error { return (&model.KRR{Lambda: 1}).Fit(ctx, nanX, y) }, model.ErrInput},
		{"KRR.Fit Inf in X", func() error { return (&model.KRR{Lambda: 1}).Fit(ctx, infX, y) }, model.ErrInput},
		{"KRR.Fit short y", func() error { return (&model.KRR{Lambda: 1}).Fit(ctx, x, y[:5]) }, model.ErrInput},
		{"KRR.Fit lambda 0", func() error { return (&model.KRR{}).Fit(ctx, x, y) }, model.ErrInput},
		{"KRR.Fit lambda NaN", func() error { return (&model.KRR{Lambda: math.NaN()}).Fit(ctx, x, y) }, model.ErrInput},
		{"KRR.Fit bad kernel", func() error { return (&model.KRR{Lambda: 1, Kernel: kernel.Gaussian{Gamma: -1}}).Fit(ctx, x, y) }, model.ErrInput},
		{"KRR.Fit nystrom M > n", func() error { return (&model.KRR{Lambda: 1, Approx: model.NystromKRR{M: 21}}).Fit(ctx, x, y) }, model.ErrInput},
		{"KRR.FitMulti Y rows", func() error { return (&model.KRR{Lambda: 1}).FitMulti(ctx, x, mat.NewDense(19, 2, nil)) }, model.ErrInput},
		{"KRR.Predict columns", func() error { _, err := fitted.Predict(x4); return err }, model.ErrInput},
		{"KRR.Predict NaN", func() error { _, err := fitted.Predict(nanX); return err }, model.ErrInput},
		{"KRR.Predict empty", func() error { _, err := fitted.Predict(empty); return err }, model.ErrInput},
		{"Falkon.Fit M > n", func() error { return (&model.Falkon{Lambda: 1e-3, M: 30}).Fit(ctx, x, y) }, model.ErrInput},
		{"Falkon.Fit NaN center", func() error { return (&model.Falkon{Lambda: 1e-3, Centers: nanX}).Fit(ctx, x, y) }, model.ErrInput},
		{"Falkon.Fit center columns", func() error { return (&model.Falkon{Lambda: 1e-3, Centers: x4}).Fit(ctx, x, y) }, model.ErrInput},
		{"SVM.Fit one class", func() error { return (&model.SVM{}).Fit(ctx, x, make([]float64, 20)) }, model.ErrInput},
		{"SVM.Fit C < 0", func() error { return (&model.SVM{C: -1}).Fit(ctx, x, labels) }, model.ErrInput},
		{"SVM.Predict columns", func() error { _, err := svm.Predict(x4); return err }, model.ErrInput},
		{"BKASVM.Fit clusters > n", func() error { return (&model.BKASVM{Clusters: 21}).Fit(ctx, x, labels) }, model.ErrInput},
		{"BKASVM.Fit NaN", func() error { return (&model.BKASVM{}).Fit(ctx, nanX, labels) }, model.ErrInput},
		{"NewLabels one class", func() error { _, err := model.NewLabels([]float64{1, 1}); return err }, model.ErrInput},
		{"Unmarshal garbage", func() error { _, err := model.Unmarshal([]byte("not a model")); return err }, model.ErrFormat},
		{"Falkon.Fit warm start columns", func() error {
			w := &model.KernelExpansion{Kernel: k, Centers: x4, Coef: mat.NewDense(4, 1, nil)}
			return (&model.Falkon{Lambda: 1e-3, WarmStart: w}).Fit(ctx, x, y)
		}, model.ErrInput},
		{"Falkon.Fit warm start coef rows", func() error {
			w := &model.KernelExpansion{Kernel: k, Centers: mat.DenseCopyOf(x.Slice(0, 5, 0, 3)), Coef: mat.NewDense(4, 1, nil)}
			return (&model.Falkon{Lambda: 1e-3, WarmStart: w}).Fit(ctx, x, y)
		}, model.ErrInput},
		{"Falkon.Fit center weights length", func() error {
			return (&model.Falkon{Lambda: 1e-3, Centers: mat.DenseCopyOf(x.Slice(0, 5, 0, 3)), CenterWeights: []float64{1}}).Fit(ctx, x, y)
		}, model.ErrInput},
		{"Falkon.Fit validation columns", func() error {
			return (&model.Falkon{Lambda: 1e-3, M: 5, Validation: &model.ValidationSet{X: x4, Y: []float64{1, 2, 3, 4}}}).Fit(ctx, x, y)
		}, model.ErrInput},
		{"Falkon.Fit validation NaN", func() error {
			return (&model.Falkon{Lambda: 1e-3, M: 5, Validation: &model.ValidationSet{X: nanX, Y: y}}).Fit(ctx, x, y)
		}, model.ErrInput},
		{"Falkon.Fit memory limit < 0", func() error {
			return (&model.Falkon{Lambda: 1e-3, Resources: model.Resources{MemoryLimit: -1}}).Fit(ctx, x, y)
		}, model.ErrInput},
		{"SVM.PredictProba without Probability", func() error { _, err := svm.PredictProba(x); return err }, model.ErrInput},
		{"SVM.Fit class weight NaN", func() error {
			return (&model.SVM{ClassWeights: map[float64]float64{1: math.NaN()}}).Fit(ctx, x, labels)
		}, model.ErrInput},
		{"SVM.Fit class weight for a missing label", func() error {
			return (&model.SVM{ClassWeights: map[float64]float64{5: 2}}).Fit(ctx, x, labels)
		}, model.ErrInput},
		{"SVM.Fit memory limit < 0", func() error { return (&model.SVM{Resources: model.Resources{MemoryLimit: -1}}).Fit(ctx, x, labels) }, model.ErrInput},
		{"BKASVM.Fit prediction mode", func() error { return (&model.BKASVM{Clusters: 2, Prediction: "nearest"}).Fit(ctx, x, labels) }, model.ErrInput},
		{"BKASVM.Fit memory limit < 0", func() error {
			return (&model.BKASVM{Clusters: 2, Resources: model.Resources{MemoryLimit: -1}}).Fit(ctx, x, labels)
		}, model.ErrInput},
		{"KRR.Fit memory limit < 0", func() error {
			return (&model.KRR{Lambda: 1, Resources: model.Resources{MemoryLimit: -1}}).Fit(ctx, x, y)
		}, model.ErrInput},
		{"KRR.Fit unknown task", func() error { return (&model.KRR{Lambda: 1, Task: "ranking"}).Fit(ctx, x, y) }, model.ErrInput},
		{"KRR.Fit meka solver", func() error {
			return (&model.KRR{Lambda: 1, Approx: &model.MEKAKRR{Options: meka.Options{Clusters: 2, Rank: 3}, Solver: "lu"}}).Fit(ctx, x, y)
		}, model.ErrInput},
		{"KRR.Fit feature ridge with -1 random features", func() error {
			return (&model.KRR{Lambda: 1, Approx: model.FeatureRidge{Features: model.RFFFeatures{RFF: approx.RFF{Features: -1}}}}).Fit(ctx, x, y)
		}, model.ErrInput},
		// approx.
		{"KMeans.Fit K > n", func() error { _, err := cluster.KMeans{K: 21}.Fit(ctx, x, rng()); return err }, approx.ErrInput},
		{"KMeans.Fit NaN", func() error { _, err := cluster.KMeans{K: 2}.Fit(ctx, nanX, rng()); return err }, approx.ErrInput},
		{"KMeans.Fit nil rng", func() error { _, err := cluster.KMeans{K: 2}.Fit(ctx, x, nil); return err }, approx.ErrInput},
		{"Partition.Assign columns", func() error { _, err := part.Assign(x4); return err }, approx.ErrInput},
		{"Partition.Assign NaN", func() error { _, err := part.Assign(nanX); return err }, approx.ErrInput},
		{"Partition.Assign nil", func() error { _, err := part.Assign(nil); return err }, approx.ErrInput},
		{"MEKA.Assign columns", func() error { _, err := mk.Assign(x4); return err }, approx.ErrInput},
		{"MEKA.Transform columns", func() error { return mk.Transform(ctx, mat.NewDense(4, mk.Dim(), nil), x4) }, approx.ErrInput},
		{"MEKA.Solve y rows", func() error { _, err := mk.Solve(ctx, 1e-2, mat.NewDense(3, 1, nil)); return err }, approx.ErrInput},
		{"FitMEKA rank < 0", func() error {
			_, err := meka.Fit(ctx, x, k, meka.Options{Rank: -1}, rng())
			return err
		}, approx.ErrInput},
		{"FitBKA clusters > n", func() error {
			_, err := meka.FitBKA(ctx, x, k, meka.BKAOptions{Clusters: 21}, rng())
			return err
		}, approx.ErrInput},
		{"Uniform m > n", func() error { _, err := approx.Uniform{}.Sample(ctx, x, k, 21, rng()); return err }, approx.ErrInput},
		{"Uniform NaN", func() error { _, err := approx.Uniform{}.Sample(ctx, nanX, k, 2, rng()); return err }, approx.ErrInput},
		{"ExactRLS m = 0", func() error { _, err := approx.ExactRLS{}.Sample(ctx, x, k, 0, rng()); return err }, approx.ErrInput},
		{"RecursiveRLS NaN", func() error { _, err := approx.RecursiveRLS{}.Sample(ctx, nanX, k, 5, rng()); return err }, approx.ErrInput},
		{"BLESS empty", func() error { _, err := approx.BLESS{}.Sample(ctx, empty, k, 5, rng()); return err }, approx.ErrInput},
		{"KMeansCenters m > n", func() error { _, err := approx.KMeansCenters{}.Sample(ctx, x, k, 21, rng()); return err }, approx.ErrInput},
		{"RandomizedClustered Inf", func() error { _, err := approx.RandomizedClustered{}.Sample(ctx, infX, k, 3, rng()); return err }, approx.ErrInput},
		{"Nystrom.Fit QR landmark columns", func() error {
			_, err := approx.Nystrom{QR: true}.Fit(ctx, x, k, &approx.Landmarks{Points: x4})
			return err
		}, approx.ErrInput},
		{"NystromMap.Transform columns", func() error { return ny.Transform(ctx, mat.NewDense(4, ny.Dim(), nil), x4) }, approx.ErrInput},
		{"NystromMap.Transform dst shape", func() error { return ny.Transform(ctx, mat.NewDense(3, 1, nil), x) }, nil},
		{"RFF.Fit features 0", func() error { _, err := approx.RFF{}.Fit(k, 3, rng()); return err }, approx.ErrInput},
		{"ExactLeverage ridge NaN", func() error { _, _, err := approx.ExactLeverage(ctx, x, k, math.NaN()); return err }, approx.ErrInput},
		{"ExactLeverage NaN X", func() error { _, _, err := approx.ExactLeverage(ctx, nanX, k, 1); return err }, approx.ErrInput},
		{"SampleByScores length", func() error { _, err := approx.SampleByScores(x, []float64{1}, 0.1, 1, rng()); return err }, approx.ErrInput},
		{"RelFrobeniusError columns", func() error {
			_, err := approx.RelFrobeniusError(ctx, x4, k, mk, 5, rng())
			return err
		}, nil},
		// kernel.
		{"Op.Block columns", func() error { return kernel.NewOp(k, x, x4, kernel.Options{}).Block(ctx, mat.NewDense(20, 4, nil)) }, model.ErrInput},
		{"Op.Mul columns", func() error {
			return kernel.NewOp(k, x, x4, kernel.Options{}).Mul(ctx, mat.NewDense(20, 1, nil), mat.NewDense(4, 1, nil))
		}, model.ErrInput},
		{"Op.Block nil X", func() error { return kernel.NewOp(k, nil, x, kernel.Options{}).Block(ctx, mat.NewDense(1, 20, nil)) }, model.ErrInput},
		{"Op.Mul nil kernel", func() error {
			return kernel.NewOp(nil, x, x, kernel.Options{}).Mul(ctx, mat.NewDense(20, 1, nil), mat.NewDense(20, 1, nil))
		}, model.ErrInput},
		{"Op.Block dst shape", func() error { return op.Block(ctx, mat.NewDense(3, 3, nil)) }, model.ErrInput},
		{"Op.Mul v rows", func() error { return op.Mul(ctx, mat.NewDense(20, 1, nil), mat.NewDense(3, 1, nil)) }, model.ErrInput},
		{"Op.MulT u rows", func() error { return op.MulT(ctx, mat.NewDense(20, 1, nil), mat.NewDense(3, 1, nil)) }, model.ErrInput},
		{"Op.MulTMul dst shape", func() error { return op.MulTMul(ctx, mat.NewDense(2, 1, nil), mat.NewDense(20, 1, nil)) }, model.ErrInput},
		{"kernel.New unknown", func() error { _, err := kernel.New(kernel.Spec{Type: "gausian"}); return err }, nil},
		{"SubLowerGram shapes", func() error {
			return kernel.SubLowerGram(ctx, mat.NewDense(3, 3, nil), mat.NewDense(4, 2, nil), kernel.Options{})
		}, model.ErrInput},
		// precond and solver.
		{"BuildFalkon not square", func() error {
			_, err := precond.BuildFalkon(mat.NewDense(2, 3, nil), 10, 1, precond.Options{})
			return err
		}, precond.ErrInput},
		{"BuildFalkon NaN K_MM", func() error {
			a := mat.DenseCopyOf(kmm)
			a.Set(0, 0, math.NaN())
			_, err := precond.BuildFalkon(a, 20, 1e-3, precond.Options{})
			return err
		}, nil},
		{"BuildWeighted weights", func() error {
			_, err := precond.BuildWeighted(mat.DenseCopyOf(kmm), 20, 1e-3, []float64{1}, precond.Options{})
			return err
		}, precond.ErrInput},
		{"Falkon.Precondition rows", func() error { return pre.Precondition(ctx, mat.NewDense(3, 1, nil), mat.NewDense(3, 1, nil)) }, nil},
		{"Falkon.MulKMM rows", func() error { return pre.MulKMM(mat.NewDense(3, 1, nil), mat.NewDense(3, 1, nil)) }, precond.ErrInput},
		{"Cholesky NaN", func() error {
			_, err := solver.Cholesky(mat.NewSymDense(2, []float64{math.NaN(), 0, 0, 1}), solver.CholOptions{})
			return err
		}, nil},
		{"Cholesky empty", func() error { _, err := solver.CholeskyInPlace(empty, solver.CholOptions{}); return err }, nil},
		{"Cholesky not square", func() error {
			_, err := solver.CholeskyInPlace(mat.NewDense(2, 3, nil), solver.CholOptions{})
			return err
		}, nil},
		{"Chol.Solve rows", func() error { return chol.Solve(mat.NewDense(3, 1, nil)) }, nil},
		{"CG shapes", func() error {
			a := solver.Matrix{A: mat.NewSymDense(2, []float64{2, 0, 0, 2})}
			_, err := solver.CG(ctx, a, mat.NewDense(3, 1, nil), mat.NewDense(2, 1, nil), solver.Options{})
			return err
		}, nil},
		{"SolveSMO label 0", func() error {
			_, err := solver.SolveSMO(ctx, solver.SVMProblem{K: nil, Y: []float64{0}, C: []float64{1}}, solver.SVMOptions{})
			return err
		}, solver.ErrSVMProblem},
		// second sweep: fitted approximations, quality measures, persistence.
		{"MEKA.Rows index", func() error { return mk.Rows(ctx, mat.NewDense(1, 20, nil), []int{20}) }, nil},
		{"MEKA.Rows dst shape", func() error { return mk.Rows(ctx, mat.NewDense(2, 3, nil), []int{0}) }, nil},
		{"MEKA.Coefficients rows", func() error { _, err := mk.Coefficients(mat.NewDense(3, 1, nil)); return err }, nil},
		{"MEKA.Expand columns", func() error { return mk.Expand(ctx, mat.NewDense(4, 1, nil), x4, mat.NewDense(mk.Rank(), 1, nil)) }, nil},
		{"MEKA.CrossMul alpha rows", func() error { return mk.CrossMul(ctx, mat.NewDense(20, 1, nil), x, mat.NewDense(3, 1, nil)) }, nil},
		{"MEKA.Mul shapes", func() error { return mk.Mul(ctx, mat.NewDense(20, 1, nil), mat.NewDense(3, 1, nil)) }, nil},
		{"MEKA.SolveCG lambda 0", func() error { _, err := mk.SolveCG(ctx, 0, mat.NewDense(20, 1, nil), meka.CG{}); return err }, nil},
		{"MEKA.Solve NaN y", func() error {
			yy := mat.NewDense(20, 1, nil)
			yy.Set(2, 0, math.NaN())
			_, err := mk.Solve(ctx, 1e-2, yy)
			return err
		}, nil},
		{"BKA shapes", func() error {
			b, err := meka.FitBKA(ctx, x, k, meka.BKAOptions{Clusters: 2}, rng())
			if err != nil {
				return fmt.Errorf("setup: %w", err)
			}
			if err := b.Mul(ctx, mat.NewDense(20, 1, nil), mat.NewDense(3, 1, nil)); err == nil {
				return nil
			}
			if _, err := b.Solve(ctx, 1e-2, mat.NewDense(3, 1, nil)); err == nil {
				return nil
			}
			if err := b.Rows(ctx, mat.NewDense(1, 20, nil), []int{-1}); err == nil {
				return nil
			}
			return b.CrossMul(ctx, mat.NewDense(4, 1, nil), x4, mat.NewDense(20, 1, nil))
		}, nil},
		{"NewFeatureRows columns", func() error { _, err := approx.NewFeatureRows(ctx, ny, x4); return err }, nil},
		{"SpectralError subset < 0", func() error { _, err := approx.SpectralError(ctx, x, k, mk, -1, rng()); return err }, nil},
		{"SymNorm2 not square", func() error { _, err := approx.SymNorm2(ctx, mat.NewDense(2, 3, nil), rng()); return err }, nil},
		{"SymNorm2 nil", func() error { _, err := approx.SymNorm2(ctx, nil, rng()); return err }, nil},
		{"ScoreAccuracy lengths", func() error { _, err := approx.ScoreAccuracy([]float64{1}, []float64{1, 2}); return err }, nil},
		{"ScoreAccuracy empty", func() error { _, err := approx.ScoreAccuracy(nil, nil); return err }, nil},
		{"Spectrum.RidgeFor NaN", func() error {
			s := &approx.Spectrum{Values: []float64{3, 2, 1}}
			_, err := s.RidgeFor(math.NaN())
			return err
		}, nil},
		{"Spectrum.RidgeFor empty", func() error { _, err := (&approx.Spectrum{}).RidgeFor(1); return err }, nil},
		{"SaveMap nil", func() error { return approx.SaveMap(io.Discard, nil) }, nil},
		{"SavePartition nil", func() error { return cluster.SavePartition(io.Discard, nil) }, nil},
		{"LoadMap empty", func() error { _, err := approx.LoadMap(strings.NewReader("")); return err }, approx.ErrFormat},
		{"model.Save unfitted", func() error { return model.Save(io.Discard, &model.KRR{Lambda: 1}) }, nil},
		{"model.Save nil", func() error { return model.Save(io.Discard, nil) }, nil},
		{"model.Load empty", func() error { _, err := model.Load(strings.NewReader("")); return err }, model.ErrFormat},
		{"Labels.Decode columns", func() error {
			l, _ := model.NewLabels([]float64{0, 1, 2})
			_, err := l.Decode(mat.NewDense(2, 4, nil))
			return err
		}, model.ErrInput},
		{"Labels.Targets unknown label", func() error {
			l, _ := model.NewLabels([]float64{0, 1, 2})
			_, err := l.Targets([]float64{0, 7})
			return err
		}, model.ErrInput},
		{"KernelExpansion.Decision columns", func() error {
			e := &model.KernelExpansion{Kernel: k, Centers: x, Coef: mat.NewDense(20, 1, nil)}
			return e.Decision(ctx, mat.NewDense(4, 1, nil), x4)
		}, model.ErrInput},
		{"KernelExpansion.Decision dst", func() error {
			e := &model.KernelExpansion{Kernel: k, Centers: x, Coef: mat.NewDense(20, 1, nil)}
			return e.Decision(ctx, mat.NewDense(3, 1, nil), x)
		}, nil},
		{"Jacobi.Precondition shape", func() error {
			return precond.Jacobi{Diag: []float64{1, 2}}.Precondition(ctx, mat.NewDense(3, 1, nil), mat.NewDense(3, 1, nil))
		}, nil},
		{"Chol.SolveL rows", func() error { return chol.SolveL(mat.NewDense(3, 1, nil), true) }, nil},
		{"Chol.MulL rows", func() error { return chol.MulL(mat.NewDense(3, 1, nil), false) }, nil},
		{"CG nil right-hand side", func() error {
			a := solver.Matrix{A: mat.NewSymDense(2, []float64{2, 0, 0, 2})}
			_, err := solver.CG(ctx, a, nil, mat.NewDense(2, 1, nil), solver.Options{})
			return err
		}, solver.ErrShape},
		{"PCG nil operator", func() error {
			_, err := solver.PCG(ctx, nil, nil, mat.NewDense(2, 1, nil), mat.NewDense(2, 1, nil), solver.Options{})
			return err
		}, nil},
		{"CholeskyBlocked NaN", func() error {
			a := mat.NewDense(2, 2, []float64{1, math.NaN(), math.NaN(), 1})
			_, err := solver.CholeskyBlocked(ctx, a, solver.CholOptions{}, nil)
			return err
		}, nil},
		// nil matrices where the API takes a matrix.
		{"KernelExpansion.Decision empty", func() error {
			return (&model.KernelExpansion{}).Decision(ctx, mat.NewDense(20, 1, nil), x)
		}, model.ErrInput},
		{"BuildFalkon nil", func() error { _, err := precond.BuildFalkon(nil, 10, 1, precond.Options{}); return err }, precond.ErrInput},
		{"BuildWeighted nil", func() error { _, err := precond.BuildWeighted(nil, 10, 1, nil, precond.Options{}); return err }, precond.ErrInput},
		{"Cholesky nil", func() error { _, err := solver.Cholesky(nil, solver.CholOptions{}); return err }, solver.ErrShape},
		{"CholeskyInPlace nil", func() error { _, err := solver.CholeskyInPlace(nil, solver.CholOptions{}); return err }, solver.ErrShape},
		{"CholeskyBlocked nil", func() error { _, err := solver.CholeskyBlocked(ctx, nil, solver.CholOptions{}, nil); return err }, solver.ErrShape},
		{"Chol.Solve nil", func() error { return chol.Solve(nil) }, solver.ErrShape},
		{"Lauum nil", func() error { return solver.Lauum(ctx, nil, nil) }, solver.ErrShape},
		{"SubLowerGram nil", func() error { return kernel.SubLowerGram(ctx, nil, nil, kernel.Options{}) }, nil},
		{"Dense.Gemm nil", func() error { return kernel.Dense{}.Gemm(ctx, false, false, 1, nil, nil, 0, nil) }, nil},
		{"Dense.SyrkLower nil", func() error { return kernel.Dense{}.SyrkLower(ctx, false, 1, nil, 0, nil) }, nil},
		{"Dense.Gemm shapes", func() error {
			return kernel.Dense{}.Gemm(ctx, false, false, 1, mat.NewDense(2, 3, nil), mat.NewDense(2, 3, nil), 0, mat.NewDense(2, 3, nil))
		}, nil},
		// datasets.
		{"Standardizer.Fit NaN", func() error { return (&datasets.Standardizer{}).Fit(nanX) }, datasets.ErrInput},
		{"Standardizer.Transform columns", func() error {
			var s datasets.Standardizer
			if err := s.Fit(x); err != nil {
				return fmt.Errorf("setup: %w", err)
			}
			_, err := s.Transform(x4)
			return err
		}, datasets.ErrInput},
		{"MinMax.Transform before Fit", func() error { _, err := (&datasets.MinMax{}).Transform(x); return err }, nil},
		{"TargetScaler.Fit empty", func() error { return (&datasets.TargetScaler{}).Fit(nil) }, datasets.ErrInput},
		{"Subset out of range", func() error {
			d := &datasets.Dataset{X: x, Y: y}
			_, err := d.Subset([]int{0, 20})
			return err
		}, datasets.ErrInput},
		{"KFold k > n", func() error { _, err := datasets.KFold(3, 4, rng()); return err }, datasets.ErrInput},
		{"Split fraction 1", func() error { _, _, err := datasets.Split(10, 1, rng()); return err }, datasets.ErrInput},
		{"StratifiedKFold NaN label", func() error { _, err := datasets.StratifiedKFold([]float64{1, math.NaN(), 1, 0}, 2, rng()); return err }, datasets.ErrInput},
		{"PlusMinus three classes", func() error { _, err := datasets.PlusMinus([]float64{0, 1, 2}); return err }, datasets.ErrInput},
		{"Dataset.Validate nil X", func() error { return (&datasets.Dataset{Y: y}).Validate() }, datasets.ErrInput},
		{"TargetScaler.Fit NaN", func() error { return (&datasets.TargetScaler{}).Fit([]float64{1, math.NaN()}) }, datasets.ErrInput},
		{"CheckClasses one class", func() error { return datasets.CheckClasses([]float64{1, 1}, 10) }, datasets.ErrInput},
		{"OneVsRest missing class", func() error { _, err := datasets.OneVsRest([]float64{0, 1}, 5); return err }, datasets.ErrInput},
		{"Clusters.Generate N < 0", func() error { _, err := (datasets.Clusters{N: -1}).Generate(rng()); return err }, datasets.ErrInput},
		{"Smooth.Generate nil rng", func() error { _, err := (datasets.Smooth{N: 5, Dim: 2}).Generate(nil); return err }, nil},
		{"StratifiedSplit fraction NaN", func() error { _, _, err := datasets.StratifiedSplit(labels, math.NaN(), rng()); return err }, datasets.ErrInput},
		{"TrainTest fraction 2", func() error {
			d := &datasets.Dataset{X: x, Y: y}
			_, _, err := d.TrainTest(2, false, rng())
			return err
		}, datasets.ErrInput},
		{"ClassCounts NaN terminates", func() error {
			cc := datasets.ClassCounts([]float64{1, math.NaN(), 0, math.NaN()})
			if len(cc) != 3 || !math.IsNaN(cc[0].Label) || cc[0].Count != 2 {
				return nil // fail: NaNs must be one label, counted twice
			}
			return datasets.CheckClasses([]float64{1, math.NaN(), 0}, 0)
		}, datasets.ErrInput},
		{"Dataset.Dim without X", func() error {
			if d := (&datasets.Dataset{}).Dim(); d != 0 {
				return nil
			}
			return (&datasets.Dataset{}).Validate()
		}, datasets.ErrInput},
		{"Summarize nil", func() error { _, err := datasets.Summarize(&datasets.Dataset{}); return err }, datasets.ErrInput},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("panic: %v", r)
						err = errors.New("panicked")
					}
				}()
				err = c.call()
			}()
			switch {
			case err == nil:
				t.Errorf("no error")
			case c.want != nil && !errors.Is(err, c.want):
				t.Errorf("err = %v, want %v", err, c.want)
			}
		})
	}
}
