package model

import (
	"math"

	"github.com/landmark-ml/landmark/internal/binfmt"
	"github.com/landmark-ml/landmark/internal/kernelbin"
	"github.com/landmark-ml/landmark/solver"
)

// encode writes a fitted SVR: its configuration (without Progress, a
// callback) and the support vectors, coefficients β and bias.
func (s *SVR) encode(e *binfmt.Enc) error {
	if s.fit == nil {
		return errSaveUnfitted
	}
	if err := kernelbin.WriteKernel(e, s.Kernel); err != nil {
		return err
	}
	e.Float(s.C)
	e.Float(s.Epsilon)
	e.Bool(s.AbsoluteLoss)
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
	e.Float(in.Epsilon)
	e.Float(in.C)
	e.Float(in.Objective)
	e.Float(in.Bias)
	e.Int(in.SV)
	e.Int(in.BoundedSV)
	e.Int(in.Iterations)
	e.Int(int(in.Status))
	e.Float(in.Violation)
	e.Bool(s.Probability) // format version 8
	e.Uint(s.Seed)
	e.Float(in.Sigma)
	e.Float(s.Nu) // format version 9
	return nil
}

func loadSVR(d *binfmt.Dec) *SVR {
	s := &SVR{Kernel: kernelbin.ReadKernel(d), C: d.Float(), Epsilon: d.Float(), AbsoluteLoss: d.Bool(),
		Tol: d.Float(), MaxIter: d.Int(), CacheBytes: d.Int64(), CacheFloat32: d.Bool(), NoShrinking: d.Bool()}
	s.Workers = decNonNeg(d, "workers")
	s.MemoryLimit = d.Int64()
	f := &svrFit{d: decNonNeg(d, "dimension")}
	if d.Err() != nil {
		return nil
	}
	if f.d < 1 {
		d.Fail("dimension %d", f.d)
		return nil
	}
	f.dec = decDecision(d, f.d, 1)
	f.info = SVRInfo{N: d.Int(), Epsilon: d.Float(), C: d.Float(), Objective: d.Float(), Bias: d.Float(),
		SV: d.Int(), BoundedSV: d.Int(), Iterations: d.Int(), Status: solver.SVMStatus(d.Int()), Violation: d.Float()}
	if d.Version() >= 8 {
		s.Probability, s.Seed, f.info.Sigma = d.Bool(), d.Uint(), d.Float()
		f.laplace = s.Probability
		if !(f.info.Sigma >= 0) || math.IsInf(f.info.Sigma, 0) || !s.Probability && f.info.Sigma != 0 {
			d.Fail("probability %v with Laplace scale %g", s.Probability, f.info.Sigma)
		}
	}
	if d.Version() >= 9 {
		if s.Nu = d.Float(); d.Err() == nil && !(s.Nu >= 0 && s.Nu <= 1) {
			d.Fail("ν = %g", s.Nu)
		}
	}
	if d.Err() != nil {
		return nil
	}
	s.fit = f
	return s
}
