package experiments

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeThreeClass writes 88 rows in 3 classes of 50, 31 and 7 rows
// (labels 1, −2, 5), shuffled.
func writeThreeClass(t *testing.T) string {
	t.Helper()
	var y []float64
	for c, n := range map[float64]int{1: 50, -2: 31, 5: 7} {
		for i := 0; i < n; i++ {
			y = append(y, c)
		}
	}
	slices.Sort(y) // map order must not matter
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(y), func(i, j int) { y[i], y[j] = y[j], y[i] })
	var b strings.Builder
	for i, v := range y {
		fmt.Fprintf(&b, "%g 1:%g 2:%g\n", v, v+rng.NormFloat64(), float64(i))
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "data.libsvm"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRunnerFolds: the folds the runner cross-validates on are disjoint,
// cover the training rows, keep class proportions (each class has ⌊c/k⌋ or
// ⌈c/k⌉ rows per fold), differ between repeats and are the same for the same seed.
func TestRunnerFolds(t *testing.T) {
	dir := writeThreeClass(t)
	for _, k := range []int{2, 3, 5} {
		spec := fmt.Sprintf(`name: folds
dataset: {path: data.libsvm}
task: multiclass
estimator: {type: krr, kernel: {type: gaussian, gamma: 1}, lambda: 0.1}
cv: {folds: %d}
repeats: 2
seed: 4
`, k)
		s := decodeIn(t, spec, dir)
		r, err := newRunner(s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		r2, _ := newRunner(decodeIn(t, spec, dir), Options{})
		y := r.y
		for rep, folds := range r.cv {
			if len(folds) != k {
				t.Fatalf("%d folds, want %d", len(folds), k)
			}
			seen := make([]int, len(y))
			for fi, f := range folds {
				for _, i := range f.Test {
					seen[i]++
				}
				if len(f.Train)+len(f.Test) != len(y) {
					t.Errorf("fold %d: train and validation do not partition the rows", fi)
				}
				for _, i := range f.Train {
					if slices.Contains(f.Test, i) {
						t.Fatalf("row %d both trains and validates fold %d", i, fi)
					}
				}
				for _, cl := range []float64{1, -2, 5} {
					total, c := 0, 0
					for i, v := range y {
						if v == cl {
							total++
							if slices.Contains(f.Test, i) {
								c++
							}
						}
					}
					if c < total/k || c > (total+k-1)/k {
						t.Errorf("k=%d fold %d: class %v has %d of %d rows, want ⌊%d/%d⌋ or ⌈%d/%d⌉", k, fi, cl, c, total, total, k, total, k)
					}
				}
				if !slices.Equal(f.Test, r2.cv[rep][fi].Test) {
					t.Error("same seed, different folds")
				}
			}
			for i, c := range seen {
				if c != 1 {
					t.Fatalf("row %d validates in %d folds, want exactly 1", i, c)
				}
			}
		}
		if slices.Equal(r.cv[0][0].Test, r.cv[1][0].Test) {
			t.Error("both repeats drew the same folds")
		}
	}
}
