package experiments

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/model"
)

// TestMemoryLimitBytes: memory_limit (and cache_bytes) take a byte count or
// a string with a unit in YAML, as --memory does; a bad unit is a spec error
// naming the key.
func TestMemoryLimitBytes(t *testing.T) {
	base := strings.Replace(goodSpec, "  jitter: 1.0e-9\n", "  jitter: 1.0e-9\n  memory_limit: LIMIT\n", 1)
	for lit, want := range map[string]float64{"4G": 4e9, "512MiB": 512 << 20, "1000000": 1e6, "0": 0} {
		s := mustDecode(t, strings.Replace(base, "LIMIT", lit, 1))
		r := &runner{s: s}
		r.entry, _ = estimatorByName(s.Estimator.Type)
		c := r.config(s.Grid.Points()[0], 100, 1)
		if got := c.Float("memory_limit", -1); got != want {
			t.Errorf("memory_limit: %s gave %v, want %v", lit, got, want)
		}
		if r.memoryLimit() != int64(want) {
			t.Errorf("memory_limit: %s: runner cap %d, want %v", lit, r.memoryLimit(), want)
		}
	}
	for _, bad := range []string{"4X", "-1G", "lots"} {
		_, err := Decode(strings.NewReader(strings.Replace(base, "LIMIT", bad, 1)), ".")
		if !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), "memory_limit") {
			t.Errorf("memory_limit: %s: %v", bad, err)
		}
	}
}

// TestDefaultMemoryLimit: without memory_limit a fit's config gets
// DefaultMemoryShare of the physical memory, which on Linux is at most
// MemTotal of /proc/meminfo (read here independently: the first line, in
// kB), lower in a container with a lower memory limit.
func TestDefaultMemoryLimit(t *testing.T) {
	phys, ok := PhysicalMemory()
	if runtime.GOOS == "linux" {
		b, err := os.ReadFile("/proc/meminfo")
		if err != nil {
			t.Fatal(err)
		}
		var kb int64
		for _, f := range strings.Fields(strings.SplitN(string(b), "\n", 2)[0])[1:2] {
			for _, c := range f {
				kb = kb*10 + int64(c-'0')
			}
		}
		// A control group's lower limit may lower it (internal/physmem's
		// tests cover that); it is never above MemTotal.
		if !ok || phys > kb*1024 || phys <= 0 {
			t.Errorf("physical memory %d (ok %v), /proc/meminfo says %d kB", phys, ok, kb)
		}
	}
	if want := int64(0.75 * float64(phys)); DefaultMemoryLimit() != want {
		t.Errorf("default cap %d, want 75%% of %d", DefaultMemoryLimit(), phys)
	}
	s := mustDecode(t, goodSpec)
	r := &runner{s: s}
	r.entry, _ = estimatorByName(s.Estimator.Type)
	if got := r.config(s.Grid.Points()[0], 100, 1).Float("memory_limit", -1); got != float64(DefaultMemoryLimit()) {
		t.Errorf("config memory_limit %v, want the default %d", got, DefaultMemoryLimit())
	}
}

// TestStandardizeSparseRefusedBeforeDense: scale standardize on a sparse
// LIBSVM file reads it dense; under a 200 kB cap the 240×20,000 dense matrix
// (38.4 MB) is refused before it is allocated — the fit's heap grows by
// less than 4 MB (the CSR text parse) — with model.ErrMemory and a message
// saying how to raise the cap. The same happens for a fit the estimator's own
// plan refuses (exact KRR, n = 240: K alone is 460 kB).
func TestStandardizeSparseRefusedBeforeDense(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 240 {
		b.WriteString([]string{"1", "-1"}[i%2])
		for k := range 5 {
			b.WriteString(" " + strconv.Itoa(1+(i*37)%3999+k*4000) + ":0.5")
		}
		if i == 0 {
			b.WriteString(" 20000:1")
		}
		b.WriteString("\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "wide.svm"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := `name: cap
dataset: {path: wide.svm, scale: SCALE}
task: regression
estimator: {type: krr, kernel: {type: gaussian, gamma: 0.1}, approx: {type: exact}, lambda: 0.001, memory_limit: 200k}
`
	for _, tc := range []struct{ scale, where string }{{"standardize", "a dense 240×20000 matrix"}, {"std", "exact KRR"}} {
		s, err := Decode(strings.NewReader(strings.Replace(spec, "SCALE", tc.scale, 1)), dir)
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err = Fit(context.Background(), s)
		runtime.ReadMemStats(&after)
		if !errors.Is(err, model.ErrMemory) || !strings.Contains(err.Error(), tc.where) || !strings.Contains(err.Error(), "raise the cap with the estimator option memory_limit") {
			t.Errorf("scale %s: %v", tc.scale, err)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 4<<20 {
			t.Errorf("scale %s: refusal after allocating %d bytes", tc.scale, got)
		}
	}
}

// TestWideFitKeepsNoFeatureNames: a fit on wide LIBSVM data keeps no x1…xd
// names, they are implied (at d = 10⁸ they took 1.6 GB and the model file as
// much); the saved file stays small and loads.
func TestWideFitKeepsNoFeatureNames(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "w.svm"), []byte("1 1:1 200000:0.5\n-1 2:1\n1 1:0.9\n-1 2:0.8 3:1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Decode(strings.NewReader(`name: wide
dataset: {path: w.svm}
task: binary
estimator: {type: krr, kernel: {type: gaussian, gamma: 0.5}, approx: {type: exact}, lambda: 0.001}
`), dir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Fit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Dim != 200000 || res.Features != nil || !res.ImpliedFeatures {
		t.Fatalf("d = %d, %d feature names (implied %v)", res.Dim, len(res.Features), res.ImpliedFeatures)
	}
	p := filepath.Join(dir, "w.model")
	if err := res.SaveFile(p, s); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(p); err != nil || st.Size() > 64<<10 {
		t.Fatalf("model file: %v, %v", st, err)
	}
	back, err := LoadFitFile(p)
	if err != nil || back.Dim != 200000 || !back.ImpliedFeatures || back.FeatureName(199999) != "x200000" {
		t.Fatalf("load: %v", err)
	}
}

// TestCapCountsHeldData: the cap covers the data the runner holds beside the
// estimator, each copy once. Exact KRR on 240 CSR rows (scaled maxabs: the
// scaled copy is held too) needs P bytes by its own plan (named by a
// refusal under a cap that lets the read through but not the fit), which
// counts the rows it is given (the scaled copy, 12 bytes a non-zero and 8
// a row); the runner holds H bytes
// of data — two CSR copies of the rows: as read, and scaled (the fit's
// rows, scored as themselves, are scaled once; they were scaled twice
// before). The cap P + H/2 fits and P + H/2 − 1 is refused naming the
// H/2 bytes held beside the plan. Before, the scaled copy was taken off
// the cap twice (in H and in P): P + H/2 was refused, P + H needed.
func TestCapCountsHeldData(t *testing.T) {
	dir := writeSparseRegression(t) // 240 × 100, 5 non-zeros a row
	spec := func(limit string) *Spec {
		s, err := Decode(strings.NewReader(`name: held
dataset: {path: data.svm, scale: maxabs}
task: regression
estimator: {type: krr, kernel: {type: gaussian, gamma: 0.1}, approx: {type: exact}, lambda: 0.001, memory_limit: `+limit+`}
`), dir)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// The rows read count against the cap first: 12 bytes a non-zero and
	// 16 a row, refused before a value is read.
	read := 12*240*5 + 16*240
	_, err := Fit(context.Background(), spec(strconv.Itoa(read-1)))
	if !errors.Is(err, model.ErrMemory) || !strings.Contains(err.Error(), fmt.Sprintf("the 240 rows of 1200 non-zeros counted, as CSR needs %d bytes", read)) {
		t.Fatalf("cap of the rows read − 1: %v", err)
	}
	_, err = Fit(context.Background(), spec(strconv.Itoa(read)))
	m := regexp.MustCompile(`exact KRR on sparse X \(n=240\) needs (\d+) bytes`).FindStringSubmatch(fmt.Sprint(err))
	if m == nil {
		t.Fatalf("cap of the rows read: %v", err)
	}
	p, _ := strconv.ParseInt(m[1], 10, 64)
	h := int64(2 * (12*240*5 + 8*241))
	_, err = Fit(context.Background(), spec(strconv.FormatInt(p+h/2-1, 10)))
	if !errors.Is(err, model.ErrMemory) || !strings.Contains(err.Error(), "scaled copies: "+strconv.FormatInt(h/2, 10)+" bytes") {
		t.Errorf("cap P + H/2 − 1: %v", err)
	}
	if _, err := Fit(context.Background(), spec(strconv.FormatInt(p+h/2, 10))); err != nil {
		t.Errorf("cap P + H/2: %v", err)
	}
}

// TestCapDenseKRRCountsXOnce: the reported case at small scale, a dense X
// with scale standardize fitted by exact KRR (a 5.25 GB X asked for about
// 20 GB: X, and a plan of about 15 GiB that counts X again). The runner
// reads the LIBSVM rows into one n×d array (no spare capacity, unlike a
// CSV read's appended rows), standardizes it in place and holds that one
// array, which exact KRR's plan P counts as its data (8·n·d; its other
// terms are K, the predictor's copy of X, α, the engine's and the
// factorization's scratch, which TestExactKRRPlanCountsCopies holds to what
// the fit allocates). So the cap P fits and P − 1 is refused naming P;
// before, the runner took X off the cap first: P was refused, P + 8·n·d
// needed. n = 60, d = 400: X is 192,000 bytes.
func TestCapDenseKRRCountsXOnce(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	r := rand.New(rand.NewPCG(3, 4))
	const n, d = 60, 400
	for range n {
		fmt.Fprintf(&b, "%d", 2*r.IntN(2)-1)
		for j := range d {
			fmt.Fprintf(&b, " %d:%.3f", j+1, r.NormFloat64())
		}
		b.WriteString("\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "wide.svm"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := func(limit int64) *Spec {
		s, err := Decode(strings.NewReader(`name: dense
dataset: {path: wide.svm, scale: standardize}
task: binary
estimator: {type: krr, kernel: {type: gaussian, gamma: 0.001}, lambda: 0.001, memory_limit: `+strconv.FormatInt(limit, 10)+`}
`), dir)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	x := int64(8 * n * d)
	// The file's first pass counts its rows, and X is refused before a
	// value is read when it passes the cap; within it, the values are
	// parsed straight into X, held once, and the fit is refused.
	if _, err := Fit(context.Background(), spec(x-1)); !errors.Is(err, model.ErrMemory) || !strings.Contains(err.Error(), "a dense 60×400 matrix needs 192000 bytes") {
		t.Errorf("cap of X − 1: %v", err)
	}
	// A stream (here a FIFO) is read once: it collects the rows before X
	// takes its form (12 bytes a non-zero, 16 a row: 288,960 bytes here,
	// more than X) and holds them while it fills X. That peak, 480,960
	// bytes, is bounded by the cap too (ReadOptions.MaxBytes, since
	// 2026-11-28). One byte less is refused at the matrix, the rows one
	// byte short at the read; the peak lets the read through and refuses
	// the fit.
	streamSpec := func(limit int64) *Spec {
		if !fifoWith(t, dir, "stream.svm", []byte(b.String())) {
			t.Skip("no FIFOs here")
		}
		s := spec(limit)
		s.Dataset.Path = "stream.svm"
		return s
	}
	rows := int64(12*n*d + 16*n)
	read := rows + x
	if _, err := Fit(context.Background(), streamSpec(rows-1)); !errors.Is(err, model.ErrMemory) || !strings.Contains(err.Error(), "what was read by line 60 (60 rows, 24000 non-zeros) needs 288960 bytes") ||
		!strings.Contains(err.Error(), "the same file uncompressed or gzipped is counted first and read in place") {
		t.Errorf("stream: cap of the rows read − 1: %v", err)
	}
	if _, err := Fit(context.Background(), streamSpec(read-1)); !errors.Is(err, model.ErrMemory) || !strings.Contains(err.Error(), "a dense 60×400 matrix beside the rows parsed (282.2 KiB), which are copied into it needs 480960 bytes") ||
		!strings.Contains(err.Error(), "the same file uncompressed or gzipped is counted first and read in place") {
		t.Errorf("stream: cap of the read's peak − 1: %v", err)
	}
	_, err := Fit(context.Background(), streamSpec(read))
	m := regexp.MustCompile(`needs (\d+) bytes`).FindStringSubmatch(fmt.Sprint(err))
	if m == nil || !strings.Contains(err.Error(), "exact KRR") {
		t.Fatalf("stream: cap of the read: %v", err)
	}
	if _, err := Fit(context.Background(), spec(x)); !errors.Is(err, model.ErrMemory) || !strings.Contains(err.Error(), "exact KRR (n=60) needs "+m[1]+" bytes") {
		t.Errorf("cap of X: %v, want the fit's refusal naming %s bytes", err, m[1])
	}
	p, _ := strconv.ParseInt(m[1], 10, 64)
	if _, err := Fit(context.Background(), spec(p-1)); !errors.Is(err, model.ErrMemory) || !strings.Contains(err.Error(), "needs "+strconv.FormatInt(p, 10)+" bytes") {
		t.Errorf("cap P − 1: %v", err)
	}
	if _, err := Fit(context.Background(), spec(p)); err != nil {
		t.Errorf("cap P = %d (X %d): %v", p, x, err)
	}
}
