package cmdline

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/experiments"
)

// ReadProgress returns the datasets.ReadOptions.ProgressBytes of command
// cmd: a line per batch of datasets.ProgressRows rows read and at the end,
// with the elapsed time, the rate and, when the file's size is known, the
// share of it consumed (compressed bytes for a compressed file) and the
// read's ETA at the byte rate so far; nil when pg is.
func ReadProgress(pg *Progress, cmd string, t0 time.Time) func(datasets.ReadProgress) {
	if pg == nil {
		return nil
	}
	last := -1
	return func(p datasets.ReadProgress) {
		if p.Rows == last {
			return // the closing call repeats a batch's count
		}
		last = p.Rows
		el := time.Since(t0)
		rate := float64(p.Rows) / max(el.Seconds(), 1e-9)
		if p.Size <= 0 || p.Bytes <= 0 {
			pg.Line("%s: read %d rows (elapsed %s, %.3g rows/s)", cmd, p.Rows, Duration(el), rate)
			return
		}
		var eta time.Duration
		if p.Bytes < p.Size {
			eta = time.Duration(float64(el) * float64(p.Size-p.Bytes) / float64(p.Bytes))
		}
		pg.Line("%s: read %d rows, %.0f%% of %s (elapsed %s, %.3g rows/s, read ETA %s)", cmd, p.Rows,
			100*float64(min(p.Bytes, p.Size))/float64(p.Size), MiB(p.Size), Duration(el), rate, Duration(eta))
	}
}

// MiB prints a byte count in MiB.
func MiB(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// ShardProgress returns a progress callback of a command that writes
// shards of rowBytes bytes a row: one line per shard written, "CMD: shard
// 3/50 written (rows 3000000/50000000; elapsed 12s, ETA 3m10s, 1.2e+06
// rows/s, 270 MB/s)", with the ETA and rates from the rows written so far;
// nil when pg is.
func ShardProgress(pg *Progress, cmd string, rowBytes int) func(shards, totalShards, rows, totalRows int) {
	if pg == nil {
		return nil
	}
	clock, last := NewClock(0), 0
	return func(shards, totalShards, rows, totalRows int) {
		clock.total = float64(totalRows)
		elapsed, eta := clock.Add(float64(rows - last))
		last = rows
		sec := max(elapsed.Seconds(), 1e-9)
		pg.Line("%s: shard %d/%d written (rows %d/%d; elapsed %s, ETA %s, %.3g rows/s, %.0f MB/s)", cmd, shards, totalShards, rows, totalRows,
			Duration(elapsed), Duration(eta), float64(rows)/sec, float64(rows)*float64(rowBytes)/sec/1e6)
	}
}

// ManifestInfo prints what a shard manifest says (landmark data info
// DIR/manifest.json), without reading a shard: rows, features, task and
// classes, the shards, their element type and bytes on disk, y's and (up to
// maxColumns, 0 for all) each feature's mean and standard deviation.
func ManifestInfo(w io.Writer, path string, maxColumns int) error {
	m, err := experiments.ReadManifest(path)
	if err != nil {
		return err
	}
	typ := m.Type
	if typ == "" {
		typ = shard.Float64
	}
	width := 8
	if typ == shard.Float32 {
		width = 4
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "manifest:\t%s (%s)\n", path, m.Format)
	fmt.Fprintf(tw, "rows:\t%d\nfeatures:\t%d\ntask:\t%s\n", m.N, m.D, m.Task)
	switch {
	case m.ClassNames != nil:
		// Text labels: the targets are class indices.
		named := make([]string, len(m.ClassNames))
		for i, c := range m.ClassNames {
			named[i] = fmt.Sprintf("%d %q", i, c)
		}
		fmt.Fprintf(tw, "classes:\t%s (text labels; the targets are their indices)\n", strings.Join(named, ", "))
	case len(m.Classes) > 0:
		fmt.Fprintf(tw, "classes:\t%v\n", m.Classes)
	}
	if m.ZeroBased {
		// The base the fits of these shards hand on to predict.
		fmt.Fprintf(tw, "source:\ta LIBSVM file with 0-based indices (zero_based: predict asks for --zero-based)\n")
	}
	fmt.Fprintf(tw, "shards:\t%d of up to %d rows, X as %s: %s on disk, %s as float64 in memory\n", len(m.Shards), m.Shards[0].Rows, typ,
		MiB(int64(m.N)*int64(width*m.D+8)), MiB(8*int64(m.N)*int64(m.D)))
	if len(m.Layout) > 0 {
		// How the source CSV's columns were read, kept for predict.
		var l datasets.Layout
		if err := json.Unmarshal(m.Layout, &l); err != nil {
			return fmt.Errorf("%s: %w: manifest layout: %w", path, shard.ErrFormat, err)
		}
		fmt.Fprintf(tw, "source:\t%s\n", describeLayout(l))
	}
	target := "y"
	if m.Target != "" {
		target = strconv.Quote(m.Target)
	}
	fmt.Fprintf(tw, "target %s:\tmean %.6g  std %.6g\n\n", target, m.YMean, m.YStd)
	fmt.Fprintln(tw, "#\tfeature\tmean\tstd")
	for j := range m.D {
		if maxColumns > 0 && j == maxColumns {
			fmt.Fprintf(tw, "…\t(%d more; --all lists every feature)\n", m.D-j)
			break
		}
		name := datasets.FeatureName(j)
		if m.Features != nil {
			name = m.Features[j]
		}
		fmt.Fprintf(tw, "%d\t%s\t%.6g\t%.6g\n", j+1, name, m.Mean[j], m.Std[j])
	}
	return tw.Flush()
}

// describeLayout says how a CSV read took its file's columns: "a CSV of 4
// columns with a header: target column 1, dropped 0 ("id")" (columns
// counted from 0).
func describeLayout(l datasets.Layout) string {
	head := "without"
	if l.Header {
		head = "with"
	}
	parts := []string{"no target"}
	if l.Target >= 0 {
		parts[0] = fmt.Sprintf("target column %d", l.Target)
	}
	if len(l.Dropped) > 0 {
		cols := make([]string, len(l.Dropped))
		for i, j := range l.Dropped {
			cols[i] = strconv.Itoa(j)
			if i < len(l.Names) {
				cols[i] += " " + strconv.Quote(l.Names[i])
			}
		}
		parts = append(parts, "dropped "+strings.Join(cols, ", "))
	}
	return fmt.Sprintf("a CSV of %d columns %s a header: %s (columns from 0)", l.Width, head, strings.Join(parts, ", "))
}
