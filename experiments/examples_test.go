package experiments

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestExamplesSmoke runs every example spec end to end at smoke size (at
// most 400 training rows, 2 folds, 1–2 grid points), skipping those whose
// data file is absent from this machine, and checks each writes its plots.
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
			out := filepath.Join(t.TempDir(), "out")
			res, err := Run(context.Background(), sm, Options{Out: out})
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
			// Every spec that varies something (a grid axis with two or
			// more values, or an approximation run) must draw at --smoke
			// what its full run draws: at least one plot, as PNG and SVG.
			// Specs of one grid point have no plot in either mode.
			varies := s.Approximation != nil
			for _, a := range s.Grid.Axes() {
				varies = varies || len(s.Grid[a]) >= 2
			}
			png, _ := filepath.Glob(filepath.Join(out, "*.png"))
			svg, _ := filepath.Glob(filepath.Join(out, "*.svg"))
			if varies && (len(png) == 0 || len(svg) != len(png)) {
				t.Errorf("smoke run wrote %d PNG and %d SVG plots, want ≥ 1 of each", len(png), len(svg))
			}
			if !varies && len(png)+len(svg) != 0 {
				t.Errorf("one-point spec wrote plots %v %v", png, svg)
			}
			if res.NTrain > smokeTrain {
				t.Errorf("smoke run used %d training rows", res.NTrain)
			}
		})
	}
}
