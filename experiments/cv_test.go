package experiments

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestFoldsDisjointCoveringStratified(t *testing.T) {
	// 3 classes of unequal size: 50, 31, 7 rows, interleaved.
	var y []float64
	for i := 0; i < 50; i++ {
		y = append(y, 1)
	}
	for i := 0; i < 31; i++ {
		y = append(y, -2)
	}
	for i := 0; i < 7; i++ {
		y = append(y, 5)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(y), func(i, j int) { y[i], y[j] = y[j], y[i] })
	for _, strat := range []bool{false, true} {
		for _, k := range []int{2, 3, 5, 10} {
			folds, err := Folds(y, k, strat, rand.New(rand.NewPCG(3, 4)))
			if err != nil {
				t.Fatal(err)
			}
			if len(folds) != k {
				t.Fatalf("%d folds, want %d", len(folds), k)
			}
			seen := make([]int, len(y))
			minSize, maxSize := len(y), 0
			for _, f := range folds {
				if !slices.IsSorted(f) {
					t.Error("fold not sorted")
				}
				for _, i := range f {
					seen[i]++
				}
				minSize, maxSize = min(minSize, len(f)), max(maxSize, len(f))
			}
			for i, c := range seen {
				if c != 1 {
					t.Fatalf("k=%d strat=%v: row %d is in %d folds (want exactly 1: disjoint and covering)", k, strat, i, c)
				}
			}
			if maxSize-minSize > 1 {
				t.Errorf("k=%d: fold sizes %d…%d differ by more than one", k, minSize, maxSize)
			}
			if !strat {
				continue
			}
			// Stratified: each class has ⌊c/k⌋ or ⌈c/k⌉ rows in each fold.
			for _, cl := range []float64{1, -2, 5} {
				total := 0
				for _, v := range y {
					if v == cl {
						total++
					}
				}
				for fi, f := range folds {
					c := 0
					for _, i := range f {
						if y[i] == cl {
							c++
						}
					}
					if c < total/k || c > (total+k-1)/k {
						t.Errorf("k=%d fold %d: class %v has %d of %d rows, want %d or %d", k, fi, cl, c, total, total/k, (total+k-1)/k)
					}
				}
			}
		}
	}
}

func TestFoldsDeterministic(t *testing.T) {
	y := make([]float64, 100)
	for i := range y {
		y[i] = float64(i % 3)
	}
	a, _ := Folds(y, 4, true, rand.New(rand.NewPCG(9, 9)))
	b, _ := Folds(y, 4, true, rand.New(rand.NewPCG(9, 9)))
	c, _ := Folds(y, 4, true, rand.New(rand.NewPCG(9, 10)))
	for i := range a {
		if !slices.Equal(a[i], b[i]) {
			t.Fatal("same seed, different folds")
		}
	}
	same := true
	for i := range a {
		same = same && slices.Equal(a[i], c[i])
	}
	if same {
		t.Error("different seeds gave identical folds")
	}
}

func TestFoldsErrors(t *testing.T) {
	y := []float64{1, 2, 3}
	if _, err := Folds(y, 1, false, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("k = 1 accepted")
	}
	if _, err := Folds(y, 4, false, rand.New(rand.NewPCG(1, 1))); err == nil {
		t.Error("k > n accepted")
	}
}

func TestHoldOutStratified(t *testing.T) {
	y := make([]float64, 0, 130)
	for i := 0; i < 100; i++ {
		y = append(y, 0)
	}
	for i := 0; i < 30; i++ {
		y = append(y, 1)
	}
	tr, te := holdOut(y, 0.2, true, rand.New(rand.NewPCG(5, 5)))
	if len(tr)+len(te) != len(y) {
		t.Fatal("split loses rows")
	}
	pos := 0
	for _, i := range te {
		if y[i] == 1 {
			pos++
		}
	}
	// round(0.2·100) = 20 negatives and round(0.2·30) = 6 positives.
	if len(te) != 26 || pos != 6 {
		t.Errorf("test set has %d rows, %d positive; want 26 and 6", len(te), pos)
	}
}
