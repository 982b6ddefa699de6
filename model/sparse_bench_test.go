package model

import (
	"context"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// readMNISTSparse reads the shared mnist files straight into CSR with the
// pixels divided by 255 (scaling only, so zeros stay zeros).
func readMNISTSparse(b *testing.B) (xtr *datasets.CSR, ytr []float64, xte *datasets.CSR, yte []float64) {
	ptr, ok1 := datasets.SharedPath("mnist.train.libsvm.gz")
	pte, ok2 := datasets.SharedPath("mnist.test.libsvm.gz")
	if !ok1 || !ok2 {
		b.Skip("mnist not in the shared datasets")
	}
	ctx := context.Background()
	xtr, ytr, err := datasets.ReadLIBSVMSparseFile(ctx, ptr, 784)
	if err != nil {
		b.Fatal(err)
	}
	xte, yte, err = datasets.ReadLIBSVMSparseFile(ctx, pte, 784)
	if err != nil {
		b.Fatal(err)
	}
	scale := make([]float64, 784)
	for j := range scale {
		scale[j] = 1.0 / 255
	}
	if xtr, err = xtr.ScaleColumns(scale); err != nil {
		b.Fatal(err)
	}
	if xte, err = xte.ScaleColumns(scale); err != nil {
		b.Fatal(err)
	}
	return xtr, ytr, xte, yte
}

// BenchmarkFalkonMNISTSparseDense fits Falkon (M = 5,000 uniform centers,
// Gaussian σ = 5 on pixels in [0, 1], λ = 1e-7, 10 CG iterations, 10
// classes) on mnist given as CSR (density ≈ 0.19, so the engine expands row
// blocks to dense) and as a dense matrix in one process, in the order
// sparse, dense, dense, sparse (so that a drift of the machine's load or the
// first run's page faults favour neither), and reports each fit's wall time,
// its CPU time (user + system of the whole process during the fit, so
// spinning or idle workers show) and test error. Run:
//
//	go test ./model -run '^$' -bench FalkonMNISTSparseDense -benchtime 1x -timeout 1h
func BenchmarkFalkonMNISTSparseDense(b *testing.B) {
	xtr, ytr, xte, yte := readMNISTSparse(b)
	dtr, dte := xtr.ToDense(), xte.ToDense()
	for _, tc := range []struct {
		name   string
		tr, te mat.Matrix
	}{{"sparse", xtr, xte}, {"dense", dtr, dte}, {"dense-again", dtr, dte}, {"sparse-again", xtr, xte}} {
		b.Run(tc.name, func(b *testing.B) {
			var fit, cpu time.Duration
			var testErr float64
			for b.Loop() {
				m := &Falkon{Kernel: kernel.GaussianSigma(5), Lambda: 1e-7, M: 5000, MaxIter: 10, Task: Classification, Seed: 1}
				t0, c0 := time.Now(), processCPU()
				if err := m.Fit(context.Background(), tc.tr, ytr); err != nil {
					b.Fatal(err)
				}
				fit, cpu = time.Since(t0), processCPU()-c0
				pred, err := m.Predict(tc.te)
				if err != nil {
					b.Fatal(err)
				}
				wrong := 0
				for i, p := range pred {
					if p != yte[i] {
						wrong++
					}
				}
				testErr = float64(wrong) / float64(len(yte))
			}
			b.ReportMetric(fit.Seconds(), "fit-s")
			b.ReportMetric(cpu.Seconds(), "fit-cpu-s")
			b.ReportMetric(100*testErr, "test-err-%")
		})
	}
}

// BenchmarkFalkonSparseSynthetic fits Falkon (M = 2,000 uniform centers,
// Gaussian γ = 1/100 — squared distances are about 2·50 = 100 — λ = 1e-6,
// 10 CG iterations) on datasets.SparseRegression(100,000 × 50,000, 50
// non-zeros a row): 60 MB as CSR, where a dense X would take 40 GB. It
// reports the fit's wall time and its parts (centers, preconditioner with
// K_MM and K_nMᵀy, CG), the planned peak and the Go heap's size (run it
// under /usr/bin/time -v for the process's peak RSS). Run:
//
//	go test -c -o /tmp/landmark-model.test ./model && /usr/bin/time -v /tmp/landmark-model.test -test.run '^$' -test.bench FalkonSparseSynthetic -test.benchtime 1x -test.timeout 1h
func BenchmarkFalkonSparseSynthetic(b *testing.B) {
	if testing.Short() {
		b.Skip("large")
	}
	x, y, err := datasets.SparseRegression(100_000, 50_000, 50, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		m := &Falkon{Kernel: kernel.Gaussian{Gamma: 0.01}, Lambda: 1e-6, M: 2000, MaxIter: 10, Seed: 1}
		plan, err := m.Plan(x, 1)
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		if err := m.Fit(context.Background(), x, y); err != nil {
			b.Fatal(err)
		}
		fit := time.Since(t0)
		f, err := m.Predict(x)
		if err != nil {
			b.Fatal(err)
		}
		var se, sy float64
		for i, v := range f {
			se += (v - y[i]) * (v - y[i])
			sy += y[i] * y[i]
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		info := m.Info()
		b.ReportMetric(fit.Seconds(), "fit-s")
		b.ReportMetric(info.SampleTime.Seconds(), "sample-s")
		b.ReportMetric(info.PrecondTime.Seconds(), "precond-s")
		b.ReportMetric(info.SolveTime.Seconds(), "solve-s")
		b.ReportMetric(float64(plan.Total)/(1<<30), "plan-GiB")
		b.ReportMetric(float64(ms.HeapSys)/(1<<30), "heapsys-GiB")
		b.ReportMetric(se/sy, "train-rel-mse")
	}
}
