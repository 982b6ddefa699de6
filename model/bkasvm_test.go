package model

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/solver"
	"gonum.org/v1/gonum/mat"
)

func TestBKASVMConformance(t *testing.T) {
	for _, mk := range []func() Estimator{
		func() Estimator { return &BKASVM{C: 10, Clusters: 3, Seed: 1} },
		func() Estimator {
			return &BKASVM{C: 10, Clusters: 4, Prediction: LocalPrediction, Multiclass: OneVsRest}
		},
		func() Estimator {
			return &BKASVM{C: 10, Clusters: 3, Sketch: 2, Refine: true, Resources: Resources{Workers: 1}}
		},
	} {
		checkConformance(t, mk, conformanceBinary(1), conformanceMulticlass(2))
	}
}

func TestBKASVMBadConfig(t *testing.T) {
	c := conformanceBinary(3)
	for _, b := range []*BKASVM{
		{Clusters: -1},
		{Clusters: 61}, // n = 60
		{Prediction: "nearest"},
		{C: -2},
		{Sketch: -1},
	} {
		if err := b.Fit(context.Background(), c.x, c.y); !errors.Is(err, ErrInput) {
			t.Errorf("%+v: err = %v, want ErrInput", *b, err)
		}
	}
}

// With one cluster the block-diagonal kernel is the kernel: BKA-SVM is the
// exact SVM without bias, to the last bit (same rows, same solver).
func TestBKASVMOneClusterIsExactNoBias(t *testing.T) {
	c := conformanceMulticlass(4)
	ctx := context.Background()
	k := kernel.Gaussian{Gamma: 2}
	b := &BKASVM{C: 3, Kernel: k, Clusters: 1}
	s := &SVM{C: 3, Kernel: k, NoBias: true}
	if err := b.Fit(ctx, c.x, c.y); err != nil {
		t.Fatal(err)
	}
	if err := s.Fit(ctx, c.x, c.y); err != nil {
		t.Fatal(err)
	}
	db, _ := b.DecisionFunction(c.xTest)
	ds, _ := s.DecisionFunction(c.xTest)
	if !mat.Equal(db, ds) {
		t.Errorf("decision values differ:\n%v\n%v", mat.Formatted(db), mat.Formatted(ds))
	}
	ib := b.Info()
	is := s.Info()
	for i := range ib.Tasks {
		if ib.Tasks[i].Objective != is.Tasks[i].Objective || ib.Tasks[i].SV != is.Tasks[i].SV {
			t.Errorf("task %d: objective %g / %d SV, exact %g / %d SV", i, ib.Tasks[i].Objective, ib.Tasks[i].SV, is.Tasks[i].Objective, is.Tasks[i].SV)
		}
	}
}

// The global decision is the sum of per-cluster no-bias SVMs (eq. 9 with a
// block-diagonal kernel), the local one is the term of the point's cluster,
// and the objective is the sum of the cluster objectives.
func TestBKASVMIsSumOfClusterSVMs(t *testing.T) {
	c := conformanceBinary(6)
	ctx := context.Background()
	k := kernel.Gaussian{Gamma: 3}
	glob := &BKASVM{C: 2, Kernel: k, Clusters: 4, Seed: 9, Prediction: GlobalPrediction}
	loc := &BKASVM{C: 2, Kernel: k, Clusters: 4, Seed: 9} // local is the default
	for _, b := range []*BKASVM{glob, loc} {
		if err := b.Fit(ctx, c.x, c.y); err != nil {
			t.Fatal(err)
		}
	}
	part := glob.Partition()
	members := part.Members()
	testCluster, err := part.Assign(c.xTest)
	if err != nil {
		t.Fatal(err)
	}
	nt, _ := c.xTest.Dims()
	sum := make([]float64, nt)
	own := make([]float64, nt)
	var obj float64
	for s, rows := range members {
		// The cluster's no-bias dual, solved directly; some clusters hold a
		// single class, which the dual handles like any other.
		yy := make([]float64, len(rows))
		for r, i := range rows {
			yy[r] = -1
			if c.y[i] == 7 { // BKA-SVM's +1 is the larger label
				yy[r] = 1
			}
		}
		xs := gatherRows(c.x, rows)
		r, err := solver.SolveDCD(ctx, solver.SVMProblem{K: newKernelColumns(k, xs, 1), Y: yy, C: slices.Repeat([]float64{2}, len(rows))}, solver.SVMOptions{})
		if err != nil {
			t.Fatal(err)
		}
		obj += r.Objective
		for i := range nt {
			var f float64
			for q, a := range r.Alpha {
				f += a * yy[q] * k.Eval(c.xTest.RawRowView(i), xs.RawRowView(q))
			}
			sum[i] += f
			if testCluster[i] == s {
				own[i] = f
			}
		}
	}
	dg, _ := glob.DecisionFunction(c.xTest)
	dl, _ := loc.DecisionFunction(c.xTest)
	for i := range nt {
		// Different summation order over the SVs (block engine over one SV
		// set versus four): agreement to 1e-12.
		if math.Abs(dg.At(i, 0)-sum[i]) > 1e-12 || math.Abs(dl.At(i, 0)-own[i]) > 1e-12 {
			t.Fatalf("row %d: global %g vs Σ clusters %g; local %g vs own cluster %g", i, dg.At(i, 0), sum[i], dl.At(i, 0), own[i])
		}
	}
	// Prediction is read at predict time: switching it after Fit gives the
	// local model's values exactly.
	glob.Prediction = LocalPrediction
	if dsw, err := glob.DecisionFunction(c.xTest); err != nil || !mat.Equal(dsw, dl) {
		t.Errorf("switching to local prediction after Fit: err %v, values differ: %v", err, !mat.Equal(dsw, dl))
	}
	glob.Prediction = "nearest"
	if _, err := glob.Predict(c.xTest); !errors.Is(err, ErrInput) {
		t.Errorf("unknown prediction mode at predict time: err = %v, want ErrInput", err)
	}
	glob.Prediction = GlobalPrediction
	info := glob.Info()
	if math.Abs(info.Tasks[0].Objective-obj) > 1e-12*math.Abs(obj) {
		t.Errorf("objective %g, Σ cluster objectives %g", info.Tasks[0].Objective, obj)
	}
}

// Refinement continues the exact no-bias solver, so it must reach the exact
// no-bias optimum (both at Tol 1e-8: objectives agree to 1e-6 relative).
func TestBKASVMRefineReachesExact(t *testing.T) {
	c := conformanceMulticlass(8)
	ctx := context.Background()
	k := kernel.Gaussian{Gamma: 1}
	b := &BKASVM{C: 4, Kernel: k, Clusters: 5, Refine: true, Tol: 1e-8}
	s := &SVM{C: 4, Kernel: k, NoBias: true, Tol: 1e-8}
	if err := b.Fit(ctx, c.x, c.y); err != nil {
		t.Fatal(err)
	}
	if err := s.Fit(ctx, c.x, c.y); err != nil {
		t.Fatal(err)
	}
	ib := b.Info()
	is := s.Info()
	if !ib.Refined {
		t.Error("Info.Refined is false")
	}
	for i := range ib.Tasks {
		if d := math.Abs(ib.Tasks[i].Objective - is.Tasks[i].Objective); d > 1e-6*math.Abs(is.Tasks[i].Objective) {
			t.Errorf("task %d: refined objective %.10g, exact %.10g", i, ib.Tasks[i].Objective, is.Tasks[i].Objective)
		}
	}
}

// The paper's claim at small scale: on a 4,000-point subsample of ijcnn1
// (C = 32, γ = 2, Table 2's setting) BKA-SVM with 8 clusters is nearly as
// accurate as the exact SVM.
// The paper's claim at small scale: on 4,000-point subsamples of ijcnn1
// (C = 32, γ = 2, Table 2's setting) BKA-SVM with 8 clusters is nearly as
// accurate as the exact SVM.
func TestBKASVMIjcnn1Subsample(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	ptr, ok1 := datasets.SharedPath("ijcnn1.train.libsvm.gz")
	pte, ok2 := datasets.SharedPath("ijcnn1.test.libsvm.gz")
	if !ok1 || !ok2 {
		t.Skip("ijcnn1 not in the shared datasets")
	}
	// Every 11th row: features 1–10 one-hot encode the row's position modulo
	// 10, so a stride coprime with 10 keeps all ten.
	pick := func(path string) (*mat.Dense, []float64) {
		ds, err := datasets.ReadLIBSVMFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var rows []int
		for i := 0; i < ds.Len() && len(rows) < 4000; i += 11 {
			rows = append(rows, i)
		}
		y := make([]float64, len(rows))
		for r, i := range rows {
			y[r] = ds.Y[i]
		}
		return gatherRows(ds.X, rows), y
	}
	x, y := pick(ptr)
	xt, yt := pick(pte)
	ctx := context.Background()
	k := kernel.Gaussian{Gamma: 2}
	exact := &SVM{C: 32, Kernel: k}
	bka := &BKASVM{C: 32, Kernel: k, Clusters: 8, Seed: 1}
	if err := exact.Fit(ctx, x, y); err != nil {
		t.Fatal(err)
	}
	if err := bka.Fit(ctx, x, y); err != nil {
		t.Fatal(err)
	}
	pe, _ := exact.Predict(xt)
	pb, _ := bka.Predict(xt)
	ae, ab := accuracy(pe, yt), accuracy(pb, yt)
	t.Logf("exact %.2f%%, BKA-SVM (8 clusters) %.2f%%", ae, ab)
	// Table 2: 98.49% vs 98.69% at full size, a 0.2-point gap; at 4,000
	// points we allow 1 point. The exact SVM must beat the 90.5% of the
	// majority class by a wide margin.
	if ab < ae-1 || ae < 95 {
		t.Errorf("BKA-SVM accuracy %.2f%%, exact %.2f%%", ab, ae)
	}
}

func TestBKASVMProgress(t *testing.T) {
	c := conformanceMulticlass(12)
	var calls, last, total int
	b := &BKASVM{C: 2, Clusters: 3, Progress: func(p Progress) error {
		if p.Stage != StageCluster {
			t.Errorf("stage %q, want %q", p.Stage, StageCluster)
		}
		calls++
		last, total = p.Done, p.Total
		return nil
	}}
	if err := b.Fit(context.Background(), c.x, c.y); err != nil {
		t.Fatal(err)
	}
	// One call per (pair of classes, cluster) problem, done counting up to
	// the total: at most 3 pairs × 3 clusters (a cluster may lack a pair's classes).
	if calls == 0 || calls > 9 || last != total || total != calls {
		t.Errorf("%d calls, last (%d, %d)", calls, last, total)
	}
}

// With one cluster, BKA-SVM's Platt scaling is SVM{NoBias: true}'s: the
// same cross-validation folds (PCG stream (Seed, task)) and the same no-bias
// duals on the folds' rows, so the same sigmoids and probabilities up to the
// solver's tolerance (SVM's folds visit the rows in shuffled order, BKA-SVM's
// in training order, so coordinate descent takes other paths to the
// optimum). At Tol = 1e-10 the decision values agree to about 1e-9, hence
// 1e-6 on the sigmoids and probabilities is loose yet far below the 1e-4
// the default tolerance gives.
func TestBKASVMOneClusterProbaIsSVMs(t *testing.T) {
	k := kernel.Gaussian{Gamma: 2}
	for _, c := range []conformanceCase{conformanceBinary(21), conformanceMulticlass(22)} {
		b := &BKASVM{C: 3, Kernel: k, Clusters: 1, Probability: true, Seed: 5, Tol: 1e-10}
		s := &SVM{C: 3, Kernel: k, NoBias: true, Probability: true, Seed: 5, Tol: 1e-10}
		for _, e := range []Estimator{b, s} {
			if err := e.Fit(context.Background(), c.x, c.y); err != nil {
				t.Fatal(err)
			}
		}
		pb, err := b.PredictProba(c.xTest)
		if err != nil {
			t.Fatal(err)
		}
		ps, err := s.PredictProba(c.xTest)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.EqualApprox(pb, ps, 1e-6) {
			t.Errorf("%s: BKA-SVM probabilities differ from the no-bias SVM's:\n%v\n%v", c.name, mat.Formatted(pb), mat.Formatted(ps))
		}
		for i, sb := range b.fit.platt {
			if ss := s.fit.platt[i]; math.Abs(sb.a-ss.a) > 1e-6 || math.Abs(sb.b-ss.b) > 1e-6 {
				t.Errorf("%s task %d: sigmoid %v, SVM's %v", c.name, i, sb, ss)
			}
		}
	}
}

// With several clusters the sigmoids are fitted on held-out decision
// values: recompute them by hand for a binary problem (5 folds of the
// shuffled rows, per-cluster no-bias duals on the other rows, each held-out
// row predicted by its own cluster's terms) and compare.
func TestBKASVMPlattByHand(t *testing.T) {
	c := conformanceBinary(23)
	k := kernel.Gaussian{Gamma: 2}
	b := &BKASVM{C: 3, Kernel: k, Clusters: 4, Probability: true, Seed: 7}
	if err := b.Fit(context.Background(), c.x, c.y); err != nil {
		t.Fatal(err)
	}
	n := len(c.y)
	rng := rand.New(rand.NewPCG(7, 0))
	fold := make([]int, n)
	for q, p := range rng.Perm(n) {
		fold[p] = q % plattFolds
	}
	labels, _ := NewLabels(c.y)
	dec := make([]float64, n)
	ypm := make([]float64, n)
	for i, v := range c.y {
		ypm[i] = -1
		if v == labels.Classes[1] {
			ypm[i] = 1
		}
	}
	part := b.Partition()
	for f := range plattFolds {
		for s := range 4 {
			var rows []int
			var yy, cc []float64
			for i := range n {
				if fold[i] != f && part.Labels[i] == s {
					rows, yy, cc = append(rows, i), append(yy, ypm[i]), append(cc, 3)
				}
			}
			if len(rows) == 0 {
				continue
			}
			r, err := solver.SolveDCD(context.Background(), solver.SVMProblem{K: newKernelColumns(k, pickRows(c.x, rows), 1), Y: yy, C: cc},
				solver.SVMOptions{Tol: DefaultSVMTol, CacheBytes: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			for i := range n {
				if fold[i] != f || part.Labels[i] != s {
					continue
				}
				for q, j := range rows {
					dec[i] += r.Alpha[q] * yy[q] * k.Eval(c.x.RawRowView(i), c.x.RawRowView(j))
				}
			}
		}
	}
	// The hand-made sums group differently from the kernel engine's (1e-15
	// relative), and fitSigmoid stops once its gradient is below 1e-5, so
	// the two fits may stop one Newton step apart: 1e-5 absolute bounds
	// that step here (the Hessian's diagonal is above 1).
	want := fitSigmoid(dec, ypm)
	got := b.fit.platt[0]
	if math.Abs(got.a-want.a) > 1e-5 || math.Abs(got.b-want.b) > 1e-5 {
		t.Errorf("sigmoid (A, B) = (%v, %v), by hand (%v, %v)", got.a, got.b, want.a, want.b)
	}
	t.Logf("sigmoid (A, B) = (%v, %v), by hand (%v, %v)", got.a, got.b, want.a, want.b)
}
