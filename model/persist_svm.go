package model

import (
	"bytes"

	"github.com/landmark-ml/landmark/approx/cluster"
	"github.com/landmark-ml/landmark/internal/binfmt"
	"github.com/landmark-ml/landmark/internal/kernelbin"
	"github.com/landmark-ml/landmark/solver"
)

// encode writes a fitted SVM: its configuration (without Progress, a
// callback; MemoryLimit and CacheFloat32 since format version 4, Nu since
// version 9, at the end)
// and the support vectors, coefficients and biases of every sub-problem.
func (s *SVM) encode(e *binfmt.Enc) error {
	if s.fit == nil {
		return errSaveUnfitted
	}
	if err := kernelbin.WriteKernel(e, s.Kernel); err != nil {
		return err
	}
	e.Float(s.C)
	encWeights(e, s.ClassWeights)
	e.String(s.Multiclass)
	e.Bool(s.NoBias)
	e.Float(s.Tol)
	e.Int(s.MaxIter)
	e.Int64(s.CacheBytes)
	e.Bool(s.NoShrinking)
	e.Int(s.Workers)
	e.Bool(s.Probability)
	e.Uint(s.Seed)

	f := s.fit
	e.Floats(f.labels.Classes)
	e.Bool(f.ovo)
	e.Int(f.d)
	if err := encDecision(e, f.dec); err != nil {
		return err
	}
	encTaskInfos(e, f.info.Tasks)
	e.Int(f.info.SV)
	// Platt sigmoids (one per decision column) when fitted with Probability.
	e.Bool(f.platt != nil)
	if f.platt != nil {
		e.Uint(uint64(len(f.platt)))
		for _, g := range f.platt {
			e.Float(g.a)
			e.Float(g.b)
		}
	}
	e.Int64(s.MemoryLimit)
	e.Bool(s.CacheFloat32)
	e.Float(s.Nu) // format version 9, with each sub-problem's r
	for _, t := range f.info.Tasks {
		e.Float(t.R)
	}
	return nil
}

func loadSVM(d *binfmt.Dec) *SVM {
	s := &SVM{Kernel: kernelbin.ReadKernel(d), C: d.Float(), ClassWeights: decWeights(d), Multiclass: d.String(),
		NoBias: d.Bool(), Tol: d.Float(), MaxIter: d.Int(), CacheBytes: d.Int64(), NoShrinking: d.Bool()}
	s.Workers = decNonNeg(d, "workers")
	s.Probability = d.Bool()
	s.Seed = d.Uint()
	f := &svmFit{labels: decLabels(d), ovo: d.Bool(), d: decNonNeg(d, "dimension")}
	if d.Err() != nil {
		return nil
	}
	if f.d < 1 {
		d.Fail("dimension %d", f.d)
		return nil
	}
	cols := svmColumns(f.labels, f.ovo)
	f.dec = decDecision(d, f.d, cols)
	f.info.Tasks = decTaskInfos(d)
	f.info.SV = d.Int()
	if d.Bool() {
		n := d.Count("Platt sigmoids", 16)
		if d.Err() == nil && n != cols {
			d.Fail("%d Platt sigmoids for %d decision columns", n, cols)
		}
		if d.Err() != nil {
			return nil
		}
		f.platt = make([]sigmoid, n)
		for i := range f.platt {
			f.platt[i] = sigmoid{a: d.Float(), b: d.Float()}
		}
	}
	if d.Version() >= 4 {
		s.MemoryLimit = d.Int64()
		s.CacheFloat32 = d.Bool()
	}
	if d.Version() >= 9 {
		if s.Nu = d.Float(); d.Err() == nil && !(s.Nu >= 0 && s.Nu <= 1) {
			d.Fail("ν = %g", s.Nu)
		}
		for i := range f.info.Tasks {
			f.info.Tasks[i].R = d.Float()
		}
	}
	if d.Err() != nil {
		return nil
	}
	s.fit = f
	return s
}

// svmColumns is the number of decision columns for the labels: 1 for two
// classes, k(k−1)/2 for one-vs-one, k for one-vs-rest.
func svmColumns(l Labels, ovo bool) int {
	k := len(l.Classes)
	switch {
	case k == 2:
		return 1
	case ovo:
		return k * (k - 1) / 2
	}
	return k
}

func encDecision(e *binfmt.Enc, dec *svmDecision) error {
	if err := kernelbin.WriteKernel(e, dec.k); err != nil {
		return err
	}
	// Support vectors in their format in memory (the training data's):
	// sparse rows of a sparse fit stay sparse in the file, and load back
	// sparse, so prediction after Load takes the same path with the same
	// arithmetic as before Save.
	if err := kernelbin.WriteData(e, dec.sv); err != nil {
		return err
	}
	e.Dense(dec.w)
	e.Floats(dec.bias)
	e.Bool(dec.empty)
	e.Int(dec.workers)
	return nil
}

// decDecision reads a decision function over dim inputs with cols outputs.
func decDecision(d *binfmt.Dec, dim, cols int) *svmDecision {
	dec := &svmDecision{k: kernelbin.ReadKernel(d)}
	if d.Err() == nil && dec.k == nil {
		d.Fail("decision function without a kernel")
	}
	sv := kernelbin.ReadData(d, "support vectors", -1, dim)
	var m int
	if sv != nil {
		m, _ = sv.Dims()
		dec.sv = sv
	}
	dec.w = d.Matrix("dual coefficients", m, cols)
	dec.bias = d.Floats()
	dec.empty = d.Bool()
	dec.workers = decNonNeg(d, "workers")
	if d.Err() != nil {
		return nil
	}
	if len(dec.bias) != cols {
		d.Fail("%d biases for %d decision columns", len(dec.bias), cols)
		return nil
	}
	return dec
}

func encTaskInfos(e *binfmt.Enc, ts []SVMTaskInfo) {
	e.Uint(uint64(len(ts)))
	for _, t := range ts {
		e.Float(t.Positive)
		e.Float(t.Negative)
		e.Int(t.N)
		e.Float(t.Objective)
		e.Float(t.Bias)
		e.Int(t.SV)
		e.Int(t.BoundedSV)
		e.Int(t.Iterations)
		e.Int(int(t.Status))
		e.Float(t.Violation)
	}
}

func decTaskInfos(d *binfmt.Dec) []SVMTaskInfo {
	// Each entry takes at least 5·8 + 5 bytes.
	n := d.Count("sub-problems", 45)
	if d.Err() != nil || n == 0 {
		return nil
	}
	ts := make([]SVMTaskInfo, n)
	for i := range ts {
		ts[i] = SVMTaskInfo{Positive: d.Float(), Negative: d.Float(), N: d.Int(), Objective: d.Float(),
			Bias: d.Float(), SV: d.Int(), BoundedSV: d.Int(), Iterations: d.Int(),
			Status: solver.SVMStatus(d.Int()), Violation: d.Float()}
	}
	return ts
}

// encode writes a fitted BKASVM: its configuration (without Progress and
// Solver, which are code; MemoryLimit since format version 4, at the end),
// the k-means partition, the global decision function and, for local
// prediction, the per-cluster ones.
func (b *BKASVM) encode(e *binfmt.Enc) error {
	if b.fit == nil {
		return errSaveUnfitted
	}
	if err := kernelbin.WriteKernel(e, b.Kernel); err != nil {
		return err
	}
	e.Float(b.C)
	encWeights(e, b.ClassWeights)
	e.String(b.Multiclass)
	e.Int(b.Clusters)
	e.Int(b.Sketch)
	e.Int(b.KMeansSubsample)
	e.String(b.Prediction)
	e.Bool(b.Refine)
	e.Float(b.Tol)
	e.Int(b.MaxIter)
	e.Int64(b.CacheBytes)
	e.Bool(b.NoShrinking)
	e.Uint(b.Seed)
	e.Int(b.Workers)

	f := b.fit
	e.Floats(f.labels.Classes)
	e.Bool(f.ovo)
	e.Int(f.d)
	var pb bytes.Buffer
	if err := cluster.SavePartition(&pb, f.part); err != nil {
		return err
	}
	e.Blob(pb.Bytes())
	if err := encDecision(e, f.global); err != nil {
		return err
	}
	e.Bool(f.local != nil)
	if f.local != nil {
		e.Uint(uint64(len(f.local)))
		for _, l := range f.local {
			if err := encLocal(e, l, f.global); err != nil {
				return err
			}
		}
	}
	e.Int(f.ntasks)
	e.Ints(f.info.ClusterSizes)
	encTaskInfos(e, f.info.Tasks)
	e.Int(f.info.SV)
	e.Bool(f.info.Refined)
	e.Int64(b.MemoryLimit)
	e.Bool(b.Probability)
	encSigmoids(e, f.platt)
	e.Bool(f.plattLocal)
	return nil
}

func loadBKASVM(d *binfmt.Dec) *BKASVM {
	b := &BKASVM{Kernel: kernelbin.ReadKernel(d), C: d.Float(), ClassWeights: decWeights(d), Multiclass: d.String(),
		Clusters: d.Int(), Sketch: d.Int(), KMeansSubsample: d.Int(), Prediction: d.String(),
		Refine: d.Bool(), Tol: d.Float(), MaxIter: d.Int(), CacheBytes: d.Int64(), NoShrinking: d.Bool(),
		Seed: d.Uint()}
	b.Workers = decNonNeg(d, "workers")
	f := &bkaFit{labels: decLabels(d), ovo: d.Bool(), d: decNonNeg(d, "dimension")}
	if d.Err() != nil {
		return nil
	}
	if f.d < 1 {
		d.Fail("dimension %d", f.d)
		return nil
	}
	blob := d.Blob()
	if d.Err() != nil {
		return nil
	}
	part, err := cluster.LoadPartition(bytes.NewReader(blob))
	if err != nil {
		d.Fail("partition: %v", err)
		return nil
	}
	k, pd := part.Centroids.Dims()
	if pd != f.d {
		d.Fail("partition centroids have %d columns, the model %d", pd, f.d)
		return nil
	}
	f.part = part
	cols := svmColumns(f.labels, f.ovo)
	f.global = decDecision(d, f.d, cols)
	if f.global != nil && !f.global.empty {
		// The global support vectors' rows are their own positions: local
		// decisions saved by position refer to them, and re-save the same way.
		m, _ := f.global.sv.Dims()
		f.global.rows = seq(m)
	}
	if d.Bool() {
		// Each entry takes at least one byte.
		n := d.Count("local decision functions", 1)
		if d.Err() != nil {
			return nil
		}
		if n != k {
			d.Fail("%d local decision functions for %d clusters", n, k)
			return nil
		}
		f.local = make([]*svmDecision, n)
		for s := range f.local {
			f.local[s] = decLocal(d, f.d, cols, f.global)
		}
	}
	f.ntasks = d.Int()
	f.info.ClusterSizes = d.Ints()
	f.info.Tasks = decTaskInfos(d)
	f.info.SV = d.Int()
	f.info.Refined = d.Bool()
	if d.Version() >= 4 {
		b.MemoryLimit = d.Int64()
		b.Probability = d.Bool()
		f.platt = decSigmoids(d, cols)
		f.plattLocal = d.Bool()
	}
	if d.Err() != nil {
		return nil
	}
	if f.ntasks != cols {
		d.Fail("%d sub-problems, want %d", f.ntasks, cols)
		return nil
	}
	b.fit = f
	return b
}

// How a BKA-SVM local decision function is saved: a leading varint 0 (none)
// or 1 (a whole decision function) reads as the Bool of format version 2;
// 2, since version 3, is a decision function whose support vectors are given
// as positions among the global ones (each local support vector is a global
// one, so the file holds every support vector once).
const (
	localNone  = 0
	localWhole = 1
	localRows  = 2
)

// encLocal writes the local decision function l of a BKA-SVM whose global
// one is g.
func encLocal(e *binfmt.Enc, l, g *svmDecision) error {
	if l == nil {
		e.Uint(localNone)
		return nil
	}
	pos, ok := positions(l, g)
	if !ok {
		e.Uint(localWhole)
		return encDecision(e, l)
	}
	e.Uint(localRows)
	if err := kernelbin.WriteKernel(e, l.k); err != nil {
		return err
	}
	e.Ints(pos)
	e.Dense(l.w)
	e.Floats(l.bias)
	e.Int(l.workers)
	return nil
}

// positions returns the positions of l's support vectors among g's, when
// both know their training rows and l has support vectors.
func positions(l, g *svmDecision) ([]int, bool) {
	if l.empty || g.empty || l.rows == nil || g.rows == nil {
		return nil, false
	}
	at := make(map[int]int, len(g.rows))
	for j, r := range g.rows {
		at[r] = j
	}
	pos := make([]int, len(l.rows))
	for i, r := range l.rows {
		j, ok := at[r]
		if !ok {
			return nil, false
		}
		pos[i] = j
	}
	return pos, true
}

// decLocal reads a local decision function written by encLocal.
func decLocal(d *binfmt.Dec, dim, cols int, g *svmDecision) *svmDecision {
	switch kind := d.Uint(); {
	case d.Err() != nil:
		return nil
	case kind == localNone:
		return nil
	case kind == localWhole:
		return decDecision(d, dim, cols)
	case kind != localRows:
		d.Fail("local decision function kind %d", kind)
		return nil
	}
	dec := &svmDecision{k: kernelbin.ReadKernel(d)}
	if d.Err() == nil && dec.k == nil {
		d.Fail("decision function without a kernel")
	}
	pos := d.Ints()
	if d.Err() != nil {
		return nil
	}
	if g == nil || g.empty || g.rows == nil {
		d.Fail("local support vectors given by position without global ones")
		return nil
	}
	if len(pos) == 0 {
		d.Fail("local decision function without support vectors")
		return nil
	}
	for i, p := range pos {
		if p < 0 || p >= len(g.rows) || (i > 0 && p <= pos[i-1]) {
			d.Fail("local support vector positions not increasing within the %d global ones", len(g.rows))
			return nil
		}
	}
	dec.w = d.Matrix("dual coefficients", len(pos), cols)
	dec.bias = d.Floats()
	dec.workers = decNonNeg(d, "workers")
	if d.Err() != nil {
		return nil
	}
	if len(dec.bias) != cols {
		d.Fail("%d biases for %d decision columns", len(dec.bias), cols)
		return nil
	}
	dec.sv = pickRows(g.sv, pos)
	dec.rows = pos
	return dec
}
