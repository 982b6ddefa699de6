package main

import (
	"strings"
	"testing"
)

// TestHelpNamesSynth: landmark help's line for data names every data
// subcommand; it left out synth.
func TestHelpNamesSynth(t *testing.T) {
	code, so, _ := lm(t, t.TempDir(), "help")
	if want := "  data     list, inspect, convert, shard and synthesize datasets (data list|info|convert|shard|synth)\n"; code != 0 || !strings.Contains(so, want) {
		t.Errorf("exit %d, help:\n%s\nwant the line %q", code, so, want)
	}
}

// TestVersionFlag: landmark --version (and -version, -v), the habit of GNU
// tools and Python's argparse, prints the version as landmark version
// does; it was an unknown command (exit 2, the usage on stderr).
func TestVersionFlag(t *testing.T) {
	for _, arg := range []string{"version", "--version", "-version", "-v"} {
		code, so, se := lm(t, t.TempDir(), arg)
		if want := "landmark " + version + "\n"; code != 0 || so != want || se != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 0 and %q", arg, code, so, se, want)
		}
	}
}
