package main

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

// Without landmark-beam installed, --runner gives an error that says how
// to install it.
func TestRunRunnerWithoutBeam(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	err := runRun(context.Background(), []string{"spec.yaml", "--runner", "prism"}, io.Discard, io.Discard)
	if !errors.Is(err, errNoBeam) || !strings.Contains(err.Error(), "go install ./cmd/landmark-beam") {
		t.Fatalf("err = %v, want errNoBeam with install instructions", err)
	}
}
