package datasets

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/landmark-ml/landmark/datasets/shard"
	"gonum.org/v1/gonum/mat"
)

// readHiggsDir reads back every shard of a manifest written to dir.
func readHiggsDir(t *testing.T, dir string) (*shard.Manifest, *mat.Dense, []float64) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, shard.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	m, err := shard.ParseManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	x := mat.NewDense(m.N, m.D, nil)
	y := make([]float64, 0, m.N)
	for _, e := range m.Shards {
		f, err := os.Open(filepath.Join(dir, e.File))
		if err != nil {
			t.Fatal(err)
		}
		xs, ys, err := shard.Read(f, e.Rows, m.D)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", e.File, err)
		}
		x.Slice(e.FirstRow, e.FirstRow+e.Rows, 0, m.D).(*mat.Dense).Copy(xs)
		y = append(y, ys...)
	}
	return m, x, y
}

// The files are byte for byte the same whatever the number of workers (the
// shards' streams depend on the seed and the shard index only), and another
// seed gives other files.
func TestSyntheticHiggsDeterministic(t *testing.T) {
	opt := HiggsOptions{Rows: 2500, ShardRows: 300, Seed: 7}
	dirs := map[int]string{}
	for _, w := range []int{1, 3, 16} {
		opt.Workers = w
		dirs[w] = t.TempDir()
		if _, err := WriteSyntheticHiggs(context.Background(), dirs[w], opt); err != nil {
			t.Fatal(err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dirs[1], "*"))
	if len(files) != 9+1 { // ⌈2500/300⌉ shards and the manifest
		t.Fatalf("%d files, want 10: %v", len(files), files)
	}
	for _, f := range files {
		want, _ := os.ReadFile(f)
		for _, w := range []int{3, 16} {
			got, err := os.ReadFile(filepath.Join(dirs[w], filepath.Base(f)))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s with %d workers differs from 1 worker (err %v)", filepath.Base(f), w, err)
			}
		}
	}
	other := t.TempDir()
	opt.Seed, opt.Workers = 8, 0
	if _, err := WriteSyntheticHiggs(context.Background(), other, opt); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(dirs[1], "shard-00000.lmks"))
	b, _ := os.ReadFile(filepath.Join(other, "shard-00000.lmks"))
	if bytes.Equal(a, b) {
		t.Error("seeds 7 and 8 wrote the same first shard")
	}
}

// The manifest's statistics (merged shard by shard) equal a direct two-pass
// computation over all rows read back; its other fields describe the shards.
func TestSyntheticHiggsManifest(t *testing.T) {
	dir := t.TempDir()
	got, err := WriteSyntheticHiggs(context.Background(), dir, HiggsOptions{Rows: 3001, ShardRows: 250, Seed: 3, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	m, x, y := readHiggsDir(t, dir)
	if m.N != 3001 || m.D != HiggsDim || m.Task != "classification" || len(m.Shards) != 13 || m.Shards[12].Rows != 1 ||
		len(m.Classes) != 2 || m.Classes[0] != -1 || m.Classes[1] != 1 || got.N != m.N {
		t.Fatalf("manifest n %d d %d task %s classes %v, %d shards", m.N, m.D, m.Task, m.Classes, len(m.Shards))
	}
	n := float64(m.N)
	col := func(j int) []float64 {
		if j == m.D {
			return y
		}
		return mat.Col(nil, j, x)
	}
	for j := 0; j <= m.D; j++ {
		v := col(j)
		mean := 0.0
		for _, a := range v {
			mean += a
		}
		mean /= n
		ss := 0.0
		for _, a := range v {
			ss += (a - mean) * (a - mean)
		}
		std := math.Sqrt(ss / n)
		gm, gs := m.YMean, m.YStd
		if j < m.D {
			gm, gs = m.Mean[j], m.Std[j]
		}
		// Both are sums of 3,001 terms of size ~1 in another order: a few
		// hundred ulps at most; 1e-12 leaves room and catches any slip
		// (a sample instead of a population std is off by 1.7e-4).
		if math.Abs(gm-mean) > 1e-12 || math.Abs(gs-std) > 1e-12*std {
			t.Errorf("column %d: manifest mean %.17g std %.17g, two-pass %.17g %.17g", j, gm, gs, mean, std)
		}
		// The features are standard normal: mean within 4/√n of 0, std of 1.
		if j < m.D && (math.Abs(mean) > 4/math.Sqrt(n) || math.Abs(std-1) > 4/math.Sqrt(2*n)) {
			t.Errorf("column %d: mean %g std %g, want a standard normal's", j, mean, std)
		}
	}
}

// The rule's classes are balanced (P(y = 1) = ½, HiggsLabel is odd) and the
// Bayes classifier sign(f) agrees with the labels at the documented rate.
func TestSyntheticHiggsLabels(t *testing.T) {
	dir := t.TempDir()
	const n = 20000
	if _, err := WriteSyntheticHiggs(context.Background(), dir, HiggsOptions{Rows: n, ShardRows: 4096, Seed: 11}); err != nil {
		t.Fatal(err)
	}
	_, x, y := readHiggsDir(t, dir)
	pos, agree := 0, 0
	neg := make([]float64, HiggsDim)
	for i := range n {
		row := x.RawRowView(i)
		switch y[i] {
		case 1:
			pos++
		case -1:
		default:
			t.Fatalf("label %d is %g, want ±1", i, y[i])
		}
		f := HiggsLabel(row)
		if (f > 0) == (y[i] > 0) {
			agree++
		}
		for j, v := range row {
			neg[j] = -v
		}
		if g := HiggsLabel(neg); math.Abs(f+g) > 1e-12*(1+math.Abs(f)) {
			t.Fatalf("row %d: f(x) %g, f(−x) %g: not odd", i, f, g)
		}
	}
	// Binomial standard deviations: √(¼/n) = 0.0035 for the balance,
	// √(0.829·0.171/n) = 0.0027 for the agreement; 4 of them.
	if p := float64(pos) / n; math.Abs(p-0.5) > 4*math.Sqrt(0.25/n) {
		t.Errorf("P(y = 1) = %.4f, want ½ within %.4f", p, 4*math.Sqrt(0.25/n))
	}
	if a := float64(agree) / n; math.Abs(a-0.829) > 4*math.Sqrt(0.829*0.171/n) {
		t.Errorf("sign(f) agrees with %.4f of the labels, want the documented Bayes accuracy 0.829", a)
	}
}

func TestSyntheticHiggsRefusals(t *testing.T) {
	for _, opt := range []HiggsOptions{{Rows: 0, ShardRows: 10}, {Rows: 10, ShardRows: 0}, {Rows: 10, ShardRows: 5, Workers: -1}} {
		if _, err := WriteSyntheticHiggs(context.Background(), t.TempDir(), opt); !errors.Is(err, ErrInput) {
			t.Errorf("%+v: err %v, want ErrInput", opt, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	if _, err := WriteSyntheticHiggs(ctx, dir, HiggsOptions{Rows: 100, ShardRows: 10}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, shard.ManifestName)); err == nil {
		t.Error("a cancelled run wrote the manifest")
	}
}

// Float32 shards hold the float64 draw rounded to float32, with the same
// labels, in a format-2 manifest whose statistics are those of the rounded
// values: the float64 set's statistics of the same draw rounded (computed
// here by the same two-pass moments on each shard, merged in order), to
// 1e-14 relative, and at least one column's mean differs from the float64
// draw's (before, they were the float64 draw's, bit for bit).
func TestSyntheticHiggsFloat32(t *testing.T) {
	d64, d32 := t.TempDir(), t.TempDir()
	opt := HiggsOptions{Rows: 700, ShardRows: 300, Seed: 9}
	m64, err := WriteSyntheticHiggs(context.Background(), d64, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.Type = shard.Float32
	m32, err := WriteSyntheticHiggs(context.Background(), d32, opt)
	if err != nil {
		t.Fatal(err)
	}
	if m32.Format != shard.Format2 || m32.Type != shard.Float32 || m64.Format != shard.Format || m64.Type != "" {
		t.Errorf("formats %q %q / %q %q", m64.Format, m64.Type, m32.Format, m32.Type)
	}
	_, x64, y64 := readHiggsDir(t, d64)
	_, x32, y32 := readHiggsDir(t, d32)
	var all moments
	for r0 := 0; r0 < 700; r0 += 300 {
		r1 := min(700, r0+300)
		all.merge(blockMoments(x32.Slice(r0, r1, 0, HiggsDim).(*mat.Dense), y32[r0:r1]))
	}
	moved := false
	for j := range m64.Mean {
		want, wantStd := all.mean[j], math.Sqrt(all.m2[j]/all.n)
		if math.Abs(m32.Mean[j]-want) > 1e-14*math.Abs(want) || math.Abs(m32.Std[j]-wantStd) > 1e-14*wantStd {
			t.Fatalf("column %d: float32 statistics %v %v, want the rounded values' %v %v", j, m32.Mean[j], m32.Std[j], want, wantStd)
		}
		moved = moved || m32.Mean[j] != m64.Mean[j]
	}
	if !moved {
		t.Error("every column's mean is the float64 draw's")
	}
	for i := range 700 {
		if y32[i] != y64[i] {
			t.Fatalf("label %d differs", i)
		}
		for j, v := range x64.RawRowView(i) {
			if x32.At(i, j) != float64(float32(v)) {
				t.Fatalf("x[%d,%d] = %v, want float32(%v)", i, j, x32.At(i, j), v)
			}
		}
	}
	opt.Type = "float16"
	if _, err := WriteSyntheticHiggs(context.Background(), t.TempDir(), opt); !errors.Is(err, ErrInput) {
		t.Errorf("float16: err %v", err)
	}
}

// WriteSyntheticHiggs replaces a set already in its folder (shard.DropSet):
// 100 rows in shards of 10, then of 50, leave the manifest and 2 shards
// (before, shards 2 to 9 of the first set stayed). Stopped after its
// first shard (one worker), a run over a set leaves the folder empty:
// neither set's manifest nor any shard (before, the old manifest stayed,
// naming shards the run had overwritten, and the run's shards stayed); a
// stopped run in a folder it made removes the folder.
func TestSyntheticHiggsReplacesSet(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set")
	names := func() []string {
		entries, _ := os.ReadDir(dir)
		var s []string
		for _, e := range entries {
			s = append(s, e.Name())
		}
		return s
	}
	opt := HiggsOptions{Rows: 100, ShardRows: 10, Seed: 3, Workers: 1}
	if _, err := WriteSyntheticHiggs(context.Background(), dir, opt); err != nil {
		t.Fatal(err)
	}
	opt.ShardRows = 50
	if _, err := WriteSyntheticHiggs(context.Background(), dir, opt); err != nil {
		t.Fatal(err)
	}
	if got, want := names(), []string{shard.ManifestName, "shard-00000.lmks", "shard-00001.lmks"}; !slices.Equal(got, want) {
		t.Fatalf("after replacing 10 shards by 2: %v, want %v", got, want)
	}
	opt.ShardRows = 10
	if _, err := WriteSyntheticHiggs(context.Background(), dir, opt); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, filepath.Join(t.TempDir(), "fresh")} {
		ctx, cancel := context.WithCancel(context.Background())
		stop := opt
		stop.ShardRows = 20
		stop.Progress = func(done, _, _, _ int) { cancel() }
		_, err := WriteSyntheticHiggs(ctx, d, stop)
		cancel()
		entries, serr := os.ReadDir(d)
		if !errors.Is(err, context.Canceled) || (d == dir && len(entries) != 0) || (d != dir && !os.IsNotExist(serr)) {
			t.Fatalf("%s stopped: err %v, folder %v (%v); want context.Canceled and nothing left", d, err, entries, serr)
		}
	}
}

// TestSyntheticHiggsManifestFailure: when the manifest cannot be written
// (its name taken by a folder, made here after the last shard), the run
// fails and, as the doc says of any failed run, leaves no shard. Before,
// the shards written stayed beside no manifest.
func TestSyntheticHiggsManifestFailure(t *testing.T) {
	dir := t.TempDir()
	opt := HiggsOptions{Rows: 30, ShardRows: 10, Seed: 3, Workers: 1}
	opt.Progress = func(done, total, _, _ int) {
		if done == total {
			if err := os.Mkdir(filepath.Join(dir, shard.ManifestName), 0o755); err != nil {
				t.Error(err)
			}
		}
	}
	_, err := WriteSyntheticHiggs(context.Background(), dir, opt)
	entries, _ := os.ReadDir(dir)
	if err == nil || len(entries) != 1 || entries[0].Name() != shard.ManifestName {
		t.Fatalf("err %v, folder %v; want an error and only the blocking folder", err, entries)
	}
}
