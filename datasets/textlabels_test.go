package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCSVTextLabels: with TextLabels a text target column reads as
// classes, the names sorted by bytes (numpy's unique order: "setosa" <
// "versicolor" < "virginica") and Y their indices; numeric labels read as
// before (Classes nil). Before, "setosa" was an error.
func TestCSVTextLabels(t *testing.T) {
	const iris = "a,b,species\n1,2,setosa\n3,4,virginica\n5,6, setosa\n7,8,versicolor\n"
	d, err := Read(strings.NewReader(iris), ReadOptions{Format: CSV, TextLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"setosa", "versicolor", "virginica"}; !slices.Equal(d.Classes, want) {
		t.Errorf("classes %q, want %q", d.Classes, want)
	}
	if want := []float64{0, 2, 0, 1}; !slices.Equal(d.Y, want) {
		t.Errorf("Y %v, want %v", d.Y, want)
	}
	if s, err := d.Subset([]int{1, 3}); err != nil || !slices.Equal(s.Classes, d.Classes) || !slices.Equal(s.Y, []float64{2, 1}) {
		t.Errorf("subset: classes %q Y %v (err %v)", s.Classes, s.Y, err)
	}
	d, err = Read(strings.NewReader("1,2,1\n3,4,-1\n"), ReadOptions{Format: CSV, TextLabels: true})
	if err != nil || d.Classes != nil || !slices.Equal(d.Y, []float64{1, -1}) {
		t.Errorf("numeric labels: classes %q Y %v (err %v)", d.Classes, d.Y, err)
	}
}

// TestCSVTextLabelsRefused: without TextLabels (a regression target) a
// text label is an error naming its line and saying what reads it; with
// it, a column mixing numbers and text and an empty label are errors
// naming the line and, for a mix, the first label of the other kind; a
// missing-value mark (in a feature or the label) says whose it is.
func TestCSVTextLabelsRefused(t *testing.T) {
	for _, c := range []struct {
		text string
		opt  ReadOptions
		want string
	}{
		{"a,y\n1,B\n", ReadOptions{Format: CSV}, `datasets: line 2: column "y": value "B" is not a number (text labels are classes, for a classification task only: task binary, multiclass or auto; ReadOptions.TextLabels)`},
		{"a,y\n1,1\n2,M\n", ReadOptions{Format: CSV, TextLabels: true}, `datasets: line 3: column "y": value "M" is text, the labels above are numbers (line 2: 1): a label column holds numbers or text, not both`},
		{"a,y\n1,M\n2,NaN\n3,0\n", ReadOptions{Format: CSV, TextLabels: true}, `datasets: line 3: column "y": value "NaN" is a number, the labels above are text (line 2: "M"): a label column holds numbers or text, not both (pandas' read_csv reads it as a missing value (NaN), and R writes NA for one; missing values are not supported: drop or impute those rows first)`},
		{"a,y\n1,M\n2,\n", ReadOptions{Format: CSV, TextLabels: true}, `datasets: line 3: column "y": value "" is empty (missing values are not supported)`},
		{"a,y\n1,1\n", ReadOptions{Format: CSV, TextLabels: true, Classes: []string{"B", "M"}}, `datasets: line 2: column "y": value "1" is a number, the training labels are text ("B", "M")`},
		// Missing-value marks say so (pandas' read_csv defaults, UCI's ?).
		{"a,y\n1,NA\n2,0\n", ReadOptions{Format: CSV, TextLabels: true}, `datasets: line 3: column "y": value "0" is a number, the labels above are text (line 2: "NA"): a label column holds numbers or text, not both; as for "NA", pandas' read_csv reads it as a missing value (NaN), and R writes NA for one (missing values are not supported: drop or impute those rows first)`},
		{"a,y\n1,1\n2,?\n", ReadOptions{Format: CSV, TextLabels: true}, `datasets: line 3: column "y": value "?" is text, the labels above are numbers (line 2: 1): a label column holds numbers or text, not both (the UCI repository's files mark a missing value so; missing values are not supported: drop or impute those rows first)`},
		{"a,y\n null ,1\n", ReadOptions{Format: CSV}, `datasets: line 2: column "a": value "null " is not a number (pandas' read_csv reads it as a missing value (NaN), and R writes NA for one; missing values are not supported: drop or impute those rows first)`},
		{"a,y\n1,1\nnan,2\n", ReadOptions{Format: CSV}, `datasets: line 3: column "a": value "nan" is not finite (pandas' read_csv reads it as a missing value (NaN), and R writes NA for one; missing values are not supported: drop or impute those rows first)`},
		{"a,y\n1,1\nnone1,2\n", ReadOptions{Format: CSV}, `datasets: line 3: column "a": value "none1" is not a number`},
		{"1,2,\n3,4,\n", ReadOptions{Format: CSV, Header: HeaderAbsent}, `datasets: line 1: column 2: value "" is empty (missing values are not supported; lines ending with the delimiter, as some spreadsheet exporters write them, make an empty last column: drop that column or remove the trailing delimiters)`},
	} {
		_, err := Read(strings.NewReader(c.text), c.opt)
		if err == nil || err.Error() != c.want || !errors.Is(err, ErrInput) {
			t.Errorf("%q: err\n%v\nwant\n%s", c.text, err, c.want)
		}
	}
}

// TestCSVMissingClassWarned: a text label that marks a missing value in
// pandas ("NA", "None") or the UCI files ("?") is read as a class, since
// a class may be called so, with a warning naming it and its rows; other
// labels are read without one.
func TestCSVMissingClassWarned(t *testing.T) {
	var notes []string
	d, err := Read(strings.NewReader("a,y\n1,B\n2,NA\n3,?\n4,NA\n5,Nominal\n"), ReadOptions{Format: CSV, Header: HeaderPresent, TextLabels: true,
		Notify: func(s string) { notes = append(notes, s) }})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`warning: the label "?" of 1 row(s) is read as a class, but the UCI repository's files mark a missing value so: if those labels are missing, drop the rows`,
		`warning: the label "NA" of 2 row(s) is read as a class, but pandas' read_csv reads it as a missing value (NaN), and R writes NA for one: if those labels are missing, drop the rows`,
	}
	if !slices.Equal(d.Classes, []string{"?", "B", "NA", "Nominal"}) || !slices.Equal(notes, want) {
		t.Errorf("classes %q, notes\n%s\nwant\n%s", d.Classes, strings.Join(notes, "\n"), strings.Join(want, "\n"))
	}
}

// TestReadTestFileClasses: a test file is read with its training file's
// classes, B = 0 and M = 1 whatever the test file's own order, and labels
// the training file lacks (A, X) come after them, sorted: codes 2 and 3.
// A training file with numeric labels refuses a test file's text label.
func TestReadTestFileClasses(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"train.csv":  "a,diagnosis\n1,M\n2,B\n3,M\n",
		"test.csv":   "a,diagnosis\n1,M\n2,X\n3,B\n4,A\n5,M\n",
		"num.csv":    "a,diagnosis\n1,1\n2,0\n",
		"numtxt.csv": "a,diagnosis\n1,M\n",
	}
	for name, s := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	train, err := ReadFile(filepath.Join(dir, "train.csv"), ReadOptions{TextLabels: true})
	if err != nil || !slices.Equal(train.Classes, []string{"B", "M"}) || !slices.Equal(train.Y, []float64{1, 0, 1}) {
		t.Fatalf("train: classes %q Y %v (err %v)", train.Classes, train.Y, err)
	}
	test, err := ReadTestFile(filepath.Join(dir, "test.csv"), train, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"B", "M", "A", "X"}; !slices.Equal(test.Classes, want) {
		t.Errorf("test classes %q, want %q", test.Classes, want)
	}
	if want := []float64{1, 3, 0, 2, 1}; !slices.Equal(test.Y, want) {
		t.Errorf("test Y %v, want %v", test.Y, want)
	}
	num, err := ReadFile(filepath.Join(dir, "num.csv"), ReadOptions{TextLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ReadTestFile(filepath.Join(dir, "numtxt.csv"), num, ReadOptions{TextLabels: true})
	wantLine(t, err, 2, `value "M" is not a number`)
}

// TestWriteTextLabels: WriteCSV writes text labels as their names, so a
// text-labelled read written and read back has the same classes and
// labels (before, the class indices were written: "B"/"M" came back as
// 0/1); WriteLIBSVM, whose labels are numbers, refuses them, and writes the
// indices when Classes is cleared; a target that is no class index is an
// error.
func TestWriteTextLabels(t *testing.T) {
	const file = "a,diagnosis\n1,M\n2,B\n3,M\n"
	d, err := Read(strings.NewReader(file), ReadOptions{Format: CSV, TextLabels: true})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteCSV(&b, d, 0); err != nil {
		t.Fatal(err)
	}
	if b.String() != file {
		t.Errorf("WriteCSV wrote\n%s\nwant\n%s", b.String(), file)
	}
	back, err := Read(strings.NewReader(b.String()), ReadOptions{Format: CSV, TextLabels: true})
	if err != nil || !slices.Equal(back.Classes, d.Classes) || !slices.Equal(back.Y, d.Y) {
		t.Errorf("read back: classes %q Y %v (err %v), want %q %v", back.Classes, back.Y, err, d.Classes, d.Y)
	}
	b.Reset()
	if err := WriteLIBSVM(&b, d); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), `the labels are text ("B", "M") and a LIBSVM label is a number`) || b.Len() != 0 {
		t.Errorf("WriteLIBSVM of text labels: %v, wrote %q", err, b.String())
	}
	plain := *d
	plain.Classes = nil
	if err := WriteLIBSVM(&b, &plain); err != nil || b.String() != "1 1:1\n0 1:2\n1 1:3\n" {
		t.Errorf("WriteLIBSVM of the indices: %q (%v)", b.String(), err)
	}
	bad := *d
	bad.Y = []float64{1, 0, 2}
	if err := WriteCSV(&b, &bad, 0); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "row 2 has target 2, not the index of one of the 2 classes") {
		t.Errorf("WriteCSV of target 2 with 2 classes: %v", err)
	}
}
