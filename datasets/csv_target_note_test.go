package datasets

import (
	"slices"
	"strings"
	"testing"
)

// TestCSVTargetNote: with the header guessed and no target named, the
// header note also says which column is the target (the last), with the
// flag for another and, when another column is named as targets often
// are, that one as the example; a named target, or a test read matched to
// feature names, adds nothing. Before, a file whose label came first was
// fitted on its last feature with nothing said.
func TestCSVTargetNote(t *testing.T) {
	const header = "line 1 read as the header: no field is a number (--header no to read it as data)"
	for _, c := range []struct {
		text, target string
		want         string
	}{
		{"label,a,b\n1,2,3\n", "", header + `; the target is its last column, "b" (--target NAME for another, as --target label)`},
		{"a,Class,y\n1,2,3\n", "", header + `; the target is its last column, "y" (--target NAME for another, as --target Class)`},
		{"a,b,c\n1,2,3\n", "", header + `; the target is its last column, "c" (--target NAME for another)`},
		{"1,2,3\n4,5,6\n", "", "line 1 read as data: every field is a number, so the file has no header (--header yes if it has one); the target is its last column, 2 counting from 0 (--target INDEX for another)"},
		{"label,a,b\n1,2,3\n", "label", header},
		{"1,2,3\n4,5,6\n", "0", "line 1 read as data: every field is a number, so the file has no header (--header yes if it has one)"},
	} {
		var notes []string
		_, err := Read(strings.NewReader(c.text), ReadOptions{Format: CSV, Target: c.target, Notify: func(s string) { notes = append(notes, s) }})
		if err != nil || !slices.Equal(notes, []string{c.want}) {
			t.Errorf("%q target %q: err %v, notes\n%q\nwant\n%q", c.text, c.target, err, notes, c.want)
		}
	}
	var notes []string
	_, err := Read(strings.NewReader("b,a\n1,2\n"), ReadOptions{Format: CSV, Features: []string{"a", "b"}, AllowUnlabelled: true, Notify: func(s string) { notes = append(notes, s) }})
	if want := []string{header}; err != nil || !slices.Equal(notes, want) {
		t.Errorf("matched to feature names: err %v, notes %q, want %q", err, notes, want)
	}
}

// TestCSVDelimHint: a first line read as one field because the file is
// split by ';', tabs or '|' names the --delim to give; other one-field
// lines keep the plain message. Before, only "(is the delimiter ','
// right?)" was said.
func TestCSVDelimHint(t *testing.T) {
	const plain = "datasets: line 1: invalid input: 1 field(s): want at least one feature and a target (is the delimiter ',' right?)"
	for _, c := range []struct{ text, want string }{
		{"a;b;y\n1;2;3\n", plain + "; the line holds ';': give --delim ';'"},
		{"1;2;3\n", plain + "; the line holds ';': give --delim ';'"},
		{"a\tb\ty\n1\t2\t3\n", plain + "; the line holds tabs: give --delim tab"},
		{"a|b|y\n1|2|3\n", plain + "; the line holds '|': give --delim '|'"},
		{"y\n1\n", plain},
	} {
		_, err := Read(strings.NewReader(c.text), ReadOptions{Format: CSV})
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: err\n%v\nwant\n%s", c.text, err, c.want)
		}
	}
}
