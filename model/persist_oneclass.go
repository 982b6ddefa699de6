package model

import (
	"math"

	"github.com/landmark-ml/landmark/internal/binfmt"
	"github.com/landmark-ml/landmark/internal/kernelbin"
	"github.com/landmark-ml/landmark/solver"
)

// encode writes a fitted OneClassSVM: its configuration (without Progress,
// a callback) and the support vectors, coefficients α and offset.
func (s *OneClassSVM) encode(e *binfmt.Enc) error {
	if s.fit == nil {
		return errSaveUnfitted
	}
	if err := kernelbin.WriteKernel(e, s.Kernel); err != nil {
		return err
	}
	e.Float(s.Nu)
	e.Float(s.Tol)
	e.Int(s.MaxIter)
	e.Int64(s.CacheBytes)
	e.Bool(s.CacheFloat32)
	e.Bool(s.NoShrinking)
	e.Int(s.Workers)
	e.Int64(s.MemoryLimit)

	f := s.fit
	e.Int(f.d)
	if err := encDecision(e, f.dec); err != nil {
		return err
	}
	in := f.info
	e.Int(in.N)
	e.Float(in.Nu)
	e.Float(in.Rho)
	e.Float(in.Objective)
	e.Int(in.SV)
	e.Int(in.BoundedSV)
	e.Int(in.Outliers)
	e.Int(in.Iterations)
	e.Int(int(in.Status))
	e.Float(in.Violation)
	return nil
}

func loadOneClass(d *binfmt.Dec) *OneClassSVM {
	s := &OneClassSVM{Kernel: kernelbin.ReadKernel(d), Nu: d.Float(), Tol: d.Float(), MaxIter: d.Int(),
		CacheBytes: d.Int64(), CacheFloat32: d.Bool(), NoShrinking: d.Bool()}
	s.Workers = decNonNeg(d, "workers")
	s.MemoryLimit = d.Int64()
	f := &oneClassFit{d: decNonNeg(d, "dimension")}
	if d.Err() != nil {
		return nil
	}
	if f.d < 1 {
		d.Fail("dimension %d", f.d)
		return nil
	}
	f.dec = decDecision(d, f.d, 1)
	f.info = OneClassInfo{N: d.Int(), Nu: d.Float(), Rho: d.Float(), Objective: d.Float(), SV: d.Int(),
		BoundedSV: d.Int(), Outliers: d.Int(), Iterations: d.Int(), Status: solver.SVMStatus(d.Int()), Violation: d.Float()}
	if nu := f.info.Nu; d.Err() == nil && !(nu > 0 && nu <= 1) {
		d.Fail("ν = %g", nu)
	}
	if d.Err() == nil && (math.IsNaN(f.info.Rho) || math.IsInf(f.info.Rho, 0)) {
		d.Fail("ρ = %g", f.info.Rho)
	}
	if d.Err() != nil {
		return nil
	}
	s.fit = f
	return s
}
