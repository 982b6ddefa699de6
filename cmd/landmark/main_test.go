package main

import (
	"context"
	"os"
	"testing"
)

// testMainEnv, set to 1 in a test's environment, makes this test binary run
// as the landmark command: commands that start themselves again (bench
// falkon runs each fit as "landmark bench falkon -child") then work in tests.
const testMainEnv = "LANDMARK_TEST_MAIN"

// testSignalEnv, set to 1, makes this test binary run signalChild (the
// interrupt tests of signal_test.go, Unix only).
const testSignalEnv = "LANDMARK_TEST_SIGNAL"

func TestMain(m *testing.M) {
	if os.Getenv(testSignalEnv) == "1" {
		signalChild()
	}
	if os.Getenv(testMainEnv) == "1" {
		os.Exit(dispatch(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	code := m.Run()
	for _, d := range e2eDirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}
