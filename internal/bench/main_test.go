package bench

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/landmark-ml/landmark/internal/cmdline"
)

// testMainEnv, set to 1 in a test's environment, makes this test binary run
// as "landmark bench …": targets that start themselves again (bench falkon
// and bench sparse run each fit as "landmark bench TARGET -child") then work
// in tests. Errors are printed and mapped to exit codes as the command does.
const testMainEnv = "LANDMARK_TEST_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(testMainEnv) == "1" {
		args := os.Args[1:]
		if len(args) == 0 || args[0] != "bench" {
			fmt.Fprintf(os.Stderr, "landmark: test main runs only \"bench\", got %q\n", args)
			os.Exit(2)
		}
		err := Run(context.Background(), args[1:], os.Stdout, os.Stderr)
		switch {
		case err == nil || errors.Is(err, flag.ErrHelp):
			os.Exit(0)
		case errors.Is(err, cmdline.ErrUsage):
			fmt.Fprintf(os.Stderr, "landmark bench: %v\n", err)
			os.Exit(2)
		}
		fmt.Fprintf(os.Stderr, "landmark bench: %v\n", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}
