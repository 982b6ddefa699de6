package main

// TEMPORARY: h-clifit's landmarkBin, until cli_e2e_test.go lands on main.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

var e2eDirs []string

var e2eBin struct {
	once sync.Once
	path string
	err  error
}

func landmarkBin(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the landmark binary")
	}
	e2eBin.once.Do(func() {
		if p := os.Getenv("LANDMARK_E2E_BIN"); p != "" {
			e2eBin.path = p
			return
		}
		dir, err := os.MkdirTemp("", "landmark-e2e-")
		if err != nil {
			e2eBin.err = err
			return
		}
		e2eDirs = append(e2eDirs, dir)
		e2eBin.path = filepath.Join(dir, "landmark")
		out, err := exec.Command("go", "build", "-o", e2eBin.path, ".").CombinedOutput()
		if err != nil {
			e2eBin.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if e2eBin.err != nil {
		t.Fatal(e2eBin.err)
	}
	return e2eBin.path
}
