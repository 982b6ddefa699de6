package main

import (
	"bytes"
	"context"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/experiments"
)

func TestParseBytes(t *testing.T) {
	for s, want := range map[string]int64{"0": 0, "1000": 1000, "4G": 4e9, "512MiB": 512 << 20, "1.5 GiB": 3 << 29, "2kb": 2000, "7B": 7} {
		if got, err := parseBytes(s); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "-1G", "lots", "NaN", "1e30T", "4Q"} {
		if _, err := parseBytes(s); err == nil {
			t.Errorf("parseBytes(%q): no error", s)
		}
	}
}

// TestFitMemoryFlag: --memory reaches every estimator of the table; a cap of
// 10 KB is refused on the 270-row heart data with the bytes needed (exact
// KRR plans 8·270² ≈ 583 KB for K alone; the SVMs keep 8·270·13 bytes of
// support vectors; FALKON and the samplers plan more than 10 KB too), and a
// cap of 1 GB fits.
func TestFitMemoryFlag(t *testing.T) {
	need := regexp.MustCompile(`memory limit exceeded: .*needs \d+ bytes .* the limit is 10000 bytes|memory limit exceeded: .*\d+ bytes`)
	for _, est := range [][]string{
		{"--estimator", "krr", "--lambda", "0.01"},
		{"--estimator", "krr", "--approx", "exact-rls", "--m", "20", "--lambda", "0.01"},
		{"--estimator", "krr", "--approx", "meka", "--set", "clusters=3", "--set", "rank=8", "--lambda", "0.01"},
		{"--estimator", "falkon", "--m", "50", "--lambda", "0.001"},
		{"--estimator", "svm", "--c", "1"},
		{"--estimator", "bka-svm", "--set", "clusters=4", "--c", "1"},
	} {
		base := append([]string{"fit", "--dataset", "heart_scale", "--task", "binary", "--gamma", "0.1"}, est...)
		var so, se bytes.Buffer
		if code := dispatch(context.Background(), append(base, "--memory", "10K"), &so, &se); code == 0 || !need.MatchString(se.String()) || !strings.Contains(se.String(), "(on the command line --memory sets the cap)") {
			t.Errorf("%v --memory 10K: exit %d, stderr %q; want a refusal naming the bytes", est, code, se.String())
		}
		so.Reset()
		se.Reset()
		if code := dispatch(context.Background(), append(base, "--memory", "1G"), &so, &se); code != 0 {
			t.Errorf("%v --memory 1G: exit %d: %s", est, code, se.String())
		}
	}
}

// TestGoLimit: while fit and run work, the Go runtime's soft memory limit is
// the cap the spec's fits run under — --memory (applied to the spec as
// memory_limit), else the spec's own memory_limit, else the default share of
// physical memory — and no limit when memory_limit is 0 or GOMEMLIMIT is
// set; the previous limit comes back afterwards. Without the default, a
// fit with no --memory let garbage grow its RSS past the default cap (a
// 5.25 GB dense X, plan about 15 GiB: 20.9 GB peak RSS on a 24 GiB machine,
// 2026-11-27).
func TestGoLimit(t *testing.T) {
	const outside = int64(1) << 60
	prev := debug.SetMemoryLimit(outside)
	defer debug.SetMemoryLimit(prev)
	spec := func(opts map[string]any) *experiments.Spec {
		s := &experiments.Spec{}
		s.Estimator.Options = opts
		return s
	}
	flagged := spec(nil)
	if err := applyMemory(flagged, memoryFlag{bytes: 3 << 30, text: "3GiB"}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		spec *experiments.Spec
		env  string
		want int64
	}{
		{"default", spec(nil), "", experiments.DefaultMemoryLimit()},
		{"--memory", flagged, "", 3 << 30},
		{"memory_limit", spec(map[string]any{"memory_limit": "512MiB"}), "", 512 << 20},
		{"memory_limit 0", spec(map[string]any{"memory_limit": 0.0}), "", outside},
		{"GOMEMLIMIT", spec(nil), "1GiB", outside},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("GOMEMLIMIT", c.env)
			restore := goLimit(c.spec)
			got := debug.SetMemoryLimit(-1)
			restore()
			if got != c.want {
				t.Errorf("soft limit %d, want %d", got, c.want)
			}
			if after := debug.SetMemoryLimit(-1); after != outside {
				t.Errorf("after the command: soft limit %d, want the previous %d", after, outside)
			}
		})
	}
}
