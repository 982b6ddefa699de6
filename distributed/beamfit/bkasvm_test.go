package beamfit

import (
	"context"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// TestBKASVMMatchesLocal: BKA-SVM with its cluster problems solved as Beam
// elements on Prism equals the local fit (same seed) exactly — decision
// values bit for bit — on bundled heart_scale (270 × 13, two classes).
func TestBKASVMMatchesLocal(t *testing.T) {
	ds, err := datasets.Load("heart_scale")
	if err != nil {
		t.Fatal(err)
	}
	cfg := model.BKASVM{Kernel: kernel.Gaussian{Gamma: 0.05}, C: 1, Clusters: 5, Seed: 2}
	local := cfg
	if err := local.Fit(context.Background(), ds.X, ds.Y); err != nil {
		t.Fatal(err)
	}
	dist := cfg
	dist.Solver = BKASolver(nil, t.TempDir())
	if err := dist.Fit(context.Background(), ds.X, ds.Y); err != nil {
		t.Fatal(err)
	}
	dl, _ := local.DecisionFunction(ds.X)
	dd, _ := dist.DecisionFunction(ds.X)
	if !mat.Equal(dl, dd) {
		t.Fatal("distributed BKA-SVM decides differently from the local fit")
	}
	il := local.Info()
	id := dist.Info()
	if il.SV != id.SV || il.Tasks[0].Objective != id.Tasks[0].Objective || il.SV == 0 {
		t.Fatalf("info differs: SV %d vs %d, objective %v vs %v", il.SV, id.SV, il.Tasks[0].Objective, id.Tasks[0].Objective)
	}
}
