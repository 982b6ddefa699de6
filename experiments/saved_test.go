package experiments

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/model"
)

// TestFitSaveLoad: a saved fit (standardized features and target) predicts
// raw rows exactly as the fit did, and its test score matches Fit's.
func TestFitSaveLoad(t *testing.T) {
	dir := writeSine(t, 150)
	spec := strings.NewReplacer("[0.001, 0.3, 1, 3, 1000]", "[1]", "[10, 1.0e-3, 1.0e-6]", "[1.0e-3]").Replace(sineSpec)
	s := decodeIn(t, spec, dir)
	res, err := Fit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := res.Save(&b, s); err != nil {
		t.Fatal(err)
	}
	back, err := LoadFit(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	d, err := datasets.ReadFile(dir+"/data.libsvm", datasets.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p1, err := res.Predict(d.X)
	if err != nil {
		t.Fatal(err)
	}
	p2, err := back.Predict(d.X)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p1, p2) {
		t.Fatal("loaded fit predicts differently")
	}
	// The same through a file (the model decoded from the file as it is
	// read, after seeking back over bufio's read-ahead) and through a reader
	// of unknown size (the model buffered).
	path := filepath.Join(t.TempDir(), "fit.lmk")
	if err := res.SaveFile(path, s); err != nil {
		t.Fatal(err)
	}
	// A missing folder is refused, not created (as model.SaveFile).
	missing := filepath.Join(t.TempDir(), "no", "such")
	if err := res.SaveFile(filepath.Join(missing, "fit.lmk"), s); !errors.Is(err, model.ErrInput) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("SaveFile into a missing folder: %v, want a refusal wrapping model.ErrInput naming the folder", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("SaveFile created the missing folder %s (stat: %v)", missing, err)
	}
	fromFile, err := LoadFitFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fromPipe, err := LoadFit(io.MultiReader(bytes.NewReader(b.Bytes())))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []*FitResult{fromFile, fromPipe} {
		p, err := l.Predict(d.X)
		if err != nil || !slices.Equal(p1, p) {
			t.Fatalf("loaded fit predicts differently (%v)", err)
		}
	}
	// Scores on all 150 rows: the fit saw 113 of them (test_fraction 0.25),
	// so the RMSE lies between the train and test RMSEs' order of magnitude;
	// at least it is near the noise level 0.1, as in TestBestPointInOptimumRegion.
	sc, err := Score(TaskRegression, d.Y, p2)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := find(sc, "rmse"); r > 0.25 {
		t.Errorf("rmse of the loaded fit %v, want ≤ 0.25", r)
	}
	if _, err := LoadFit(strings.NewReader("nonsense")); !errors.Is(err, ErrSaved) {
		t.Errorf("garbage accepted: %v", err)
	}
	if _, err := Fit(context.Background(), decodeIn(t, sineSpec, dir)); err == nil || !strings.Contains(err.Error(), "use run for grids") {
		t.Errorf("Fit on a grid: %v", err)
	}
}

func find(s []Summary, name string) (float64, bool) {
	for _, m := range s {
		if m.Name == name {
			return m.Mean, true
		}
	}
	return 0, false
}
