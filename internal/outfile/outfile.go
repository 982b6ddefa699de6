// Package outfile writes output files the way Unix tools do, in one place
// for the datasets writers, saved models, experiment results and the
// landmark command:
//
//   - a regular file, or a path that does not exist yet, is replaced
//     atomically: the content goes to a temporary file in the same folder,
//     is synced and renamed over the path, so that a reader sees the old
//     file or the new one, never a part, and a failure leaves no temporary
//     file behind;
//   - a symbolic link is written through: the file it points to is the one
//     replaced (atomically, as above), and the link stays a link;
//   - "-" is standard output; anything else that is not a regular file
//     (standard output as /dev/stdout or /dev/fd/N, a FIFO, a
//     terminal, /dev/null) is opened and written in place, never renamed
//     over;
//   - a directory is an error.
//
// A new file gets mode 0644 less the umask (as a shell's redirection would
// give 0666 less it; outputs are not executable and need not be
// group-writable); a replaced file keeps its mode. Check refuses, before any
// work, an output that is a directory, sits in a folder that does not exist,
// or is one of the inputs.
package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/landmark-ml/landmark/internal/check"
)

// ErrRefused is wrapped by Check's and Write's refusals (a directory, one of
// the inputs, a missing folder). It wraps check.ErrInput.
var ErrRefused = fmt.Errorf("%w: output refused", check.ErrInput)

// IsStdout reports whether path names standard output: "-", /dev/stdout,
// /dev/fd/1 or /proc/self/fd/1. A command writes such a path to its own
// standard output writer.
func IsStdout(path string) bool {
	switch path {
	case "-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1":
		return true
	}
	return false
}

// Check reports whether path can be written as an output of a command that
// reads inputs: it must not be a directory, its folder must exist, and it
// must not be the same file (os.SameFile, so through links and other names)
// as any input. Inputs that do not exist are ignored; "-" is neither checked
// nor compared.
func Check(path string, inputs ...string) error {
	if path == "" {
		return fmt.Errorf("%w: empty output path", ErrRefused)
	}
	if IsStdout(path) {
		return nil
	}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		dir := filepath.Dir(path)
		if dst, derr := os.Stat(dir); derr != nil || !dst.IsDir() {
			return fmt.Errorf("%w: %s: the folder %s does not exist", ErrRefused, path, dir)
		}
		return nil
	case err != nil:
		return err
	case st.IsDir():
		return fmt.Errorf("%w: %s is a directory (want a file name)", ErrRefused, path)
	}
	for _, in := range inputs {
		if in == "" || in == "-" {
			continue
		}
		ist, err := os.Stat(in)
		if err != nil {
			continue
		}
		if os.SameFile(st, ist) && ist.Mode().IsRegular() {
			as := ""
			if in != path {
				as = " (" + in + ")"
			}
			return fmt.Errorf("%w: %s is also an input%s: writing it would destroy what is being read", ErrRefused, path, as)
		}
	}
	return nil
}

// Write writes to path what write produces (see the package comment for
// what happens with each kind of path). write's error, or any error of the
// file system, is returned and leaves no temporary file; an existing regular
// file is then untouched.
func Write(path string, write func(io.Writer) error) error {
	if path == "-" {
		// Standard output, as "-" names it for Unix tools (and as
		// datasets.OpenInput reads "-" from standard input).
		return write(os.Stdout)
	}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// A new file, or a link pointing at one to be made.
		target, err := resolve(path)
		if err != nil {
			return err
		}
		return replace(target, 0o644, false, write)
	case err != nil:
		return err
	case st.IsDir():
		return fmt.Errorf("%w: %s is a directory (want a file name)", ErrRefused, path)
	case !st.Mode().IsRegular() || viaOpenFile(path):
		return inPlace(path, st.Mode().IsRegular(), write)
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	return replace(target, st.Mode().Perm(), true, write)
}

// viaOpenFile reports whether path is, or links through, a name of an
// already open file (/dev/stdout, /dev/fd/N, /proc/self/fd/N): renaming over
// the file such a name resolves to would bypass the open file, so it is
// written in place.
func viaOpenFile(path string) bool {
	p := path
	for range 40 {
		if strings.HasPrefix(p, "/proc/") || strings.HasPrefix(p, "/dev/fd/") || p == "/dev/stdout" || p == "/dev/stderr" {
			return true
		}
		l, err := os.Readlink(p)
		if err != nil {
			return false
		}
		if !filepath.IsAbs(l) {
			l = filepath.Join(filepath.Dir(p), l)
		}
		p = l
	}
	return false
}

// resolve follows path's symbolic links, also when the last one dangles
// (writing through it creates the file it names, as a shell would).
func resolve(path string) (string, error) {
	p := path
	for range 40 {
		st, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
		if err != nil {
			return "", err
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		l, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(l) {
			l = filepath.Join(filepath.Dir(p), l)
		}
		p = l
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}

// inPlace opens path (a device, a FIFO, an open file's name) for writing
// and writes to it; a regular file reached that way is truncated first, as
// a shell's redirection would.
func inPlace(path string, regular bool, write func(io.Writer) error) error {
	flag := os.O_WRONLY
	if regular {
		flag |= os.O_TRUNC
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// tmpSeq numbers the temporary files of this process.
var tmpSeq atomic.Uint64

// createTemp creates a new file beside target with mode perm, less the
// umask (os.CreateTemp would make it 0600 whatever the umask).
func createTemp(target string, perm fs.FileMode) (*os.File, error) {
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	for range 1000 {
		name := filepath.Join(dir, fmt.Sprintf(".%s.tmp%d-%d", base, os.Getpid(), tmpSeq.Add(1)))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("%s: no free temporary name beside it", target)
}

// replace writes target through a temporary file renamed over it. keep
// says perm is an existing file's mode, set exactly; otherwise the umask
// applies to it.
func replace(target string, perm fs.FileMode, keep bool, write func(io.Writer) error) (err error) {
	f, err := createTemp(target, perm)
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if keep {
		if err = f.Chmod(perm); err != nil {
			return err
		}
	}
	if err = write(f); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, target); err != nil {
		return err
	}
	// The rename is durable once the folder is synced.
	if d, derr := os.Open(filepath.Dir(target)); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// WriteBytes is Write of a byte slice.
func WriteBytes(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
