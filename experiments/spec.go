package experiments

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gopkg.in/yaml.v3"
)

// ErrSpec is wrapped by every error about an experiment specification: YAML
// syntax, unknown keys, wrong types and impossible values. It wraps
// model.ErrInput: a bad spec is bad input.
var ErrSpec = check.Sentinel("experiments: spec", check.ErrInput)

// SpecError is a problem at one place of a YAML spec. Line is 1-based (0 when
// the problem has no single place, such as a missing key).
type SpecError struct {
	// Line is the 1-based line of the offending key or value (0 if unknown).
	Line int
	// Path names the key, for example "grid.lambda[1]".
	Path string
	// Msg says what is wrong.
	Msg string
	// Missing names the keys of which one is required and absent (for
	// example lambda and alpha, or gamma and sigma), nil when the error is
	// not about a missing setting; a caller can name its own way to set them.
	Missing []string
	// Err, when set, is the error behind Msg that callers test with
	// errors.Is (context.Canceled for a read the context stopped).
	Err error
}

// Error formats the error as "experiments: spec: line N: path: msg".
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

// Unwrap makes errors.Is(err, ErrSpec) hold, and errors.Is(err, target)
// for what Err wraps.
func (e *SpecError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrSpec, e.Err}
	}
	return []error{ErrSpec}
}

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
	// An axis is a list or a range: {log2: [begin, end, step]},
	// {logspace: [start, stop, num]}, {linspace: [start, stop, num]}.
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
	// A .json path is a shard manifest (DIR/manifest.json of landmark data
	// shard or data synth higgs): its shards are read into memory when the
	// fit's plan (X's copies and the estimator's) fits memory_limit;
	// otherwise fit streams a falkon fit from the shards on every pass,
	// and refuses other estimators and cross-validation (run).
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
	// Drop lists CSV columns to leave out of path and test_path, each a
	// header name or a 0-based index (negative from the end), as
	// datasets.ReadOptions.Drop: [0] for the index column pandas' to_csv
	// writes first. An index in target counts the columns kept.
	Drop []string `yaml:"drop,omitempty" json:"drop,omitempty"`
	// ZeroBased reads LIBSVM files (path and test_path) whose feature
	// indices start at 0, as scikit-learn's dump_svmlight_file writes by
	// default: index j is column j, and a saved fit records it so that
	// predict asks for the same base. Never guessed from the content (a
	// test file without index 0 would be read one column off); without it
	// index 0 is an error that names this key.
	ZeroBased bool `yaml:"zero_based,omitempty" json:"zero_based,omitempty"`
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
	// SampleWeights is a file of sample weights, one number ≥ 0 per line
	// and one line per row of the training data (path, or the bundled
	// set's training part) in its order, before test_fraction and
	// subsample pick rows (datasets.ReadWeights; LIBSVM's instance-weight
	// svm-train -W file). Each fit gets its training rows' weights
	// (model.WeightedEstimator: svm, svr, krr and falkon); validation and
	// test scores are unweighted, as scikit-learn's cross_val_score's, and
	// so are the feature and target scalings fitted on the training rows.
	// With weights, alpha is λ·Σw (scikit-learn's KernelRidge alpha with
	// sample_weight), not λn. Resolved like path.
	SampleWeights string `yaml:"sample_weights,omitempty" json:"sample_weights,omitempty"`
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
	// GammaRule is the kernel block's gamma when it names a rule rather
	// than a number (kernel: {gamma: scale}): GammaScale or GammaAuto,
	// resolved on each fit's training rows (ResolveGamma); Kernel.Gamma is
	// then 0. Grid axes take numbers only. In YAML it is written as the
	// kernel's gamma (Encode and Decode round-trip it).
	GammaRule string `yaml:"-" json:"gamma_rule,omitempty"`
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
	data, rule, err := pre.takeGammaRule(data)
	if err != nil {
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
	s.Estimator.GammaRule = rule
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

// errMissing is errAt for a required setting that is absent: missing names
// the keys any one of which would do.
func (s *Spec) errMissing(msg string, missing []string, path ...string) error {
	return &SpecError{Line: s.line(path...), Path: joinPath(path), Msg: msg, Missing: missing}
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

// readOptions are the reading options the dataset block sets (target,
// header, delimiter; zero_based for LIBSVM files).
func (d DatasetSpec) readOptions() (datasets.ReadOptions, error) {
	opt := datasets.ReadOptions{Format: datasets.Format(d.Format), Target: d.Target, ZeroBased: d.ZeroBased, Drop: d.Drop}
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
