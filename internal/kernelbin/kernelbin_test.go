package kernelbin

import (
	"errors"
	"testing"

	"github.com/landmark-ml/landmark/internal/binfmt"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// Kernels read back as the same value (kernel.New of their Spec), nil as
// nil; a kernel without a Spec is refused before anything is written.
func TestKernelRoundTrip(t *testing.T) {
	ks := []kernel.Kernel{kernel.Polynomial{Degree: 2, Gamma: 0.5, Coef0: 1}, kernel.Gaussian{Gamma: 1.5},
		kernel.Laplacian{Gamma: 0.7}, kernel.Linear{}, kernel.Sigmoid{Gamma: 0.01, Coef0: -1}, kernel.Precomputed{}, nil}
	var e binfmt.Enc
	for _, k := range ks {
		if err := WriteKernel(&e, k); err != nil {
			t.Fatal(err)
		}
	}
	d := binfmt.NewDec(e.Bytes())
	for _, k := range ks {
		if got := ReadKernel(d); got != k {
			t.Errorf("kernel %v read back as %v (%v)", k, got, d.Err())
		}
	}
	if err := d.Done(); err != nil {
		t.Fatal(err)
	}
	var e2 binfmt.Enc
	if err := WriteKernel(&e2, scaled{kernel.Linear{}}); err == nil || len(e2.Bytes()) != 0 {
		t.Errorf("kernel without a Spec written: %v, %d bytes", err, len(e2.Bytes()))
	}
	// A kernel kernel.New refuses (a negative γ) is a format error.
	var e3 binfmt.Enc
	e3.String("gaussian")
	e3.Float(-1)
	e3.Float(0)
	e3.Int(0)
	e3.Float(0)
	d = binfmt.NewDec(e3.Bytes())
	if k := ReadKernel(d); k != nil || !errors.Is(d.Err(), binfmt.ErrFormat) {
		t.Errorf("invalid kernel read as %v (%v)", k, d.Err())
	}
}

type scaled struct{ kernel.Linear }

// Data matrices keep their form: kernel.Sparse rows come back as
// *kernel.CSRRows with the same entries, *mat.Dense and other matrices as
// *mat.Dense; a failed read is an untyped nil.
func TestDataRoundTrip(t *testing.T) {
	x := kernel.NewCSRRows(4, []int{0, 1, 3}, []int32{3, 0, 2}, []float64{1.5, -2, 7})
	dn := mat.NewDense(2, 2, []float64{1, 2, 3, 4})
	var e binfmt.Enc
	for _, m := range []mat.Matrix{x, dn, dn.T()} {
		if err := WriteData(&e, m); err != nil {
			t.Fatal(err)
		}
	}
	d := binfmt.NewDec(e.Bytes())
	if gs, ok := ReadData(d, "sparse", 2, 4).(*kernel.CSRRows); !ok || !mat.Equal(gs, x) {
		t.Fatalf("sparse data: %T %v", gs, d.Err())
	}
	if gd, ok := ReadData(d, "dense", 2, 2).(*mat.Dense); !ok || !mat.Equal(gd, dn) {
		t.Fatalf("dense data: %T %v", gd, d.Err())
	}
	if gd, ok := ReadData(d, "transposed", 2, 2).(*mat.Dense); !ok || !mat.Equal(gd, dn.T()) {
		t.Fatalf("transposed data: %T %v", gd, d.Err())
	}
	if err := d.Done(); err != nil {
		t.Fatal(err)
	}
	for _, b := range [][]byte{{0}, {1}, {2, 1, 1}, {3, 1, 4, 1, 1, 9}} {
		d := binfmt.NewDec(b)
		if m := ReadData(d, "m", -1, -1); m != nil || !errors.Is(d.Err(), binfmt.ErrFormat) {
			t.Errorf("field % x: got %#v, err %v", b, m, d.Err())
		}
	}
}
