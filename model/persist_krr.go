package model

import (
	"bytes"
	"fmt"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/approx/meka"
	"github.com/landmark-ml/landmark/internal/binfmt"
	"github.com/landmark-ml/landmark/internal/kernelbin"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// Predictor kinds inside a saved KRR.
const (
	predExpansion = "expansion"
	// predEngineCSR is a KernelExpansion with CSR centers (Nyström KRR on
	// sparse X, format version 3): it loads back as a KernelExpansion,
	// evaluated on the kernel engine as before saving, where predExpansion
	// with CSR centers is exact KRR's sparseExpansion.
	predEngineCSR = "expansion-csr-centers"
	predFeatures  = "features"
	predMEKA      = "meka"
)

// encode writes a fitted KRR: its configuration, its fitted state and, since
// format version 4, the backend (Approx) with its sampler and options, after
// the predictor (whose centers a NystromKRR's given Centers may be). Version
// 2 and 3 files hold a backend of fewer kinds in the configuration instead.
func (m *KRR) encode(e *binfmt.Enc) error {
	if m.fit == nil {
		return errSaveUnfitted
	}
	if err := kernelbin.WriteKernel(e, m.Kernel); err != nil {
		return err
	}
	e.Float(m.Lambda)
	encTask(e, m.Task)
	e.Uint(m.Seed)
	e.Int(m.Workers)
	e.Int64(m.MemoryLimit)
	encChol(e, m.Cholesky)

	f := m.fit
	encTask(e, f.task)
	if f.task == Classification {
		e.Floats(f.labels.Classes)
	}
	e.Int(f.d)
	i := f.info
	e.String(i.Backend)
	e.Int(i.N)
	e.Int(i.D)
	e.Int(i.Outputs)
	e.Int(i.Rank)
	e.Float(i.Lambda)
	e.Float(i.Penalty)
	e.Float(i.Jitter)
	e.Int(i.CholAttempts)
	e.Int64(i.MemoryBytes)
	e.String(i.Kernel)
	if err := encPredictor(e, f.pred); err != nil {
		return err
	}
	if err := encBackend(e, m.Approx, f.pred); err != nil {
		return err
	}
	encCalib(e, m.Probability, f.calib)
	encWeights(e, m.ClassWeights) // format version 8
	return nil
}

func loadKRR(d *binfmt.Dec) *KRR {
	m := &KRR{Kernel: kernelbin.ReadKernel(d), Lambda: d.Float(), Task: decTask(d, false), Seed: d.Uint()}
	m.Workers = decNonNeg(d, "workers")
	m.MemoryLimit = d.Int64()
	m.Cholesky = decChol(d)
	if d.Version() < 4 {
		m.Approx = decBackendV3(d)
	}
	f := &krrFit{task: decTask(d, true)}
	if f.task == Classification {
		f.labels = decLabels(d)
	}
	f.d = decNonNeg(d, "dimension")
	i := &f.info
	i.Backend, i.N, i.D, i.Outputs, i.Rank = d.String(), d.Int(), d.Int(), d.Int(), d.Int()
	i.Lambda, i.Penalty, i.Jitter, i.CholAttempts = d.Float(), d.Float(), d.Float(), d.Int()
	i.MemoryBytes, i.Kernel = d.Int64(), d.String()
	if d.Err() != nil {
		return nil
	}
	if f.d < 1 {
		d.Fail("dimension %d", f.d)
		return nil
	}
	f.pred = decPredictor(d, f.d)
	if d.Err() != nil {
		return nil
	}
	if e, ok := f.pred.(*KernelExpansion); ok && i.Backend == "nystrom" {
		i.CenterForm = CenterForm(e.Centers) // not saved: recomputed
	}
	checkOutputs(d, f.task, f.labels, f.pred.Outputs())
	if d.Version() >= 4 {
		m.Approx = decBackend(d, f.d, f.pred)
		m.Probability, f.calib = decCalib(d, f.task)
	}
	if d.Version() >= 8 {
		m.ClassWeights = decClassWeights(d, f.task, f.labels)
	}
	if d.Err() != nil {
		return nil
	}
	m.fit = f
	return m
}

// checkOutputs checks that a predictor's outputs match the task.
func checkOutputs(d *binfmt.Dec, task Task, labels Labels, t int) {
	if task == Classification && t != labels.Outputs() {
		d.Fail("%d outputs for %d classes", t, len(labels.Classes))
	}
}

// encPredictor writes a KRRPredictor of this package.
func encPredictor(e *binfmt.Enc, p KRRPredictor) error {
	switch p := p.(type) {
	case *sparseExpansion:
		e.String(predExpansion)
		return encKernelSum(e, p.dec.k, p.dec.sv, p.dec.w, p.dec.workers)
	case *KernelExpansion:
		if _, ok := p.Centers.(kernel.Sparse); ok {
			e.String(predEngineCSR)
		} else {
			e.String(predExpansion)
		}
		return encExpansion(e, p)
	case *LinearFeatures:
		e.String(predFeatures)
		blob, err := meka.MarshalMap(p.Map)
		if err != nil {
			return err
		}
		e.Blob(blob)
		e.Dense(p.Weights)
		return nil
	case *MEKAExpansion:
		e.String(predMEKA)
		blob, err := meka.MarshalMap(p.MEKA)
		if err != nil {
			return err
		}
		e.Blob(blob)
		e.Dense(p.Beta)
		s := p.Solution
		e.Bool(s != nil)
		if s != nil {
			e.Dense(s.Alpha)
			e.String(s.Method)
			e.Ints(s.Iterations)
			e.Floats(s.Residuals)
			e.Bool(s.Converged)
			e.Bool(s.Indefinite)
		}
		return nil
	}
	return fmt.Errorf("KRR predictor %T cannot be saved", p)
}

// decPredictor reads a KRRPredictor for inputs of dimension dim.
func decPredictor(d *binfmt.Dec, dim int) KRRPredictor {
	kind := d.String()
	if d.Err() != nil {
		return nil
	}
	switch kind {
	case predExpansion:
		return decKernelSum(d, dim)
	case predEngineCSR:
		return decExpansion(d, dim)
	case predFeatures:
		fm := decNestedMap(d)
		if d.Err() != nil {
			return nil
		}
		if in, ok := mapInputs(fm); ok && in != dim {
			d.Fail("feature map takes %d inputs, the model %d", in, dim)
			return nil
		}
		w := d.Matrix("weights", fm.Dim(), -1)
		if d.Err() != nil {
			return nil
		}
		return &LinearFeatures{Map: fm, Weights: w}
	case predMEKA:
		fm := decNestedMap(d)
		if d.Err() != nil {
			return nil
		}
		mk, ok := fm.(*meka.Map)
		if !ok {
			d.Fail("MEKA predictor holds a %T", fm)
			return nil
		}
		p := &MEKAExpansion{MEKA: mk, Beta: d.Matrix("MEKA coefficients", mk.Rank(), -1)}
		if d.Bool() {
			s := &meka.Solution{Alpha: d.Dense(), Method: d.String(), Iterations: d.Ints(),
				Residuals: d.Floats(), Converged: d.Bool(), Indefinite: d.Bool()}
			p.Solution = s
		}
		if d.Err() != nil {
			return nil
		}
		// Expand checks the input columns against the MEKA's own dimension.
		return p
	}
	d.Fail("unknown KRR predictor %q", kind)
	return nil
}

// mapInputs returns the input dimension of a feature map when it is known.
func mapInputs(fm approx.FeatureMap) (int, bool) {
	switch m := fm.(type) {
	case *approx.NystromMap:
		_, d := m.Landmarks.Dims()
		return d, true
	case *approx.RFFMap:
		return m.Omega.RawMatrix().Cols, true
	}
	return 0, false
}

func decNestedMap(d *binfmt.Dec) approx.FeatureMap {
	blob := d.Blob()
	if d.Err() != nil {
		return nil
	}
	fm, err := meka.LoadMap(bytes.NewReader(blob))
	if err != nil {
		d.Fail("nested feature map: %v", err)
		return nil
	}
	if fm.Dim() < 1 {
		d.Fail("feature map of dimension %d", fm.Dim())
		return nil
	}
	return fm
}

// encExpansion writes a KernelExpansion (see encKernelSum).
func encExpansion(e *binfmt.Enc, p *KernelExpansion) error {
	return encKernelSum(e, p.Kernel, p.Centers, p.Coef, p.Workers)
}

// decExpansion reads a KernelExpansion with dense or CSR centers (Falkon's
// predictor, Nyström KRR's), evaluated on the kernel engine.
func decExpansion(d *binfmt.Dec, dim int) *KernelExpansion {
	k, c, coef, w := readKernelSum(d, dim)
	if d.Err() != nil {
		return nil
	}
	return &KernelExpansion{Kernel: k, Centers: c, Coef: coef, Workers: w}
}

// encKernelSum writes a kernel expansion: kernel, centers (dense, or sparse
// for exact KRR fitted on sparse rows), coefficients and workers.
func encKernelSum(e *binfmt.Enc, k kernel.Kernel, centers mat.Matrix, coef *mat.Dense, workers int) error {
	if err := kernelbin.WriteKernel(e, k); err != nil {
		return err
	}
	if err := kernelbin.WriteData(e, centers); err != nil {
		return err
	}
	e.Dense(coef)
	e.Int(workers)
	return nil
}

// decKernelSum reads a kernel expansion: a *KernelExpansion when its centers
// are dense, a *sparseExpansion (as exact KRR's sparse fit builds) when they
// are sparse, so a loaded model predicts on the same path as the saved one.
func decKernelSum(d *binfmt.Dec, dim int) KRRPredictor {
	k, c, coef, w := readKernelSum(d, dim)
	if d.Err() != nil {
		return nil
	}
	if cd, ok := c.(*mat.Dense); ok {
		return &KernelExpansion{Kernel: k, Centers: cd, Coef: coef, Workers: w}
	}
	_, t := coef.Dims()
	return &sparseExpansion{dec: &svmDecision{k: k, sv: c, w: coef, bias: make([]float64, t), workers: w}}
}

// readKernelSum reads what encKernelSum writes: the kernel, the centers
// (dense, or CSR from format version 3), the coefficients and the workers.
func readKernelSum(d *binfmt.Dec, dim int) (kernel.Kernel, mat.Matrix, *mat.Dense, int) {
	k := kernelbin.ReadKernel(d)
	if d.Err() == nil && k == nil {
		d.Fail("kernel expansion without a kernel")
	}
	c := kernelbin.ReadData(d, "centers", -1, dim)
	var mc int
	if d.Err() == nil { // c may be a typed nil after an error
		mc, _ = c.Dims()
	}
	coef := d.Matrix("coefficients", mc, -1)
	w := decNonNeg(d, "workers")
	return k, c, coef, w
}

// Backend kinds inside a saved KRR's configuration.
const (
	backendNone     = ""        // nil: exact (and, before version 4, a backend that was not saved)
	backendNystrom  = "nystrom" // NystromKRR
	backendNyFeat   = "nystrom-features"
	backendRFF      = "rff-features"
	backendMEKA     = "meka"
	backendMEKAFeat = "meka-features"
	// Since format version 4:
	backendExact        = "exact"                 // ExactKRR
	backendFixedFeat    = "fixed-features"        // FeatureRidge on FixedFeatures
	backendFeatDefault  = "feature-ridge-default" // FeatureRidge without a mapper
	backendFeatNotSaved = "features-not-saved"    // FeatureRidge on another mapper
	backendNotSaved     = "not-saved"             // another KRRApprox
)

// encBackend writes a KRR backend with its sampler and options (format
// version 4), after the predictor pred: NystromKRR (M, sampler, given
// Centers), FeatureRidge on NystromFeatures (M, sampler, Nyström options),
// RFFFeatures, MEKAFeatures or FixedFeatures (the fitted map), and MEKAKRR
// (without its CG callback and BasisSolver, which are code). Backends,
// mappers and samplers defined outside this module are written as not saved
// with their type name, and load as NotSaved.
func encBackend(e *binfmt.Enc, a KRRApprox, pred KRRPredictor) error {
	switch b := a.(type) {
	case nil:
		e.String(backendNone)
	case ExactKRR:
		e.String(backendExact)
	case NystromKRR:
		e.String(backendNystrom)
		e.Int(b.M)
		encSampler(e, b.Sampler)
		var pc mat.Matrix
		if p, ok := pred.(*KernelExpansion); ok {
			pc = p.Centers
		}
		return encCenters(e, b.Centers, pc)
	case FeatureRidge:
		return encFeatureRidge(e, b, pred)
	case MEKAKRR:
		e.String(backendMEKA)
		encMEKAKRR(e, &b)
	case *MEKAKRR:
		if b == nil {
			e.String(backendNotSaved)
			e.String(fmt.Sprintf("%T", a))
			return nil
		}
		e.String(backendMEKA)
		encMEKAKRR(e, b)
	case NotSaved:
		e.String(backendNotSaved)
		e.String(b.Type)
	default:
		e.String(backendNotSaved)
		e.String(fmt.Sprintf("%T", a))
	}
	return nil
}

func encFeatureRidge(e *binfmt.Enc, b FeatureRidge, pred KRRPredictor) error {
	switch f := b.Features.(type) {
	case nil:
		e.String(backendFeatDefault)
	case NystromFeatures:
		e.String(backendNyFeat)
		e.Int(f.M)
		encSampler(e, f.Sampler)
		n := f.Nystrom
		e.Int(n.Rank)
		e.Bool(n.QR)
		e.Float(n.Floor)
		e.Int64(n.MaxBytes)
		e.Int(n.Engine.Workers)
		e.Int(n.Engine.BlockRows)
		e.Bool(n.Engine.Float32)
	case RFFFeatures:
		e.String(backendRFF)
		e.Int(f.RFF.Features)
	case MEKAFeatures:
		e.String(backendMEKAFeat)
		encMEKAKRR(e, &f.MEKA)
	case FixedFeatures:
		// The fitted map: the predictor's when it is that map, else nested.
		if lf, ok := pred.(*LinearFeatures); ok && f.Map != nil && lf.Map == f.Map {
			e.String(backendFixedFeat)
			e.Bool(true)
			return nil
		}
		blob, err := meka.MarshalMap(f.Map)
		if err != nil {
			e.String(backendFeatNotSaved)
			e.String(fmt.Sprintf("%T", f.Map))
			return nil
		}
		e.String(backendFixedFeat)
		e.Bool(false)
		e.Blob(blob)
	case NotSaved:
		e.String(backendFeatNotSaved)
		e.String(f.Type)
	default:
		e.String(backendFeatNotSaved)
		e.String(fmt.Sprintf("%T", f))
	}
	return nil
}

func encMEKAKRR(e *binfmt.Enc, b *MEKAKRR) {
	e.Int(b.Rank)
	e.Int(b.Clusters)
	e.Int(b.Landmarks)
	e.Float(b.Rho)
	e.Float(b.Epsilon)
	e.String(string(b.Strategy))
	e.Bool(b.SkipPSD)
	e.String(b.Solver)
	e.Float(b.CG.Tol)
	e.Int(b.CG.MaxIter)
}

func decMEKAKRR(d *binfmt.Dec) *MEKAKRR {
	b := &MEKAKRR{Options: meka.Options{Rank: d.Int(), Clusters: d.Int(), Landmarks: d.Int(), Rho: d.Float(), Epsilon: d.Float(),
		Strategy: meka.RankStrategy(d.String())}, SkipPSD: d.Bool(), Solver: d.String()}
	b.CG.Tol, b.CG.MaxIter = d.Float(), d.Int()
	return b
}

func decNystromOptions(d *binfmt.Dec) approx.Nystrom {
	return approx.Nystrom{Rank: d.Int(), QR: d.Bool(), Floor: d.Float(), MaxBytes: d.Int64(),
		Engine: kernel.Options{Workers: d.Int(), BlockRows: d.Int()}}
}

// decBackend reads a backend written by encBackend (format version 4) for a
// model on dim columns with predictor pred.
func decBackend(d *binfmt.Dec, dim int, pred KRRPredictor) KRRApprox {
	kind := d.String()
	if d.Err() != nil {
		return nil
	}
	switch kind {
	case backendNone:
		return nil
	case backendExact:
		return ExactKRR{}
	case backendNystrom:
		b := NystromKRR{M: d.Int(), Sampler: decSampler(d)}
		var pc mat.Matrix
		if p, ok := pred.(*KernelExpansion); ok {
			pc = p.Centers
		}
		b.Centers = decCenters(d, "nyström centers", dim, pc)
		return b
	case backendNyFeat:
		f := NystromFeatures{M: d.Int(), Sampler: decSampler(d)}
		f.Nystrom = decNystromOptions(d)
		f.Nystrom.Engine.Float32 = d.Bool()
		return FeatureRidge{Features: f}
	case backendRFF:
		return FeatureRidge{Features: RFFFeatures{RFF: approx.RFF{Features: d.Int()}}}
	case backendMEKA:
		return decMEKAKRR(d)
	case backendMEKAFeat:
		return FeatureRidge{Features: MEKAFeatures{MEKA: *decMEKAKRR(d)}}
	case backendFixedFeat:
		if d.Bool() {
			lf, ok := pred.(*LinearFeatures)
			if !ok {
				d.Fail("fixed features refer to a %T predictor", pred)
				return nil
			}
			return FeatureRidge{Features: FixedFeatures{Map: lf.Map}}
		}
		fm := decNestedMap(d)
		if d.Err() != nil {
			return nil
		}
		return FeatureRidge{Features: FixedFeatures{Map: fm}}
	case backendFeatDefault:
		return FeatureRidge{}
	case backendFeatNotSaved:
		return FeatureRidge{Features: NotSaved{Type: d.String()}}
	case backendNotSaved:
		return NotSaved{Type: d.String()}
	}
	d.Fail("unknown KRR backend %q", kind)
	return nil
}

// decBackendV3 reads the backend of a version 2 or 3 file: uniform
// sampling only, and none for exact KRR and for every backend those
// versions could not save.
func decBackendV3(d *binfmt.Dec) KRRApprox {
	kind := d.String()
	switch kind {
	case backendNone:
		return nil
	case backendNystrom:
		return NystromKRR{M: d.Int()}
	case backendNyFeat:
		f := NystromFeatures{M: d.Int()}
		f.Nystrom = decNystromOptions(d)
		return FeatureRidge{Features: f}
	case backendRFF:
		return FeatureRidge{Features: RFFFeatures{RFF: approx.RFF{Features: d.Int()}}}
	case backendMEKA:
		return decMEKAKRR(d)
	case backendMEKAFeat:
		return FeatureRidge{Features: MEKAFeatures{MEKA: *decMEKAKRR(d)}}
	}
	d.Fail("unknown KRR backend %q", kind)
	return nil
}
