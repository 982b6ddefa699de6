package datasets

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestDropFitted: a read with Drop records what it dropped (Dataset.Dropped:
// the file positions, ascending, the file's width, and the header names
// when there is a header), a Subset keeps the record, and DropFitted reads
// a file to predict the same way: by name when both files have a header
// (in any column order, and a name the file lacks dropping nothing), by
// position in a file of the training width, and an ErrInput error naming
// both widths in a file of another width (a file without its target, where
// the positions would be one off: the silent misread this replaces). A
// Drop given with DropFitted wins.
func TestDropFitted(t *testing.T) {
	const train = "idx,a,junk,b,y\n0,1,9,2,5\n1,3,9,4,6\n2,5,9,6,7\n"
	d, err := ReadCSV(strings.NewReader(train), ReadOptions{Drop: []string{"idx", "-3"}})
	if err != nil {
		t.Fatal(err)
	}
	want := &FittedDrop{Columns: []int{0, 2}, Width: 5, Names: []string{"idx", "junk"}}
	if !reflect.DeepEqual(d.Dropped, want) {
		t.Fatalf("Dropped = %+v, want %+v", d.Dropped, want)
	}
	sub, err := d.Subset([]int{2, 0})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sub.Dropped, want) {
		t.Errorf("Subset's Dropped = %+v, want %+v", sub.Dropped, want)
	}
	plain, err := ReadCSV(strings.NewReader(train), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Dropped != nil {
		t.Errorf("a read without Drop: Dropped = %+v, want nil", plain.Dropped)
	}
	headless := &FittedDrop{Columns: []int{0, 2}, Width: 5}
	// The rows [a b] read from each file, and its labels (nil: none).
	wantX := mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6})
	for _, c := range []struct {
		name, file string
		drop       []string
		fitted     *FittedDrop
		y          bool
		err        string
	}{
		{"header, same layout", train, nil, want, true, ""},
		{"header, columns reordered", "b,junk,y,a,idx\n2,9,5,1,0\n4,9,6,3,1\n6,9,7,5,2\n", nil, want, true, ""},
		{"header, no target", "idx,a,junk,b\n0,1,9,2\n1,3,9,4\n2,5,9,6\n", nil, want, false, ""},
		{"header, dropped columns absent", "a,b\n1,2\n3,4\n5,6\n", nil, want, false, ""},
		{"no header, training width", "0,1,9,2,5\n1,3,9,4,6\n2,5,9,6,7\n", nil, want, true, ""},
		{"no header, no target", "0,1,9,2\n1,3,9,4\n2,5,9,6\n", nil, want, false, "line 1: 4 columns, where the model's training file had 5 and dropped column(s) 0,2 of them"},
		{"header, training without one", "idx,a,junk,b,y\n0,1,9,2,5\n1,3,9,4,6\n2,5,9,6,7\n", nil, headless, true, ""},
		{"Drop given wins", "a,b,y,id\n1,2,5,0\n3,4,6,1\n5,6,7,2\n", []string{"3"}, want, true, ""},
	} {
		opt := ReadOptions{Drop: c.drop, DropFitted: c.fitted, AllowUnlabelled: true, Dim: 2}
		if strings.HasPrefix(c.file, "idx") || strings.HasPrefix(c.file, "b,") || strings.HasPrefix(c.file, "a,") {
			opt.Features, opt.Target = []string{"a", "b"}, "y"
		}
		got, err := ReadCSV(strings.NewReader(c.file), opt)
		if c.err != "" {
			if !errors.Is(err, ErrInput) || err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err %v, want ErrInput with %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !mat.Equal(got.X, wantX) {
			t.Errorf("%s: X = %v, want %v", c.name, mat.Formatted(got.X), mat.Formatted(wantX))
		}
		if (got.Y != nil) != c.y || (c.y && !reflect.DeepEqual(got.Y, []float64{5, 6, 7})) {
			t.Errorf("%s: Y = %v (labels expected: %v)", c.name, got.Y, c.y)
		}
	}
}
