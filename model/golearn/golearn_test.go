package golearn

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"github.com/sjwhitworth/golearn/base"
	"github.com/sjwhitworth/golearn/evaluation"
	"github.com/sjwhitworth/golearn/filters"
	"github.com/sjwhitworth/golearn/meta"
	"gonum.org/v1/gonum/mat"
)

// heart_scale: 270 patients, 13 features scaled to [−1, 1], labels ±1 with
// 150 of class −1: always predicting the majority is right 55.6% of the time.
// golearn's folds are random (its global math/rand cannot be seeded), so the
// floor must hold for any folds. Over 150 runs of
// TestCrossValidationMatchesDirect the 5-fold means were svm 0.825 (sd
// 0.008), bkasvm 0.812 (0.010), krr 0.807 (0.013) and falkon 0.803 (0.016,
// lowest 0.763): a floor of 0.75 was 3.3 sd below falkon's mean, and 0.72 is
// 5 sd below it while still far above chance.
const (
	heartChance = 150.0 / 270
	heartFloor  = 0.72
)

func heart(t testing.TB) *datasets.Dataset {
	t.Helper()
	d, err := datasets.Load("heart_scale")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// classifiers are the Landmark classifiers the adapter is checked with; γ =
// 1/13 is LIBSVM's default 1/d for heart_scale.
func classifiers() []namedEstimator {
	g := kernel.Gaussian{Gamma: 1.0 / 13}
	return []namedEstimator{
		{"krr", func() model.Estimator { return &model.KRR{Kernel: g, Lambda: 1e-3, Task: model.Classification} }},
		{"falkon", func() model.Estimator {
			return &model.Falkon{Kernel: g, Lambda: 1e-4, M: 60, Seed: 1, Task: model.Classification}
		}},
		{"svm", func() model.Estimator { return &model.SVM{Kernel: g, C: 1} }},
		{"bkasvm", func() model.Estimator { return &model.BKASVM{Kernel: g, C: 1, Clusters: 2, Seed: 1} }},
	}
}

type namedEstimator struct {
	name string
	mk   func() model.Estimator
}

// recorder passes everything to a Classifier and keeps the grids of every
// Fit and Predict call, so a test can replay golearn's random folds.
type recorder struct {
	*Classifier
	train, test, pred []base.FixedDataGrid
}

func (r *recorder) Fit(g base.FixedDataGrid) error {
	r.train = append(r.train, g)
	return r.Classifier.Fit(g)
}

func (r *recorder) Predict(g base.FixedDataGrid) (base.FixedDataGrid, error) {
	p, err := r.Classifier.Predict(g)
	r.test, r.pred = append(r.test, g), append(r.pred, p)
	return p, err
}

// gridXY reads a grid the way a user of golearn would, independently of the
// adapter: float features through Get, class strings through base.GetClass.
func gridXY(t *testing.T, g base.FixedDataGrid) (*mat.Dense, []float64) {
	t.Helper()
	var attrs []base.Attribute
	for _, a := range g.AllAttributes() {
		if !a.Equals(g.AllClassAttributes()[0]) {
			attrs = append(attrs, a)
		}
	}
	_, n := g.Size()
	x := mat.NewDense(n, len(attrs), nil)
	y := make([]float64, n)
	for j, a := range attrs {
		s, err := g.GetAttribute(a)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			x.Set(i, j, base.UnpackBytesToFloat(g.Get(s, i)))
		}
	}
	if f, ok := g.AllClassAttributes()[0].(*base.FloatAttribute); ok {
		s, _ := g.GetAttribute(f)
		for i := range y {
			y[i] = base.UnpackBytesToFloat(g.Get(s, i))
		}
		return x, y
	}
	for i := range y {
		v, err := strconv.ParseFloat(base.GetClass(g, i), 64)
		if err != nil {
			t.Fatal(err)
		}
		y[i] = v
	}
	return x, y
}

// golearn's cross-validation through the adapter gives accuracy well above
// chance, and on each of its (random) folds exactly the accuracy and the
// predictions of the same Landmark estimator called directly on that fold.
func TestCrossValidationMatchesDirect(t *testing.T) {
	data, err := Instances(heart(t), model.Classification)
	if err != nil {
		t.Fatal(err)
	}
	for _, ne := range classifiers() {
		name, mk := ne.name, ne.mk
		t.Run(name, func(t *testing.T) {
			rec := &recorder{Classifier: &Classifier{Estimator: mk()}}
			cms, err := evaluation.GenerateCrossFoldValidationConfusionMatrices(data, rec, 5)
			if err != nil {
				t.Fatal(err)
			}
			mean, _ := evaluation.GetCrossValidatedMetric(cms, evaluation.GetAccuracy)
			t.Logf("%s: 5-fold accuracy %.3f (chance %.3f)", name, mean, heartChance)
			if mean < heartFloor {
				t.Errorf("cross-validated accuracy %.3f, want ≥ %.2f", mean, heartFloor)
			}
			if len(rec.train) != 5 || len(rec.test) != 5 {
				t.Fatalf("recorded %d fits, %d predictions", len(rec.train), len(rec.test))
			}
			for f := range cms {
				xtr, ytr := gridXY(t, rec.train[f])
				xte, yte := gridXY(t, rec.test[f])
				est := mk()
				if err := est.Fit(context.Background(), xtr, ytr); err != nil {
					t.Fatal(err)
				}
				direct, err := est.Predict(xte)
				if err != nil {
					t.Fatal(err)
				}
				correct := 0
				for i, p := range direct {
					if p == yte[i] {
						correct++
					}
					got, _ := strconv.ParseFloat(base.GetClass(rec.pred[f], i), 64)
					if got != p {
						t.Fatalf("fold %d row %d: adapter predicts %v, direct %v", f, i, got, p)
					}
				}
				if acc, want := evaluation.GetAccuracy(cms[f]), float64(correct)/float64(len(direct)); acc != want {
					t.Errorf("fold %d: golearn accuracy %v, direct %v", f, acc, want)
				}
			}
		})
	}
}

// A CSV written by the datasets package and read by golearn's own parser
// (float class attribute), split by golearn, through the adapter.
func TestCSVSplitPipeline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "heart.csv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := datasets.WriteCSV(f, heart(t), ','); err != nil {
		t.Fatal(err)
	}
	f.Close()
	inst, err := base.ParseCSVToInstances(path, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := inst.AllClassAttributes()[0].(*base.FloatAttribute); !ok {
		t.Fatalf("class attribute is %T, want a float one", inst.AllClassAttributes()[0])
	}
	// golearn's split draws from the global math/rand, which cannot be
	// seeded: each run tests on another ≈ 81 rows. The adapter must give
	// exactly the predictions of the same estimator fitted directly on that
	// split (which cannot depend on luck); the accuracy only has to be
	// clearly above chance: at the ≈ 0.83 that RBF SVMs reach here, its
	// standard deviation on 81 rows is √(0.83·0.17/81) ≈ 0.042, so
	// splitFloor = 0.62 is 5 of them below (a single split once gave 0.735,
	// under the 0.75 floor this test used to share with the 270-row
	// cross-validated means).
	const splitFloor = 0.62
	train, test := base.InstancesTrainTestSplit(inst, 0.3)
	c := &Classifier{Estimator: &model.SVM{Kernel: kernel.Gaussian{Gamma: 1.0 / 13}}}
	if err := c.Fit(train); err != nil {
		t.Fatal(err)
	}
	pred, err := c.Predict(test)
	if err != nil {
		t.Fatal(err)
	}
	xtr, ytr := gridXY(t, train)
	xte, _ := gridXY(t, test)
	direct := &model.SVM{Kernel: kernel.Gaussian{Gamma: 1.0 / 13}}
	if err := direct.Fit(context.Background(), xtr, ytr); err != nil {
		t.Fatal(err)
	}
	want, err := direct.Predict(xte)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range want {
		if got, _ := strconv.ParseFloat(base.GetClass(pred, i), 64); got != w {
			t.Fatalf("row %d: adapter predicts %v, the SVM fitted directly on the split %v", i, got, w)
		}
	}
	cm, err := evaluation.GetConfusionMatrix(test, pred)
	if err != nil {
		t.Fatal(err)
	}
	if acc := evaluation.GetAccuracy(cm); acc < splitFloor {
		t.Errorf("accuracy %.3f on golearn's split, want ≥ %.2f\n%s", acc, splitFloor, evaluation.GetSummary(cm))
	}
	if s := evaluation.GetSummary(cm); len(s) == 0 {
		t.Error("empty summary")
	}
}

// Categorical features are refused with a hint; golearn's FloatConvertFilter
// turns them into numbers the adapter accepts.
func TestFilterPipeline(t *testing.T) {
	d := heart(t)
	n, dim := d.X.Dims()
	inst := base.NewDenseInstances()
	specs := make([]base.AttributeSpec, dim)
	var sexAttr *base.CategoricalAttribute
	for j := range dim {
		if j == 1 { // heart_scale feature 2 is sex, scaled to ±1
			sexAttr = base.NewCategoricalAttribute()
			sexAttr.SetName("sex")
			sexAttr.GetSysValFromString("f")
			sexAttr.GetSysValFromString("m")
			specs[j] = inst.AddAttribute(sexAttr)
			continue
		}
		specs[j] = inst.AddAttribute(base.NewFloatAttribute("x" + strconv.Itoa(j+1)))
	}
	class := base.NewCategoricalAttribute()
	class.SetName("disease")
	cs := inst.AddAttribute(class)
	if err := inst.AddClassAttribute(class); err != nil {
		t.Fatal(err)
	}
	if err := inst.Extend(n); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		for j, s := range specs {
			if j == 1 {
				v := "f"
				if d.X.At(i, j) > 0 {
					v = "m"
				}
				inst.Set(s, i, sexAttr.GetSysValFromString(v))
				continue
			}
			inst.Set(s, i, base.PackFloatToBytes(d.X.At(i, j)))
		}
		label := "absent"
		if d.Y[i] > 0 {
			label = "present"
		}
		inst.Set(cs, i, class.GetSysValFromString(label))
	}
	c := &Classifier{Estimator: &model.SVM{Kernel: kernel.Gaussian{Gamma: 1.0 / 13}}}
	if err := c.Fit(inst); !errors.Is(err, model.ErrInput) {
		t.Fatalf("categorical feature: err = %v, want ErrInput", err)
	}
	filt := filters.NewFloatConvertFilter()
	if err := filt.AddAttribute(sexAttr); err != nil {
		t.Fatal(err)
	}
	if err := filt.Train(); err != nil {
		t.Fatal(err)
	}
	filtered := base.NewLazilyFilteredInstances(inst, filt)
	cms, err := evaluation.GenerateCrossFoldValidationConfusionMatrices(filtered, c, 3)
	if err != nil {
		t.Fatal(err)
	}
	mean, _ := evaluation.GetCrossValidatedMetric(cms, evaluation.GetAccuracy)
	if mean < heartFloor {
		t.Errorf("accuracy %.3f with the filtered categorical feature, want ≥ %.2f", mean, heartFloor)
	}
	// The predictions use the class strings.
	pred, err := c.Predict(filtered)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		if s := base.GetClass(pred, i); s != "absent" && s != "present" {
			t.Fatalf("predicted class %q", s)
		}
	}
}

// Data without a class attribute, or with one of another kind than in
// training, gets predictions in a copy of the training class attribute.
func TestPredictUnlabelled(t *testing.T) {
	d := heart(t)
	data, err := Instances(d, model.Classification)
	if err != nil {
		t.Fatal(err)
	}
	c := &Classifier{Estimator: &model.SVM{Kernel: kernel.Gaussian{Gamma: 1.0 / 13}}}
	if err := c.Fit(data); err != nil {
		t.Fatal(err)
	}
	want, err := c.Predict(data)
	if err != nil {
		t.Fatal(err)
	}
	floatClass, err := Instances(d, model.Regression) // same features, float class
	if err != nil {
		t.Fatal(err)
	}
	noClass := base.NewInstancesViewFromAttrs(floatClass, featureAttributes(floatClass))
	if n := len(noClass.AllClassAttributes()); n != 0 {
		t.Fatalf("view has %d class attributes", n)
	}
	for _, g := range []base.FixedDataGrid{floatClass, noClass} {
		got, err := c.Predict(g)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := got.AllClassAttributes()[0].(*base.CategoricalAttribute); !ok {
			t.Fatalf("prediction class attribute is %T", got.AllClassAttributes()[0])
		}
		sameClasses(t, got, want)
	}
}

func sameClasses(t *testing.T, a, b base.FixedDataGrid) {
	t.Helper()
	_, n := a.Size()
	if _, m := b.Size(); m != n {
		t.Fatalf("%d vs %d rows", n, m)
	}
	for i := range n {
		if base.GetClass(a, i) != base.GetClass(b, i) {
			t.Fatalf("row %d: %s vs %s", i, base.GetClass(a, i), base.GetClass(b, i))
		}
	}
}

// Save → Load through golearn's model files: the reloaded adapter predicts
// the same classes and its estimator the same decision values, bit for bit.
func TestSaveLoad(t *testing.T) {
	data, err := Instances(heart(t), model.Classification)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, ne := range classifiers() {
		name, mk := ne.name, ne.mk
		c := &Classifier{Estimator: mk()}
		path := filepath.Join(dir, name+".cls")
		if err := c.Save(path); !errors.Is(err, model.ErrNotFitted) {
			t.Errorf("%s: saving before Fit: err = %v", name, err)
		}
		if err := c.Fit(data); err != nil {
			t.Fatal(err)
		}
		if err := c.Save(path); err != nil {
			t.Fatal(err)
		}
		var back Classifier
		if err := back.Load(path); err != nil {
			t.Fatal(err)
		}
		p1, _ := c.Predict(data)
		p2, err := back.Predict(data)
		if err != nil {
			t.Fatal(err)
		}
		sameClasses(t, p1, p2)
		x, _ := gridXY(t, data)
		a, _ := c.Estimator.Predict(x)
		b, _ := back.Estimator.Predict(x)
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				t.Fatalf("%s: estimator predictions differ after reload", name)
			}
		}
		if back.String() != c.String() {
			t.Errorf("String %q after reload, want %q", back.String(), c.String())
		}
		var r Regressor
		if err := r.Load(path); !errors.Is(err, ErrWrongKind) {
			t.Errorf("classifier file loaded as a regressor: err = %v", err)
		}
	}
	var c Classifier
	if err := c.Load(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing file loaded")
	}
	if _, err := c.Predict(data); !errors.Is(err, model.ErrNotFitted) {
		t.Errorf("predict before fit: err = %v", err)
	}
}

// The adapter as a member of golearn's bagging ensemble: fitted on bootstrap
// samples with random feature subsets, saved with SaveWithPrefix, reloaded
// into fresh adapters with LoadWithPrefix.
func TestBaggedEnsemble(t *testing.T) {
	data, err := Instances(heart(t), model.Classification)
	if err != nil {
		t.Fatal(err)
	}
	g := kernel.Gaussian{Gamma: 1.0 / 8}
	bag := &meta.BaggedModel{RandomFeatures: 8}
	for range 3 { // an odd number: no voting ties between two classes
		bag.AddModel(&Classifier{Estimator: &model.SVM{Kernel: g}})
	}
	bag.Fit(data)
	pred, err := bag.Predict(data)
	if err != nil {
		t.Fatal(err)
	}
	cm, err := evaluation.GetConfusionMatrix(data, pred)
	if err != nil {
		t.Fatal(err)
	}
	// Training accuracy of a bagged RBF SVM: comfortably above chance.
	if acc := evaluation.GetAccuracy(cm); acc < heartFloor {
		t.Errorf("bagged training accuracy %.3f", acc)
	}
	path := filepath.Join(t.TempDir(), "bag.cls")
	if err := bag.Save(path); err != nil {
		t.Fatal(err)
	}
	back := &meta.BaggedModel{}
	for range 3 {
		back.AddModel(&Classifier{})
	}
	if err := back.Load(path); err != nil {
		t.Fatal(err)
	}
	p2, err := back.Predict(data)
	if err != nil {
		t.Fatal(err)
	}
	sameClasses(t, pred, p2)
	for i, m := range back.Models {
		if m.(*Classifier).Estimator == nil {
			t.Errorf("member %d not restored", i)
		}
	}
}

// The regressor follows golearn's float-class convention and predicts what
// the wrapped KRR predicts directly; it survives a golearn model file.
func TestRegressor(t *testing.T) {
	d, err := datasets.Load("winequality-red")
	if err != nil {
		t.Fatal(err)
	}
	idx := make([]int, 500)
	for i := range idx {
		idx[i] = i
	}
	d, err = d.Subset(idx)
	if err != nil {
		t.Fatal(err)
	}
	var s datasets.Standardizer
	if err := s.Fit(d.X); err != nil {
		t.Fatal(err)
	}
	if d.X, err = s.Transform(d.X); err != nil {
		t.Fatal(err)
	}
	inst, err := Instances(d, model.Regression)
	if err != nil {
		t.Fatal(err)
	}
	all := inst.AllAttributes()
	train := base.NewInstancesViewFromVisible(inst, rows(0, 400), all)
	test := base.NewInstancesViewFromVisible(inst, rows(400, 500), all)
	mk := func() model.Estimator { return &model.KRR{Kernel: kernel.Gaussian{Gamma: 0.05}, Lambda: 1e-3} }
	var path string
	for _, mkr := range []func() model.Estimator{
		mk,
		func() model.Estimator { return &model.SVR{Kernel: kernel.Gaussian{Gamma: 0.05}, C: 1, Epsilon: 0.2} },
	} {
		mk := mkr
		r := &Regressor{Estimator: mk()}
		if err := r.Fit(train); err != nil {
			t.Fatal(err)
		}
		pred, err := r.Predict(test)
		if err != nil {
			t.Fatal(err)
		}
		xtr, ytr := gridXY(t, train)
		xte, yte := gridXY(t, test)
		direct := mk()
		if err := direct.Fit(context.Background(), xtr, ytr); err != nil {
			t.Fatal(err)
		}
		want, _ := direct.Predict(xte)
		spec, _ := pred.GetAttribute(pred.AllClassAttributes()[0])
		var sse, sst, mean float64
		for _, v := range ytr {
			mean += v / float64(len(ytr))
		}
		for i, w := range want {
			got := base.UnpackBytesToFloat(pred.Get(spec, i))
			if math.Float64bits(got) != math.Float64bits(w) {
				t.Fatalf("row %d: adapter %v, direct %v", i, got, w)
			}
			sse += (got - yte[i]) * (got - yte[i])
			sst += (mean - yte[i]) * (mean - yte[i])
		}
		// Kernel ridge must beat predicting the training mean on held-out wines.
		if sse >= sst {
			t.Errorf("regressor SSE %.1f not below the mean predictor's %.1f", sse, sst)
		}
		path = filepath.Join(t.TempDir(), "reg.cls")
		if err := r.Save(path); err != nil {
			t.Fatal(err)
		}
		var back Regressor
		if err := back.Load(path); err != nil {
			t.Fatal(err)
		}
		p2, err := back.Predict(test)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if math.Float64bits(base.UnpackBytesToFloat(p2.Get(spec, i))) != math.Float64bits(want[i]) {
				t.Fatalf("reloaded regressor differs at row %d", i)
			}
		}
	}
	var c Classifier
	if err := c.Load(path); !errors.Is(err, ErrWrongKind) {
		t.Errorf("regressor file loaded as classifier: err = %v", err)
	}
	// A classifier is refused by the regressor and vice versa.
	if err := (&Regressor{Estimator: &model.SVM{}}).Fit(train); !errors.Is(err, model.ErrInput) {
		t.Errorf("SVM regressor: err = %v", err)
	}
	if err := (&Classifier{Estimator: mk()}).Fit(train); !errors.Is(err, model.ErrInput) {
		t.Errorf("regression KRR classifier: err = %v", err)
	}
	if err := (&Classifier{Estimator: &model.SVR{}}).Fit(train); !errors.Is(err, model.ErrInput) {
		t.Errorf("SVR classifier: err = %v", err)
	}
	if err := (&Classifier{}).Fit(train); !errors.Is(err, model.ErrInput) {
		t.Errorf("no estimator: err = %v", err)
	}
}

func rows(lo, hi int) []int {
	r := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		r = append(r, i)
	}
	return r
}

// Truncated golearn model files, and golearn files whose embedded Landmark
// model is corrupted, fail to load with an error (the latter wrapping
// model.ErrFormat).
func TestLoadDamagedFile(t *testing.T) {
	data, err := Instances(heart(t), model.Classification)
	if err != nil {
		t.Fatal(err)
	}
	c := &Classifier{Estimator: &model.SVM{Kernel: kernel.Gaussian{Gamma: 0.1}}}
	if err := c.Fit(data); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "c.cls")
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.cls")
	// The last few bytes are the gzip trailer and the compressed tar
	// end-of-archive blocks, which golearn's reader never reaches: a file
	// missing only those still holds the whole model. Cut before them.
	for n := 0; n < len(raw)-32; n += max(1, len(raw)/50) {
		if err := os.WriteFile(cut, raw[:n], 0o644); err != nil {
			t.Fatal(err)
		}
		var b Classifier
		if err := b.Load(cut); err == nil {
			t.Fatalf("file cut to %d of %d bytes loaded", n, len(raw))
		}
	}

	blob, err := model.Marshal(c.Estimator)
	if err != nil {
		t.Fatal(err)
	}
	blob[len(blob)/2] ^= 1
	bad := filepath.Join(dir, "bad.cls")
	var good Classifier
	w, err := base.CreateSerializedClassifierStub(bad, good.GetMetadata())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteJSONForKey(keyAdapter, adapterInfo{Kind: "landmark.Classifier", Version: adapterVersion}); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteBytesForKey(keyModel, blob); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := good.Load(bad); !errors.Is(err, model.ErrFormat) || !errors.Is(err, model.ErrChecksum) {
		t.Errorf("corrupted embedded model: err = %v, want ErrChecksum", err)
	}
}

// resources returns the estimator's embedded model.Resources.
func resources(t *testing.T, e model.Estimator) *model.Resources {
	t.Helper()
	switch m := e.(type) {
	case *model.KRR:
		return &m.Resources
	case *model.Falkon:
		return &m.Resources
	case *model.SVM:
		return &m.Resources
	case *model.BKASVM:
		return &m.Resources
	}
	t.Fatalf("%T has no Resources", e)
	return nil
}

// A failed Fit keeps the adapter's previous model, as the estimators do: a
// grid without a class attribute (refused by the adapter) and a fit over a
// 1-byte MemoryLimit (refused by the estimator with ErrMemory) leave the
// predictions of the earlier fit unchanged.
func TestFailedFitKeepsModel(t *testing.T) {
	d := heart(t)
	data, err := Instances(d, model.Classification)
	if err != nil {
		t.Fatal(err)
	}
	noClass := base.NewInstancesViewFromAttrs(data, featureAttributes(data))
	for _, ne := range classifiers() {
		c := &Classifier{Estimator: ne.mk()}
		if err := c.Fit(data); err != nil {
			t.Fatal(err)
		}
		want, err := c.Predict(data)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Fit(noClass); !errors.Is(err, model.ErrInput) {
			t.Errorf("%s: Fit without a class attribute: err = %v, want ErrInput", ne.name, err)
		}
		r := resources(t, c.Estimator)
		r.MemoryLimit = 1
		if err := c.Fit(data); !errors.Is(err, model.ErrMemory) {
			t.Errorf("%s: Fit within 1 byte: err = %v, want ErrMemory", ne.name, err)
		}
		r.MemoryLimit = 0
		got, err := c.Predict(data)
		if err != nil {
			t.Fatalf("%s: Predict after failed fits: %v", ne.name, err)
		}
		sameClasses(t, got, want)
	}
}

// PredictProba through the adapter is the estimator's PredictProba on the
// same rows, its columns named by the class values in the estimator's class
// order; without Probability it is refused with ErrInput.
func TestPredictProba(t *testing.T) {
	data, err := Instances(heart(t), model.Classification)
	if err != nil {
		t.Fatal(err)
	}
	g := kernel.Gaussian{Gamma: 1.0 / 13}
	for _, est := range []model.Estimator{
		&model.SVM{Kernel: g, C: 1, Probability: true, Seed: 2},
		&model.KRR{Kernel: g, Lambda: 1e-3, Task: model.Classification, Probability: true, Seed: 2},
	} {
		c := &Classifier{Estimator: est}
		if err := c.Fit(data); err != nil {
			t.Fatal(err)
		}
		p, names, err := c.PredictProba(data)
		if err != nil {
			t.Fatal(err)
		}
		x, _ := gridXY(t, data)
		want, err := est.(model.Classifier).PredictProba(x)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(p, want) {
			t.Errorf("%T: adapter probabilities differ from the estimator's", est)
		}
		// heart_scale's classes are −1 and +1; the categorical attribute's
		// values in the estimator's (ascending index) order.
		if len(names) != 2 || names[0] == names[1] {
			t.Errorf("%T: class names %v", est, names)
		}
		pred, err := c.Predict(data)
		if err != nil {
			t.Fatal(err)
		}
		_, n := data.Size()
		agree := 0
		for i := range n {
			best := 0
			if p.At(i, 1) > p.At(i, 0) {
				best = 1
			}
			if base.GetClass(pred, i) == names[best] {
				agree++
			}
		}
		// The softmax calibration of KRR agrees with Predict on every row;
		// Platt's sigmoid may differ near the boundary (LIBSVM's -b 1 too).
		if _, ok := est.(*model.KRR); ok && agree != n || agree < n*9/10 {
			t.Errorf("%T: most probable class = Predict on %d of %d rows", est, agree, n)
		}
	}
	c := &Classifier{Estimator: &model.SVM{Kernel: g}}
	if err := c.Fit(data); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.PredictProba(data); !errors.Is(err, model.ErrInput) {
		t.Errorf("PredictProba without Probability: err = %v, want ErrInput", err)
	}
}

// TestInstancesTextLabels: a dataset of text labels (a CSV read with
// datasets.ReadOptions.TextLabels: Y holds class indices, Classes the
// names) converts into a class attribute whose values are the names, so a
// Classifier fitted on it predicts names: heart_scale with −1/+1 written
// as "absent"/"present" is predicted exactly as the numeric file with the
// names in place of −1 and 1 (the SVM sees the same rows and the same
// class order). Before, the values were "0" and "1". Text labels for a
// regression are an error.
func TestInstancesTextLabels(t *testing.T) {
	d := heart(t)
	text := &datasets.Dataset{X: d.X, Y: make([]float64, len(d.Y)), Classes: []string{"absent", "present"}}
	for i, v := range d.Y {
		if v > 0 {
			text.Y[i] = 1
		}
	}
	fitPredict := func(d *datasets.Dataset) ([]string, []string) {
		inst, err := Instances(d, model.Classification)
		if err != nil {
			t.Fatal(err)
		}
		cls := &Classifier{Estimator: &model.SVM{Kernel: kernel.Gaussian{Gamma: 1.0 / 13}, C: 1}}
		if err := cls.Fit(inst); err != nil {
			t.Fatal(err)
		}
		pred, err := cls.Predict(inst)
		if err != nil {
			t.Fatal(err)
		}
		return classStrings(t, inst), classStrings(t, pred)
	}
	numTruth, numPred := fitPredict(d)
	textTruth, textPred := fitPredict(text)
	name := map[string]string{"-1": "absent", "1": "present"}
	seen := map[string]bool{}
	for i := range numPred {
		if textTruth[i] != name[numTruth[i]] || textPred[i] != name[numPred[i]] {
			t.Fatalf("row %d: text labels %q predicted %q; numeric %q predicted %q", i, textTruth[i], textPred[i], numTruth[i], numPred[i])
		}
		seen[textPred[i]] = true
	}
	if len(seen) != 2 {
		t.Errorf("predicted only %v: the test does not exercise both names", seen)
	}
	if _, err := Instances(text, model.Regression); !errors.Is(err, model.ErrInput) {
		t.Errorf("text labels for a regression: %v, want ErrInput", err)
	}
	bad := *text
	bad.Y = append([]float64{2}, text.Y[1:]...)
	if _, err := Instances(&bad, model.Classification); !errors.Is(err, model.ErrInput) {
		t.Errorf("label 2 of 2 class names: %v, want ErrInput", err)
	}
}

// classStrings returns the class attribute's value of every row of g.
func classStrings(t *testing.T, g base.FixedDataGrid) []string {
	t.Helper()
	cls := g.AllClassAttributes()[0]
	spec, err := g.GetAttribute(cls)
	if err != nil {
		t.Fatal(err)
	}
	_, n := g.Size()
	out := make([]string, n)
	for i := range out {
		out[i] = cls.GetStringFromSysVal(g.Get(spec, i))
	}
	return out
}
