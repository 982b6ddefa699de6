package datasets

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestReadCSVByName checks ReadOptions.Features: the header's columns are
// taken by name into the asked order whatever the file's order, the target
// may be absent with AllowUnlabelled, and a missing, extra or repeated
// column is an error naming it.
func TestReadCSVByName(t *testing.T) {
	features := []string{"a", "b", "c"}
	cases := []struct {
		name, in   string
		unlabelled bool
		x          []float64 // row-major, in the order a, b, c
		y          []float64 // nil: unlabelled
		err        string
	}{
		{"same order", "a,b,c,y\n1,2,3,4\n5,6,7,8\n", false, []float64{1, 2, 3, 5, 6, 7}, []float64{4, 8}, ""},
		{"target first, reversed", "y,c,b,a\n4,3,2,1\n8,7,6,5\n", false, []float64{1, 2, 3, 5, 6, 7}, []float64{4, 8}, ""},
		{"target in the middle, case", "b,Y,a,c\n2,4,1,3\n", false, []float64{1, 2, 3}, []float64{4}, ""},
		{"unlabelled", "c,a,b\n3,1,2\n7,5,6\n", true, []float64{1, 2, 3, 5, 6, 7}, nil, ""},
		{"target required", "c,a,b\n3,1,2\n", false, nil, nil, `no target column "y"`},
		{"missing", "c,a,y\n3,1,0\n", true, nil, nil, `missing feature column(s) "b"`},
		{"extra", "a,b,c,d\n1,2,3,4\n", true, nil, nil, `column(s) "d" are neither features nor the target "y"`},
		{"both", "a,b,d\n1,2,4\n", true, nil, nil, `missing feature column(s) "c"; column(s) "d" are neither features nor the target "y"`},
		{"repeated", "a,b,b,c\n1,2,2,3\n", true, nil, nil, `column name "b" repeated (columns 1 and 2)`},
		// The target by default (last), by index, and a last column that is
		// a feature.
		{"default target=", "c,b,a,q\n3,2,1,4\n", false, []float64{1, 2, 3}, []float64{4}, ""},
		{"index target=0", "q,c,b,a\n4,3,2,1\n", false, []float64{1, 2, 3}, []float64{4}, ""},
		{"negative index target=-3", "c,q,b,a\n3,4,2,1\n", false, []float64{1, 2, 3}, []float64{4}, ""},
		{"last is a feature target=", "q,c,b,a\n4,3,2,1\n", false, nil, nil, `no target column: the last column, "a", is a feature`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			target := "y"
			if name, tg, ok := strings.Cut(c.name, " target="); ok {
				_, target = name, tg
			}
			d, err := Read(strings.NewReader(c.in), ReadOptions{Format: CSV, Features: features, Target: target, AllowUnlabelled: c.unlabelled})
			if c.err != "" {
				var pe *ParseError
				if err == nil || !strings.Contains(err.Error(), c.err) || !errors.Is(err, ErrColumns) || !errors.Is(err, ErrInput) || !errors.As(err, &pe) || pe.Line != 1 {
					t.Fatalf("err = %v, want a line-1 ErrColumns holding %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r, _ := d.X.Dims(); !slices.Equal(d.X.RawMatrix().Data, c.x) || d.Len() != r || r != len(c.x)/3 {
				t.Errorf("X = %v (Len %d), want %v", d.X.RawMatrix().Data, d.Len(), c.x)
			}
			if !slices.Equal(d.Y, c.y) || (d.Y == nil) != (c.y == nil) {
				t.Errorf("Y = %v, want %v", d.Y, c.y)
			}
			if !slices.Equal(d.Features, features) {
				t.Errorf("Features = %v, want %v", d.Features, features)
			}
		})
	}
}

// TestReadUnlabelledByCount checks AllowUnlabelled without names: a CSV of
// exactly Dim columns has no target, one of Dim+1 has it last; a LIBSVM
// file whose rows start with index:value has no labels, dense or sparse,
// and a file mixing both kinds of rows is an error at the first row that
// differs.
func TestReadUnlabelledByCount(t *testing.T) {
	opt := ReadOptions{Format: CSV, Dim: 2, AllowUnlabelled: true, Features: []string{"x1", "x2"}, Target: "y"}
	d, err := Read(strings.NewReader("1,2\n3,4\n"), opt)
	if err != nil || d.Y != nil || !slices.Equal(d.X.RawMatrix().Data, []float64{1, 2, 3, 4}) || d.Len() != 2 {
		t.Fatalf("2 columns for Dim 2: %v, %+v", err, d)
	}
	d, err = Read(strings.NewReader("1,2,9\n3,4,8\n"), opt)
	if err != nil || !slices.Equal(d.Y, []float64{9, 8}) || !slices.Equal(d.X.RawMatrix().Data, []float64{1, 2, 3, 4}) {
		t.Fatalf("3 columns for Dim 2: %v, %+v", err, d)
	}

	const unl = "1:0.5 3:2\n# a comment\n2:1\n"
	lopt := ReadOptions{Format: LIBSVM, Dim: 3, AllowUnlabelled: true}
	d, err = Read(strings.NewReader(unl), lopt)
	want := []float64{0.5, 0, 2, 0, 1, 0}
	if err != nil || d.Y != nil || !slices.Equal(d.X.RawMatrix().Data, want) {
		t.Fatalf("unlabelled LIBSVM: %v, %+v", err, d)
	}
	xs, ys, err := ReadLIBSVMSparseWith(context.Background(), strings.NewReader(unl), lopt)
	if err != nil || ys != nil || !mat.Equal(xs.ToDense(), mat.NewDense(2, 3, want)) {
		t.Fatalf("unlabelled LIBSVM, sparse: %v, %v", err, ys)
	}
	// A labelled file still reads its labels with the option set.
	d, err = Read(strings.NewReader("-1 1:0.5\n1 2:1\n"), lopt)
	if err != nil || !slices.Equal(d.Y, []float64{-1, 1}) {
		t.Fatalf("labelled LIBSVM with AllowUnlabelled: %v, %+v", err, d)
	}
	for in, line := range map[string]int{"1 1:0.5\n2:1\n": 2, "1:0.5\n\n1 2:1\n": 3} {
		_, err := Read(strings.NewReader(in), lopt)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != line || !strings.Contains(err.Error(), "labelled or unlabelled throughout") {
			t.Errorf("%q: err = %v, want a line-%d error", in, err, line)
		}
	}
	// Without the option an unlabelled row is a bad label, as before.
	if _, err := Read(strings.NewReader(unl), ReadOptions{Format: LIBSVM}); err == nil || !strings.Contains(err.Error(), `label "1:0.5" is not a number`) {
		t.Errorf("unlabelled row without AllowUnlabelled: %v", err)
	}
}

// TestReadCSVImpliedNames checks ReadOptions.ImpliedFeatures: a header is
// matched against x1…xDim as against the list DefaultFeatureNames would
// build (same X, same errors), a name is x<j> in strconv.Itoa's form with
// 1 ≤ j ≤ Dim, and at Dim = 10⁸ a 3-column header is refused naming the
// first missing features without building the names (the allocation bound
// below is 1 MiB: the list would take 1.6 GB).
func TestReadCSVImpliedNames(t *testing.T) {
	list := []string{"x1", "x2", "x3"}
	for _, in := range []string{
		"x3,y,x1,x2\n3,9,1,2\n6,8,4,5\n", // reordered, target inside
		"x2,x3,x1\n2,3,1\n5,6,4\n",       // unlabelled
		"x1,x2,x3,Y\n1,2,3,9\n4,5,6,8\n", // target by case
		"x01,x2,x3,y\n1,2,3,9\n",         // not a name: a leading zero
		"x1,x2,x4,y\n1,2,3,9\n",          // beyond Dim
		"x1,x2,x+3,y\n1,2,3,9\n",         // a sign
		"x1,x1,x2,x3\n1,1,2,3\n",         // repeated
		"x1,x2,y\n1,2,9\n",               // missing x3
		"x1,x2,x3,x0\n1,2,3,0\n",         // x0 is no feature
	} {
		implied, errI := Read(strings.NewReader(in), ReadOptions{Format: CSV, Dim: 3, ImpliedFeatures: true, Target: "y", AllowUnlabelled: true})
		listed, errL := Read(strings.NewReader(in), ReadOptions{Format: CSV, Dim: 3, Features: list, Target: "y", AllowUnlabelled: true})
		if (errI == nil) != (errL == nil) || (errI != nil && errI.Error() != strings.Replace(errL.Error(), "the features: x1, x2, x3;", "the features: x1…x3 (unnamed);", 1)) {
			t.Errorf("%q: implied %v, listed %v", in, errI, errL)
			continue
		}
		if errI != nil {
			if !errors.Is(errI, ErrColumns) {
				t.Errorf("%q: %v does not wrap ErrColumns", in, errI)
			}
			continue
		}
		if !mat.Equal(implied.X, listed.X) || !slices.Equal(implied.Y, listed.Y) || !slices.Equal(implied.Features, list) {
			t.Errorf("%q: implied X %v Y %v names %v, listed X %v Y %v", in, implied.X.RawMatrix().Data, implied.Y, implied.Features, listed.X.RawMatrix().Data, listed.Y)
		}
	}
	// Which inputs fail is part of the contract too.
	for _, c := range []struct{ in, err string }{
		{"x01,x2,x3,y\n1,2,3,9\n", `missing feature column(s) "x1"; column(s) "x01" are neither features nor the target "y"`},
		{"x1,x2,x4,y\n1,2,3,9\n", `missing feature column(s) "x3"; column(s) "x4" are neither`},
	} {
		_, err := Read(strings.NewReader(c.in), ReadOptions{Format: CSV, Dim: 3, ImpliedFeatures: true, Target: "y"})
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q: %v, want %q", c.in, err, c.err)
		}
	}
	// Without a header the columns go by position, as with a list.
	d, err := Read(strings.NewReader("1,2,3\n"), ReadOptions{Format: CSV, Dim: 3, ImpliedFeatures: true, Target: "y", AllowUnlabelled: true})
	if err != nil || d.Y != nil || !slices.Equal(d.X.RawMatrix().Data, []float64{1, 2, 3}) {
		t.Fatalf("headerless: %v %+v", err, d)
	}

	const wide = 100_000_000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err = Read(strings.NewReader("x100000000,x2,y\n1,2,3\n"), ReadOptions{Format: CSV, Dim: wide, ImpliedFeatures: true, Target: "y"})
	runtime.ReadMemStats(&after)
	want := `missing feature column(s) "x1", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20", "x21", … (99999998 in all) (the features: x1…x100000000 (unnamed); the file's columns: x100000000, x2, y)`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("d = 10⁸: %v, want %q", err, want)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Errorf("d = 10⁸: matching a 3-column header allocated %d bytes", got)
	}
}
