//go:build unix

package outfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/landmark-ml/landmark/internal/check"
)

// entries lists dir's names (to catch a temporary file left behind).
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func readString(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestNewFileMode: a new file is 0644 less the umask, for two umasks.
func TestNewFileMode(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ umask, want fs.FileMode }{{0o022, 0o644}, {0o077, 0o600}} {
		old := syscall.Umask(int(tc.umask))
		p := filepath.Join(dir, "new"+tc.want.String())
		err := WriteBytes(p, []byte("x\n"))
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != tc.want {
			t.Errorf("umask %o: mode %o, want %o", tc.umask, st.Mode().Perm(), tc.want)
		}
	}
}

// TestReplaceKeepsModeAndLink: an existing file keeps its mode; a symbolic
// link (also a relative, chained one) is written through and stays a link.
func TestReplaceKeepsModeAndLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.txt")
	if err := os.WriteFile(target, []byte("old\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	os.Chmod(target, 0o640)
	link1 := filepath.Join(dir, "link1")
	link2 := filepath.Join(dir, "link2")
	if err := os.Symlink("target.txt", link1); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(link1, link2); err != nil {
		t.Fatal(err)
	}
	if err := WriteBytes(link2, []byte("new\n")); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, target); got != "new\n" {
		t.Fatalf("target holds %q, want the new content", got)
	}
	for _, l := range []string{link1, link2} {
		if st, err := os.Lstat(l); err != nil || st.Mode()&fs.ModeSymlink == 0 {
			t.Fatalf("%s is no longer a link (%v)", l, err)
		}
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o640 {
		t.Fatalf("mode %o, want the old 0640", st.Mode().Perm())
	}
	// A dangling link creates the file it names.
	dang := filepath.Join(dir, "dangling")
	os.Symlink("made.txt", dang)
	if err := WriteBytes(dang, []byte("m\n")); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, filepath.Join(dir, "made.txt")); got != "m\n" {
		t.Fatalf("made.txt holds %q", got)
	}
	if got := strings.Join(entries(t, dir), " "); got != "dangling link1 link2 made.txt target.txt" {
		t.Fatalf("folder holds %s", got)
	}
}

// TestFailedWriteLeavesNothing: a failing write leaves the old file as it
// was and no temporary file.
func TestFailedWriteLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	os.WriteFile(p, []byte("old\n"), 0o644)
	boom := errors.New("boom")
	for _, path := range []string{p, filepath.Join(dir, "fresh.txt")} {
		err := Write(path, func(w io.Writer) error {
			w.Write([]byte("partial"))
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("err = %v, want the write's", err)
		}
	}
	if got := strings.Join(entries(t, dir), " "); got != "out.txt" {
		t.Fatalf("folder holds %s, want out.txt alone", got)
	}
	if got := readString(t, p); got != "old\n" {
		t.Fatalf("out.txt holds %q, want the old content", got)
	}
}

// TestDirectoryAndFIFO: a directory is refused; a FIFO is written in place
// (the reader gets the bytes, the FIFO stays a FIFO).
func TestDirectoryAndFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := WriteBytes(dir, []byte("x")); !errors.Is(err, ErrRefused) || !errors.Is(err, check.ErrInput) {
		t.Fatalf("directory: err = %v, want ErrRefused", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	got := make(chan string, 1)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	if err := WriteBytes(fifo, []byte("through\n")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through\n" {
		t.Fatalf("reader got %q", s)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&fs.ModeNamedPipe == 0 {
		t.Fatalf("the FIFO was replaced (%v)", err)
	}
}

// TestCheck: the same file under another name (hard or symbolic link) is
// refused, as are a directory and a missing folder; others pass.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.csv")
	os.WriteFile(in, []byte("1,2\n"), 0o644)
	hard := filepath.Join(dir, "hard.csv")
	os.Link(in, hard)
	soft := filepath.Join(dir, "soft.csv")
	os.Symlink(in, soft)
	for _, tc := range []struct {
		out  string
		want string
	}{
		{in, "is also an input"}, {hard, "is also an input"}, {soft, "is also an input"},
		{dir, "is a directory"}, {filepath.Join(dir, "no", "x.txt"), "does not exist"},
		{filepath.Join(dir, "ok.txt"), ""}, {"-", ""}, {"/dev/stdout", ""},
	} {
		err := Check(tc.out, "-", in)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.out, err)
			}
			continue
		}
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.out, err, tc.want)
		}
	}
}

// TestDashIsStdout: "-" is written to standard output, not to a file named
// "-".
func TestDashIsStdout(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	err = WriteBytes("-", []byte("to stdout\n"))
	os.Stdout = old
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r)
	if string(b) != "to stdout\n" {
		t.Fatalf("stdout got %q", b)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Fatal("a file named - was made")
	}
}
