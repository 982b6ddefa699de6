// Package kernelbin writes and reads the fields of Landmark's saved files
// that involve package kernel: kernels, stored by their kernel.Spec, and data
// matrices, dense or sparse rows (kernel.Sparse) stored as the sparse fields
// of internal/binfmt. It keeps internal/binfmt free of the kernel package
// (binfmt knows numbers, strings and matrices; this package maps kernels and
// kernel.Sparse rows onto them) for package model and the approx packages.
package kernelbin

import (
	"fmt"

	"github.com/landmark-ml/landmark/internal/binfmt"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// WriteKernel writes a kernel by its kernel.Spec: type, γ, σ, degree and c₀
// (nil is allowed, written as an empty type). Kernels defined outside
// package kernel have no Spec and cannot be saved.
func WriteKernel(e *binfmt.Enc, k kernel.Kernel) error {
	if k == nil {
		e.String("")
		return nil
	}
	s, ok := kernel.SpecOf(k)
	if !ok {
		return fmt.Errorf("kernel %T has no kernel.Spec and cannot be saved", k)
	}
	e.String(s.Type)
	e.Float(s.Gamma)
	e.Float(s.Sigma)
	e.Int(s.Degree)
	e.Float(s.Coef0)
	return nil
}

// ReadKernel reads a kernel written by WriteKernel and validates it with
// kernel.New; nil when none was saved.
func ReadKernel(d *binfmt.Dec) kernel.Kernel {
	typ := d.String()
	if d.Err() != nil || typ == "" {
		return nil
	}
	s := kernel.Spec{Type: typ, Gamma: d.Float(), Sigma: d.Float(), Degree: d.Int(), Coef0: d.Float()}
	if d.Err() != nil {
		return nil
	}
	k, err := kernel.New(s)
	if err != nil {
		d.Fail("kernel: %v", err)
		return nil
	}
	return k
}

// WriteData writes a data matrix in its own format: kernel.Sparse rows as a
// sparse field (binfmt.Enc.CSR), a *mat.Dense as a dense one (nil and empty
// included), any other matrix as a dense copy. ReadData reads it back.
func WriteData(e *binfmt.Enc, x mat.Matrix) error {
	switch m := x.(type) {
	case nil:
		e.Dense(nil)
	case *mat.Dense:
		e.Dense(m)
	case kernel.Sparse:
		_, c := m.Dims()
		indptr, indices, values := m.CSR()
		return e.CSR(c, indptr, indices, values)
	default:
		e.Dense(mat.DenseCopyOf(m))
	}
	return nil
}

// ReadData reads a data matrix written by WriteData (or binfmt.Enc.Dense or
// binfmt.Enc.CSR): a *mat.Dense or a *kernel.CSRRows, present, non-empty,
// finite and of the given shape (a negative dimension means any); what names
// it in the error. After an error it returns an untyped nil.
func ReadData(d *binfmt.Dec, what string, rows, cols int) mat.Matrix {
	dn, sp := d.Data(what, rows, cols)
	switch {
	case d.Err() != nil:
		return nil
	case sp != nil:
		return kernel.NewCSRRows(sp.Cols, sp.Indptr, sp.Indices, sp.Values)
	case dn != nil:
		return dn
	}
	return nil
}
