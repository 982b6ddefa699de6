package experiments

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// logName is the results log in the output folder: a header line with the
// spec hash, then one JSON line per finished grid point, each appended with a
// single write and fsynced.
const logName = "results.log"

type logHeader struct {
	Kind     string `json:"kind"`
	SpecHash string `json:"spec_hash"`
}

type logLine struct {
	Kind  string       `json:"kind"`
	Point *PointResult `json:"point,omitempty"`
}

// resultLog is an open results log.
type resultLog struct{ f *os.File }

// openLog opens (or creates) the log in dir. Points already logged under the
// same hash are returned by key; a different hash is ErrSpecChanged unless
// fresh, which discards the old log. A trailing line cut short by a crash is
// dropped.
func openLog(dir, hash string, fresh bool) (*resultLog, map[string]PointResult, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	path := filepath.Join(dir, logName)
	done := map[string]PointResult{}
	if fresh {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, nil, err
		}
	}
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, err
	}
	// Keep whole lines only.
	if i := bytes.LastIndexByte(data, '\n'); i+1 != len(data) {
		data = data[:i+1]
		if err := os.Truncate(path, int64(len(data))); err != nil {
			return nil, nil, err
		}
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if len(data) > 0 {
		var h logHeader
		if err := json.Unmarshal(lines[0], &h); err != nil || h.Kind != "header" {
			return nil, nil, fmt.Errorf("experiments: %s is not a results log (rerun with --fresh to replace it)", path)
		}
		if h.SpecHash != hash {
			return nil, nil, fmt.Errorf("%w: %s was written by spec %.12s…, this spec is %.12s… (rerun with --fresh to start over)", ErrSpecChanged, path, h.SpecHash, hash)
		}
		for i, l := range lines[1:] {
			var ll logLine
			if err := json.Unmarshal(l, &ll); err != nil || ll.Point == nil {
				return nil, nil, fmt.Errorf("experiments: %s line %d is not a logged point (rerun with --fresh to replace it)", path, i+2)
			}
			done[ll.Point.Key] = *ll.Point
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, err
	}
	l := &resultLog{f: f}
	if len(data) == 0 {
		if err := l.writeLine(logHeader{Kind: "header", SpecHash: hash}); err != nil {
			f.Close()
			return nil, nil, err
		}
	}
	return l, done, nil
}

func (l *resultLog) writeLine(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if _, err := l.f.Write(b); err != nil {
		return err
	}
	return l.f.Sync()
}

// append logs one finished point durably.
func (l *resultLog) append(p PointResult) error {
	return l.writeLine(logLine{Kind: "point", Point: &p})
}

// Close closes the log.
func (l *resultLog) Close() error { return l.f.Close() }

// writeFileAtomic writes data to path through a temporary file in the same
// folder that is fsynced and renamed over path, so readers see the old file or
// the new one, never a part.
func writeFileAtomic(path string, data []byte) error {
	return writeAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// writeAtomic writes path through write atomically: into a temporary file
// of the same directory, synced and renamed over path, so path never holds
// a partial file.
func writeAtomic(path string, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if err := write(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
