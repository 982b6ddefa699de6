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

// TestHelpOnStdout: a command's help asked for (--help, -h, -help, and
// landmark help COMMAND) is printed on stdout with exit 0, as argparse
// and GNU tools print it, so that a pipe to grep or less gets it; it went
// to stderr. A usage error's usage stays on stderr (exit 2).
func TestHelpOnStdout(t *testing.T) {
	for _, args := range [][]string{
		{"fit", "--help"}, {"predict", "-h"}, {"data", "info", "-help"}, {"data", "synth", "--help"}, {"help", "approx"}, {"demo", "-h"}, {"run", "--help"},
	} {
		code, so, se := lm(t, t.TempDir(), args...)
		if code != 0 || !strings.HasPrefix(so, "Usage: landmark ") || se != "" {
			t.Errorf("%q: exit %d, stdout %.60q…, stderr %.60q…; want exit 0 and the usage on stdout alone", args, code, so, se)
		}
	}
	code, so, se := lm(t, t.TempDir(), "fit", "--no-such-flag")
	if code != 2 || so != "" || !strings.Contains(se, "Usage: landmark fit") {
		t.Errorf("unknown flag: exit %d, stdout %q, stderr %.80q…; want exit 2 and the usage on stderr", code, so, se)
	}
}
