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
