package model

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Errors of SaveFile and LoadFile read "model: save|load PATH: TYPE: what:
// why", without the internal package names (binfmt, kernelbin), and keep
// their sentinels.
func TestPersistErrorText(t *testing.T) {
	dir := t.TempDir()
	x := mat.NewDense(4, 1, []float64{0, 1, 2, 3})
	y := []float64{0, 1, 0, 1}
	m := &KRR{Kernel: scaledLinear{}, Lambda: 1}
	if err := m.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "m.lmk")
	err := SaveFile(path, m)
	if err == nil || !strings.HasPrefix(err.Error(), "model: save "+path+": KRR: kernel ") {
		t.Errorf("unsaveable kernel: %v", err)
	}
	m.Kernel = nil
	if err := m.Fit(context.Background(), x, y); err != nil {
		t.Fatal(err)
	}
	if err := SaveFile(path, m); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, raw[:len(raw)-10], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = LoadFile(path)
	if want := "model: load " + path + ": invalid saved file: truncated"; err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, ErrFormat) {
		t.Errorf("truncated file: %v, want %q…", err, want)
	}
	raw[len(raw)-1] ^= 1
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = LoadFile(path)
	if want := "model: load " + path + ": KRR: invalid saved file: checksum mismatch"; err == nil || !strings.HasPrefix(err.Error(), want) || !errors.Is(err, ErrChecksum) {
		t.Errorf("corrupt file: %v, want %q…", err, want)
	}
	for _, e := range []error{err, SaveFile(path, otherEstimator{})} {
		if e == nil || strings.Contains(e.Error(), "binfmt") || strings.Contains(e.Error(), "kernelbin") {
			t.Errorf("error %v", e)
		}
	}
}
