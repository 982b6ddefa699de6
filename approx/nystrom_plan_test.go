package approx

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// TestNystromQRPlan: the QR variant's MaxBytes holds its whole fit, not C
// alone. PlanQR is C (8nM), the engine's scratch forming W and C (each
// kernel.Op.ScratchBytes(0), both), the landmarks' copy (8Md) and 14 M×M
// matrices, and bounds what Fit allocates (TotalAlloc around it, every
// allocation however short-lived): at n = 2,000, M = 16, d = 2,000 the
// engine's two 520-row packed blocks of X (8.3 MB each) dwarf C (0.26 MB),
// and at n = 800, M = 400, d = 5 the M×M matrices do (12.8 M² of them
// measured at M = 400 and 1,000). A cap one byte below the plan is refused with ErrMemory,
// naming the parts, before anything is allocated; a cap at the plan fits.
// Before, the cap was held against C alone: a cap of 8nM + 1 MiB let the
// first shape allocate 18.2 MB.
func TestNystromQRPlan(t *testing.T) {
	for _, sh := range [][3]int{{2000, 16, 2000}, {800, 400, 5}} {
		n, m, d := sh[0], sh[1], sh[2]
		name := fmt.Sprintf("n=%d M=%d d=%d", n, m, d)
		rng := rand.New(rand.NewPCG(1, 1))
		x := mat.NewDense(n, d, nil)
		for i := range x.RawMatrix().Data {
			x.RawMatrix().Data[i] = rng.NormFloat64()
		}
		k := kernel.Gaussian{Gamma: 1 / float64(d)}
		lm, err := Uniform{}.Sample(context.Background(), x, k, m, rng)
		if err != nil {
			t.Fatal(err)
		}
		plan := Nystrom{QR: true}.PlanQR(x, k, lm.Points)
		engine := kernel.NewOp(k, x, lm.Points, kernel.Options{}).ScratchBytes(0) + kernel.NewOp(k, lm.Points, lm.Points, kernel.Options{}).ScratchBytes(0)
		nm, mm, md := int64(n)*int64(m), int64(m)*int64(m), int64(m)*int64(d)
		if want := 8*nm + engine + 8*md + 8*14*mm; plan != want {
			t.Errorf("%s: PlanQR = %d, want %d", name, plan, want)
		}
		_, err = Nystrom{QR: true, MaxBytes: plan - 1}.Fit(context.Background(), x, k, lm)
		if !errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), "the kernel engine's scratch") {
			t.Errorf("%s: cap one byte below the plan: err = %v, want ErrMemory naming the engine's scratch", name, err)
		}
		runtime.GC()
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err = Nystrom{QR: true, MaxBytes: plan}.Fit(context.Background(), x, k, lm)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("%s: cap at the plan: %v", name, err)
		}
		got := int64(after.TotalAlloc - before.TotalAlloc)
		t.Logf("%s: Fit allocated %d bytes, plan %d (C %d)", name, got, plan, 8*nm)
		if got > plan {
			t.Errorf("%s: Fit allocated %d bytes, over its plan %d", name, got, plan)
		}
	}
}
