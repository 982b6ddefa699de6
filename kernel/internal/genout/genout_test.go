package genout

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRedirect checks that both flag forms are redirected to new, empty,
// hidden files next to their targets with the targets' permissions, and that
// the other flags and their values pass unchanged.
func TestRedirect(t *testing.T) {
	dir := t.TempDir()
	asm, stubs := filepath.Join(dir, "x_amd64.s"), filepath.Join(dir, "x_stub_amd64.go")
	if err := os.WriteFile(asm, []byte("old asm"), 0o640); err != nil {
		t.Fatal(err)
	}
	args := []string{"-pkg", "kernel", "-out", asm, "-e", "--stubs=" + stubs, "-log", "-"}
	got, outs, err := redirect(args)
	if err != nil {
		t.Fatal(err)
	}
	defer discard(outs)
	if len(outs) != 2 || outs[0].target != asm || outs[1].target != stubs {
		t.Fatalf("outputs %+v, want %s then %s", outs, asm, stubs)
	}
	want := []string{"-pkg", "kernel", "-out", outs[0].tmp, "-e", "-stubs=" + outs[1].tmp, "-log", "-"}
	if !slices.Equal(got, want) {
		t.Fatalf("args %q, want %q", got, want)
	}
	for i, o := range outs {
		if filepath.Dir(o.tmp) != dir || !strings.HasPrefix(filepath.Base(o.tmp), ".") {
			t.Errorf("temporary file %s: not a hidden file in %s", o.tmp, dir)
		}
		fi, err := os.Stat(o.tmp)
		if err != nil {
			t.Fatal(err)
		}
		wantMode := []os.FileMode{0o640, 0o644}[i] // the target's, or 0644 for a new target
		if fi.Size() != 0 || fi.Mode().Perm() != wantMode {
			t.Errorf("temporary file %s: size %d mode %v, want 0 and %v", o.tmp, fi.Size(), fi.Mode().Perm(), wantMode)
		}
	}
	if b, _ := os.ReadFile(asm); string(b) != "old asm" {
		t.Errorf("redirect changed the target: %q", b)
	}
}

// TestRedirectMissingValue checks that a trailing -out is an error that
// leaves no temporary file behind.
func TestRedirectMissingValue(t *testing.T) {
	dir := t.TempDir()
	_, _, err := redirect([]string{"-stubs", filepath.Join(dir, "s.go"), "-out"})
	if err == nil {
		t.Fatal("no error for -out without a file")
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left %d files in %s", len(left), dir)
	}
}

// TestCommit checks both outcomes: complete outputs replace their targets,
// and an empty output (a generator that wrote nothing) replaces neither
// target and removes both temporary files.
func TestCommit(t *testing.T) {
	for _, empty := range []bool{false, true} {
		dir := t.TempDir()
		a, b := filepath.Join(dir, "a.s"), filepath.Join(dir, "b.go")
		for _, f := range []string{a, b} {
			if err := os.WriteFile(f, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		_, outs, err := redirect([]string{"-out", a, "-stubs", b})
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(outs[0].tmp, []byte("new a"), 0o644)
		if !empty {
			os.WriteFile(outs[1].tmp, []byte("new b"), 0o644)
		}
		err = commit(outs)
		ga, _ := os.ReadFile(a)
		gb, _ := os.ReadFile(b)
		if empty {
			if err == nil || string(ga) != "old" || string(gb) != "old" {
				t.Errorf("empty output: err %v, targets %q %q, want an error and both unchanged", err, ga, gb)
			}
		} else if err != nil || string(ga) != "new a" || string(gb) != "new b" {
			t.Errorf("complete outputs: err %v, targets %q %q", err, ga, gb)
		}
		if left, _ := os.ReadDir(dir); len(left) != 2 {
			t.Errorf("empty=%v: %d files in %s, want the 2 targets only", empty, len(left), dir)
		}
	}
}

// fakeEnv selects what the test binary does when run() starts it as the
// child: "ok" writes both outputs and exits 0, "fail" writes a partial
// first output and exits 1 (avo failing after opening its files), "silent"
// writes nothing and exits 0.
const fakeEnv = "GENOUT_TEST_FAKE"

func TestMain(m *testing.M) {
	if mode, ok := os.LookupEnv(fakeEnv); ok && os.Getenv(childEnv) != "" {
		fs := flag.NewFlagSet("fake", flag.ExitOnError)
		out := fs.String("out", "", "")
		stubs := fs.String("stubs", "", "")
		fs.Parse(os.Args[1:])
		switch mode {
		case "ok":
			os.WriteFile(*out, []byte("new asm"), 0o644)
			os.WriteFile(*stubs, []byte("new stubs"), 0o644)
		case "fail":
			os.WriteFile(*out, []byte("partial"), 0o644)
			fmt.Fprintln(os.Stderr, "fake generator: failing on purpose")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestRun runs the test binary as a fake generator (TestMain) through run:
// only the successful child may change the targets, and no temporary file
// survives any outcome.
func TestRun(t *testing.T) {
	for _, c := range []struct{ mode, asm, stubs string }{
		{"ok", "new asm", "new stubs"},
		{"fail", "old", "old"},
		{"silent", "old", "old"},
	} {
		dir := t.TempDir()
		a, b := filepath.Join(dir, "x_amd64.s"), filepath.Join(dir, "x_stub_amd64.go")
		for _, f := range []string{a, b} {
			if err := os.WriteFile(f, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Setenv(fakeEnv, c.mode)
		err := run(os.Args[0], []string{"-out", a, "-stubs", b})
		if (err == nil) != (c.mode == "ok") {
			t.Errorf("%s: err %v", c.mode, err)
		}
		ga, _ := os.ReadFile(a)
		gb, _ := os.ReadFile(b)
		if string(ga) != c.asm || string(gb) != c.stubs {
			t.Errorf("%s: targets %q, %q; want %q, %q", c.mode, ga, gb, c.asm, c.stubs)
		}
		if left, _ := os.ReadDir(dir); len(left) != 2 {
			t.Errorf("%s: %d files in %s, want the 2 targets only", c.mode, len(left), dir)
		}
	}
}
