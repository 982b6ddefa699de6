package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
)

// errNoBeam reports that the landmark-beam binary is not installed.
var errNoBeam = errors.New("landmark-beam not found")

// runOnBeam hands `landmark run … --runner R …` to `landmark-beam run`,
// the command of the separate distributed module (this binary does not
// link Apache Beam). It looks for landmark-beam beside this executable,
// then on PATH.
func runOnBeam(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	bin := ""
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), "landmark-beam")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			bin = p
		}
	}
	if bin == "" {
		p, err := exec.LookPath("landmark-beam")
		if err != nil {
			return fmt.Errorf("%w beside %s or on PATH: --runner needs it; install it with\n  (cd distributed && go install ./cmd/landmark-beam)\nfrom a checkout of the repository", errNoBeam, os.Args[0])
		}
		bin = p
	}
	cmd := exec.CommandContext(ctx, bin, append([]string{"run"}, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("landmark-beam run: %w", err)
	}
	return nil
}
