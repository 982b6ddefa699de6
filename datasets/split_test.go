package datasets

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

// checkPartition fails unless the parts are ascending, disjoint and cover 0…n−1.
func checkPartition(t *testing.T, n int, parts ...[]int) {
	t.Helper()
	seen := make([]int, n)
	for _, p := range parts {
		if !slices.IsSorted(p) {
			t.Fatalf("part not ascending: %v…", p[:min(len(p), 10)])
		}
		for _, i := range p {
			if i < 0 || i >= n {
				t.Fatalf("index %d out of range [0,%d)", i, n)
			}
			seen[i]++
		}
	}
	for i, c := range seen {
		if c != 1 {
			t.Fatalf("row %d appears %d times, want once", i, c)
		}
	}
}

// imbalanced returns labels with classes of sizes 700, 200, 90 and 10.
func imbalanced() []float64 {
	var y []float64
	for c, size := range []int{700, 200, 90, 10} {
		for range size {
			y = append(y, float64(c*3-1)) // labels −1, 2, 5, 8
		}
	}
	seeded(99).Shuffle(len(y), func(i, j int) { y[i], y[j] = y[j], y[i] })
	return y
}

func TestSplit(t *testing.T) {
	train, test, err := Split(1000, 0.2, seeded(1))
	if err != nil {
		t.Fatal(err)
	}
	checkPartition(t, 1000, train, test)
	if len(test) != 200 {
		t.Errorf("test part has %d rows, want 200", len(test))
	}
	train2, test2, _ := Split(1000, 0.2, seeded(1))
	if !slices.Equal(test, test2) || !slices.Equal(train, train2) {
		t.Error("same seed, different split")
	}
	_, test3, _ := Split(1000, 0.2, seeded(2))
	if slices.Equal(test, test3) {
		t.Error("different seeds, same split")
	}
	// Tiny fractions still test on one row and train on the rest.
	train, test, _ = Split(3, 0.01, seeded(1))
	if len(test) != 1 || len(train) != 2 {
		t.Errorf("n=3 f=0.01: %d/%d, want 2/1", len(train), len(test))
	}
	for _, f := range []float64{0, 1, -0.5, math.NaN()} {
		if _, _, err := Split(10, f, seeded(1)); !errors.Is(err, ErrInput) {
			t.Errorf("fraction %v: err = %v", f, err)
		}
	}
	if _, _, err := Split(1, 0.5, seeded(1)); !errors.Is(err, ErrInput) {
		t.Errorf("n=1: err = %v", err)
	}
	if _, _, err := Split(10, 0.5, nil); !errors.Is(err, ErrInput) {
		t.Errorf("nil rng: err = %v", err)
	}
}

func TestStratifiedSplit(t *testing.T) {
	y := imbalanced()
	train, test, err := StratifiedSplit(y, 0.25, seeded(3))
	if err != nil {
		t.Fatal(err)
	}
	checkPartition(t, len(y), train, test)
	if len(test) != 250 {
		t.Errorf("test part has %d rows, want round(0.25·1000) = 250", len(test))
	}
	// Each class contributes floor or ceil of 25% of its rows to the test part.
	sub := func(idx []int) []float64 {
		out := make([]float64, len(idx))
		for k, i := range idx {
			out[k] = y[i]
		}
		return out
	}
	all := ClassCounts(y)
	for k, c := range ClassCounts(sub(test)) {
		exact := 0.25 * float64(all[k].Count)
		if c.Label != all[k].Label || float64(c.Count) < math.Floor(exact) || float64(c.Count) > math.Ceil(exact) {
			t.Errorf("class %v: %d test rows of %d, want ⌊%v⌋ or ⌈%v⌉", c.Label, c.Count, all[k].Count, exact, exact)
		}
	}
	_, again, _ := StratifiedSplit(y, 0.25, seeded(3))
	if !slices.Equal(test, again) {
		t.Error("same seed, different stratified split")
	}
	// A fraction that does not divide the classes evenly still gives round(f·n).
	_, test, _ = StratifiedSplit(y, 0.333, seeded(4))
	if len(test) != 333 {
		t.Errorf("f=0.333: %d test rows, want 333", len(test))
	}
	// Small random problems with extreme fractions: always a partition with
	// round(f·n) test rows (clamped to [1, n−1]).
	rng := seeded(10)
	for range 300 {
		n := 2 + rng.IntN(30)
		y := make([]float64, n)
		for i := range y {
			y[i] = float64(rng.IntN(1 + rng.IntN(5)))
		}
		f := []float64{0.01, 0.3, 0.5, 0.97, rng.Float64()*0.98 + 0.01}[rng.IntN(5)]
		train, test, err := StratifiedSplit(y, f, rng)
		if err != nil {
			t.Fatal(err)
		}
		checkPartition(t, n, train, test)
		if len(test) != testSize(n, f) {
			t.Fatalf("n=%d f=%v: %d test rows, want %d", n, f, len(test), testSize(n, f))
		}
	}
	if _, _, err := StratifiedSplit([]float64{1, math.NaN()}, 0.5, seeded(1)); !errors.Is(err, ErrInput) {
		t.Errorf("NaN label: err = %v", err)
	}
}

func TestKFold(t *testing.T) {
	for _, n := range []int{10, 101} {
		folds, err := KFold(n, 4, seeded(5))
		if err != nil {
			t.Fatal(err)
		}
		tests := make([][]int, len(folds))
		for j, f := range folds {
			checkPartition(t, n, f.Train, f.Test)
			tests[j] = f.Test
			if d := len(f.Test) - n/4; d < 0 || d > 1 {
				t.Errorf("n=%d fold %d: %d test rows, want %d or %d", n, j, len(f.Test), n/4, n/4+1)
			}
		}
		// The test parts of all folds partition the rows.
		checkPartition(t, n, tests...)
		again, _ := KFold(n, 4, seeded(5))
		for j := range folds {
			if !slices.Equal(folds[j].Test, again[j].Test) {
				t.Error("same seed, different folds")
			}
		}
	}
	for _, k := range []int{1, 11} {
		if _, err := KFold(10, k, seeded(1)); !errors.Is(err, ErrInput) {
			t.Errorf("k=%d: err = %v", k, err)
		}
	}
}

func TestStratifiedKFold(t *testing.T) {
	y := imbalanced()
	const k = 5
	folds, err := StratifiedKFold(y, k, seeded(6))
	if err != nil {
		t.Fatal(err)
	}
	var tests [][]int
	all := ClassCounts(y)
	for j, f := range folds {
		checkPartition(t, len(y), f.Train, f.Test)
		tests = append(tests, f.Test)
		if len(f.Test) != len(y)/k {
			t.Errorf("fold %d: %d test rows, want %d", j, len(f.Test), len(y)/k)
		}
		lab := make([]float64, len(f.Test))
		for q, i := range f.Test {
			lab[q] = y[i]
		}
		// Every class appears in every fold in ⌊n_c/k⌋ or ⌈n_c/k⌉ rows.
		counts := ClassCounts(lab)
		if len(counts) != len(all) {
			t.Fatalf("fold %d has %d classes, want %d", j, len(counts), len(all))
		}
		for q, c := range counts {
			lo, hi := all[q].Count/k, (all[q].Count+k-1)/k
			if c.Count < lo || c.Count > hi {
				t.Errorf("fold %d class %v: %d rows, want %d…%d", j, c.Label, c.Count, lo, hi)
			}
		}
	}
	checkPartition(t, len(y), tests...)
	again, _ := StratifiedKFold(y, k, seeded(6))
	other, _ := StratifiedKFold(y, k, seeded(7))
	if !slices.Equal(folds[0].Test, again[0].Test) {
		t.Error("same seed, different folds")
	}
	if slices.Equal(folds[0].Test, other[0].Test) {
		t.Error("different seeds, same folds")
	}
}

func TestSubsetAndTrainTest(t *testing.T) {
	d, err := Load("heart_scale")
	if err != nil {
		t.Fatal(err)
	}
	s, err := d.Subset([]int{5, 0, 5})
	if err != nil {
		t.Fatal(err)
	}
	for k, i := range []int{5, 0, 5} {
		for j := range d.Dim() {
			if s.X.At(k, j) != d.X.At(i, j) {
				t.Fatalf("Subset row %d col %d differs from row %d", k, j, i)
			}
		}
		if s.Y[k] != d.Y[i] {
			t.Fatalf("Subset label %d differs", k)
		}
	}
	s.X.Set(0, 0, 42) // a copy: the original is untouched
	if d.X.At(5, 0) == 42 {
		t.Error("Subset shares memory with the original")
	}
	for _, idx := range [][]int{{-1}, {270}, {}} {
		if _, err := d.Subset(idx); !errors.Is(err, ErrInput) {
			t.Errorf("Subset(%v): err = %v", idx, err)
		}
	}
	train, test, err := d.TrainTest(0.3, true, seeded(8))
	if err != nil {
		t.Fatal(err)
	}
	if train.Len()+test.Len() != 270 || test.Len() != 81 {
		t.Errorf("TrainTest sizes %d/%d, want 189/81", train.Len(), test.Len())
	}
}
