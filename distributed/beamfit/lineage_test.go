package beamfit

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// TestErrorLineage: beamfit's refusals are model.ErrInput (one lineage with
// the rest of Landmark), start with the package name and name the bad field.
func TestErrorLineage(t *testing.T) {
	if ErrInput != model.ErrInput || ErrInput != shard.ErrInput {
		t.Fatalf("beamfit.ErrInput %v is not model.ErrInput", ErrInput)
	}
	dir := t.TempDir()
	x := mat.NewDense(8, 2, []float64{0, 1, 1, 0, 2, 1, 1, 2, 3, 0, 0, 3, 2, 2, 1, 1})
	y := []float64{0, 1, 2, 3, 4, 5, 6, 7}
	if _, err := shard.WriteDir(dir, x, y, 4, false); err != nil {
		t.Fatal(err)
	}
	man := filepath.Join(dir, shard.ManifestName)
	g := kernel.Gaussian{Gamma: 1}
	for _, c := range []struct {
		f     Falkon
		field string
	}{
		{Falkon{Kernel: g, M: 2}, "Lambda = 0"},
		{Falkon{Lambda: 1, M: 2}, "Kernel is nil"},
		{Falkon{Kernel: g, Lambda: 1, M: 2, MaxIter: -1}, "MaxIter = -1"},
		{Falkon{Kernel: g, Lambda: 1, M: 2, Tol: -1}, "Tol = -1"},
		{Falkon{Kernel: g, Lambda: 1, M: 9}, "M = 9"},
	} {
		_, err := c.f.Fit(context.Background(), man)
		// The options are checked by beamfit or by model.FalkonBuilder,
		// which both use: either names itself.
		ok := strings.HasPrefix(err.Error(), "beamfit: invalid input: ") || strings.HasPrefix(err.Error(), "model: falkon: invalid input: ")
		if !errors.Is(err, model.ErrInput) || !ok || !strings.Contains(err.Error(), c.field) {
			t.Errorf("Fit(%+v): %v; want ErrInput, prefix \"beamfit: invalid input: \" or \"model: falkon: invalid input: \", and %q", c.f, err, c.field)
		}
	}
}
