package datasets

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// small is testdata/small.libsvm written out by hand: comments, a blank line,
// qid, an explicit zero, a CRLF line ending and a missing feature.
var (
	smallX = mat.NewDense(3, 3, []float64{
		0.5, 0, -2,
		0, 1e-3, 0,
		4, 5, 6,
	})
	smallY = []float64{1, -1, 2}
)

func sameData(t *testing.T, what string, d *Dataset, x *mat.Dense, y []float64) {
	t.Helper()
	if !mat.Equal(d.X, x) {
		t.Fatalf("%s: X =\n%v\nwant\n%v", what, mat.Formatted(d.X), mat.Formatted(x))
	}
	if len(d.Y) != len(y) {
		t.Fatalf("%s: %d labels, want %d", what, len(d.Y), len(y))
	}
	for i := range y {
		if d.Y[i] != y[i] {
			t.Fatalf("%s: Y[%d] = %v, want %v", what, i, d.Y[i], y[i])
		}
	}
}

func TestReadLIBSVMSmallFiles(t *testing.T) {
	// The plain, gzip and bzip2 files (made with gzip -9n and bzip2 -9) hold the same text.
	for _, name := range []string{"small.libsvm", "small.libsvm.gz", "small.libsvm.bz2"} {
		d, err := ReadFile(filepath.Join("testdata", name), ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		sameData(t, name, d, smallX, smallY)
		if d.Name != name {
			t.Errorf("Name = %q, want %q", d.Name, name)
		}
	}
	// ReadLIBSVMFile is the same reader.
	d, err := ReadLIBSVMFile(filepath.Join("testdata", "small.libsvm.gz"))
	if err != nil {
		t.Fatal(err)
	}
	sameData(t, "ReadLIBSVMFile", d, smallX, smallY)
}

func TestReadLIBSVMFixedDim(t *testing.T) {
	// A test file whose largest index (2) is below the training dimension (4).
	d, err := ReadLIBSVM(strings.NewReader("1 1:1\n0 2:3\n"), 4)
	if err != nil {
		t.Fatal(err)
	}
	sameData(t, "dim 4", d, mat.NewDense(2, 4, []float64{1, 0, 0, 0, 0, 3, 0, 0}), []float64{1, 0})
	// An index above the fixed dimension is an error on its line.
	_, err = ReadLIBSVM(strings.NewReader("1 1:1\n0 5:3\n"), 4)
	wantLine(t, err, 2, "exceeds the dimension 4")
	// ReadTestFile takes the dimension from the training set.
	train := &Dataset{X: mat.NewDense(1, 5, nil), Y: []float64{1}}
	test, err := ReadTestFile(filepath.Join("testdata", "small.libsvm"), train, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if test.Dim() != 5 {
		t.Fatalf("test file read with %d columns, want the training set's 5", test.Dim())
	}
	train.X = mat.NewDense(1, 2, nil)
	_, err = ReadTestFile(filepath.Join("testdata", "small.libsvm"), train, ReadOptions{})
	wantLine(t, err, 2, "exceeds the dimension 2")
}

// wantLine checks that err is a *ParseError for the given line whose message
// contains msg, that it wraps ErrFormat and ErrInput, and that the text says
// "line N".
func wantLine(t *testing.T, err error, line int, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one on line %d (%s)", line, msg)
	}
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %q (%T) is not a *ParseError", err, err)
	}
	if pe.Line != line {
		t.Errorf("error %q: line %d, want %d", err, pe.Line, line)
	}
	if !strings.Contains(err.Error(), "line "+strconv.Itoa(line)+":") || !strings.Contains(err.Error(), msg) {
		t.Errorf("error %q does not say line %d and %q", err, line, msg)
	}
	if !errors.Is(err, ErrFormat) || !errors.Is(err, ErrInput) {
		t.Errorf("error %q does not wrap ErrFormat and ErrInput", err)
	}
}

func TestReadLIBSVMMalformed(t *testing.T) {
	good := "1 1:1 2:2\n# comment\n"
	cases := []struct {
		name, line, msg string
	}{
		{"ragged index (no colon)", "1 1:1 3", `"3" is not index:value`},
		{"empty index", "1 :4", `bad feature index ""`},
		{"text index", "1 a:4", `bad feature index "a"`},
		{"zero index (0-based file)", "1 0:4 1:2", `bad feature index "0"`},
		{"negative index", "1 -2:4", `bad feature index "-2"`},
		{"descending indices", "1 3:1 2:1", "feature index 2 after 3: indices must ascend"},
		{"repeated index", "1 2:1 2:1", "feature index 2 repeated"},
		{"text in a value", "1 1:abc", `feature 1: value "abc" is not a number`},
		{"double colon", "1 1:2:3", `feature 1: value "2:3" is not a number`},
		{"empty value", "1 1:", `feature 1: value "" is not a number`},
		{"NaN value", "1 1:NaN", `feature 1: value "NaN" is not finite`},
		{"Inf value", "1 2:-Inf", `feature 2: value "-Inf" is not finite`},
		{"overflowing value", "1 1:1e400", `feature 1: value "1e400" is out of range`},
		{"text label", "yes 1:1", `label "yes" is not a number`},
		{"multi-label", "1,2 1:1", `label "1,2" is not a number (labels separated by commas are a multi-label file: fit one label a row, e.g. one model per label)`},
		{"NaN label", "nan 1:1", `label "nan" is not finite`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// The bad line is line 3, after a good line and a comment.
			_, err := ReadLIBSVM(strings.NewReader(good+c.line+"\n1 1:1\n"), 0)
			wantLine(t, err, 3, c.msg)
		})
	}
}

func TestReadFileErrorNamesFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "bad.libsvm")
	if err := os.WriteFile(p, []byte("1 1:1\n1 2:1 1:3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(p, ReadOptions{})
	wantLine(t, err, 2, "indices must ascend")
	if !strings.HasPrefix(err.Error(), "datasets: "+p+": line 2: ") {
		t.Errorf("error %q does not start with the file name and line", err)
	}
}

func TestReadLIBSVMEmptyAndLimits(t *testing.T) {
	for _, in := range []string{"", "# only a comment\n\n"} {
		if _, err := ReadLIBSVM(strings.NewReader(in), 0); !errors.Is(err, ErrFormat) {
			t.Errorf("%q: err = %v, want ErrFormat", in, err)
		}
	}
	// Labels without any feature need an explicit dimension.
	if _, err := ReadLIBSVM(strings.NewReader("1\n2\n"), 0); !errors.Is(err, ErrFormat) {
		t.Errorf("no features: err = %v, want ErrFormat", err)
	}
	d, err := ReadLIBSVM(strings.NewReader("1\n2\n"), 3)
	if err != nil {
		t.Fatal(err)
	}
	sameData(t, "labels only", d, mat.NewDense(2, 3, nil), []float64{1, 2})
	// MaxRows stops early.
	d, err = Read(strings.NewReader("1 1:1\n2 1:2\n3 1:3\n"), ReadOptions{MaxRows: 2})
	if err != nil {
		t.Fatal(err)
	}
	sameData(t, "MaxRows", d, mat.NewDense(2, 1, []float64{1, 2}), []float64{1, 2})
	// A sparse index that would make a huge dense matrix is refused before allocating it.
	// (2 rows × 999,999,999 columns × 8 bytes = 16 GB > the default 8 GiB;
	// 1 × 200,000 × 8 = 1.6 MB > a 1 MiB budget.)
	_, err = ReadLIBSVM(strings.NewReader("1 999999999:1\n2 1:1\n"), 0)
	if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "a dense 2×999999999 matrix needs 15999999984 bytes (14.9 GiB), the limit is 8589934592 bytes (8.0 GiB) (ReadOptions.MaxBytes)") {
		t.Errorf("huge dimension: err = %v, want a memory-limit error", err)
	}
	_, err = Read(strings.NewReader("1 200000:1\n"), ReadOptions{MaxBytes: 1 << 20})
	// With MaxBytes the sparse rows read count too (12 bytes a non-zero, 16 a row: 28).
	if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "a dense 1×200000 matrix beside the rows parsed (28 B), which are copied into it needs 1600028 bytes (1.5 MiB), the limit is 1048576 bytes (1.0 MiB)") {
		t.Errorf("over MaxBytes: err = %v, want a memory-limit error", err)
	}
}

// randomSparse returns an n×d dataset with about half its entries zero and
// values spread over many magnitudes, plus awkward decimals.
func randomSparse(rng *rand.Rand, n, d int) *Dataset {
	x := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	special := []float64{1.0 / 3, 0.1, -1e-300, 1e300, math.SmallestNonzeroFloat64, -math.MaxFloat64, 5e-324, 123456789.123456789}
	for i := range n {
		y[i] = math.Round(rng.NormFloat64() * 3)
		for j := range d {
			switch rng.IntN(4) {
			case 0, 1:
			case 2:
				x.Set(i, j, rng.NormFloat64()*math.Pow(10, float64(rng.IntN(40)-20)))
			default:
				x.Set(i, j, special[rng.IntN(len(special))])
			}
		}
	}
	return &Dataset{X: x, Y: y}
}

func TestLIBSVMRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	d := randomSparse(rng, 200, 17)
	// Make the last column all zero: the writer omits it, so the reader needs
	// the dimension to get it back.
	for i := range d.Len() {
		d.X.Set(i, 16, 0)
	}
	var buf bytes.Buffer
	if err := WriteLIBSVM(&buf, d); err != nil {
		t.Fatal(err)
	}
	got, err := ReadLIBSVM(bytes.NewReader(buf.Bytes()), 17)
	if err != nil {
		t.Fatal(err)
	}
	sameData(t, "round trip", got, d.X, d.Y)
	// Through files, compressed and not.
	dir := t.TempDir()
	for _, name := range []string{"rt.libsvm", "rt.svm.gz"} {
		p := filepath.Join(dir, name)
		if err := WriteFile(p, d, WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFile(p, ReadOptions{Dim: 17})
		if err != nil {
			t.Fatal(err)
		}
		sameData(t, name, got, d.X, d.Y)
	}
	// Writing refuses invalid data and bzip2.
	bad := &Dataset{X: mat.NewDense(1, 1, []float64{math.NaN()}), Y: []float64{1}}
	if err := WriteLIBSVM(&buf, bad); !errors.Is(err, ErrInput) {
		t.Errorf("NaN data: err = %v, want ErrInput", err)
	}
	if err := WriteFile(filepath.Join(dir, "x.libsvm.bz2"), d, WriteOptions{}); !errors.Is(err, ErrInput) {
		t.Errorf("bz2: err = %v, want ErrInput", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%d files in the output folder, want the 2 written (no temporaries left)", len(entries))
	}
}

// TestDetectFormat: the name decides when it can (even for a file that does
// not exist yet); otherwise the content does, through gzip; content that
// fits neither format, and a missing file, are errors naming the path.
func TestDetectFormat(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("# header\n+1 3:0.5 7:1\n"))
	zw.Close()
	for _, tc := range []struct {
		path string
		want Format
	}{
		{filepath.Join(dir, "absent.csv"), CSV},
		{write("a9a", []byte("-1 1:1 5:1\n")), LIBSVM},
		{write("news20.binary.gz", gz.Bytes()), LIBSVM},
		{write("table", []byte("x,y\n1,2\n")), CSV},
		// .txt decides nothing: LIBSVM files and CSV exports both use it.
		{write("export.txt", []byte("x,y\n1,2\n")), CSV},
		{write("tabs.txt", []byte("x\ty\n1\t2\n")), CSV},
		{write("scaled.txt", []byte("+1 1:0.5\n")), LIBSVM},
	} {
		got, err := DetectFormat(tc.path)
		if err != nil || got != tc.want {
			t.Errorf("DetectFormat(%s) = %q, %v; want %q", filepath.Base(tc.path), got, err, tc.want)
		}
	}
	// A .txt file is read as its content says: x = 1, y = 2 from the CSV.
	d, err := ReadFile(filepath.Join(dir, "export.txt"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sameData(t, "export.txt", d, mat.NewDense(1, 1, []float64{1}), []float64{2})
	for _, p := range []string{write("odd", []byte("1 2 3\n")), write("odd.txt", []byte("1 2 3\n")), filepath.Join(dir, "missing")} {
		if _, err := DetectFormat(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("DetectFormat(%s): err = %v, want an error naming the file", filepath.Base(p), err)
		}
	}
}

func TestFormatDetection(t *testing.T) {
	for name, want := range map[string]Format{
		"a.libsvm": LIBSVM, "a.SVM.gz": LIBSVM, "ijcnn1.t": LIBSVM, "a.txt.bz2": LIBSVM, // written as LIBSVM; read by content

		"b.csv": CSV, "b.tsv.gz": CSV, "noext": Auto,
	} {
		if got, _ := FormatOf(name); got != want {
			t.Errorf("FormatOf(%q) = %q, want %q", name, got, want)
		}
	}
	// Without a telling extension the content decides.
	d, err := Read(strings.NewReader("# c\n1 2:3\n"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sameData(t, "sniffed libsvm", d, mat.NewDense(1, 2, []float64{0, 3}), []float64{1})
	d, err = Read(strings.NewReader("a,b\n1,2\n"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sameData(t, "sniffed csv", d, mat.NewDense(1, 1, []float64{1}), []float64{2})
	if _, err := Read(strings.NewReader("1 2 3\n"), ReadOptions{}); !errors.Is(err, ErrFormat) {
		t.Errorf("undecidable content: err = %v, want ErrFormat", err)
	}
	if _, err := Read(strings.NewReader("1 2:3\n"), ReadOptions{Format: "arff"}); !errors.Is(err, ErrInput) {
		t.Errorf("unknown format: err = %v, want ErrInput", err)
	}
}

func TestReadFileContextCancelled(t *testing.T) {
	// 10,000 lines: the reader checks the context every 4,096 lines.
	var buf bytes.Buffer
	for i := range 10000 {
		buf.WriteString(strconv.Itoa(i%2) + " 1:1\n")
	}
	p := filepath.Join(t.TempDir(), "big.libsvm")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ReadFileContext(ctx, p, ReadOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled read: err = %v, want context.Canceled", err)
	}
	var calls []int
	d, err := ReadFileContext(context.Background(), p, ReadOptions{Progress: func(rows int) { calls = append(calls, rows) }})
	if err != nil || d.Len() != 10000 {
		t.Fatalf("uncancelled read: %v", err)
	}
	// 10,000 rows < ProgressRows: one call, at the end.
	if len(calls) != 1 || calls[0] != 10000 {
		t.Errorf("progress calls %v, want [10000]", calls)
	}
}

// TestReadLIBSVMZeroBasedHint: index 0 is refused at its line (LIBSVM's
// indices start at 1; no silent shift) and the error says the file looks
// 0-based, as scikit-learn's dump_svmlight_file writes by default; other bad
// indices do not get that hint.
func TestReadLIBSVMZeroBasedHint(t *testing.T) {
	_, err := Read(strings.NewReader("1 1:0.5\n-1 0:1 2:3\n"), ReadOptions{Format: LIBSVM})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 2 || !strings.Contains(err.Error(), "0-based file") || !strings.Contains(err.Error(), "zero_based=False") || !strings.Contains(err.Error(), "read it with --zero-based") {
		t.Fatalf("index 0: err %v, want a ParseError at line 2 saying the file looks 0-based", err)
	}
	_, err = Read(strings.NewReader("1 x:0.5\n"), ReadOptions{Format: LIBSVM})
	if err == nil || strings.Contains(err.Error(), "0-based") {
		t.Fatalf("index x: err %v, want an error without the 0-based hint", err)
	}
}
