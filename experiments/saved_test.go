package experiments

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
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

// TestLoadModelFile: a file model.Save wrote (a Go fit, no preprocessing)
// loads as a bare fit: Dim the training columns, the task its classes
// imply (KRR regression, Falkon binary, SVM multiclass on three labels),
// and predictions bit for bit the estimator's own on raw rows, from a
// file (read as it is decoded) and from a stream. A file that is neither
// kind names both magics.
func TestLoadModelFile(t *testing.T) {
	ctx := context.Background()
	x := mat.NewDense(30, 3, nil)
	reg, bin, multi := make([]float64, 30), make([]float64, 30), make([]float64, 30)
	for i := range 30 {
		for j := range 3 {
			x.Set(i, j, math.Sin(float64(3*i+j)))
		}
		reg[i] = x.At(i, 0) + 0.5*x.At(i, 1)
		bin[i] = float64(2*(i%2) - 1)
		multi[i] = float64(i % 3)
	}
	g := kernel.Gaussian{Gamma: 0.5}
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		est  model.Estimator
		y    []float64
		task string
	}{
		{"krr", &model.KRR{Kernel: g, Lambda: 1e-3}, reg, TaskRegression},
		{"falkon", &model.Falkon{Kernel: g, Lambda: 1e-3, M: 10, Task: model.Classification}, bin, TaskBinary},
		{"svm", &model.SVM{Kernel: g, C: 1}, multi, TaskMulticlass},
	} {
		if err := c.est.Fit(ctx, x, c.y); err != nil {
			t.Fatal(err)
		}
		want, err := c.est.Predict(x)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, c.name+".lmk")
		if err := model.SaveFile(path, c.est); err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		fromFile, err := LoadFitFile(path)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		fromStream, err := LoadFit(bytes.NewBuffer(raw)) // not a Seeker
		if err != nil {
			t.Fatalf("%s stream: %v", c.name, err)
		}
		for _, res := range []*FitResult{fromFile, fromStream} {
			if !res.Bare || res.Dim != 3 || res.Task != c.task || res.SavedSpec != nil || res.Features != nil {
				t.Errorf("%s: bare %v, dim %d, task %q; want bare, 3, %q", c.name, res.Bare, res.Dim, res.Task, c.task)
			}
			got, err := res.Predict(x)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: loaded predictions differ from the estimator's", c.name)
			}
		}
	}
	bad := filepath.Join(dir, "bad.lmk")
	if err := os.WriteFile(bad, []byte("neither kind of file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadFitFile(bad); !errors.Is(err, ErrSaved) || !strings.Contains(err.Error(), `nor with "LANDMARK" (model.Save)`) {
		t.Errorf("bad file: %v", err)
	}
}
