package datasets

import (
	"context"
	"errors"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

const csrText = `1 1:0.5 4:-2
-1
# comment line
2 2:3 3:1e-3 4:7 # trailing comment
`

func TestReadLIBSVMSparseMatchesDense(t *testing.T) {
	m, y, err := ReadLIBSVMSparse(context.Background(), strings.NewReader(csrText), 0)
	if err != nil {
		t.Fatal(err)
	}
	d, err := ReadLIBSVM(strings.NewReader(csrText), 0)
	if err != nil {
		t.Fatal(err)
	}
	if r, c := m.Dims(); r != 3 || c != 4 || m.NNZ() != 5 {
		t.Fatalf("dims %d×%d nnz %d, want 3×4 nnz 5", r, c, m.NNZ())
	}
	if !mat.Equal(m.ToDense(), d.X) || !mat.Equal(m, d.X) {
		t.Fatalf("sparse %v\ndense %v", mat.Formatted(m.ToDense()), mat.Formatted(d.X))
	}
	for i := range y {
		if y[i] != d.Y[i] {
			t.Fatalf("label %d: %v vs %v", i, y[i], d.Y[i])
		}
	}
	// Row 1 is empty: its squared norm is 0; row 2 is 9 + 1e-6 + 49.
	norms := m.RowNorms(nil)
	if norms[0] != 0.25+4 || norms[1] != 0 || norms[2] != 9+1e-3*1e-3+49 {
		t.Fatalf("row norms %v", norms)
	}
	sub, err := m.Rows([]int{2, 0, 2})
	if err != nil {
		t.Fatal(err)
	}
	if sub.At(0, 3) != 7 || sub.At(1, 0) != 0.5 || sub.At(2, 1) != 3 || sub.At(1, 1) != 0 || sub.NNZ() != 8 {
		t.Fatalf("row subset wrong: %v", mat.Formatted(sub.ToDense()))
	}
	if _, err := m.Rows([]int{3}); !errors.Is(err, ErrInput) {
		t.Fatalf("out-of-range row subset: %v", err)
	}
}

func TestReadLIBSVMSparseErrors(t *testing.T) {
	_, _, err := ReadLIBSVMSparse(context.Background(), strings.NewReader("1 1:1\n1 2:1 2:3\n"), 0)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 2 || !strings.Contains(pe.Msg, "repeated") {
		t.Fatalf("duplicate index: %v, want a ParseError on line 2", err)
	}
	_, _, err = ReadLIBSVMSparse(context.Background(), strings.NewReader("1 5:1\n"), 4)
	if !errors.As(err, &pe) || pe.Line != 1 {
		t.Fatalf("index beyond dim: %v", err)
	}
	if _, err := NewCSR(1, 3, []int{0, 2}, []int32{2, 1}, []float64{1, 1}); !errors.Is(err, ErrInput) {
		t.Fatalf("descending columns accepted: %v", err)
	}
	if _, err := NewCSR(1, 3, []int{0, 1}, []int32{3}, []float64{1}); !errors.Is(err, ErrInput) {
		t.Fatalf("column beyond dimension accepted: %v", err)
	}
}
