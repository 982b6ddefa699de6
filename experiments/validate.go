package experiments

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
)

// Validate checks everything that can be checked without the data: names
// against the tables, value ranges, conflicting keys. Checks that need the
// data (m ≤ n) happen when the run loads it.
func (s *Spec) Validate() error {
	if strings.TrimSpace(s.Name) == "" {
		return s.errAt("missing name", "name")
	}
	if strings.ContainsAny(s.Name, `/\`) || s.Name == "." || s.Name == ".." {
		return s.errAt(fmt.Sprintf("name %q is not a plain name: it names the results folder results/NAME, which it must not leave (no / or \\, not . or ..; set output: for another folder)", s.Name), "name")
	}
	if s.Output != "" && !filepath.IsLocal(s.Output) {
		return s.errAt(fmt.Sprintf("output %q leaves the working directory: a spec writes below it (a relative path without ..); to write elsewhere set the run's folder (Options.Out)", s.Output), "output")
	}
	if err := s.validateDataset(); err != nil {
		return err
	}
	if s.Repeats < 0 {
		return s.errAt(fmt.Sprintf("repeats = %d, want ≥ 1", s.Repeats), "repeats")
	}
	if s.Approximation != nil {
		if err := s.validateApproximation(); err != nil {
			return err
		}
		return s.validatePaper()
	}
	switch s.Task {
	case TaskRegression, TaskBinary, TaskMulticlass, TaskAuto:
	case "":
		return s.errAt("missing task (regression, binary, multiclass, or auto to infer it from the labels)", "task")
	default:
		return s.errAt(fmt.Sprintf("unknown task %q%s (want regression, binary, multiclass or auto)", s.Task, DidYouMean(s.Task, []string{TaskRegression, TaskBinary, TaskMulticlass, TaskAuto})), "task")
	}
	if err := s.validateEstimator(); err != nil {
		return err
	}
	if err := s.validateGrid(); err != nil {
		return err
	}
	if s.CV.Folds != 0 && s.CV.Folds < 2 || s.CV.Folds == 0 && s.root != nil && len(s.root.Content) > 0 && child(s.root.Content[0], "cv", "folds") != nil {
		// folds: 0 written out is not the default (leave the key out for 5).
		return s.errAt(fmt.Sprintf("folds = %d, want at least 2 (leave folds out for the default %d)", s.CV.Folds, defaultFolds), "cv", "folds")
	}
	if s.CV.Metric != "" {
		m, ok := metricByName(s.CV.Metric)
		if !ok {
			return s.errAt(fmt.Sprintf("unknown metric %q%s (known: %s)", s.CV.Metric, DidYouMean(s.CV.Metric, MetricNames()), strings.Join(MetricNames(), ", ")), "cv", "metric")
		}
		if s.Task != TaskAuto && !m.appliesTo(s.Task) {
			return s.errAt(fmt.Sprintf("metric %s does not apply to %s tasks", m.Name, s.Task), "cv", "metric")
		}
	}
	return s.validatePaper()
}

func (s *Spec) validateDataset() error {
	d := s.Dataset
	switch d.Storage {
	case "", StorageAuto, StorageDense:
	case StorageSparse:
		if d.scale() == scaleMinMax {
			return s.errAt("storage sparse cannot be combined with scale minmax, which shifts every feature and so fills in the zeros (use scale: maxabs, which divides by the largest |x| without a shift, or storage: dense)", "dataset", "storage")
		}
	default:
		st := []string{StorageAuto, StorageDense, StorageSparse}
		return s.errAt(fmt.Sprintf("unknown storage %q%s (want auto, dense or sparse)", d.Storage, DidYouMean(d.Storage, st)), "dataset", "storage")
	}
	switch {
	case d.Name == "" && d.Path == "":
		return s.errAt("dataset needs a name (bundled) or a path", "dataset")
	case d.Name != "" && d.Path != "":
		return s.errAt("dataset: set name or path, not both", "dataset", "name")
	case d.Name != "" && d.TestPath != "":
		return s.errAt("test_path goes with path, not with a bundled name", "dataset", "test_path")
	}
	if d.Name != "" {
		if _, ok := datasets.Lookup(d.Name); !ok {
			var names []string
			for _, b := range datasets.Bundled() {
				names = append(names, b.Name)
			}
			return s.errAt(fmt.Sprintf("no bundled dataset %q%s (have %s; a file goes in path:)", d.Name, DidYouMean(d.Name, names), strings.Join(names, ", ")), "dataset", "name")
		}
	}
	switch d.Format {
	case "", "libsvm", "csv":
	default:
		return s.errAt(fmt.Sprintf("unknown format %q (want libsvm or csv)", d.Format), "dataset", "format")
	}
	if d.Scale != "" && !slices.Contains(scaleNames, d.Scale) {
		return s.errAt(fmt.Sprintf("unknown scale %q%s (want %s)", d.Scale, DidYouMean(d.Scale, scaleNames), strings.Join(scaleNames, ", ")), "dataset", "scale")
	}
	if d.Standardize && d.Scale != "" && d.Scale != scaleStandardize {
		return s.errAt(fmt.Sprintf("standardize: true contradicts scale: %s", d.Scale), "dataset", "scale")
	}
	if _, err := d.readOptions(); err != nil {
		key := "header"
		if strings.HasPrefix(err.Error(), "delim") {
			key = "delim"
		}
		return s.errAt(err.Error(), "dataset", key)
	}
	if (d.Header != "" || d.Delim != "") && d.Format == "libsvm" {
		return s.errAt("header and delim describe CSV files, not LIBSVM", "dataset", "format")
	}
	if d.ZeroBased && d.Format == "csv" {
		return s.errAt("zero_based describes LIBSVM files' feature indices, not CSV", "dataset", "zero_based")
	}
	if d.ZeroBased && d.Path == "" {
		return s.errAt("zero_based describes a LIBSVM file's feature indices; a bundled set (name) is read as it is", "dataset", "zero_based")
	}
	if d.Target != "" && d.Format == "libsvm" {
		return s.errAt("target selects a CSV column; LIBSVM files have their target first", "dataset", "target")
	}
	if d.TestFraction < 0 || d.TestFraction >= 1 || math.IsNaN(d.TestFraction) {
		return s.errAt(fmt.Sprintf("test_fraction = %g, want 0 ≤ f < 1", d.TestFraction), "dataset", "test_fraction")
	}
	if d.TestFraction > 0 && d.TestPath != "" {
		return s.errAt("set test_path or test_fraction, not both", "dataset", "test_fraction")
	}
	if d.SampleWeights != "" && IsManifest(d.Path) {
		return s.errAt("sample_weights goes with a data file or a bundled set, not a shard manifest", "dataset", "sample_weights")
	}
	if d.Subsample < 0 {
		return s.errAt(fmt.Sprintf("subsample = %d, want ≥ 0", d.Subsample), "dataset", "subsample")
	}
	if d.TestSubsample < 0 {
		return s.errAt(fmt.Sprintf("test_subsample = %d, want ≥ 0", d.TestSubsample), "dataset", "test_subsample")
	}
	if d.StandardizeTarget && s.Task != "" && s.Task != TaskRegression && s.Task != TaskAuto {
		return s.errAt("standardize_target applies to regression only", "dataset", "standardize_target")
	}
	return nil
}

func (s *Spec) validateEstimator() error {
	e := s.Estimator
	if e.Type == "" {
		return s.errAt("missing estimator type (known: "+strings.Join(EstimatorNames(), ", ")+")", "estimator", "type")
	}
	ent, ok := estimatorByName(e.Type)
	if !ok {
		return s.errAt(fmt.Sprintf("unknown estimator %q%s (known: %s)", e.Type, DidYouMean(e.Type, EstimatorNames()), strings.Join(EstimatorNames(), ", ")), "estimator", "type")
	}
	if s.Task != TaskAuto && !slices.Contains(ent.Tasks, s.Task) {
		return s.errAt(fmt.Sprintf("estimator %s does not do %s (it does: %s)", e.Type, s.Task, strings.Join(ent.Tasks, ", ")), "task")
	}
	if err := s.validateKernel(e.Kernel, "estimator"); err != nil {
		return err
	}
	if err := s.validatePrecomputed(); err != nil {
		return err
	}
	if e.Approx.Type != "" {
		if len(ent.Approx) == 0 {
			return s.errAt(fmt.Sprintf("estimator %s takes no approximation backend", e.Type), "estimator", "approx", "type")
		}
		if !slices.Contains(ent.Approx, e.Approx.Type) {
			return s.errAt(fmt.Sprintf("estimator %s does not take approx %q%s (it takes: %s)", e.Type, e.Approx.Type, DidYouMean(e.Approx.Type, ent.Approx), strings.Join(ent.Approx, ", ")), "estimator", "approx", "type")
		}
	}
	for _, k := range sortedKeys(e.Approx.Options) {
		o, ok := ent.approxOption(k)
		if !ok {
			return s.unknownKey(k, append([]string{"type"}, optionNames(ent.ApproxOptions)...), "estimator", "approx", k)
		}
		if o.With != nil && !o.With(e.Approx.Type) {
			return s.errAt(fmt.Sprintf("approx option %s does not apply to approx %q", k, e.Approx.Type), "estimator", "approx", k)
		}
		if err := o.check(e.Approx.Options[k]); err != nil {
			return s.errAt(err.Error(), "estimator", "approx", k)
		}
	}
	for _, k := range sortedKeys(e.Options) {
		o, ok := ent.option(k)
		if !ok {
			return s.unknownKey(k, append([]string{"approx", "kernel", "type"}, optionNames(ent.Options)...), "estimator", k)
		}
		if err := o.check(e.Options[k]); err != nil {
			return s.errAt(err.Error(), "estimator", k)
		}
		if _, inGrid := s.Grid[k]; inGrid {
			return s.errAt(fmt.Sprintf("%s is both an estimator option and a grid axis", k), "grid", k)
		}
	}
	for _, o := range ent.Options {
		_, inOpts := e.Options[o.Name]
		_, inGrid := s.Grid[o.Name]
		if o.With != nil && (inOpts || inGrid) && !o.With(e.Approx.Type) {
			where := []string{"estimator", o.Name}
			if inGrid {
				where = []string{"grid", o.Name}
			}
			if e.Approx.Type == "" {
				// The default is the exact fit: name the backends that
				// take the option.
				var takes []string
				for _, a := range ent.Approx {
					if o.With(a) {
						takes = append(takes, a)
					}
				}
				// The simplest first: uniform Nyström.
				if i := slices.Index(takes, "uniform"); i > 0 {
					takes = slices.Insert(slices.Delete(takes, i, i+1), 0, "uniform")
				}
				list := strings.Join(takes[:min(len(takes), 6)], ", ")
				if len(takes) > 6 {
					list += fmt.Sprintf(" and %d more (landmark run --list)", len(takes)-6)
				}
				return s.errAt(fmt.Sprintf("%s does not apply to %s without an approx (the exact fit); give an approx that takes it: %s", o.Name, e.Type, list), where...)
			}
			return s.errAt(fmt.Sprintf("%s does not apply to %s with approx %s", o.Name, e.Type, e.Approx.Type), where...)
		}
		if !o.Required || hasKey(e.Options, o.Name) || hasKey(s.Grid, o.Name) {
			continue
		}
		if o.Name == "lambda" && (hasKey(e.Options, "alpha") || hasKey(s.Grid, "alpha")) {
			continue
		}
		name, missing := o.Name, []string{o.Name}
		if name == "lambda" {
			name, missing = "lambda (or alpha)", []string{"lambda", "alpha"}
		}
		return s.errMissing(fmt.Sprintf("estimator %s needs %s: set it in the estimator block or as a grid axis", e.Type, name), missing, "estimator")
	}
	if hasKey(e.Options, "lambda") && hasKey(e.Options, "alpha") {
		return s.errAt("set lambda (λ, penalty λn) or alpha (= λn), not both", "estimator", "alpha")
	}
	if err := s.checkWeighted(); err != nil {
		return err
	}
	if ent.Check != nil {
		return ent.Check(s)
	}
	return nil
}

// validateKernel checks the kernel of block (estimator or approximation)
// with the first value of each kernel grid axis filled in.
func (s *Spec) validateKernel(ks kernel.Spec, block string) error {
	if ks.Type == "" {
		return s.errAt("missing kernel type (known: "+strings.Join(kernel.Names(), ", ")+")", block, "kernel")
	}
	if !slices.Contains(kernel.Names(), ks.Type) {
		return s.errAt(fmt.Sprintf("unknown kernel %q%s (known: %s)", ks.Type, DidYouMean(ks.Type, kernel.Names()), strings.Join(kernel.Names(), ", ")), block, "kernel", "type")
	}
	if rule := s.Estimator.GammaRule; block == "estimator" && rule != "" {
		if !slices.Contains(GammaRules, rule) {
			return s.errAt(fmt.Sprintf("gamma %q: want a number > 0, %s or %s", rule, GammaScale, GammaAuto), block, "kernel", "gamma")
		}
		if ks.Gamma != 0 {
			return s.errAt(fmt.Sprintf("gamma is both %s and %g", rule, ks.Gamma), block, "kernel", "gamma")
		}
		for _, p := range []string{"gamma", "sigma"} {
			if hasKey(s.Grid, p) {
				return s.errAt(fmt.Sprintf("gamma %s in the kernel block and a grid axis %s: give one", rule, p), "grid", p)
			}
		}
		if ks.Sigma != 0 {
			return s.errAt(fmt.Sprintf("set gamma (%s) or sigma, not both (γ = 1/(2σ²))", rule), block, "kernel", "sigma")
		}
		if _, err := kernel.New(ks); err == nil {
			// The kernel takes no width (linear).
			return s.errAt(fmt.Sprintf("gamma %s: the %s kernel has no gamma", rule, ks.Type), block, "kernel", "gamma")
		}
		ks.Gamma = 1 // resolved on each fit's rows; the other parameters are checked here
	}
	for _, p := range kernelParams {
		vals, ok := s.Grid[p]
		if !ok || len(vals) == 0 {
			continue
		}
		if kernelField(&ks, p) != 0 {
			return s.errAt(fmt.Sprintf("%s is both in the kernel and in the grid", p), "grid", p)
		}
		setKernelField(&ks, p, vals[0])
	}
	if ks.Sigma != 0 && ks.Gamma != 0 {
		path := []string{block, "kernel", "sigma"}
		if hasKey(s.Grid, "sigma") {
			path = []string{"grid", "sigma"}
		}
		return s.errAt("set gamma or sigma, not both (γ = 1/(2σ²))", path...)
	}
	for _, p := range []struct {
		name string
		set  bool
		ok   []string
	}{
		{"gamma", ks.Gamma != 0 || hasKey(s.Grid, "gamma"), []string{"gaussian", "laplacian", "polynomial", "sigmoid"}},
		{"degree", ks.Degree != 0 || hasKey(s.Grid, "degree"), []string{"polynomial"}},
		{"coef0", ks.Coef0 != 0 || hasKey(s.Grid, "coef0"), []string{"polynomial", "sigmoid"}},
	} {
		if p.set && !slices.Contains(p.ok, ks.Type) {
			path := []string{block, "kernel", p.name}
			if hasKey(s.Grid, p.name) {
				path = []string{"grid", p.name}
			}
			have := p.ok[len(p.ok)-1]
			if len(p.ok) > 1 {
				have = strings.Join(p.ok[:len(p.ok)-1], ", ") + " and " + have
			}
			return s.errAt(fmt.Sprintf("the %s kernel has no %s (%s: %s)", ks.Type, p.name, p.name, have), path...)
		}
	}
	if _, err := kernel.New(ks); err != nil {
		if ks.Gamma == 0 && ks.Sigma == 0 {
			if _, err2 := kernel.New(kernel.Spec{Type: ks.Type, Gamma: 1, Degree: ks.Degree, Coef0: ks.Coef0}); err2 == nil {
				// The kernel works once it has a width: say where to set one.
				or, missing := "", []string{"gamma"}
				if ks.Type == "gaussian" {
					or, missing = " (or sigma, γ = 1/(2σ²))", []string{"gamma", "sigma"}
				}
				scale := ""
				if block == "estimator" {
					scale = " (gamma: scale takes scikit-learn SVC's default, 1/(d·Var(X)) on the training rows)"
				}
				return s.errMissing(fmt.Sprintf("the %s kernel needs gamma%s: set it in the kernel block or as a grid axis%s", ks.Type, or, scale), missing, block, "kernel")
			}
		}
		return s.errAt(err.Error(), block, "kernel")
	}
	return nil
}

func (s *Spec) validateGrid() error {
	ent, _ := estimatorByName(s.Estimator.Type)
	for _, k := range sortedKeys(s.Grid) {
		vals := s.Grid[k]
		if len(vals) == 0 {
			return s.errAt("empty list of values", "grid", k)
		}
		var o Option
		if slices.Contains(kernelParams, k) {
			o = Option{Name: k, Kind: KindFloat, Min: 0, MinOpen: true}
			if k == "degree" {
				o = Option{Name: k, Kind: KindInt, Min: 1}
			}
			if k == "coef0" {
				// Every value, not only the first that validateKernel
				// builds a kernel with: polynomial needs c₀ ≥ 0, sigmoid
				// takes any c₀ (c₀ < 0 is its usual setting).
				o = Option{Name: k, Kind: KindFloat, Min: 0, HasMin: s.Estimator.Kernel.Type != "sigmoid"}
			}
		} else {
			var ok bool
			o, ok = ent.option(k)
			if !ok {
				return s.errAt(fmt.Sprintf("unknown grid parameter %q for estimator %s%s (known: %s)", k, s.Estimator.Type, DidYouMean(k, append(slices.Clone(kernelParams), optionNames(ent.Options)...)), strings.Join(append(slices.Clone(kernelParams), optionNames(ent.Options)...), ", ")), "grid", k)
			}
			if o.Kind != KindFloat && o.Kind != KindInt {
				return s.errAt(fmt.Sprintf("%s is not numeric and cannot be a grid axis", k), "grid", k)
			}
		}
		seen := map[float64]bool{}
		for i, v := range vals {
			if err := o.check(v); err != nil {
				return s.errAt(err.Error(), "grid", k, "["+strconv.Itoa(i)+"]")
			}
			if seen[v] {
				return s.errAt(fmt.Sprintf("value %g repeated", v), "grid", k, "["+strconv.Itoa(i)+"]")
			}
			seen[v] = true
		}
	}
	if hasKey(s.Grid, "lambda") && hasKey(s.Grid, "alpha") {
		return s.errAt("grid: set lambda (λ, penalty λn) or alpha (= λn), not both", "grid", "alpha")
	}
	if (hasKey(s.Grid, "lambda") && hasKey(s.Estimator.Options, "alpha")) || (hasKey(s.Grid, "alpha") && hasKey(s.Estimator.Options, "lambda")) {
		return s.errAt("set lambda (λ, penalty λn) or alpha (= λn), not both", "grid")
	}
	if hasKey(s.Grid, "gamma") && hasKey(s.Grid, "sigma") {
		return s.errAt("grid: set gamma or sigma, not both (γ = 1/(2σ²))", "grid", "sigma")
	}
	return nil
}

func kernelField(k *kernel.Spec, name string) float64 {
	switch name {
	case "gamma":
		return k.Gamma
	case "sigma":
		return k.Sigma
	case "degree":
		return float64(k.Degree)
	case "coef0":
		return k.Coef0
	}
	return 0
}

func setKernelField(k *kernel.Spec, name string, v float64) {
	switch name {
	case "gamma":
		k.Gamma = v
	case "sigma":
		k.Sigma = v
	case "degree":
		k.Degree = int(v)
	case "coef0":
		k.Coef0 = v
	}
}

func hasKey[V any](m map[string]V, k string) bool {
	_, ok := m[k]
	return ok
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// validatePrecomputed refuses what a precomputed kernel (kernel.Precomputed,
// LIBSVM's -t 4: rows [serial | K(x, x_1…x_n)]) cannot take: an estimator
// that needs the kernel at points of its own (falkon, bka-svm, krr with an
// approximation backend), and a feature scaling, which would change the
// serial numbers and the kernel values.
func (s *Spec) validatePrecomputed() error {
	e := s.Estimator
	if e.Kernel.Type != "precomputed" {
		return nil
	}
	switch {
	case e.Type != "svm" && e.Type != "svr" && e.Type != "one-class-svm" && e.Type != "krr":
		return s.errAt(fmt.Sprintf("estimator %s does not take a precomputed kernel (it needs the kernel at centers or clusters of its own; svm, svr, one-class-svm and krr with the exact fit take it)", e.Type), "estimator", "kernel", "type")
	case e.Type == "krr" && e.Approx.Type != "" && e.Approx.Type != "exact":
		return s.errAt(fmt.Sprintf("approx %s does not take a precomputed kernel (krr takes it with the exact fit)", e.Approx.Type), "estimator", "approx", "type")
	case s.Dataset.Standardize:
		return s.errAt("a precomputed kernel's rows are not features: standardize would change the serial numbers and the kernel values", "dataset", "standardize")
	case s.Dataset.Scale != "":
		return s.errAt(fmt.Sprintf("a precomputed kernel's rows are not features: scale %s would change the serial numbers and the kernel values", s.Dataset.Scale), "dataset", "scale")
	}
	return nil
}
