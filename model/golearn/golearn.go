// Package golearn adapts Landmark's estimators to golearn
// (github.com/sjwhitworth/golearn), Go's best-known machine-learning library,
// so that they drop into golearn pipelines: base.FixedDataGrid data from
// base.ParseCSVToInstances, train/test splits (base.InstancesTrainTestSplit),
// filters (for example filters.NewFloatConvertFilter to turn categorical
// features into numbers), cross-validation
// (evaluation.GenerateCrossFoldValidationConfusionMatrices), confusion
// matrices and summaries (evaluation.GetSummary), golearn's model files
// (Save/Load) and ensembles (meta.BaggedModel.AddModel, which saves its
// members with SaveWithPrefix).
//
// Classifier wraps any Landmark classifier (KRR or Falkon with Task
// model.Classification, SVM, BKASVM) and satisfies golearn's
// base.Classifier. Regressor wraps a Landmark regressor (KRR, Falkon) for a
// float class attribute; golearn has no regressor interface, so Regressor
// follows its linear_models.LinearRegression: Fit and Predict on
// FixedDataGrids, predictions written into the float class attribute — and it
// has the same methods as Classifier, so it also satisfies base.Classifier.
// Classifier.PredictProba gives class probabilities (golearn has no interface
// for them) when the estimator was fitted with Probability set.
//
// Features must be golearn FloatAttributes or BinaryAttributes (read as 0 and
// 1); categorical features are an error (convert them with a filter first).
// The class attribute must be unique: categorical (its values are the class
// labels, in any order) or float (its numeric values are the labels).
//
// The fitted Landmark estimator is stored in golearn model files in
// Landmark's own versioned, checksummed format (model.Save), so a model saved
// through golearn is also readable by model.Load after extracting it.
package golearn

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/landmark-ml/landmark/model"
	"github.com/sjwhitworth/golearn/base"
	"gonum.org/v1/gonum/mat"
)

// Compile-time checks: both adapters are complete golearn classifiers.
var (
	_ base.Classifier = (*Classifier)(nil)
	_ base.Classifier = (*Regressor)(nil)
)

// Classifier is a golearn base.Classifier backed by a Landmark classifier.
// The zero value is ready for Load; set Estimator before Fit.
type Classifier struct {
	// Estimator is the Landmark classifier to train: *model.KRR or
	// *model.Falkon with Task model.Classification, *model.SVM,
	// *model.BKASVM, or any model.Estimator whose Predict returns the class
	// labels it was fitted with. Fit trains it in place; Load replaces it with
	// the saved, fitted estimator.
	Estimator model.Estimator

	fit *schema
}

// Regressor is Classifier's counterpart for regression with a float class
// attribute, following golearn's LinearRegression conventions. The zero
// value is ready for Load; set Estimator before Fit.
type Regressor struct {
	// Estimator is the Landmark regressor to train: *model.KRR or
	// *model.Falkon with the regression task (their default), *model.SVR, or
	// any model.Estimator predicting real values.
	Estimator model.Estimator

	fit *schema
}

// schema is what an adapter remembers about the training grid: the feature
// attributes (in the column order of the Landmark model), the class
// attribute and, for a categorical class, its values by label.
type schema struct {
	Features []base.Attribute
	Class    base.Attribute
	// Values are the categorical class values; label i is Values[i]. Nil for
	// a float class attribute, whose values are the labels themselves.
	Values []string
}

// Fit trains the Estimator on the grid's feature attributes and its class
// attribute. A failed Fit keeps the previous model, as the estimators do.
func (c *Classifier) Fit(g base.FixedDataGrid) error {
	if err := checkTask(c.Estimator, true); err != nil {
		return err
	}
	s, x, y, err := readTraining(g, true)
	if err != nil {
		return err
	}
	if err := c.Estimator.Fit(context.Background(), x, y); err != nil {
		return fmt.Errorf("golearn: fit %T: %w", c.Estimator, err)
	}
	c.fit = s
	return nil
}

// Predict returns a grid with the class attribute only, holding the
// predicted class of every row of g.
func (c *Classifier) Predict(g base.FixedDataGrid) (base.FixedDataGrid, error) {
	if c.fit == nil || c.Estimator == nil {
		return nil, fmt.Errorf("golearn: predict: %w", model.ErrNotFitted)
	}
	return predict(c.Estimator, c.fit, g)
}

// PredictProba returns class probabilities for the rows of g, one row per
// row and one column per class, and the class values naming the columns (the
// categorical class attribute's values, or the float labels printed with
// strconv's 'g' format). The Estimator must be a model.Classifier fitted with
// Probability set; otherwise the error wraps model.ErrInput.
func (c *Classifier) PredictProba(g base.FixedDataGrid) (*mat.Dense, []string, error) {
	if c.fit == nil || c.Estimator == nil {
		return nil, nil, fmt.Errorf("golearn: predict proba: %w", model.ErrNotFitted)
	}
	cl, ok := c.Estimator.(model.Classifier)
	if !ok {
		return nil, nil, fmt.Errorf("golearn: %w: %T gives no class probabilities", model.ErrInput, c.Estimator)
	}
	if g == nil {
		return nil, nil, fmt.Errorf("golearn: %w: nil data", model.ErrInput)
	}
	x, err := readFeatures(g, c.fit.Features)
	if err != nil {
		return nil, nil, err
	}
	p, err := cl.PredictProba(x)
	if err != nil {
		return nil, nil, fmt.Errorf("golearn: predict proba %T: %w", c.Estimator, err)
	}
	labels := cl.Classes()
	names := make([]string, len(labels))
	for j, l := range labels {
		if c.fit.Values == nil {
			names[j] = strconv.FormatFloat(l, 'g', -1, 64)
			continue
		}
		k := int(l)
		if float64(k) != l || k < 0 || k >= len(c.fit.Values) {
			return nil, nil, fmt.Errorf("golearn: %T has class %v, not a class index of the training data", c.Estimator, l)
		}
		names[j] = c.fit.Values[k]
	}
	return p, names, nil
}

// String describes the adapter and its estimator.
func (c *Classifier) String() string { return describe("Classifier", c.Estimator, c.fit) }

// GetMetadata returns the golearn metadata of the adapter (golearn's
// ensembles and model files ask for it).
func (c *Classifier) GetMetadata() base.ClassifierMetadataV1 {
	return metadata("Classifier", c.Estimator)
}

// Save writes the fitted adapter to a golearn model file.
func (c *Classifier) Save(path string) error {
	return saveFile(path, c.GetMetadata(), c.SaveWithPrefix)
}

// Load reads a golearn model file written by Save.
func (c *Classifier) Load(path string) error {
	return loadFile(path, c.LoadWithPrefix)
}

// SaveWithPrefix writes the fitted adapter under prefix of a golearn model
// file (used by Save and by golearn ensembles).
func (c *Classifier) SaveWithPrefix(w *base.ClassifierSerializer, prefix string) error {
	return save(w, prefix, c.GetMetadata(), c.Estimator, c.fit)
}

// LoadWithPrefix reads what SaveWithPrefix wrote, replacing Estimator.
func (c *Classifier) LoadWithPrefix(r *base.ClassifierDeserializer, prefix string) error {
	est, s, err := load(r, prefix, "Classifier")
	if err != nil {
		return err
	}
	if err := checkTask(est, true); err != nil {
		return err
	}
	c.Estimator, c.fit = est, s
	return nil
}

// Fit trains the Estimator on the grid's feature attributes and its float
// class attribute. A failed Fit keeps the previous model.
func (m *Regressor) Fit(g base.FixedDataGrid) error {
	if err := checkTask(m.Estimator, false); err != nil {
		return err
	}
	s, x, y, err := readTraining(g, false)
	if err != nil {
		return err
	}
	if err := m.Estimator.Fit(context.Background(), x, y); err != nil {
		return fmt.Errorf("golearn: fit %T: %w", m.Estimator, err)
	}
	m.fit = s
	return nil
}

// Predict returns a grid with the class attribute only, holding the
// predicted value of every row of g.
func (m *Regressor) Predict(g base.FixedDataGrid) (base.FixedDataGrid, error) {
	if m.fit == nil || m.Estimator == nil {
		return nil, fmt.Errorf("golearn: predict: %w", model.ErrNotFitted)
	}
	return predict(m.Estimator, m.fit, g)
}

// String describes the adapter and its estimator.
func (m *Regressor) String() string { return describe("Regressor", m.Estimator, m.fit) }

// GetMetadata returns the golearn metadata of the adapter.
func (m *Regressor) GetMetadata() base.ClassifierMetadataV1 {
	return metadata("Regressor", m.Estimator)
}

// Save writes the fitted adapter to a golearn model file.
func (m *Regressor) Save(path string) error {
	return saveFile(path, m.GetMetadata(), m.SaveWithPrefix)
}

// Load reads a golearn model file written by Save.
func (m *Regressor) Load(path string) error {
	return loadFile(path, m.LoadWithPrefix)
}

// SaveWithPrefix writes the fitted adapter under prefix of a golearn model file.
func (m *Regressor) SaveWithPrefix(w *base.ClassifierSerializer, prefix string) error {
	return save(w, prefix, m.GetMetadata(), m.Estimator, m.fit)
}

// LoadWithPrefix reads what SaveWithPrefix wrote, replacing Estimator.
func (m *Regressor) LoadWithPrefix(r *base.ClassifierDeserializer, prefix string) error {
	est, s, err := load(r, prefix, "Regressor")
	if err != nil {
		return err
	}
	if err := checkTask(est, false); err != nil {
		return err
	}
	m.Estimator, m.fit = est, s
	return nil
}

// checkTask rejects estimators configured for the other task.
func checkTask(est model.Estimator, classify bool) error {
	if est == nil {
		return fmt.Errorf("golearn: %w: no Estimator set", model.ErrInput)
	}
	var task model.Task
	switch e := est.(type) {
	case *model.KRR:
		task = e.Task
	case *model.Falkon:
		task = e.Task
	case *model.SVM, *model.BKASVM:
		task = model.Classification
	case *model.SVR:
		task = model.Regression
	default:
		return nil
	}
	isClass := task == model.Classification || task == "binary" || task == "multiclass"
	switch {
	case classify && !isClass:
		return fmt.Errorf("golearn: %w: %T has task %q; a Classifier needs Task: model.Classification", model.ErrInput, est, task)
	case !classify && isClass:
		return fmt.Errorf("golearn: %w: %T is a classifier; a Regressor needs a regression estimator", model.ErrInput, est)
	}
	return nil
}

// readTraining extracts the schema, features and labels of a training grid.
func readTraining(g base.FixedDataGrid, classify bool) (*schema, *mat.Dense, []float64, error) {
	if g == nil {
		return nil, nil, nil, fmt.Errorf("golearn: %w: nil data", model.ErrInput)
	}
	classes := g.AllClassAttributes()
	if len(classes) != 1 {
		return nil, nil, nil, fmt.Errorf("golearn: %w: need exactly one class attribute, the data has %d", model.ErrInput, len(classes))
	}
	s := &schema{Class: classes[0]}
	switch a := s.Class.(type) {
	case *base.CategoricalAttribute:
		if !classify {
			return nil, nil, nil, fmt.Errorf("golearn: %w: class attribute %q is categorical; a Regressor needs a float class attribute", model.ErrInput, a.GetName())
		}
		s.Values = slices.Clone(a.GetValues())
	case *base.FloatAttribute:
	default:
		return nil, nil, nil, fmt.Errorf("golearn: %w: class attribute %q is %T, want categorical or float", model.ErrInput, s.Class.GetName(), s.Class)
	}
	for _, a := range featureAttributes(g) {
		switch a.(type) {
		case *base.FloatAttribute, *base.BinaryAttribute:
			s.Features = append(s.Features, a)
		default:
			return nil, nil, nil, fmt.Errorf("golearn: %w: feature %q is %T; convert it to numbers first (for example filters.NewFloatConvertFilter)",
				model.ErrInput, a.GetName(), a)
		}
	}
	if len(s.Features) == 0 {
		return nil, nil, nil, fmt.Errorf("golearn: %w: no feature attributes", model.ErrInput)
	}
	x, err := readFeatures(g, s.Features)
	if err != nil {
		return nil, nil, nil, err
	}
	spec, err := g.GetAttribute(s.Class)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("golearn: class attribute: %w", err)
	}
	_, n := g.Size()
	y := make([]float64, n)
	for i := range y {
		b := g.Get(spec, i)
		if s.Values != nil {
			if len(b) != 8 {
				return nil, nil, nil, fmt.Errorf("golearn: %w: row %d has no class", model.ErrInput, i)
			}
			y[i] = float64(base.UnpackBytesToU64(b))
			continue
		}
		if len(b) != 8 {
			return nil, nil, nil, fmt.Errorf("golearn: %w: row %d has no class value", model.ErrInput, i)
		}
		y[i] = base.UnpackBytesToFloat(b)
	}
	return s, x, y, nil
}

// featureAttributes returns the non-class attributes of g in the grid's
// column order. (base.NonClassAttributes goes through a map and returns them
// in random order, which would permute the model's columns from one Fit to
// the next and break reproducibility.)
func featureAttributes(g base.FixedDataGrid) []base.Attribute {
	classes := g.AllClassAttributes()
	var out []base.Attribute
	for _, a := range g.AllAttributes() {
		if !slices.ContainsFunc(classes, a.Equals) {
			out = append(out, a)
		}
	}
	return out
}

// readFeatures reads the given attributes of every row of g, in that order.
func readFeatures(g base.FixedDataGrid, attrs []base.Attribute) (*mat.Dense, error) {
	_, n := g.Size()
	if n == 0 {
		return nil, fmt.Errorf("golearn: %w: no rows", model.ErrInput)
	}
	specs := make([]base.AttributeSpec, len(attrs))
	for j, a := range attrs {
		s, err := g.GetAttribute(a)
		if err != nil {
			return nil, fmt.Errorf("golearn: %w: the data has no attribute %q the model was trained on", model.ErrInput, a.GetName())
		}
		specs[j] = s
	}
	x := mat.NewDense(n, len(attrs), nil)
	for i := 0; i < n; i++ {
		row := x.RawRowView(i)
		for j, s := range specs {
			b := g.Get(s, i)
			switch attrs[j].(type) {
			case *base.BinaryAttribute:
				if len(b) > 0 && b[0]&1 != 0 {
					row[j] = 1
				}
			default:
				if len(b) != 8 {
					return nil, fmt.Errorf("golearn: %w: row %d, attribute %q: missing value", model.ErrInput, i, attrs[j].GetName())
				}
				v := base.UnpackBytesToFloat(b)
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("golearn: %w: row %d, attribute %q: %v", model.ErrInput, i, attrs[j].GetName(), v)
				}
				row[j] = v
			}
		}
	}
	return x, nil
}

// predict runs the estimator on g's features and writes the result into a
// golearn prediction vector (the class attribute of g).
func predict(est model.Estimator, s *schema, g base.FixedDataGrid) (base.FixedDataGrid, error) {
	if g == nil {
		return nil, fmt.Errorf("golearn: %w: nil data", model.ErrInput)
	}
	x, err := readFeatures(g, s.Features)
	if err != nil {
		return nil, err
	}
	pred, err := est.Predict(x)
	if err != nil {
		return nil, fmt.Errorf("golearn: predict %T: %w", est, err)
	}
	classes := g.AllClassAttributes()
	var ret base.UpdatableDataGrid
	if len(classes) == 1 && sameKind(classes[0], s.Class) {
		ret = base.GeneratePredictionVector(g)
	} else {
		// Unlabelled data, or a class attribute of another kind than in
		// training: predict into a fresh copy of the training class attribute.
		d := base.NewDenseInstances()
		a := cloneAttribute(s)
		d.AddAttribute(a)
		if err := d.AddClassAttribute(a); err != nil {
			return nil, err
		}
		_, n := g.Size()
		if err := d.Extend(n); err != nil {
			return nil, err
		}
		ret = d
	}
	cls := ret.AllClassAttributes()[0]
	spec, err := ret.GetAttribute(cls)
	if err != nil {
		return nil, err
	}
	for i, p := range pred {
		if s.Values == nil {
			ret.Set(spec, i, base.PackFloatToBytes(p))
			continue
		}
		k := int(p)
		if float64(k) != p || k < 0 || k >= len(s.Values) {
			return nil, fmt.Errorf("golearn: %T predicted %v, not a class index of the training data", est, p)
		}
		ret.Set(spec, i, cls.GetSysValFromString(s.Values[k]))
	}
	return ret, nil
}

// sameKind reports whether a and b are both categorical or both float.
func sameKind(a, b base.Attribute) bool {
	_, ca := a.(*base.CategoricalAttribute)
	_, cb := b.(*base.CategoricalAttribute)
	_, fa := a.(*base.FloatAttribute)
	_, fb := b.(*base.FloatAttribute)
	return ca == cb && fa == fb
}

// cloneAttribute returns a new attribute like the schema's class attribute.
func cloneAttribute(s *schema) base.Attribute {
	if s.Values == nil {
		return base.NewFloatAttribute(s.Class.GetName())
	}
	a := base.NewCategoricalAttribute()
	a.SetName(s.Class.GetName())
	for _, v := range s.Values {
		a.GetSysValFromString(v)
	}
	return a
}

func describe(kind string, est model.Estimator, s *schema) string {
	if s == nil {
		return fmt.Sprintf("landmark.%s(%T, unfitted)", kind, est)
	}
	cls := "float class " + strconv.Quote(s.Class.GetName())
	if s.Values != nil {
		cls = fmt.Sprintf("class %q with %d values", s.Class.GetName(), len(s.Values))
	}
	return fmt.Sprintf("landmark.%s(%T, %d features, %s)", kind, est, len(s.Features), cls)
}
