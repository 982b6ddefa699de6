package experiments

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"gopkg.in/yaml.v3"
)

// ErrSpec is wrapped by every error about an experiment specification: YAML
// syntax, unknown keys, wrong types and impossible values.
var ErrSpec = errors.New("experiment spec")

// SpecError is a problem at one place of a YAML spec. Line is 1-based (0 when
// the problem has no single place, such as a missing key).
type SpecError struct {
	// Line is the 1-based line of the offending key or value (0 if unknown).
	Line int
	// Path names the key, for example "grid.lambda[1]".
	Path string
	// Msg says what is wrong.
	Msg string
}

// Error formats the error as "experiment spec: line N: path: msg".
func (e *SpecError) Error() string {
	where := ""
	if e.Line > 0 {
		where = "line " + strconv.Itoa(e.Line) + ": "
	}
	if e.Path != "" {
		return fmt.Sprintf("%s: %s%s: %s", ErrSpec, where, e.Path, e.Msg)
	}
	return fmt.Sprintf("%s: %s%s", ErrSpec, where, e.Msg)
}

// Unwrap makes errors.Is(err, ErrSpec) hold.
func (e *SpecError) Unwrap() error { return ErrSpec }

// Spec is one experiment: data, task, estimator, the grid of settings to
// cross-validate, and where to write the results. The zero value of every
// optional field means its default; defaults are resolved by the runner into
// a local copy and never written back.
type Spec struct {
	// Name labels the run in tables and plots.
	Name string `yaml:"name" json:"name"`
	// Dataset says where the data comes from and how it is prepared.
	Dataset DatasetSpec `yaml:"dataset" json:"dataset"`
	// Task is regression, binary or multiclass, or auto: the task
	// datasets.GuessTask reads from the training labels (binary for two
	// distinct values, multiclass for 3…20 distinct integers, regression
	// otherwise), decided when the data is loaded.
	Task string `yaml:"task" json:"task"`
	// Estimator is the model to fit and its fixed options.
	Estimator EstimatorSpec `yaml:"estimator,omitempty" json:"estimator,omitempty"`
	// Approximation, instead of an estimator, makes an approximation-only
	// run: kernel approximation methods scored by ‖K − K̃‖ (no task, no CV).
	Approximation *ApproximationSpec `yaml:"approximation,omitempty" json:"approximation,omitempty"`
	// Grid maps a parameter to the values to try; the run covers the
	// cartesian product. Parameters: lambda (λ, the project's λn convention),
	// alpha (scikit-learn's, = λn, converted with the n of each fit), gamma or
	// sigma (kernel), and any numeric estimator option (m, c, clusters, rank…).
	Grid Grid `yaml:"grid,omitempty" json:"grid,omitempty"`
	// CV configures cross-validation.
	CV CVSpec `yaml:"cv,omitempty" json:"cv"`
	// Repeats is how many times the whole cross-validation is repeated with
	// seeds Seed, Seed+1, …; default 1.
	Repeats int `yaml:"repeats,omitempty" json:"repeats,omitempty"`
	// Seed drives every random choice of the run (splits, folds, estimators).
	Seed uint64 `yaml:"seed" json:"seed"`
	// Output is the results folder (relative to the working directory);
	// default results/NAME.
	Output string `yaml:"output,omitempty" json:"output,omitempty"`
	// Paper, when set, prints the reproduced paper's figures and claims
	// beside this run's results (see PaperSpec).
	Paper *PaperSpec `yaml:"paper,omitempty" json:"paper,omitempty"`

	// root is the parsed YAML, kept to name lines in errors found later.
	root *yaml.Node
	// dir is the folder of the spec file, against which relative paths resolve.
	dir string
}

// DatasetSpec says where an experiment's data comes from.
type DatasetSpec struct {
	// Name is a bundled dataset (datasets.Bundled); its official test part,
	// when it has one, is the test set unless test_fraction is set.
	Name string `yaml:"name,omitempty" json:"name,omitempty"`
	// Path is a data file: absolute, relative to the spec file's folder, or
	// the name of a file in the shared dataset folder (datasets.SharedPath).
	Path string `yaml:"path,omitempty" json:"path,omitempty"`
	// Format is libsvm or csv; default from the file name (.csv, .csv.gz → csv).
	Format string `yaml:"format,omitempty" json:"format,omitempty"`
	// TestPath is an optional separate test file, resolved like Path.
	TestPath string `yaml:"test_path,omitempty" json:"test_path,omitempty"`
	// TestFraction holds out this fraction of the data as the test set when
	// there is no TestPath (0 means no test set: cross-validation only).
	TestFraction float64 `yaml:"test_fraction,omitempty" json:"test_fraction,omitempty"`
	// Target is the CSV target column: a header name or a 0-based index
	// (negative from the end); default the last column.
	Target string `yaml:"target,omitempty" json:"target,omitempty"`
	// Header says whether a CSV file's first line is its header: auto (the
	// default: a header when none of its fields is a number), yes or no.
	Header string `yaml:"header,omitempty" json:"header,omitempty"`
	// Delim is the CSV field delimiter, one character or "tab"; default
	// ',' (tab for .tsv files).
	Delim string `yaml:"delim,omitempty" json:"delim,omitempty"`
	// Standardize scales features to zero mean and unit variance with the
	// statistics of each fit's training rows (shorthand for scale:
	// standardize; on sparse storage, unit variance only, as scale: std).
	Standardize bool `yaml:"standardize,omitempty" json:"standardize,omitempty"`
	// Scale is the feature scaling fitted on each fit's training rows:
	// standardize (centre, then divide by the standard deviation), minmax
	// (to [−1, 1], as svm-scale), or the two that keep zeros and so sparse
	// X sparse: maxabs (divide by the largest |x|, scikit-learn's
	// MaxAbsScaler) and std (divide by the standard deviation without
	// centering, StandardScaler(with_mean=False)); default none. With
	// sparse storage standardize is std: a mean cannot be subtracted
	// without filling in every zero. Fits and runs report the scaling used.
	Scale string `yaml:"scale,omitempty" json:"scale,omitempty"`
	// StandardizeTarget standardizes a regression target with training
	// statistics for fitting; predictions and scores are in original units.
	StandardizeTarget bool `yaml:"standardize_target,omitempty" json:"standardize_target,omitempty"`
	// Subsample keeps a random subset of this many training rows (0: all).
	Subsample int `yaml:"subsample,omitempty" json:"subsample,omitempty"`
	// TestSubsample keeps a random subset of this many test rows (0: all).
	TestSubsample int `yaml:"test_subsample,omitempty" json:"test_subsample,omitempty"`
	// Storage is how the estimators get X: auto (the default) keeps a
	// LIBSVM/svmlight file sparse (CSR) when its density is below
	// SparseDensity and no centering or shifting scale (standardize,
	// minmax) is asked for; dense and sparse force either (CSV files and
	// bundled sets are read dense and converted for sparse). Sparse storage
	// takes scale maxabs, std or standardize (read as std), not minmax.
	Storage string `yaml:"storage,omitempty" json:"storage,omitempty"`
}

// The storages a dataset block can name.
const (
	StorageAuto   = "auto"
	StorageDense  = "dense"
	StorageSparse = "sparse"
)

// SparseDensity is the density (non-zeros / (rows·columns)) below which
// storage auto keeps a LIBSVM file sparse. Below it CSR needs less than
// 12·0.1/8 = 15% of the dense matrix's memory. Speed puts it below mnist's
// 0.19, where the dense SVM path is still faster (model.SVM fit 1.88 s
// dense vs 2.49 s sparse on 5,000 rows); at the synthetic text set's 0.0025
// sparse is the only practical choice (docs/performance.md, "Kernel SVM"). The crossover in
// between was not measured; 0.1 errs towards dense.
const SparseDensity = 0.1

// EstimatorSpec is the estimator block: a type from the estimator table, a
// kernel, an optional approximation backend and the estimator's own options.
type EstimatorSpec struct {
	// Type is one of EstimatorNames().
	Type string `yaml:"type" json:"type"`
	// Kernel is the kernel; grid values of gamma or sigma override its own.
	Kernel kernel.Spec `yaml:"kernel" json:"kernel"`
	// Approx is the approximation backend (empty: the estimator's default).
	Approx ApproxSpec `yaml:"approx,omitempty" json:"approx,omitempty"`
	// Options holds the estimator's other options (lambda, m, max_iter…),
	// checked against the options the estimator table declares.
	Options map[string]any `yaml:",inline" json:"options,omitempty"`
}

// ApproxSpec names an approximation backend and its options.
type ApproxSpec struct {
	// Type is the backend name (uniform, rls, bless, …).
	Type string `yaml:"type,omitempty" json:"type,omitempty"`
	// Options are the backend's options, passed through to the estimator.
	Options map[string]any `yaml:",inline" json:"options,omitempty"`
}

// CVSpec configures cross-validation.
type CVSpec struct {
	// Folds is k, at least 2; default 5.
	Folds int `yaml:"folds,omitempty" json:"folds,omitempty"`
	// Metric selects the best grid point; default rmse for regression and
	// accuracy for classification. Every metric of the task is reported.
	Metric string `yaml:"metric,omitempty" json:"metric,omitempty"`
	// Stratified keeps class proportions in each fold (default true for
	// classification; ignored for regression).
	Stratified *bool `yaml:"stratified,omitempty" json:"stratified,omitempty"`
}

// Grid maps parameter names to the values tried.
type Grid map[string][]float64

// The tasks a spec can name.
const (
	TaskRegression = "regression"
	TaskBinary     = "binary"
	TaskMulticlass = "multiclass"
	// TaskAuto infers the task from the training labels when the data is
	// loaded (datasets.GuessTask).
	TaskAuto = "auto"
)

// The feature scalings a spec can name.
const (
	scaleStandardize = "standardize"
	scaleMinMax      = "minmax"
	scaleMaxAbs      = datasets.ScaleMaxAbs
	scaleStd         = datasets.ScaleStd
)

// scaleNames are the scalings, in the order error messages list them.
var scaleNames = []string{scaleStandardize, scaleMinMax, scaleMaxAbs, scaleStd}

// shifts reports whether the scaling moves zeros (centering or a shift), so
// that it needs dense data: standardize and minmax.
func (d DatasetSpec) shifts() bool {
	k := d.scale()
	return k == scaleStandardize || k == scaleMinMax
}

// scale resolves the feature scaling ("" for none).
func (d DatasetSpec) scale() string {
	if d.Standardize {
		return scaleStandardize
	}
	return d.Scale
}

// kernelParams are the grid names that go to the kernel, not the estimator.
var kernelParams = []string{"coef0", "degree", "gamma", "sigma"}

// Decode reads a YAML spec strictly: unknown keys, wrong types and impossible
// values are errors naming the line. dir is the folder relative data paths are
// resolved against (usually the spec file's folder).
func Decode(r io.Reader, dir string) (*Spec, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSpec, err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%w: %s", ErrSpec, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(root.Content) == 0 {
		return nil, &SpecError{Msg: "empty spec"}
	}
	pre := &Spec{root: &root}
	if t := child(root.Content[0], "estimator", "type"); t != nil {
		pre.Estimator.Type = t.Value
	}
	if err := pre.checkKeys(); err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var s Spec
	if err := dec.Decode(&s); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) {
			msgs := make([]string, len(te.Errors))
			for i, m := range te.Errors {
				msgs[i] = explainTypeError(m)
			}
			return nil, fmt.Errorf("%w: %s", ErrSpec, strings.Join(msgs, "; ")+" (see experiments/README.md for the spec format)")
		}
		return nil, fmt.Errorf("%w: %s", ErrSpec, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	s.root = &root
	s.dir = dir
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return &s, nil
}

// DecodeFile reads and validates the spec in a file; relative data paths are
// resolved against the file's folder.
func DecodeFile(path string) (*Spec, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := Decode(f, filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Encode writes s as YAML; Decode reads it back to an equal Spec.
func (s *Spec) Encode(w io.Writer) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(s); err != nil {
		return err
	}
	return enc.Close()
}

// Hash is the SHA-256 of the spec's canonical JSON form (maps sorted, the
// output folder and the paper block left out). Results logged under one hash are never mixed with
// another's.
func (s *Spec) Hash() string {
	c := *s
	c.Output = ""
	c.Paper = nil
	b, err := json.Marshal(&c)
	if err != nil {
		// Spec holds only JSON-encodable values (Decode produced them).
		panic(fmt.Sprintf("experiments: spec not encodable: %v", err))
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// line returns the line of the node at path in the spec's YAML (keys of
// mappings, "[i]" for sequence elements), or of the deepest ancestor found.
func (s *Spec) line(path ...string) int {
	if s.root == nil || len(s.root.Content) == 0 {
		return 0
	}
	n := s.root.Content[0]
	ln := n.Line
	for _, p := range path {
		var next *yaml.Node
		switch {
		case strings.HasPrefix(p, "["):
			i, err := strconv.Atoi(strings.Trim(p, "[]"))
			if err == nil && n.Kind == yaml.SequenceNode && i < len(n.Content) {
				next = n.Content[i]
			}
			if next != nil {
				ln = next.Line
			}
		case n.Kind == yaml.MappingNode:
			for j := 0; j+1 < len(n.Content); j += 2 {
				if n.Content[j].Value == p {
					ln = n.Content[j].Line // the key's line
					next = n.Content[j+1]
					break
				}
			}
		}
		if next == nil {
			return ln
		}
		n = next
	}
	return ln
}

// errAt builds a SpecError at path (dot-separated keys, "[i]" for elements).
func (s *Spec) errAt(msg string, path ...string) error {
	return &SpecError{Line: s.line(path...), Path: joinPath(path), Msg: msg}
}

func joinPath(path []string) string {
	var b strings.Builder
	for i, p := range path {
		if i > 0 && !strings.HasPrefix(p, "[") {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

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
		return s.errAt(fmt.Sprintf("output %q leaves the working directory: a spec writes below it (a relative path without ..); to write elsewhere pass --out DIR on the command line", s.Output), "output")
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
	if d.Target != "" && d.Format == "libsvm" {
		return s.errAt("target selects a CSV column; LIBSVM files have their target first", "dataset", "target")
	}
	if d.TestFraction < 0 || d.TestFraction >= 1 || math.IsNaN(d.TestFraction) {
		return s.errAt(fmt.Sprintf("test_fraction = %g, want 0 ≤ f < 1", d.TestFraction), "dataset", "test_fraction")
	}
	if d.TestFraction > 0 && d.TestPath != "" {
		return s.errAt("set test_path or test_fraction, not both", "dataset", "test_fraction")
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
			a := e.Approx.Type
			if a == "" {
				a = "the default"
			}
			return s.errAt(fmt.Sprintf("%s does not apply to %s with approx %s", o.Name, e.Type, a), where...)
		}
		if !o.Required || hasKey(e.Options, o.Name) || hasKey(s.Grid, o.Name) {
			continue
		}
		if o.Name == "lambda" && (hasKey(e.Options, "alpha") || hasKey(s.Grid, "alpha")) {
			continue
		}
		flag := "--" + o.Name
		if o.Name == "lambda" {
			flag = "--lambda (or --alpha)"
		}
		return s.errAt(fmt.Sprintf("estimator %s needs %s: set it with %s on the command line, or in the spec's estimator block or as a grid axis", e.Type, o.Name, flag), "estimator")
	}
	if hasKey(e.Options, "lambda") && hasKey(e.Options, "alpha") {
		return s.errAt("set lambda (λ, penalty λn) or alpha (= λn), not both", "estimator", "alpha")
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
	if _, err := kernel.New(ks); err != nil {
		if ks.Gamma == 0 && ks.Sigma == 0 {
			if _, err2 := kernel.New(kernel.Spec{Type: ks.Type, Gamma: 1, Degree: ks.Degree, Coef0: ks.Coef0}); err2 == nil {
				// The kernel works once it has a width: say where to set one.
				or := ""
				if ks.Type == "gaussian" {
					or = " (or sigma, γ = 1/(2σ²))"
				}
				return s.errAt(fmt.Sprintf("the %s kernel needs gamma%s: set it with --gamma%s on the command line, or in the spec's kernel block or as a grid axis", ks.Type, or, map[bool]string{true: " or --sigma"}[or != ""]), block, "kernel")
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
				o = Option{Name: k, Kind: KindFloat, Min: 0}
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

// readOptions are the CSV reading options the dataset block sets (target,
// header, delimiter).
func (d DatasetSpec) readOptions() (datasets.ReadOptions, error) {
	opt := datasets.ReadOptions{Format: datasets.Format(d.Format), Target: d.Target}
	switch strings.ToLower(d.Header) {
	case "", "auto":
	case "yes", "true":
		opt.Header = datasets.HeaderPresent
	case "no", "false":
		opt.Header = datasets.HeaderAbsent
	default:
		return opt, fmt.Errorf("header %q: want auto, yes or no", d.Header)
	}
	switch d.Delim {
	case "":
	case "tab", `\t`, "\t":
		opt.Comma = '\t'
	default:
		r, size := utf8.DecodeRuneInString(d.Delim)
		if size != len(d.Delim) || r == utf8.RuneError || r == '\n' || r == '\r' || r == '"' {
			return opt, fmt.Errorf("delim %q: want one character other than a quote or newline, or tab", d.Delim)
		}
		opt.Comma = r
	}
	return opt, nil
}
