package datasets

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestCSVLayout: a CSV read records how it took the file's columns
// (Dataset.Layout: the width, the target's file column, whether there was
// a header, the columns Drop left out and their names), a Subset keeps it,
// and ReadOptions.Layout reads a file to predict the same way: dropped
// columns by name when both files have a header (in any column order; a
// name the file lacks drops nothing), else by position in a file of the
// training width, and without a header the target at its training
// position (a label-first file, which by position alone read the label as
// a feature and the last feature as the target). One column narrower is
// the rows without their target when nothing was dropped (the columns
// after it move left), and an ErrInput error naming both widths when
// columns were (it could lack a dropped column instead); a file of the
// features' width is the features alone; any other width is an error;
// Drop given, or Target given as an index, wins; a layout of nothing
// dropped and the target last changes nothing.
func TestCSVLayout(t *testing.T) {
	const train = "idx,a,junk,b,y\n0,1,9,2,5\n1,3,9,4,6\n2,5,9,6,7\n"
	d, err := ReadCSV(strings.NewReader(train), ReadOptions{Drop: []string{"idx", "-3"}})
	if err != nil {
		t.Fatal(err)
	}
	named := &Layout{Width: 5, Target: 4, Header: true, Dropped: []int{0, 2}, Names: []string{"idx", "junk"}}
	if !reflect.DeepEqual(d.Layout, named) {
		t.Fatalf("Layout = %+v, want %+v", d.Layout, named)
	}
	sub, err := d.Subset([]int{2, 0})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(sub.Layout, named) {
		t.Errorf("Subset's Layout = %+v, want %+v", sub.Layout, named)
	}
	plain, err := ReadCSV(strings.NewReader(train), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := (&Layout{Width: 5, Target: 4, Header: true}); !reflect.DeepEqual(plain.Layout, want) {
		t.Errorf("a read without Drop: Layout = %+v, want %+v", plain.Layout, want)
	}
	first, err := ReadCSV(strings.NewReader("5,1,2\n6,3,4\n7,5,6\n"), ReadOptions{Target: "0", Header: HeaderAbsent})
	if err != nil {
		t.Fatal(err)
	}
	labelFirst := &Layout{Width: 3, Target: 0}
	if !reflect.DeepEqual(first.Layout, labelFirst) {
		t.Fatalf("label-first Layout = %+v, want %+v", first.Layout, labelFirst)
	}
	positional := &Layout{Width: 5, Target: 4, Dropped: []int{0, 2}}
	last := &Layout{Width: 3, Target: 2}
	// The rows [a b] of each file, and their labels when it has them.
	wantX := mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6})
	for _, c := range []struct {
		name, file     string
		drop           []string
		target         string
		layout         *Layout
		labelled, byNm bool
		err            string
	}{
		{"header, same columns", train, nil, "", named, true, true, ""},
		{"header, columns reordered", "b,junk,y,a,idx\n2,9,5,1,0\n4,9,6,3,1\n6,9,7,5,2\n", nil, "", named, true, true, ""},
		{"header, no target", "idx,a,junk,b\n0,1,9,2\n1,3,9,4\n2,5,9,6\n", nil, "", named, false, true, ""},
		{"header, dropped columns absent", "a,b\n1,2\n3,4\n5,6\n", nil, "", named, false, true, ""},
		{"no header, training width", "0,1,9,2,5\n1,3,9,4,6\n2,5,9,6,7\n", nil, "", named, true, false, ""},
		{"no header, no target", "0,1,9,2\n1,3,9,4\n2,5,9,6\n", nil, "", named, false, false, "line 1: 4 columns, where the model's training file had 5 (the target in column 4, column(s) 0, 2 dropped) and 2 features: give this file's --drop and --target (narrower, it may lack its target or a dropped column)"},
		{"no header, no target, Drop given", "0,1,9,2\n1,3,9,4\n2,5,9,6\n", []string{"0", "2"}, "", named, false, false, ""},
		{"no header, another width", "1,9,2\n3,9,4\n5,9,6\n", nil, "", named, false, false, "line 1: 3 columns, where the model's training file had 5 (the target in column 4, column(s) 0, 2 dropped) and 2 features"},
		{"no header, the features alone", "1,2\n3,4\n5,6\n", nil, "", named, false, false, ""},
		{"header on predict only", train, nil, "", positional, true, true, ""},
		{"Drop given wins", "a,b,y,id\n1,2,5,0\n3,4,6,1\n5,6,7,2\n", []string{"3"}, "", named, true, true, ""},
		{"label first", "5,1,2\n6,3,4\n7,5,6\n", nil, "", labelFirst, true, false, ""},
		{"label first, no label", "1,2\n3,4\n5,6\n", nil, "", labelFirst, false, false, ""},
		{"label first, another width", "5,1,2,0\n6,3,4,0\n7,5,6,0\n", nil, "", labelFirst, false, false, "line 1: 4 columns, where the model's training file had 3 (the target in column 0) and 2 features"},
		{"Target index given wins", "1,2,5\n3,4,6\n5,6,7\n", nil, "2", labelFirst, true, false, ""},
		{"target last: any width as before", "1,2\n3,4\n5,6\n", nil, "", last, false, false, ""},
	} {
		opt := ReadOptions{Drop: c.drop, Target: c.target, Layout: c.layout, AllowUnlabelled: true, Dim: 2}
		if c.byNm {
			opt.Features = []string{"a", "b"}
			if c.target == "" {
				opt.Target = "y"
			}
		} else {
			opt.Header = HeaderAbsent
		}
		got, err := ReadCSV(strings.NewReader(c.file), opt)
		if c.err != "" {
			if !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), c.err) {
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
		if (got.Y != nil) != c.labelled || (c.labelled && !reflect.DeepEqual(got.Y, []float64{5, 6, 7})) {
			t.Errorf("%s: Y = %v (labels expected: %v)", c.name, got.Y, c.labelled)
		}
	}
}
