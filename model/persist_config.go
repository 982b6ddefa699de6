package model

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/internal/binfmt"
	"github.com/landmark-ml/landmark/internal/kernelbin"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// ErrNotSaved is wrapped by the error of refitting a loaded estimator whose
// sampler or KRR backend could not be saved (see NotSaved).
var ErrNotSaved = errors.New("not saved with the model")

// NotSaved stands, in an estimator read by Load, for a sampler, KRR backend
// or feature mapper that Save could not write: a type defined outside
// Landmark (Type names it, as fmt's %T does). The loaded estimator predicts
// as the saved one did, but refitting it fails with an error wrapping
// ErrNotSaved until the field is set again, so that a refit never silently
// uses another algorithm. Saving the loaded estimator again keeps the marker.
type NotSaved struct {
	// Type is the Go type of the configuration that was not saved.
	Type string
}

var (
	_ approx.Sampler = NotSaved{}
	_ KRRApprox      = NotSaved{}
	_ FeatureMapper  = NotSaved{}
)

// err is the error of using n as what; the estimator's Fit adds its
// "model: …" context.
func (n NotSaved) err(what string) error {
	return fmt.Errorf("%s %s was %w: set it again before refitting", what, n.Type, ErrNotSaved)
}

// Sample implements approx.Sampler: it returns an error wrapping ErrNotSaved.
func (n NotSaved) Sample(context.Context, mat.Matrix, kernel.Kernel, int, *rand.Rand) (*approx.Landmarks, error) {
	return nil, n.err("sampler")
}

// FitKRR implements KRRApprox: it returns an error wrapping ErrNotSaved.
func (n NotSaved) FitKRR(context.Context, KRRProblem) (KRRPredictor, KRRInfo, error) {
	return nil, KRRInfo{}, n.err("KRR backend")
}

// FitMap implements FeatureMapper: it returns an error wrapping ErrNotSaved.
func (n NotSaved) FitMap(context.Context, mat.Matrix, kernel.Kernel, *rand.Rand) (approx.FeatureMap, error) {
	return nil, n.err("feature mapper")
}

// Unsaved lists the configuration fields of est that hold a NotSaved
// marker, as "Approx.Sampler: mypkg.Sampler" (the field path, then the type
// that was not saved): the fields to set again before refitting an
// estimator read by Load. It is empty when est refits as it was saved.
func Unsaved(est Estimator) []string {
	var out []string
	add := func(field string, v any) {
		if n, ok := v.(NotSaved); ok {
			out = append(out, field+": "+n.Type)
		}
	}
	switch m := est.(type) {
	case *KRR:
		add("Approx", m.Approx)
		switch b := m.Approx.(type) {
		case NystromKRR:
			add("Approx.Sampler", b.Sampler)
		case FeatureRidge:
			add("Approx.Features", b.Features)
			if f, ok := b.Features.(NystromFeatures); ok {
				add("Approx.Features.Sampler", f.Sampler)
			}
		}
	case *Falkon:
		add("Sampler", m.Sampler)
	}
	return out
}

// encCalib writes the probability setting and PredictProba's temperature
// (format version 4).
func encCalib(e *binfmt.Enc, probability bool, t *temperature) {
	e.Bool(probability)
	e.Bool(t != nil)
	if t != nil {
		e.Float(t.beta)
	}
}

// decCalib reads what encCalib writes; the temperature must be finite and
// positive and only a classifier has one.
func decCalib(d *binfmt.Dec, task Task) (bool, *temperature) {
	probability := d.Bool()
	if !d.Bool() {
		return probability, nil
	}
	beta := d.Float()
	if d.Err() == nil && (!(beta > 0) || math.IsInf(beta, 0) || task != Classification) {
		d.Fail("probability temperature %g for task %s", beta, task)
	}
	return probability, &temperature{beta}
}

// encSigmoids writes Platt sigmoids (nil: none).
func encSigmoids(e *binfmt.Enc, s []sigmoid) {
	e.Bool(s != nil)
	if s != nil {
		e.Uint(uint64(len(s)))
		for _, g := range s {
			e.Float(g.a)
			e.Float(g.b)
		}
	}
}

// decSigmoids reads what encSigmoids writes: none, or one finite sigmoid
// per decision column.
func decSigmoids(d *binfmt.Dec, cols int) []sigmoid {
	if !d.Bool() {
		return nil
	}
	n := d.Count("Platt sigmoids", 16)
	if d.Err() == nil && n != cols {
		d.Fail("%d Platt sigmoids for %d decision columns", n, cols)
	}
	if d.Err() != nil {
		return nil
	}
	s := make([]sigmoid, n)
	for i := range s {
		s[i] = sigmoid{a: d.Float(), b: d.Float()}
		if math.IsNaN(s[i].a) || math.IsInf(s[i].a, 0) || math.IsNaN(s[i].b) || math.IsInf(s[i].b, 0) {
			d.Fail("Platt sigmoid %d not finite", i)
			return nil
		}
	}
	return s
}

// Sampler kinds in a saved configuration (format version 4): the names of
// experiments' sampler table, with rls-accelerated as rls with Accelerated.
const (
	samplerDefault   = "" // nil: the estimator's default, uniform
	samplerUniform   = "uniform"
	samplerBLESS     = "bless"
	samplerBLESSR    = "bless-r"
	samplerClustered = "clustered"
	samplerKMeans    = "kmeans"
	samplerExactRLS  = "exact-rls"
	samplerRLS       = "rls"
	samplerNotSaved  = "not-saved"
)

// valueOf returns *p for a non-nil pointer sampler of this package's known
// types, so that &approx.BLESS{} is saved as approx.BLESS{} (and loaded as
// the value, which samples the same way).
func valueOf(s approx.Sampler) approx.Sampler {
	switch p := s.(type) {
	case *approx.Uniform:
		if p != nil {
			return *p
		}
	case *approx.BLESS:
		if p != nil {
			return *p
		}
	case *approx.BLESSR:
		if p != nil {
			return *p
		}
	case *approx.RandomizedClustered:
		if p != nil {
			return *p
		}
	case *approx.KMeansCenters:
		if p != nil {
			return *p
		}
	case *approx.ExactRLS:
		if p != nil {
			return *p
		}
	case *approx.RecursiveRLS:
		if p != nil {
			return *p
		}
	}
	return s
}

// encSampler writes a sampler and its options: every exported field but the
// Progress callbacks (code, not settings). Other samplers are written as
// not saved, with their type name.
func encSampler(e *binfmt.Enc, s approx.Sampler) {
	switch s := valueOf(s).(type) {
	case nil:
		e.String(samplerDefault)
	case approx.Uniform:
		e.String(samplerUniform)
	case approx.BLESS:
		e.String(samplerBLESS)
		encBLESS(e, s)
	case approx.BLESSR:
		e.String(samplerBLESSR)
		encBLESS(e, approx.BLESS(s))
	case approx.RandomizedClustered:
		e.String(samplerClustered)
		e.Int(s.Dim)
		e.Float(s.Compression)
		e.Int(s.MaxIter)
		e.Int(s.Subsample)
		e.Float(s.Tol)
		e.Int64(s.MaxBytes)
	case approx.KMeansCenters:
		e.String(samplerKMeans)
		e.Int(s.MaxIter)
		e.Int(s.Subsample)
		e.Float(s.Tol)
		e.Int64(s.MaxBytes)
	case approx.ExactRLS:
		e.String(samplerExactRLS)
		e.Float(s.Ridge)
	case approx.RecursiveRLS:
		e.String(samplerRLS)
		e.Float(s.Delta)
		e.Float(s.Oversample)
		e.Bool(s.Accelerated)
		e.Int(s.Workers)
	case NotSaved:
		e.String(samplerNotSaved)
		e.String(s.Type)
	default:
		e.String(samplerNotSaved)
		e.String(fmt.Sprintf("%T", s))
	}
}

func encBLESS(e *binfmt.Enc, s approx.BLESS) {
	for _, v := range []float64{s.Lambda, s.Lambda0, s.Q, s.Q1, s.Q2} {
		e.Float(v)
	}
	e.Int(s.Workers)
}

func decBLESS(d *binfmt.Dec) approx.BLESS {
	return approx.BLESS{Lambda: d.Float(), Lambda0: d.Float(), Q: d.Float(), Q1: d.Float(), Q2: d.Float(),
		Workers: decNonNeg(d, "sampler workers")}
}

// decSampler reads a sampler written by encSampler. Option values are
// checked by the sampler when it runs, as for a sampler built in code.
func decSampler(d *binfmt.Dec) approx.Sampler {
	kind := d.String()
	if d.Err() != nil {
		return nil
	}
	var s approx.Sampler
	switch kind {
	case samplerDefault:
		return nil
	case samplerUniform:
		s = approx.Uniform{}
	case samplerBLESS:
		s = decBLESS(d)
	case samplerBLESSR:
		s = approx.BLESSR(decBLESS(d))
	case samplerClustered:
		s = approx.RandomizedClustered{Dim: d.Int(), Compression: d.Float(), MaxIter: d.Int(), Subsample: d.Int(),
			Tol: d.Float(), MaxBytes: d.Int64()}
	case samplerKMeans:
		s = approx.KMeansCenters{MaxIter: d.Int(), Subsample: d.Int(), Tol: d.Float(), MaxBytes: d.Int64()}
	case samplerExactRLS:
		s = approx.ExactRLS{Ridge: d.Float()}
	case samplerRLS:
		s = approx.RecursiveRLS{Delta: d.Float(), Oversample: d.Float(), Accelerated: d.Bool(), Workers: decNonNeg(d, "sampler workers")}
	case samplerNotSaved:
		s = NotSaved{Type: d.String()}
	default:
		d.Fail("unknown sampler %q", kind)
	}
	if d.Err() != nil {
		return nil
	}
	return s
}

// How given centers (Falkon's Centers, WarmStart's centers, NystromKRR's
// Centers) are saved: none, the fitted predictor's centers (the same
// matrix, so written once), or as data.
const (
	centersNone      = 0
	centersPredictor = 1
	centersData      = 2
)

// encCenters writes given centers c; pred are the fitted predictor's.
func encCenters(e *binfmt.Enc, c, pred mat.Matrix) error {
	switch {
	case c == nil:
		e.Uint(centersNone)
	case sameMatrix(c, pred):
		e.Uint(centersPredictor)
	default:
		e.Uint(centersData)
		return kernelbin.WriteData(e, c)
	}
	return nil
}

// decCenters reads centers written by encCenters for a model on dim
// columns whose predictor's centers are pred. A reference to the
// predictor's centers reads as a copy, so that changing one does not
// change the other.
func decCenters(d *binfmt.Dec, what string, dim int, pred mat.Matrix) mat.Matrix {
	switch kind := d.Uint(); {
	case d.Err() != nil:
		return nil
	case kind == centersNone:
		return nil
	case kind == centersPredictor:
		if pred == nil {
			d.Fail("%s refer to a predictor without centers", what)
			return nil
		}
		return cloneMatrix(pred)
	case kind == centersData:
		return kernelbin.ReadData(d, what, -1, dim)
	default:
		d.Fail("%s: kind %d", what, kind)
		return nil
	}
}

// sameMatrix reports whether a and b hold the same entries bit for bit in
// the same form: both *mat.Dense, or both kernel.Sparse with the same arrays.
func sameMatrix(a, b mat.Matrix) bool {
	if a == nil || b == nil {
		return false
	}
	ra, ca := a.Dims()
	rb, cb := b.Dims()
	if ra != rb || ca != cb {
		return false
	}
	switch a := a.(type) {
	case *mat.Dense:
		b, ok := b.(*mat.Dense)
		if !ok {
			return false
		}
		for i := range ra {
			if !sameBits(a.RawRowView(i)[:ca], b.RawRowView(i)[:cb]) {
				return false
			}
		}
		return true
	case kernel.Sparse:
		b, ok := b.(kernel.Sparse)
		if !ok {
			return false
		}
		pa, ia, va := a.CSR()
		pb, ib, vb := b.CSR()
		for i := range ra {
			la, ha, lb, hb := pa[i], pa[i+1], pb[i], pb[i+1]
			if !slices.Equal(ia[la:ha], ib[lb:hb]) || !sameBits(va[la:ha], vb[lb:hb]) {
				return false
			}
		}
		return true
	}
	return false
}

// sameBits reports whether a and b are equal bit for bit.
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// cloneMatrix copies a dense matrix or sparse rows, keeping the form.
func cloneMatrix(m mat.Matrix) mat.Matrix {
	if s, ok := m.(kernel.Sparse); ok {
		r, c := s.Dims()
		p, ix, v := s.CSR()
		p0 := p[0]
		np := make([]int, r+1)
		for i := range np {
			np[i] = p[i] - p0
		}
		return kernel.NewCSRRows(c, np, slices.Clone(ix[p0:p[r]]), slices.Clone(v[p0:p[r]]))
	}
	return mat.DenseCopyOf(m)
}
