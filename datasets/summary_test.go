package datasets

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

func TestSummarize(t *testing.T) {
	d := &Dataset{
		X: mat.NewDense(4, 3, []float64{
			0, 1, 5,
			0, 2, 5,
			3, 0, 5,
			0, 4, 5,
		}),
		Y: []float64{1, 2, 2, 1},
	}
	s, err := Summarize(d)
	if err != nil {
		t.Fatal(err)
	}
	if s.Rows != 4 || s.Dim != 3 || s.Task != Binary || len(s.Classes) != 2 || s.Classes[1] != (ClassCount{2, 2}) {
		t.Fatalf("summary %+v", s)
	}
	// Zeros counted by hand: column 1 has three, column 2 one, column 3 none.
	if s.Zeros != 4 || s.Columns[0].Zeros != 3 || s.Columns[1].Zeros != 1 || s.Constant != 1 {
		t.Errorf("zeros %d (%d, %d), constant %d; want 4 (3, 1), 1", s.Zeros, s.Columns[0].Zeros, s.Columns[1].Zeros, s.Constant)
	}
	if got := s.Sparsity(); got != 4.0/12 {
		t.Errorf("sparsity %v, want 1/3", got)
	}
	col := mat.Col(nil, 1, d.X)
	mean, variance := stat.PopMeanVariance(col, nil)
	c := s.Columns[1]
	if c.Name != "x2" || c.Min != 0 || c.Max != 4 || math.Abs(c.Mean-mean) > 1e-15 || math.Abs(c.Std-math.Sqrt(variance)) > 1e-15 {
		t.Errorf("column 2: %+v, want min 0 max 4 mean %v std %v", c, mean, math.Sqrt(variance))
	}
	if s.Target.Name != "y" || s.Target.Min != 1 || s.Target.Max != 2 || s.Target.Mean != 1.5 {
		t.Errorf("target %+v", s.Target)
	}
	if s.String() != "4 rows × 3 features, binary (2 classes)" {
		t.Errorf("String() = %q", s.String())
	}
	if _, err := Summarize(&Dataset{X: mat.NewDense(1, 1, nil), Y: []float64{1, 2}}); err == nil {
		t.Error("mismatched lengths: no error")
	}
}
