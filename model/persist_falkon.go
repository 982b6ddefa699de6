package model

import (
	"time"

	"github.com/landmark-ml/landmark/internal/binfmt"
	"github.com/landmark-ml/landmark/internal/kernelbin"
	"github.com/landmark-ml/landmark/precond"
	"github.com/landmark-ml/landmark/solver"
)

// encode writes a fitted Falkon: its scalar configuration, its fitted state
// including the solver's history, and (since format version 4) the rest of
// its configuration: Sampler with its options, CenterLambda, CenterWeights,
// Centers, WarmStart and Validation (centers equal to the fitted ones are
// written once), Float32Storage (since version 5), PrecondPrecision
// (since version 6), Factor with the plan's Factored and Factoring
// (since version 7), ClassWeights (since version 8) and NeverCacheKnm
// (since version 10). Progress, a callback, is not saved.
func (m *Falkon) encode(e *binfmt.Enc) error {
	if m.fit == nil {
		return errSaveUnfitted
	}
	if err := kernelbin.WriteKernel(e, m.Kernel); err != nil {
		return err
	}
	e.Float(m.Lambda)
	e.Int(m.M)
	e.String(m.Preconditioner)
	e.Float(m.Epsilon)
	e.Int(m.MaxIter)
	e.Float(m.Tol)
	encTask(e, m.Task)
	e.Uint(m.Seed)
	e.Int(m.Workers)
	e.Int(m.BlockRows)
	e.Bool(m.Float32)
	e.Int64(m.MemoryLimit)
	e.Bool(m.CacheKnm)
	e.Int(m.Patience)
	encChol(e, m.Cholesky)

	f := m.fit
	encTask(e, f.task)
	if f.task == Classification {
		e.Floats(f.labels.Classes)
	}
	e.Int(f.d)
	if err := encExpansion(e, f.pred); err != nil {
		return err
	}
	i := f.info
	for _, v := range []int{i.N, i.D, i.M, i.Outputs} {
		e.Int(v)
	}
	for _, v := range []float64{i.Lambda, i.Penalty} {
		e.Float(v)
	}
	e.String(i.Kernel)
	e.String(i.Sampler)
	e.String(i.Preconditioner)
	for _, v := range []float64{i.Epsilon, i.Shift, i.JitterT, i.JitterA} {
		e.Float(v)
	}
	e.String(string(i.Status))
	e.Int(i.Iterations)
	e.Float(i.Residual)
	e.Int(i.BestIteration)
	e.Uint(uint64(len(i.History)))
	for _, h := range i.History {
		e.Int(h.Iteration)
		e.Float(h.Residual)
		e.Float(h.ValError)
		e.Int64(int64(h.Elapsed))
	}
	p := i.Plan
	for _, v := range []int64{p.Data, p.Centers, p.Precond, p.Engine, p.Solver, p.Validation, p.Cache, p.Total} {
		e.Int64(v)
	}
	e.Int(p.BlockRows)
	e.Bool(i.CachedKnm)
	for _, v := range []time.Duration{i.SampleTime, i.PrecondTime, i.SolveTime} {
		e.Int64(int64(v))
	}
	if err := m.encodeV4(e); err != nil {
		return err
	}
	e.Bool(m.Float32Storage)             // format version 5
	e.String(string(m.PrecondPrecision)) // format version 6
	e.Int(int(m.Factor))                 // format version 7, with the plan's factoring
	e.Int64(i.Plan.Factored)
	e.String(i.Plan.Factoring)
	encWeights(e, m.ClassWeights) // format version 8
	e.Bool(m.NeverCacheKnm)       // format version 10
	return nil
}

// encodeV4 writes the configuration fields added in format version 4.
func (m *Falkon) encodeV4(e *binfmt.Enc) error {
	pc := m.fit.pred.Centers
	encSampler(e, m.Sampler)
	e.Float(m.CenterLambda)
	e.Floats(m.CenterWeights)
	if err := encCenters(e, m.Centers, pc); err != nil {
		return err
	}
	w := m.WarmStart
	e.Bool(w != nil)
	if w != nil {
		if err := kernelbin.WriteKernel(e, w.Kernel); err != nil {
			return err
		}
		if err := encCenters(e, w.Centers, pc); err != nil {
			return err
		}
		e.Dense(w.Coef)
		e.Int(w.Workers)
	}
	v := m.Validation
	e.Bool(v != nil)
	if v != nil {
		e.Dense(v.X)
		e.Floats(v.Y)
	}
	encCalib(e, m.Probability, m.fit.calib)
	return nil
}

// decodeV4 reads what encodeV4 writes into m, whose fit is decoded.
func (m *Falkon) decodeV4(d *binfmt.Dec) {
	pc := m.fit.pred.Centers
	m.Sampler = decSampler(d)
	m.CenterLambda = d.Float()
	m.CenterWeights = d.Floats()
	m.Centers = decCenters(d, "given centers", m.fit.d, pc)
	if d.Bool() {
		w := &KernelExpansion{Kernel: kernelbin.ReadKernel(d)}
		w.Centers = decCenters(d, "warm-start centers", m.fit.d, pc)
		w.Coef = d.Dense()
		w.Workers = decNonNeg(d, "warm-start workers")
		if d.Err() == nil && (w.Centers == nil || w.Coef == nil) {
			d.Fail("warm start without centers or coefficients")
		}
		m.WarmStart = w
	}
	if d.Bool() {
		m.Validation = &ValidationSet{X: d.Dense(), Y: d.Floats()}
	}
	m.Probability, m.fit.calib = decCalib(d, m.fit.task)
}

func loadFalkon(d *binfmt.Dec) *Falkon {
	m := &Falkon{Kernel: kernelbin.ReadKernel(d), Lambda: d.Float(), M: d.Int(), Preconditioner: d.String(),
		Epsilon: d.Float(), MaxIter: d.Int(), Tol: d.Float(), Task: decTask(d, false), Seed: d.Uint()}
	m.Workers = decNonNeg(d, "workers")
	m.BlockRows = decNonNeg(d, "block rows")
	m.Float32 = d.Bool()
	m.MemoryLimit = d.Int64()
	m.CacheKnm = d.Bool()
	m.Patience = decNonNeg(d, "patience")
	m.Cholesky = decChol(d)
	f := &falkonFit{task: decTask(d, true)}
	if f.task == Classification {
		f.labels = decLabels(d)
	}
	f.d = decNonNeg(d, "dimension")
	if d.Err() != nil {
		return nil
	}
	if f.d < 1 {
		d.Fail("dimension %d", f.d)
		return nil
	}
	f.pred = decExpansion(d, f.d)
	if d.Err() != nil {
		return nil
	}
	checkOutputs(d, f.task, f.labels, f.pred.Outputs())
	i := &f.info
	i.CenterForm = CenterForm(f.pred.Centers) // not saved: recomputed
	i.N, i.D, i.M, i.Outputs = d.Int(), d.Int(), d.Int(), d.Int()
	i.Lambda, i.Penalty = d.Float(), d.Float()
	i.Kernel, i.Sampler, i.Preconditioner = d.String(), d.String(), d.String()
	i.Epsilon, i.Shift, i.JitterT, i.JitterA = d.Float(), d.Float(), d.Float(), d.Float()
	i.Status = solver.Status(d.String())
	i.Iterations, i.Residual = d.Int(), d.Float()
	i.BestIteration = decNonNeg(d, "best iteration")
	// Each history entry takes at least 1+8+8+1 bytes.
	nh := d.Count("history length", 18)
	if d.Err() != nil {
		return nil
	}
	if nh > 0 {
		i.History = make([]FalkonIteration, nh)
		for j := range i.History {
			i.History[j] = FalkonIteration{Iteration: d.Int(), Residual: d.Float(), ValError: d.Float(), Elapsed: time.Duration(d.Int64())}
		}
	}
	p := &i.Plan
	p.Data, p.Centers, p.Precond, p.Engine = d.Int64(), d.Int64(), d.Int64(), d.Int64()
	p.Solver, p.Validation, p.Cache, p.Total = d.Int64(), d.Int64(), d.Int64(), d.Int64()
	p.BlockRows = d.Int()
	i.CachedKnm = d.Bool()
	i.SampleTime, i.PrecondTime, i.SolveTime = time.Duration(d.Int64()), time.Duration(d.Int64()), time.Duration(d.Int64())
	if d.Err() != nil {
		return nil
	}
	m.fit = f
	if d.Version() >= 4 {
		m.decodeV4(d)
	}
	if d.Version() >= 5 {
		m.Float32Storage = d.Bool()
	}
	if d.Version() >= 6 {
		m.PrecondPrecision = precond.Precision(d.String())
		if err := m.PrecondPrecision.Validate(); err != nil {
			d.Fail("%v", err)
		}
	}
	if d.Version() >= 7 {
		m.Factor = FactorMode(d.Int())
		if err := m.Factor.validate(); err != nil {
			d.Fail("%v", err)
		}
		f.info.Plan.Factored = d.Int64()
		f.info.Plan.Factoring = d.String()
	}
	if d.Version() >= 8 {
		m.ClassWeights = decClassWeights(d, f.task, f.labels)
	}
	if d.Version() >= 10 {
		m.NeverCacheKnm = d.Bool()
	}
	if d.Err() != nil {
		return nil
	}
	return m
}
