package datasets

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

const wineLike = `fixed acidity,pH,Quality
7.4, 3.51,5
# a comment line
7.8,3.2,6
`

func TestReadCSVTargetChoice(t *testing.T) {
	cases := []struct {
		target   string
		x        []float64
		y        []float64
		features []string
		name     string
	}{
		{"", []float64{7.4, 3.51, 7.8, 3.2}, []float64{5, 6}, []string{"fixed acidity", "pH"}, "Quality"},
		{"Quality", []float64{7.4, 3.51, 7.8, 3.2}, []float64{5, 6}, []string{"fixed acidity", "pH"}, "Quality"},
		{"quality", []float64{7.4, 3.51, 7.8, 3.2}, []float64{5, 6}, []string{"fixed acidity", "pH"}, "Quality"},
		{"pH", []float64{7.4, 5, 7.8, 6}, []float64{3.51, 3.2}, []string{"fixed acidity", "Quality"}, "pH"},
		{"0", []float64{3.51, 5, 3.2, 6}, []float64{7.4, 7.8}, []string{"pH", "Quality"}, "fixed acidity"},
		{"-2", []float64{7.4, 5, 7.8, 6}, []float64{3.51, 3.2}, []string{"fixed acidity", "Quality"}, "pH"},
	}
	for _, c := range cases {
		d, err := ReadCSV(strings.NewReader(wineLike), ReadOptions{Target: c.target})
		if err != nil {
			t.Fatalf("target %q: %v", c.target, err)
		}
		sameData(t, "target "+c.target, d, mat.NewDense(2, 2, c.x), c.y)
		if !slices.Equal(d.Features, c.features) || d.Target != c.name {
			t.Errorf("target %q: features %q target %q, want %q %q", c.target, d.Features, d.Target, c.features, c.name)
		}
	}
	for _, bad := range []string{"color", "3", "-4"} {
		_, err := ReadCSV(strings.NewReader(wineLike), ReadOptions{Target: bad})
		wantLine(t, err, 1, "")
	}
}

func TestReadCSVDelimiterAndHeader(t *testing.T) {
	// No header, semicolons (as the original UCI wine files).
	d, err := ReadCSV(strings.NewReader("1;2;3\n4;5;6\n"), ReadOptions{Comma: ';'})
	if err != nil {
		t.Fatal(err)
	}
	sameData(t, "semicolon", d, mat.NewDense(2, 2, []float64{1, 2, 4, 5}), []float64{3, 6})
	if d.Features != nil || d.Target != "" {
		t.Errorf("headerless file got names %q %q", d.Features, d.Target)
	}
	// A numeric header must be declared.
	d, err = ReadCSV(strings.NewReader("10,20,30\n4,5,6\n"), ReadOptions{Header: HeaderPresent})
	if err != nil {
		t.Fatal(err)
	}
	sameData(t, "numeric header", d, mat.NewDense(1, 2, []float64{4, 5}), []float64{6})
	// A header declared absent makes text on line 1 an error.
	_, err = ReadCSV(strings.NewReader("a,b\n1,2\n"), ReadOptions{Header: HeaderAbsent})
	wantLine(t, err, 1, `value "a" is not a number`)
	// .tsv files are tab-separated, and a byte-order mark is dropped.
	p := filepath.Join(t.TempDir(), "t.tsv")
	if err := WriteFile(p, &Dataset{X: mat.NewDense(1, 1, []float64{2}), Y: []float64{3}}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	d, err = ReadFile(p, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sameData(t, "tsv", d, mat.NewDense(1, 1, []float64{2}), []float64{3})
	d, err = ReadCSV(strings.NewReader("\ufeffa,b\n1,2\n"), ReadOptions{})
	if err != nil || d.Features[0] != "a" {
		t.Fatalf("BOM: %v %q", err, d.Features)
	}
}

func TestReadCSVMalformed(t *testing.T) {
	cases := []struct{ name, line, msg string }{
		{"ragged short", "1,2", "2 fields, the first record has 3"},
		{"ragged long", "1,2,3,4", "4 fields, the first record has 3"},
		{"text in a value", "1,abc,3", `column "b": value "abc" is not a number`},
		{"empty field", "1,,3", `column "b": value "" is empty`},
		{"NaN", "NaN,2,3", `column "a": value "NaN" is not finite`},
		{"Inf target", "1,2,+Inf", `column "y": value "+Inf" is not finite`},
		{"bare quote", `1,2"x,3`, `bare "`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadCSV(strings.NewReader("a,b,y\n0,0,0\n"+c.line+"\n0,0,0\n"), ReadOptions{})
			wantLine(t, err, 3, c.msg)
		})
	}
	_, err := ReadCSV(strings.NewReader("1\n2\n"), ReadOptions{})
	wantLine(t, err, 1, "want at least one feature and a target")
	// Progress counts every 65,536th row and the last one.
	var b strings.Builder
	for i := range 70000 {
		b.WriteString("1,")
		b.WriteString(strconv.Itoa(i))
		b.WriteString("\n")
	}
	var calls []int
	d, err := ReadCSV(strings.NewReader(b.String()), ReadOptions{Progress: func(r int) { calls = append(calls, r) }})
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 70000 || !slices.Equal(calls, []int{ProgressRows, 70000}) {
		t.Errorf("progress: %d rows, calls %v", d.Len(), calls)
	}
	_, err = ReadCSV(strings.NewReader("a,b\n"), ReadOptions{})
	if !errors.Is(err, ErrFormat) {
		t.Errorf("header only: err = %v, want ErrFormat", err)
	}
}

func TestCSVRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	d := randomSparse(rng, 100, 5)
	d.Features = []string{"a", "b,with comma", `c "quoted"`, "d", "e"}
	d.Target = "target"
	for _, comma := range []rune{0, ';', '\t'} {
		var buf bytes.Buffer
		if err := WriteCSV(&buf, d, comma); err != nil {
			t.Fatal(err)
		}
		got, err := ReadCSV(bytes.NewReader(buf.Bytes()), ReadOptions{Comma: comma})
		if err != nil {
			t.Fatal(err)
		}
		sameData(t, "csv round trip", got, d.X, d.Y)
		if !slices.Equal(got.Features, d.Features) || got.Target != d.Target {
			t.Errorf("names %q %q, want %q %q", got.Features, got.Target, d.Features, d.Target)
		}
	}
	// LIBSVM → CSV → LIBSVM through files keeps the numbers.
	dir := t.TempDir()
	small, err := ReadFile(filepath.Join("testdata", "small.libsvm"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(filepath.Join(dir, "s.csv.gz"), small, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	back, err := ReadFile(filepath.Join(dir, "s.csv.gz"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sameData(t, "libsvm→csv", back, smallX, smallY)
	if !slices.Equal(back.Features, []string{"x1", "x2", "x3"}) || back.Target != "y" {
		t.Errorf("default names %q %q", back.Features, back.Target)
	}
	// ReadTestFile insists on the training columns.
	train := &Dataset{X: mat.NewDense(1, 3, nil), Y: []float64{0}, Features: []string{"x1", "x2", "z"}}
	if _, err := ReadTestFile(filepath.Join(dir, "s.csv.gz"), train, ReadOptions{}); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), `"z"`) {
		t.Errorf("mismatched names: err = %v", err)
	}
	train.Features = nil
	train.X = mat.NewDense(1, 4, nil)
	if _, err := ReadTestFile(filepath.Join(dir, "s.csv.gz"), train, ReadOptions{}); !errors.Is(err, ErrInput) {
		t.Errorf("mismatched width: err = %v", err)
	}
	// An unnamed training set (a LIBSVM file) has the implied names
	// x1…xd: a header is matched to them by name, in any order, and other
	// names are refused as predict refuses them.
	train.X = mat.NewDense(1, 3, nil)
	rev := filepath.Join(dir, "rev.csv")
	for _, text := range []string{"x3,x1,x2,y\n3,1,2,9\n", "y,x3,x1,x2\n9,3,1,2\n"} {
		if err := os.WriteFile(rev, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		d, err = ReadTestFile(rev, train, ReadOptions{})
		if err != nil || !slices.Equal(d.X.RawMatrix().Data, []float64{1, 2, 3}) || !slices.Equal(d.Y, []float64{9}) {
			t.Errorf("%q for an unnamed training set: %v, %+v", text, err, d)
		}
	}
	other := filepath.Join(dir, "other.csv")
	if err := os.WriteFile(other, []byte("a,b,c,y\n1,2,3,9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadTestFile(other, train, ReadOptions{}); !errors.Is(err, ErrColumns) || !strings.Contains(err.Error(), `missing feature column(s) "x1", "x2", "x3"`) {
		t.Errorf("header a, b, c for an unnamed training set: %v", err)
	}
}

// TestReadCSVRepeatedHeaderName: a header naming one column twice is an
// error at line 1 (ErrColumns), not a dataset whose model then refuses the
// very file it was fitted on (predict matches columns by name). Before, the
// read succeeded with Features [a a].
func TestReadCSVRepeatedHeaderName(t *testing.T) {
	for _, text := range []string{"a,a,y\n1,2,1\n3,4,-1\n", "a, a ,y\n1,2,1\n3,4,-1\n", "a,b,a\n1,2,1\n"} {
		_, err := Read(strings.NewReader(text), ReadOptions{Format: CSV})
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != 1 || !errors.Is(err, ErrColumns) {
			t.Fatalf("%q: err %v, want a ParseError at line 1 wrapping ErrColumns", text, err)
		}
		if !strings.Contains(err.Error(), `column name "a" repeated`) {
			t.Errorf("%q: error %q does not name the column", text, err)
		}
	}
	d, err := Read(strings.NewReader("a,b,y\n1,2,1\n3,4,-1\n"), ReadOptions{Format: CSV})
	if err != nil {
		t.Fatal(err)
	}
	if r, c := d.X.Dims(); r != 2 || c != 2 || d.X.At(1, 1) != 4 || d.Y[1] != -1 {
		t.Fatalf("distinct names: X %d×%d, X[1,1] %g, y[1] %g; want 2×2, 4, -1", r, c, d.X.At(1, 1), d.Y[1])
	}
}
