package model

import (
	"bytes"
	"context"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
)

// FalkonInfo's KMMTime, FactorTime and RHSTime are three disjoint intervals
// inside the one PrecondTime measures, each of them spent on work (K_MM on
// 30 centers, two Cholesky factorizations, a pass over 200 rows: far above
// the clock's nanosecond resolution), so each is positive and their sum is
// at most PrecondTime; they are not saved, so a loaded model reports zero.
func TestFalkonInfoSetupSplit(t *testing.T) {
	x, y := krrTestData(7, 200, 3)
	for _, pc := range []string{PrecondFalkon, PrecondJacobi} {
		f := &Falkon{Kernel: kernel.Gaussian{Gamma: 0.5}, Lambda: 1e-4, M: 30, MaxIter: 3, Seed: 1, Preconditioner: pc}
		if err := f.Fit(context.Background(), x, y); err != nil {
			t.Fatal(err)
		}
		i := f.Info()
		if i.KMMTime <= 0 || i.FactorTime <= 0 || i.RHSTime <= 0 || i.KMMTime+i.FactorTime+i.RHSTime > i.PrecondTime {
			t.Errorf("%s: K_MM %v + factors %v + K_nMᵀy %v against PrecondTime %v: want three positive parts of it", pc, i.KMMTime, i.FactorTime, i.RHSTime, i.PrecondTime)
		}
		var buf bytes.Buffer
		if err := Save(&buf, f); err != nil {
			t.Fatal(err)
		}
		g, err := Load(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if li := g.(*Falkon).Info(); li.KMMTime != 0 || li.FactorTime != 0 || li.RHSTime != 0 || li.PrecondTime != i.PrecondTime {
			t.Errorf("%s: loaded %v/%v/%v (PrecondTime %v, saved %v): want the split unsaved and PrecondTime kept", pc, li.KMMTime, li.FactorTime, li.RHSTime, li.PrecondTime, i.PrecondTime)
		}
	}
}
