package experiments

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestExamplesSmoke runs every example spec end to end at smoke size (at
// most 400 training rows, 2 folds, 1–2 grid points), skipping those whose
// data file is absent from this machine.
func TestExamplesSmoke(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("examples", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no examples found (%v)", err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
			s, err := DecodeFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{s.Dataset.Path, s.Dataset.TestPath} {
				if p == "" {
					continue
				}
				if _, err := resolvePath(s.dir, p); err != nil {
					t.Skipf("data absent: %v", err)
				}
			}
			sm := s.Smoke()
			res, err := Run(context.Background(), sm, Options{Out: filepath.Join(t.TempDir(), "out"), NoPlots: true})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(res.Points); n == 0 {
				t.Fatal("no grid points")
			}
			for _, p := range res.Points {
				if p.Error != "" {
					t.Errorf("%s failed: %s", p.Key, p.Error)
				}
			}
			if res.NTrain > smokeTrain {
				t.Errorf("smoke run used %d training rows", res.NTrain)
			}
		})
	}
}
