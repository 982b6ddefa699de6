package datasets

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// pandasCSV is what pandas' DataFrame({"a": [1.5, 2.5, 3.5], "b": [4, 5,
// 6], "y": [0, 1, 0]}).to_csv() writes: the index, unnamed, first.
const pandasCSV = ",a,b,y\n0,1.5,4,0\n1,2.5,5,1\n2,3.5,6,0\n"

// TestCSVPandasIndexRefused: the unnamed index column of a pandas to_csv
// file, and its "Unnamed: 0" when read back and written again, are
// errors naming line 1, the column and --drop; before, the index was read
// as a feature without a word (X had 3 columns, the first 0, 1, 2).
func TestCSVPandasIndexRefused(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{pandasCSV, "datasets: line 1: header: column 0 has no name, as the index column pandas' to_csv writes (index=False leaves it out) and the row names of R's write.csv (row.names = FALSE leaves them out): drop it with --drop 0 (YAML drop: [0]; ReadOptions.Drop), or name it"},
		{"Unnamed: 0,a,b,y\n0,1.5,4,0\n", `datasets: line 1: header: column 0 is named "Unnamed: 0", pandas' name for an unnamed column (a to_csv index read back and written again): drop it with --drop 0 (YAML drop: [0]; ReadOptions.Drop), or name it`},
		{"a,,y\n1,2,3\n", "datasets: line 1: header: column 1 has no name: drop it with --drop 1 (YAML drop: [1]; ReadOptions.Drop), or name it"},
		// A trailing delimiter on every line: the empty last column says so.
		{"a,y,\n1,2,\n", "datasets: line 1: header: column 2 has no name: drop it with --drop 2 (YAML drop: [2]; ReadOptions.Drop), or name it; lines ending with the delimiter, as some spreadsheet exporters write them, make an empty last column: drop that column or remove the trailing delimiters"},
	} {
		_, err := Read(strings.NewReader(c.text), ReadOptions{Format: CSV})
		if err == nil || err.Error() != c.want || !errors.Is(err, ErrColumns) {
			t.Errorf("%q: err\n%v\nwant\n%s", c.text, err, c.want)
		}
	}
}

// TestCSVRowNamesShortHeader: R's write.table with row names writes a
// header one name short of the rows; the field-count error says so (on
// the first data row only: a row too long further down is another fault).
func TestCSVRowNamesShortHeader(t *testing.T) {
	const hint = "a header one name short of the rows is what R's write.table writes with row names: write the file with row.names = FALSE, or name the first column"
	_, err := Read(strings.NewReader("a,b,y\n1,1.5,2,3\n"), ReadOptions{Format: CSV})
	if !errors.Is(err, ErrInput) || err.Error() != "datasets: line 2: 4 fields, the first record has 3; "+hint {
		t.Errorf("short header: %v", err)
	}
	_, err = Read(strings.NewReader("a,b,y\n1,2,3\n1,2,3,4\n"), ReadOptions{Format: CSV})
	if !errors.Is(err, ErrInput) || err.Error() != "datasets: line 3: 4 fields, the first record has 3" {
		t.Errorf("a long row further down: %v", err)
	}
}

// TestCSVDrop: Drop by index (from the start or the end) or by name
// leaves the pandas index out; X is the two real features and Y the
// labels, a Target index counts the kept columns, and a bad Drop is an
// error naming it.
func TestCSVDrop(t *testing.T) {
	x := mat.NewDense(3, 2, []float64{1.5, 4, 2.5, 5, 3.5, 6})
	y := []float64{0, 1, 0}
	for _, drop := range [][]string{{"0"}, {"-4"}, {""}} {
		d, err := Read(strings.NewReader(pandasCSV), ReadOptions{Format: CSV, Drop: drop})
		if err != nil {
			t.Fatalf("drop %q: %v", drop, err)
		}
		sameData(t, "drop "+strings.Join(drop, ","), d, x, y)
		if !slices.Equal(d.Features, []string{"a", "b"}) || d.Target != "y" {
			t.Errorf("drop %q: features %q target %q", drop, d.Features, d.Target)
		}
	}
	// The target by index after the drop: column 0 of the kept a, b, y.
	d, err := Read(strings.NewReader(pandasCSV), ReadOptions{Format: CSV, Drop: []string{"0"}, Target: "0"})
	if err != nil {
		t.Fatal(err)
	}
	sameData(t, "target 0", d, mat.NewDense(3, 2, []float64{4, 0, 5, 1, 6, 0}), []float64{1.5, 2.5, 3.5})
	// Without a header, by index; a bad value names the column by its
	// file index.
	d, err = Read(strings.NewReader("0,7,1\n1,8,2\n"), ReadOptions{Format: CSV, Drop: []string{"0"}})
	if err != nil {
		t.Fatal(err)
	}
	sameData(t, "headerless", d, mat.NewDense(2, 1, []float64{7, 8}), []float64{1, 2})
	_, err = Read(strings.NewReader("0,7,1\n1,x,2\n"), ReadOptions{Format: CSV, Drop: []string{"0"}})
	wantLine(t, err, 2, `column 1: value "x"`)
	for _, c := range []struct {
		text string
		drop string
		want string
	}{
		{pandasCSV, "c", `datasets: line 1: drop "c": no column of that name (the header: , a, b, y)`},
		{pandasCSV, "4", "datasets: line 1: drop 4: out of range for 4 columns"},
		{"0,7,1\n", "id", `datasets: line 1: drop "id": no header to look the name up in (give a 0-based index)`},
	} {
		_, err := Read(strings.NewReader(c.text), ReadOptions{Format: CSV, Drop: []string{c.drop}})
		if err == nil || err.Error() != c.want || !errors.Is(err, ErrInput) {
			t.Errorf("drop %q: err\n%v\nwant\n%s", c.drop, err, c.want)
		}
	}
	_, err = Read(strings.NewReader("1 1:2\n"), ReadOptions{Format: LIBSVM, Drop: []string{"0"}})
	if want := "datasets: invalid input: dropping columns (0) describes CSV files, not libsvm"; err == nil || err.Error() != want {
		t.Errorf("libsvm: err %v, want %s", err, want)
	}
}

// TestCSVRowNumbersWarned: a first column holding exactly 0, 1, …, n−1
// (pandas' index written with header=False, or named) is read, but Notify
// hears a warning naming it and --drop; 0, 2, 3 and a two-row file are
// not warned about.
func TestCSVRowNumbersWarned(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"0,1.5,0\n1,2.5,1\n2,3.5,0\n", "warning: column 0 holds the row numbers 0, 1, …, 2 and is read as a feature: if it is a row index (pandas' to_csv writes one first), drop it with --drop 0 (YAML drop: [0])"},
		{"id,a,y\n0,1.5,0\n1,2.5,1\n2,3.5,0\n", `warning: column 0 ("id") holds the row numbers 0, 1, …, 2 and is read as a feature: if it is a row index (pandas' to_csv writes one first), drop it with --drop 0 (YAML drop: [0])`},
		{"0,1.5,0\n2,2.5,1\n3,3.5,0\n", ""},
		{"0,1.5,0\n1,2.5,1\n", ""},
	} {
		var warned []string
		d, err := Read(strings.NewReader(c.text), ReadOptions{Format: CSV, Notify: func(s string) {
			if strings.HasPrefix(s, "warning") {
				warned = append(warned, s)
			}
		}})
		if err != nil || d.Dim() != 2 {
			t.Fatalf("%q: %v", c.text, err)
		}
		if got := strings.Join(warned, "\n"); got != c.want {
			t.Errorf("%q: warned\n%s\nwant\n%s", c.text, got, c.want)
		}
	}
}
