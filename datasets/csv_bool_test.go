package datasets

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestCSVBoolColumns: a feature column of True/False (pandas writes its
// bool columns so, get_dummies' among them since pandas 2.0) is read as
// 1/0, as scikit-learn takes such a column, in any case and beside
// numbers, into float64 or float32, and Notify names the columns once.
// Other text in a feature, and True in a regression target, stay errors.
func TestCSVBoolColumns(t *testing.T) {
	const file = "a,red,blue,y\n1.5,True,False,3\n2.5,false,TRUE,4\n3.5,1,0,5\n"
	want := mat.NewDense(3, 3, []float64{1.5, 1, 0, 2.5, 0, 1, 3.5, 1, 0})
	for _, f32 := range []bool{false, true} {
		var notes []string
		d, err := Read(strings.NewReader(file), ReadOptions{Format: CSV, Float32: f32, Notify: func(s string) { notes = append(notes, s) }})
		if err != nil {
			t.Fatal(err)
		}
		x := d.X
		if f32 {
			x = mat.DenseCopyOf(d.X32)
		}
		if !mat.Equal(x, want) || !slices.Equal(d.Y, []float64{3, 4, 5}) {
			t.Errorf("float32 %v: X %v, y %v", f32, mat.Formatted(x), d.Y)
		}
		note := `column(s) "red", "blue": True and False read as 1 and 0 (bool columns, as pandas writes them)`
		if !slices.Contains(notes, note) {
			t.Errorf("float32 %v: notes %q, want %q", f32, notes, note)
		}
	}
	var notes []string
	if _, err := Read(strings.NewReader("1,2\n3,4\n"), ReadOptions{Format: CSV, Notify: func(s string) { notes = append(notes, s) }}); err != nil || slices.ContainsFunc(notes, func(s string) bool { return strings.Contains(s, "True") }) {
		t.Errorf("numbers only: notes %q (%v)", notes, err)
	}
	for _, c := range []struct{ text, want string }{
		{"a,y\nyes,1\n", `line 2: column "a": value "yes" is not a number`},
		{"a,y\n1,True\n", `line 2: column "y": value "True" is not a number (text labels are classes`},
	} {
		if _, err := Read(strings.NewReader(c.text), ReadOptions{Format: CSV}); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want ErrInput with %q", c.text, err, c.want)
		}
	}
}
