package experiments

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/landmark-ml/landmark/internal/outfile"
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

// ErrResultsLog is wrapped by the refusal to resume from an output folder
// whose results log is not one: its first line is not a log header, or a
// later line is not a logged point. Options.Fresh discards the old log and
// starts over.
var ErrResultsLog = errors.New("experiments: unreadable results log")

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
		if err := removeOutputs(dir); err != nil {
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
			return nil, nil, fmt.Errorf("%w: %s: the first line is not a results log header (Options.Fresh replaces the log)", ErrResultsLog, path)
		}
		if h.SpecHash != hash {
			return nil, nil, fmt.Errorf("%w: %s was written by spec %.12s…, this spec is %.12s… (Options.Fresh starts over)", ErrSpecChanged, path, h.SpecHash, hash)
		}
		for i, l := range lines[1:] {
			var ll logLine
			if err := json.Unmarshal(l, &ll); err != nil || ll.Point == nil {
				return nil, nil, fmt.Errorf("%w: %s line %d is not a logged point (Options.Fresh replaces the log)", ErrResultsLog, path, i+2)
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

// outputNames are the files a run writes in its folder besides the plots.
var outputNames = []string{logName, "results.csv", "results.json", "summary.md", "manifest.json"}

// removeOutputs removes a previous run's outputs from dir, the log first
// (so that an interrupted removal still starts over): the log, the tables,
// summary.md, manifest.json and the plots (NAME_vs_AXIS.png and .svg).
// Other files in dir are left alone.
func removeOutputs(dir string) error {
	names := append([]string(nil), outputNames...)
	for _, pat := range []string{"*_vs_*.png", "*_vs_*.svg"} {
		m, err := filepath.Glob(filepath.Join(dir, pat))
		if err != nil {
			return err
		}
		for _, p := range m {
			names = append(names, filepath.Base(p))
		}
	}
	for _, n := range names {
		if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("experiments: fresh run: removing the previous run's %s: %w", n, err)
		}
	}
	return nil
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

// writeFileAtomic writes data to path as outfile.WriteBytes does: through a
// temporary file in the same folder that is fsynced and renamed over path,
// so readers see the old file or the new one, never a part.
func writeFileAtomic(path string, data []byte) error {
	return outfile.WriteBytes(path, data)
}
