package datasets

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/landmark-ml/landmark/internal/heap"
	"gonum.org/v1/gonum/mat"
)

// TestXOnHugePages: the dense X of a CSV file, of a LIBSVM file, of a
// Subset (the training part of a split) and of NewDense is advised onto
// transparent huge pages when it is large (700 × 800 values, 4.5 MB, over
// hugemem's 4 MiB floor): the kernel lists "hg" in the VmFlags of the mapping holding its
// middle. (A pass over X in 4 KiB pages cost the engine 2–5 times the
// reading time of 2 MiB ones: docs/performance.md, "New Ops' costs: X's
// norms, the Strassen operands, X's pages".) The flag can also come from
// memory Go advised for an earlier slice, so the test can pass without the
// advice; the hugemem tests count the advice calls themselves.
func TestXOnHugePages(t *testing.T) {
	const n, d = 700, 800
	var csv, svm strings.Builder
	for i := range n {
		fmt.Fprintf(&svm, "%d", i%2)
		for j := range d {
			v := float64((i*d+j)%97) / 97
			fmt.Fprintf(&csv, "%g,", v)
			fmt.Fprintf(&svm, " %d:%g", j+1, v)
		}
		fmt.Fprintf(&csv, "%d\n", i%2)
		svm.WriteString("\n")
	}
	fromCSV, err := ReadCSV(strings.NewReader(csv.String()), ReadOptions{Header: HeaderAbsent})
	if err != nil {
		t.Fatal(err)
	}
	fromSVM, err := ReadLIBSVM(strings.NewReader(svm.String()), d)
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = n - 1 - i
	}
	sub, err := fromCSV.Subset(idx)
	if err != nil {
		t.Fatal(err)
	}
	own, err := NewDense(n, d)
	if err != nil {
		t.Fatal(err)
	}
	for name, x := range map[string]*mat.Dense{"CSV": fromCSV.X, "LIBSVM": fromSVM.X, "Subset": sub.X, "NewDense": own} {
		if r, c := x.Dims(); r != n || c != d {
			t.Fatalf("%s: X is %d×%d, want %d×%d", name, r, c, n, d)
		}
		raw := x.RawMatrix()
		flags, err := heap.Mapping(uintptr(unsafe.Pointer(&raw.Data[len(raw.Data)/2])), "VmFlags")
		if err != nil {
			t.Skip(err)
		}
		if !strings.Contains(" "+flags+" ", " hg ") {
			t.Errorf("%s: VmFlags %q lack hg (MADV_HUGEPAGE)", name, flags)
		}
	}
}
