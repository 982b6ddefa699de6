package datasets

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// libsvmCases are LIBSVM texts whose shape a first pass must count as the
// parse reads them: comments, blank lines, qid, a byte order mark, CRLF,
// explicit zeros, a last line without a newline, an empty row, leading
// zeros in an index, tabs, unlabelled rows.
var libsvmCases = []string{
	"1 1:0.5 3:-2\n-1 2:1\n",
	"+1 qid:3 1:1 2:2 # comment 9:9\n\n# a comment line\n0 4:1e-3\n",
	"\ufeff1 1:1\r\n2 2:0\r\n",
	"1 1:1\n2\n3 007:2",
	"1\t1:1\t5:2\n  \n-1 3:0 4:0\n",
	"1:1 3:2\n2:5\n",
}

// writeTemp writes text to a file of the test's temporary folder.
func writeTemp(t testing.TB, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLIBSVMShapeCounts: Input.Shape's first pass counts the rows, columns
// and entries a sparse read of the same bytes from a stream (no first
// pass) stores, 1- and 0-based, with and without MaxRows; a gzip file is
// counted as the text it holds; a stream, a bzip2 file, a gzip file cut
// short and a CSV are not counted.
func TestLIBSVMShapeCounts(t *testing.T) {
	ctx := context.Background()
	for k, text := range libsvmCases {
		for _, opt := range []ReadOptions{{}, {ZeroBased: true}, {MaxRows: 1}, {AllowUnlabelled: true}} {
			want, y, err := ReadLIBSVMSparseWith(ctx, strings.NewReader(text), opt)
			if err != nil {
				continue // the case is for another option (unlabelled rows)
			}
			in, err := OpenInput(ctx, writeTemp(t, "x.libsvm", text), LIBSVM)
			if err != nil {
				t.Fatal(err)
			}
			sh, ok, err := in.Shape(ctx, opt)
			in.Close()
			r, c := want.Dims()
			if err != nil || !ok || sh != (Shape{Rows: r, Cols: c, Entries: len(want.Values)}) {
				t.Errorf("case %d %+v: Shape = %+v, %v, %v; the read has %d rows (%d labels), %d columns, %d entries", k, opt, sh, ok, err, r, len(y), c, len(want.Values))
			}
			if d := sh.Density(); d != want.Density() {
				t.Errorf("case %d %+v: Density %v, the read's %v", k, opt, d, want.Density())
			}
		}
	}
	stream, err := newInput(strings.NewReader(libsvmCases[0]), LIBSVM)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := stream.Shape(ctx, ReadOptions{}); ok {
		t.Error("a stream was counted")
	}
	// An index beyond MaxIndex: not counted (the read refuses its line).
	in, err := OpenInput(ctx, writeTemp(t, "big.libsvm", "1 1:1\n1 3000000000:1\n"), LIBSVM)
	if err != nil {
		t.Fatal(err)
	}
	if sh, ok, err := in.Shape(ctx, ReadOptions{}); ok || err != nil {
		t.Errorf("an index beyond MaxIndex: counted %+v, %v", sh, err)
	}
	if _, err := in.Read(ctx, ReadOptions{}); !errors.Is(err, ErrIndexRange) {
		t.Errorf("an index beyond MaxIndex: read error %v", err)
	}
	in.Close()
	// A gzip file is counted as the text it holds.
	in, err = OpenInput(ctx, writeTemp(t, "x.libsvm.gz", string(gz(t, []byte(libsvmCases[1])))), Auto)
	if err != nil {
		t.Fatal(err)
	}
	if sh, ok, err := in.Shape(ctx, ReadOptions{}); !ok || err != nil || sh != (Shape{Rows: 2, Cols: 4, Entries: 3}) {
		t.Errorf("gzip: Shape = %+v, %v, %v; want 2 rows, 4 columns, 3 entries", sh, ok, err)
	}
	in.Close()
	// A gzip file cut short is not counted: the read reports it.
	cut := gz(t, []byte(strings.Repeat(libsvmCases[0], 5000)))
	in, err = OpenInput(ctx, writeTemp(t, "cut.libsvm.gz", string(cut[:len(cut)/2])), Auto)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := in.Shape(ctx, ReadOptions{}); ok || err != nil {
		t.Errorf("a gzip file cut short: counted, %v", err)
	}
	if _, err := in.Read(ctx, ReadOptions{}); !errors.Is(err, ErrTruncated) {
		t.Errorf("a gzip file cut short: read error %v, want ErrTruncated", err)
	}
	in.Close()
	// A bzip2 file and a CSV are not.
	for _, path := range []string{"testdata/small.libsvm.bz2", writeTemp(t, "x.csv", "a,b\n1,2\n")} {
		in, err := OpenInput(ctx, path, Auto)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := in.Shape(ctx, ReadOptions{}); ok {
			t.Errorf("%s was counted", path)
		}
		in.Close()
	}
}

// TestLIBSVMFileInPlace: a plain or gzip LIBSVM file read into dense X,
// float32 X or CSR (its values parsed straight into the arrays a first
// pass sized)
// equals the same bytes read from a stream (chunks copied at the end),
// bit for bit, for each option that changes the read: 0-based indices, a
// fixed Dim wider than the file, MaxRows, unlabelled rows.
func TestLIBSVMFileInPlace(t *testing.T) {
	ctx := context.Background()
	for k, text := range libsvmCases {
		path := writeTemp(t, "x.libsvm", text)
		if k%2 == 1 {
			path = writeTemp(t, "x.libsvm.gz", string(gz(t, []byte(text)))) // counted through gzip
		}
		for _, opt := range []ReadOptions{{}, {ZeroBased: true}, {Dim: 12}, {MaxRows: 2}, {AllowUnlabelled: true}, {Float32: true}} {
			opt.Format = LIBSVM
			want, werr := Read(strings.NewReader(text), opt)
			got, gerr := ReadFile(path, opt)
			if (werr == nil) != (gerr == nil) {
				t.Fatalf("case %d %+v: file read error %v, stream read error %v", k, opt, gerr, werr)
			}
			if werr == nil {
				sameDataset(t, fmt.Sprintf("case %d %+v", k, opt), got, want)
			}
			sopt := opt
			sopt.Float32 = false
			ws, wy, werr := ReadLIBSVMSparseWith(ctx, strings.NewReader(text), sopt)
			in, err := OpenInput(ctx, path, LIBSVM)
			if err != nil {
				t.Fatal(err)
			}
			gs, gy, gerr := in.ReadSparseWith(ctx, sopt)
			in.Close()
			if (werr == nil) != (gerr == nil) {
				t.Fatalf("case %d %+v sparse: file read error %v, stream read error %v", k, sopt, gerr, werr)
			}
			if werr != nil {
				continue
			}
			r, c := gs.Dims()
			if _, err := NewCSR(r, c, gs.Indptr, gs.Indices, gs.Values); err != nil {
				t.Fatalf("case %d %+v: the file's CSR is invalid: %v", k, sopt, err)
			}
			sameDataset(t, fmt.Sprintf("case %d %+v sparse", k, sopt), &Dataset{X: gs.ToDense(), Y: gy}, &Dataset{X: ws.ToDense(), Y: wy})
			if cap(gs.Values) != len(gs.Values) || cap(gs.Indices) != len(gs.Indices) {
				t.Errorf("case %d: CSR arrays of capacity %d, %d for %d entries: want exact", k, cap(gs.Values), cap(gs.Indices), len(gs.Values))
			}
		}
	}
}

// sameDataset fails unless got and want hold the same X (or X32), bit for
// bit, and the same labels.
func sameDataset(t *testing.T, what string, got, want *Dataset) {
	t.Helper()
	if (got.Y == nil) != (want.Y == nil) || len(got.Y) != len(want.Y) {
		t.Fatalf("%s: %d labels (nil %v), want %d (nil %v)", what, len(got.Y), got.Y == nil, len(want.Y), want.Y == nil)
	}
	for i := range want.Y {
		if math.Float64bits(got.Y[i]) != math.Float64bits(want.Y[i]) {
			t.Fatalf("%s: y[%d] = %v, want %v", what, i, got.Y[i], want.Y[i])
		}
	}
	if want.X32 != nil {
		if got.X32 == nil {
			t.Fatalf("%s: no float32 X", what)
		}
		r, c := want.X32.Dims()
		if gr, gc := got.X32.Dims(); gr != r || gc != c {
			t.Fatalf("%s: X32 %d×%d, want %d×%d", what, gr, gc, r, c)
		}
		for i := range r {
			for j := range c {
				if got.X32.At(i, j) != want.X32.At(i, j) {
					t.Fatalf("%s: X32[%d][%d] = %v, want %v", what, i, j, got.X32.At(i, j), want.X32.At(i, j))
				}
			}
		}
		return
	}
	r, c := want.X.Dims()
	if gr, gc := got.X.Dims(); gr != r || gc != c {
		t.Fatalf("%s: X %d×%d, want %d×%d", what, gr, gc, r, c)
	}
	for i := range r {
		for j := range c {
			if math.Float64bits(got.X.At(i, j)) != math.Float64bits(want.X.At(i, j)) {
				t.Fatalf("%s: X[%d][%d] = %v, want %v", what, i, j, got.X.At(i, j), want.X.At(i, j))
			}
		}
	}
}

// TestLIBSVMFileInPlaceAllocates: reading a fully dense LIBSVM file of
// 20,000 rows × 50 features (|X| = 8 MB) from a plain file allocates at
// least 1.2·|X| less than reading the same bytes from a stream, dense and
// as CSR, and so does a dense read of the file gzipped (its two
// decompressions allocate their windows, well under |X|). The stream read's chunks take 12 bytes an entry (1.5·|X|)
// beside the 8 of X; the file's read puts the values in X alone. As CSR
// the stream's chunks are copied into arrays of exactly 12 bytes an entry
// (1.5·|X| each), the file's read fills those arrays alone. TotalAlloc
// counts every allocation whatever the collector does, so the margins
// (1.2 against the 1.5 saved, for slice growth and the line buffers, the
// same in both) do not depend on timing.
func TestLIBSVMFileInPlaceAllocates(t *testing.T) {
	const n, d = 20000, 50
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%d", i%2)
		for j := range d {
			fmt.Fprintf(&b, " %d:%d", j+1, 1+(i+j)%9)
		}
		b.WriteByte('\n')
	}
	text := b.String()
	path := writeTemp(t, "x.libsvm", text)
	alloc := func(read func() error) uint64 {
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		if err := read(); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&m1)
		return m1.TotalAlloc - m0.TotalAlloc
	}
	const x = n * d * 8
	ctx := context.Background()
	var file, stream *Dataset
	fileDense := alloc(func() (err error) { file, err = ReadFile(path, ReadOptions{}); return err })
	streamDense := alloc(func() (err error) {
		stream, err = Read(strings.NewReader(text), ReadOptions{Format: LIBSVM})
		return err
	})
	sameDataset(t, "dense", file, stream)
	gzPath := writeTemp(t, "x.libsvm.gz", string(gz(t, []byte(text))))
	var gzd *Dataset
	gzDense := alloc(func() (err error) { gzd, err = ReadFile(gzPath, ReadOptions{}); return err })
	sameDataset(t, "dense gzip", gzd, stream)
	fileCSR := alloc(func() error { _, _, err := ReadLIBSVMSparseFile(ctx, path, 0); return err })
	streamCSR := alloc(func() error { _, _, err := ReadLIBSVMSparse(ctx, strings.NewReader(text), 0); return err })
	t.Logf("allocated (|X| %.1f MB): dense file %.1f MB, gzip file %.1f MB, stream %.1f MB; CSR file %.1f MB, stream %.1f MB",
		x/1e6, float64(fileDense)/1e6, float64(gzDense)/1e6, float64(streamDense)/1e6, float64(fileCSR)/1e6, float64(streamCSR)/1e6)
	if float64(streamDense)-float64(gzDense) < 1.2*x {
		t.Errorf("dense: the gzip file read allocated %d bytes, the stream read %d: want at least 1.2·|X| = %.0f fewer", gzDense, streamDense, 1.2*x)
	}
	if float64(streamDense)-float64(fileDense) < 1.2*x {
		t.Errorf("dense: the file read allocated %d bytes, the stream read %d: want at least 1.2·|X| = %.0f fewer", fileDense, streamDense, 1.2*x)
	}
	if float64(streamCSR)-float64(fileCSR) < 1.2*x {
		t.Errorf("CSR: the file read allocated %d bytes, the stream read %d: want at least 1.2·|X| = %.0f fewer", fileCSR, streamCSR, 1.2*x)
	}
}

// TestLIBSVMFileInPlaceBounds: with the shape counted first, a file whose
// X would pass ReadOptions.MaxBytes is refused before a value is read,
// with ErrMemory and the matrix named; a file that grows between the count
// and the read is refused with a *ParseError saying so, never read short
// or past its arrays.
func TestLIBSVMFileInPlaceBounds(t *testing.T) {
	ctx := context.Background()
	text := "1 1:1 100:2\n-1 50:3\n" // 2 × 100: 1,600 bytes dense, 3 entries
	path := writeTemp(t, "x.libsvm", text)
	_, err := ReadFile(path, ReadOptions{MaxBytes: 1000})
	if !errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), "dense 2×100 matrix") {
		t.Errorf("dense over MaxBytes: %v", err)
	}
	if _, err := ReadFile(path, ReadOptions{MaxBytes: 2000}); err != nil {
		t.Errorf("dense within MaxBytes: %v", err)
	}
	in, err := OpenInput(ctx, path, LIBSVM)
	if err != nil {
		t.Fatal(err)
	}
	// 12·3 + 16·2 = 68 bytes as CSR (as sparseRows.bytes counts them).
	if _, _, err := in.ReadSparseWith(ctx, ReadOptions{MaxBytes: 67}); !errors.Is(err, ErrMemory) || !strings.Contains(err.Error(), "needs 68 bytes") {
		t.Errorf("CSR over MaxBytes: %v", err)
	}
	in.Close()

	// A file larger than the reader's buffer (256 KiB), so that the rows
	// appended after the count are read from the file, not from bytes
	// buffered before.
	long := strings.Repeat("1 1:1 2:2\n", 40000)
	for _, grow := range []string{"1 2:1\n", "1 1:1 2:1 3:1\n"} {
		for _, sparse := range []bool{false, true} {
			if err := os.WriteFile(path, []byte(long), 0o644); err != nil {
				t.Fatal(err)
			}
			in, err := OpenInput(ctx, path, LIBSVM)
			if err != nil {
				t.Fatal(err)
			}
			if _, ok, err := in.Shape(ctx, ReadOptions{}); !ok || err != nil {
				t.Fatalf("Shape: %v, %v", ok, err)
			}
			// The file grows by a row after the count.
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(grow)
			f.Close()
			if sparse {
				_, _, err = in.ReadSparseWith(ctx, ReadOptions{})
			} else {
				_, err = in.Read(ctx, ReadOptions{})
			}
			in.Close()
			var pe *ParseError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), "changed while it was read") {
				t.Errorf("grown by %q (sparse %v): %v", grow, sparse, err)
			}
		}
	}
}

// FuzzLIBSVMInPlace reads arbitrary text from a plain file twice: counted
// first, its values going straight into X or the CSR arrays, and as a
// stream is read (the same open file marked a stream: chunks, copied at
// the end). Both fail or neither, with the same error unless one is a
// refusal for memory (the counted read refuses X before parsing, naming it
// alone); when both read, X, the CSR rows and the labels are the same, 1-
// and 0-based.
func FuzzLIBSVMInPlace(f *testing.F) {
	for _, s := range append(libsvmCases, "1 5:1 3:1\n", "1 1:1 3:1 2:1\n-1 1:2\n", "1 3:1:2\n", "1 2:1 qid:1 1:1\n", "1 0:1\n", "1 2:1 1:1\n", "1 1:nan\n", "x 1:1\n", "1 999999999:1\n", "1 1\n", "", "1 :1\n", "1 1::2\n", "1 qid:1\n") {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, b []byte, zero bool) {
		ctx := context.Background()
		opt := ReadOptions{Format: LIBSVM, MaxBytes: fuzzMaxBytes, ZeroBased: zero, AllowUnlabelled: true}
		path := writeTemp(t, "x.libsvm", string(b))
		read := func(stream, sparse bool) (*Dataset, *CSR, error) {
			in, err := OpenInput(ctx, path, LIBSVM)
			if err != nil {
				return nil, nil, err
			}
			defer in.Close()
			in.Stream = stream // a stream is not counted
			if sparse {
				x, y, err := in.ReadSparseWith(ctx, opt)
				return &Dataset{Y: y}, x, err
			}
			d, err := in.Read(ctx, opt)
			return d, nil, err
		}
		want, _, werr := read(true, false)
		got, _, gerr := read(false, false)
		sameErr := func(what string, gerr, werr error) {
			t.Helper()
			if (werr == nil) != (gerr == nil) || (werr != nil && !errors.Is(werr, ErrMemory) && !errors.Is(gerr, ErrMemory) && werr.Error() != gerr.Error()) {
				t.Fatalf("%s: counted read error %v, stream read error %v", what, gerr, werr)
			}
		}
		sameErr("dense", gerr, werr)
		if werr == nil {
			sameDataset(t, "dense", got, want)
		}
		wy, ws, werr := read(true, true)
		gy, gs, gerr := read(false, true)
		sameErr("sparse", gerr, werr)
		if werr == nil {
			r, c := ws.Dims()
			if gr, gc := gs.Dims(); gr != r || gc != c || !slices.Equal(gs.Indptr, ws.Indptr) || !slices.Equal(gs.Indices, ws.Indices) || !slices.Equal(gs.Values, ws.Values) || !slices.Equal(gy.Y, wy.Y) {
				t.Fatalf("sparse: counted %d×%d %v %v %v %v, stream %d×%d %v %v %v %v", gr, gc, gs.Indptr, gs.Indices, gs.Values, gy.Y, r, c, ws.Indptr, ws.Indices, ws.Values, wy.Y)
			}
		}
	})
}

// BenchmarkCountLIBSVM measures the first pass's speed (bytes a second)
// over a fully dense 100,000 × 28 file of %.6g values, the shape of
// docs/performance.md's "LIBSVM reads in place", held in memory.
func BenchmarkCountLIBSVM(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	var sb strings.Builder
	for range 100000 {
		sb.WriteString("1")
		for j := range 28 {
			fmt.Fprintf(&sb, " %d:%.6g", j+1, r.NormFloat64())
		}
		sb.WriteByte('\n')
	}
	text := sb.String()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := countLIBSVM(context.Background(), strings.NewReader(text), ReadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
