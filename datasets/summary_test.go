package datasets

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
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

// TestSummarizeCSRMatchesDense compares SummarizeCSR with Summarize on the
// dense form of random sparse data with explicit zeros, an empty column and
// a constant non-zero column: counts exactly, statistics to 1e-12 relative
// (the two sum in different orders: the dense path adds each zero in its row,
// the sparse one all zeros of a column as one term).
func TestSummarizeCSRMatchesDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 1))
	n, d := 40, 9
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := range n {
		y[i] = float64(rng.IntN(3))
		for j := range d - 2 {
			if rng.Float64() < 0.3 {
				x.Set(i, j, rng.NormFloat64()*10)
			}
		}
		x.Set(i, d-1, 2.5) // constant, no zeros; column d−2 stays empty
	}
	c, err := CSRFromDense(x)
	if err != nil {
		t.Fatal(err)
	}
	// An explicit stored zero in row 0 at the empty column, before its
	// last entry (column d−1).
	at := c.Indptr[1] - 1
	c.Indices = slices.Insert(c.Indices, at, int32(d-2))
	c.Values = slices.Insert(c.Values, at, 0)
	for i := 1; i <= n; i++ {
		c.Indptr[i]++
	}
	if c, err = NewCSR(n, d, c.Indptr, c.Indices, c.Values); err != nil {
		t.Fatal(err)
	}
	want, err := Summarize(&Dataset{X: x, Y: y})
	if err != nil {
		t.Fatal(err)
	}
	got, err := SummarizeCSR(c, y)
	if err != nil {
		t.Fatal(err)
	}
	if got.Rows != n || got.Dim != d || got.Wide || got.Zeros != want.Zeros || got.Constant != want.Constant || got.Empty != want.Empty ||
		got.Empty != 1 || got.Task != want.Task || len(got.Columns) != d || got.Target != want.Target {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }
	for j, w := range want.Columns {
		g := got.Columns[j]
		if g.Name != w.Name || g.Index != j || g.Zeros != w.Zeros || g.Min != w.Min || g.Max != w.Max || !close(g.Mean, w.Mean) || !close(g.Std, w.Std) {
			t.Errorf("column %d: got %+v, want %+v", j, g, w)
		}
	}
}

// TestSummarizeCSRWide summarizes 4 rows with one index of 10⁸: only the
// columns that occur are described, the counts cover all 10⁸, and the
// allocation is bounded by 64 KiB (one length-d array would be 800 MB).
func TestSummarizeCSRWide(t *testing.T) {
	const d = 100_000_000
	c, err := NewCSR(4, d, []int{0, 2, 3, 3, 5}, []int32{0, d - 1, 2, 0, 2}, []float64{1, -3, 4, 1, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s, err := SummarizeCSR(c, []float64{1, -1, 1, -1})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 64<<10 {
		t.Errorf("summary of 5 non-zeros allocated %d bytes", got)
	}
	// Columns 1, 3 and 10⁸ occur; column 1 holds 1, 0, 0, 1 (mean 0.5, std 0.5),
	// column 3 holds 0, 4, 0, 0.5.
	if !s.Wide || s.Dim != d || len(s.Columns) != 3 || s.Empty != d-3 || s.Constant != d-3 || s.Zeros != 4*d-5 {
		t.Fatalf("summary %+v", s)
	}
	c0, c2, cd := s.Columns[0], s.Columns[1], s.Columns[2]
	if c0.Index != 0 || c0.Name != "x1" || c0.Mean != 0.5 || c0.Std != 0.5 || c0.Zeros != 2 || c0.Min != 0 || c0.Max != 1 {
		t.Errorf("column 1: %+v", c0)
	}
	mean, variance := stat.PopMeanVariance([]float64{0, 4, 0, 0.5}, nil)
	if c2.Index != 2 || math.Abs(c2.Mean-mean) > 1e-15 || math.Abs(c2.Std-math.Sqrt(variance)) > 1e-15 || c2.Zeros != 2 {
		t.Errorf("column 3: %+v, want mean %v std %v", c2, mean, math.Sqrt(variance))
	}
	if cd.Index != d-1 || cd.Name != "x100000000" || cd.Min != -3 || cd.Max != 0 || cd.Zeros != 3 {
		t.Errorf("column 10⁸: %+v", cd)
	}
	if _, err := SummarizeCSR(c, []float64{1}); !errors.Is(err, ErrInput) {
		t.Errorf("1 label for 4 rows: %v", err)
	}
}

// TestSummarizeTextLabels: a file of text labels is summarized with its
// classes named and counted (2 M, 1 B of 3 rows: 66.7% and 33.3%), the
// task binary, and no numeric statistics of the class indices; before,
// data info refused the first text label.
func TestSummarizeTextLabels(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bc.csv")
	if err := os.WriteFile(p, []byte("a,diagnosis\n1,M\n2,B\n3,M\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _, err := SummarizeInput(context.Background(), p, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Task != Binary || !slices.Equal(s.ClassNames, []string{"B", "M"}) {
		t.Errorf("task %s, class names %q", s.Task, s.ClassNames)
	}
	var b strings.Builder
	if err := s.WriteText(&b, p, nil, 0); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"target diagnosis:  text labels, 2 classes\n", `labels:            "B": 1 (33.3%), "M": 2 (66.7%)`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary\n%s\nlacks %q", b.String(), want)
		}
	}
	if strings.Contains(b.String(), "mean 0.666667") {
		t.Errorf("summary gives the class indices' statistics:\n%s", b.String())
	}
}

// TestStoredColumnsPaths checks that storedColumns' two paths, the
// accumulation over all columns at once (entries ≥ 5·d) and the sort by
// column, give bit-identical statistics: both meet each column's entries in
// row order. The same rows are summarized with 10 and with 10⁶ columns
// (the second takes the sort); one column is constant, one holds only a
// stored zero, one a -0.
func TestStoredColumnsPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 3))
	const n, d = 30, 10
	indptr := []int{0}
	var indices []int32
	var values []float64
	for i := range n {
		for j := range d {
			switch {
			case j == 0:
				values = append(values, 4)
			case j == 1 && i == 3:
				values = append(values, 0)
			case j == 2 && i == 5:
				values = append(values, math.Copysign(0, -1))
			case j > 2 && rng.Float64() < 0.6:
				values = append(values, rng.NormFloat64()*1e3+1e4)
			default:
				continue
			}
			indices = append(indices, int32(j))
		}
		indptr = append(indptr, len(indices))
	}
	if len(indices) < 5*d {
		t.Fatalf("%d entries: fewer than 5·d, the accumulating path is not taken", len(indices))
	}
	narrow, err := NewCSR(n, d, indptr, indices, values)
	if err != nil {
		t.Fatal(err)
	}
	wide, err := NewCSR(n, 1_000_000, indptr, indices, values)
	if err != nil {
		t.Fatal(err)
	}
	a, b := storedColumns(narrow, n, d), storedColumns(wide, n, 1_000_000)
	if len(a) != d || len(b) != d {
		t.Fatalf("%d and %d columns, want %d", len(a), len(b), d)
	}
	for j := range a {
		if a[j] != b[j] || math.Signbit(a[j].Min) != math.Signbit(b[j].Min) {
			t.Errorf("column %d: accumulated %+v, sorted %+v", j, a[j], b[j])
		}
	}
	if c := a[0]; c.Min != 4 || c.Max != 4 || c.Mean != 4 || c.Std != 0 || c.Zeros != 0 {
		t.Errorf("constant column: %+v", c)
	}
	if c := a[1]; c.Min != 0 || c.Max != 0 || c.Zeros != n {
		t.Errorf("stored-zero column: %+v", c)
	}
	if c := a[2]; !math.Signbit(c.Min) || c.Max != 0 || c.Zeros != n {
		t.Errorf("-0 column: %+v", c)
	}
}
