package experiments

import (
	"math"
	"testing"
)

// Demo's scores obey their definitions: R² = 1 − RMSE²/BaseRMSE² (both
// RMSEs over the same test rows), a classification's errors and baseline
// count test rows, and the parts add up to the bundled set's rows
// (heart_scale 270, cadata 20,640: no official test part, 20% held out).
func TestDemoScores(t *testing.T) {
	r, err := Demo(t.Context(), DemoOptions{Data: "cadata", M: 50, MaxIter: 5})
	if err != nil {
		t.Fatal(err)
	}
	if r.Train+r.Test != 20640 || r.Test != 4128 || r.Dim != 8 || r.Classification() {
		t.Fatalf("cadata parts %d + %d, d = %d", r.Train, r.Test, r.Dim)
	}
	if want := 1 - (r.RMSE*r.RMSE)/(r.BaseRMSE*r.BaseRMSE); math.Abs(r.R2-want) > 1e-12 || !(r.RMSE < r.BaseRMSE) {
		t.Errorf("R² %v, want %v from RMSE %v and baseline %v", r.R2, want, r.RMSE, r.BaseRMSE)
	}
	c, err := Demo(t.Context(), DemoOptions{Data: "heart_scale", M: 50, MaxIter: 5})
	if err != nil {
		t.Fatal(err)
	}
	if c.Train+c.Test != 270 || !c.Classification() || c.Wrong < 0 || c.Wrong > c.Test || c.Baseline < 1 || c.Baseline > c.Test/2+1 {
		t.Errorf("heart_scale: %d + %d rows, %d wrong, baseline %d", c.Train, c.Test, c.Wrong, c.Baseline)
	}
	if _, err := Demo(t.Context(), DemoOptions{Data: "nope"}); err == nil {
		t.Error("an unknown set: no error")
	}
}
