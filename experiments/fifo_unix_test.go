//go:build unix

package experiments

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// fifoWith makes dir/name a FIFO whose writer, a goroutine, writes data
// once a reader opens it (a stream, as a pipe is: read once, not counted
// first); false where FIFOs cannot be made.
func fifoWith(t *testing.T, dir, name string, data []byte) bool {
	t.Helper()
	p := filepath.Join(dir, name)
	os.Remove(p)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		return false
	}
	go func() {
		f, err := os.OpenFile(p, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.Write(data) // a reader that stops early closes its end: EPIPE, ignored
		f.Close()
	}()
	return true
}
