package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/experiments"
	"github.com/landmark-ml/landmark/internal/cmdline"
	"github.com/landmark-ml/landmark/internal/outfile"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
	"gopkg.in/yaml.v3"
)

// setFlags collects repeated "--set key=value" estimator options.
type setFlags []string

func (s *setFlags) String() string     { return strings.Join(*s, ",") }
func (s *setFlags) Set(v string) error { *s = append(*s, v); return nil }

// scalar parses a flag value as YAML would: number, boolean or string.
func scalar(v string) any {
	if i, err := strconv.Atoi(v); err == nil {
		return i
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		return f
	}
	if b, err := strconv.ParseBool(v); err == nil {
		return b
	}
	return v
}

// specFlags are the flags that describe an estimator block and its data
// without a YAML file; fit and predict share them.
type specFlags struct {
	data, dataset, testData, format, task, estimator, kernel, approx string
	scale                                                            string
	// sampleWeights is --sample-weights (YAML sample_weights).
	sampleWeights string
	// gammaRule is --gamma scale or auto (gamma is then 0).
	gammaRule                                    string
	testFraction, gamma, sigma, lambda, alpha, c float64
	m, subsample                                 int
	// degree and coef0 are the polynomial and sigmoid kernels' parameters
	// (YAML kernel degree and coef0; LIBSVM's -d and -r).
	degree      int
	coef0       float64
	standardize bool
	seed        uint64
	set         setFlags
	// csv holds --target, --delim, --header and --zero-based (YAML target,
	// delim, header, zero_based).
	csv readFlags
	// defaulted lists the values spec chose for flags left out, for the
	// report ("alpha 1 (…)").
	defaulted []string
	// given holds the flags set on the command line, by name ("data"),
	// so that an error is put against a flag only when it was given.
	given map[string]bool
}

// gammaFlag is --gamma: a number, or the rule scale or auto (scikit-learn
// SVC's names), resolved on the training rows by the fit.
type gammaFlag struct {
	v    *float64
	rule *string
}

func (g gammaFlag) String() string {
	if g.rule == nil {
		return ""
	}
	if *g.rule != "" {
		return *g.rule
	}
	if *g.v == 0 {
		return ""
	}
	return strconv.FormatFloat(*g.v, 'g', -1, 64)
}

func (g gammaFlag) Set(s string) error {
	if slices.Contains(experiments.GammaRules, s) {
		*g.v, *g.rule = 0, s
		return nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		// 0 would read as no width given, and take the default.
		return fmt.Errorf("want a number > 0, %s or %s", experiments.GammaScale, experiments.GammaAuto)
	}
	*g.v, *g.rule = v, ""
	return nil
}

// defaultAlpha is the regularization of a command-line fit that names no
// λ: scikit-learn KernelRidge's default alpha (= λn), so λ = 1/n.
const defaultAlpha = 1.0

// needsWidth reports whether the kernel type takes a width γ and has no
// default for it (gaussian, laplacian, polynomial, sigmoid): a kernel that
// kernel.New refuses without γ and builds with one.
func needsWidth(typ string) bool {
	_, errNone := kernel.New(kernel.Spec{Type: typ})
	_, errOne := kernel.New(kernel.Spec{Type: typ, Gamma: 1})
	return errNone != nil && errOne == nil
}

// needsLambda reports whether the estimator requires λ (krr, falkon).
func needsLambda(name string) bool {
	for _, e := range experiments.Estimators() {
		if e.Name != name {
			continue
		}
		for _, o := range e.Options {
			if o.Name == "lambda" && o.Required {
				return true
			}
		}
	}
	return false
}

func (f *specFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.data, "data", "", "training data file (LIBSVM or CSV; relative, absolute or a file of the shared dataset folder), or a shard manifest DIR/manifest.json (streamed by falkon when it does not fit --memory)")
	fs.StringVar(&f.dataset, "dataset", "", "bundled dataset name (instead of --data)")
	fs.StringVar(&f.testData, "test-data", "", "test data file or shard manifest")
	fs.Float64Var(&f.testFraction, "test-fraction", 0, "hold out this fraction as the test set")
	fs.StringVar(&f.format, "format", "", "data format: libsvm or csv (default from the file name, else the content)")
	f.csv.registerCSV(fs)
	fs.IntVar(&f.subsample, "subsample", 0, "use a random subset of this many training rows")
	fs.StringVar(&f.sampleWeights, "sample-weights", "", "file of sample weights, one number ≥ 0 per line and one line per training row, in order (YAML sample_weights; LIBSVM's svm-train -W file, scikit-learn's fit(sample_weight=…)); svm, svr, one-class-svm, krr and falkon")
	fs.BoolVar(&f.standardize, "standardize", false, "standardize features with training statistics (YAML scale: standardize; dense X)")
	fs.StringVar(&f.scale, "scale", "", "feature scaling fitted on the training rows: standardize, minmax, or maxabs / std (divide by max |x| / by the standard deviation, no centering: sparse X stays sparse); none (the default) as approx's")
	fs.StringVar(&f.task, "task", "auto", "regression, binary or multiclass; auto infers it from the training labels (binary: 2 distinct values; multiclass: 3–20 distinct integers; else regression) and prints the rule used")
	fs.StringVar(&f.estimator, "estimator", "krr", "estimator type (landmark run --list)")
	fs.StringVar(&f.kernel, "kernel", "gaussian", "kernel type: "+strings.Join(kernel.Names(), ", "))
	fs.Var(gammaFlag{&f.gamma, &f.gammaRule}, "gamma", "kernel γ (Gaussian exp(−γ‖x−y‖²)), or scale: 1/(d·Var(X)) on the training rows as the fit sees them (after --scale), or auto: 1/d (scikit-learn SVC's); the number used is printed and saved (default without --gamma or --sigma: scale, printed)")
	fs.Float64Var(&f.sigma, "sigma", 0, "Gaussian bandwidth σ (γ = 1/(2σ²)), instead of --gamma")
	fs.IntVar(&f.degree, "degree", 0, "degree p of the polynomial kernel (γx·y + c₀)^p (LIBSVM's -d; default 3)")
	fs.Float64Var(&f.coef0, "coef0", 0, "c₀ of the polynomial (≥ 0) and sigmoid tanh(γx·y + c₀) kernels (LIBSVM's -r; default 0)")
	fs.StringVar(&f.approx, "approx", "", "approximation backend (landmark run --list)")
	fs.Float64Var(&f.lambda, "lambda", 0, "regularization λ (penalty λn, the project's convention)")
	fs.Float64Var(&f.alpha, "alpha", 0, "scikit-learn's alpha = λn, instead of --lambda")
	fs.Float64Var(&f.c, "c", 0, "SVM penalty C")
	fs.IntVar(&f.m, "m", 0, "number of landmarks / centers / features")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed")
	fs.Var(&f.set, "set", "other estimator option KEY=VALUE (repeatable)")
}

// spec builds the YAML spec the flags describe and decodes it strictly, so
// flags get exactly the checks a spec file gets.
func (f *specFlags) spec(name string) (*experiments.Spec, error) {
	ds := map[string]any{}
	switch {
	case f.data != "" && f.dataset != "":
		return nil, fmt.Errorf("%w: set --data or --dataset, not both", errUsage)
	case f.data != "":
		ds["path"] = f.data
	case f.dataset != "":
		ds["name"] = f.dataset
	default:
		return nil, fmt.Errorf("%w: need SPEC.yaml, --data FILE or --dataset NAME", errUsage)
	}
	if _, err := f.csv.options(); err != nil {
		return nil, err
	}
	if f.given["sigma"] && !(f.sigma > 0) {
		// 0 would read as no width given, and take the default.
		return nil, fmt.Errorf("%w: --sigma %g: want a number > 0", errUsage, f.sigma)
	}
	put := func(m map[string]any, k string, v any, set bool) {
		if set {
			m[k] = v
		}
	}
	put(ds, "test_path", f.testData, f.testData != "")
	put(ds, "test_fraction", f.testFraction, f.testFraction != 0)
	put(ds, "format", f.format, f.format != "")
	put(ds, "target", f.csv.target, f.csv.target != "")
	put(ds, "delim", f.csv.delim, f.csv.delim != "")
	put(ds, "header", f.csv.header, f.csv.header != "" && f.csv.header != "auto")
	put(ds, "drop", splitDrop(f.csv.drop), f.csv.drop != "")
	put(ds, "zero_based", true, f.csv.zeroBased)
	if f.kernel == "precomputed" && !f.given["zero-based"] && f.data != "" {
		if fm, ok := datasets.FormatOf(f.data); (ok && fm == datasets.LIBSVM && f.format == "") || f.format == string(datasets.LIBSVM) {
			// LIBSVM's -t 4 rows start with 0:serial: 0-based by definition.
			ds["zero_based"] = true
			f.defaulted = append(f.defaulted, "zero_based (LIBSVM's precomputed-kernel rows start with 0:i)")
		}
	}
	put(ds, "subsample", f.subsample, f.subsample != 0)
	put(ds, "sample_weights", f.sampleWeights, f.sampleWeights != "")
	put(ds, "standardize", true, f.standardize)
	put(ds, "scale", f.scale, f.scale != "" && f.scale != "none") // approx's default name for none
	k := map[string]any{"type": f.kernel}
	put(k, "gamma", f.gamma, f.gamma != 0)
	put(k, "gamma", f.gammaRule, f.gammaRule != "")
	put(k, "sigma", f.sigma, f.sigma != 0)
	put(k, "degree", f.degree, f.degree != 0)
	put(k, "coef0", f.coef0, f.coef0 != 0)
	est := map[string]any{"type": f.estimator, "kernel": k}
	put(est, "approx", map[string]any{"type": f.approx}, f.approx != "")
	put(est, "lambda", f.lambda, f.lambda != 0)
	put(est, "alpha", f.alpha, f.alpha != 0)
	put(est, "c", f.c, f.c != 0)
	put(est, "m", f.m, f.m != 0)
	for _, kv := range f.set {
		key, val, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("%w: --set %q: want KEY=VALUE", errUsage, kv)
		}
		if key == "degree" || key == "coef0" || key == "gamma" || key == "sigma" {
			k[key] = scalar(val) // the kernel's, as --degree, --coef0, --gamma and --sigma
			continue
		}
		est[key] = scalar(val)
	}
	_, hasG := k["gamma"]
	_, hasS := k["sigma"]
	if !hasG && !hasS && needsWidth(f.kernel) {
		// As scikit-learn's SVC: gamma scale, resolved on the training
		// rows; the number is printed beside the rule and saved.
		k["gamma"] = experiments.GammaScale
		f.defaulted = append(f.defaulted, "gamma scale (1/(d·Var(X)) on the training rows; scikit-learn SVC's default; --gamma or --sigma to choose)")
	}
	_, hasL := est["lambda"]
	_, hasA := est["alpha"]
	if !hasL && !hasA && needsLambda(f.estimator) {
		// As scikit-learn's KernelRidge: alpha 1 (λ = 1/n), said on stdout.
		est["alpha"] = defaultAlpha
		f.defaulted = append(f.defaulted, fmt.Sprintf("alpha %g (λ = alpha/n; scikit-learn KernelRidge's default; --lambda or --alpha to choose)", defaultAlpha))
	}
	doc := map[string]any{"name": name, "dataset": ds, "task": f.task, "estimator": est, "seed": f.seed}
	b, err := yaml.Marshal(doc)
	if err != nil {
		return nil, err
	}
	wd, _ := os.Getwd()
	s, err := experiments.Decode(bytes.NewReader(b), wd)
	if err != nil {
		var se *experiments.SpecError
		if errors.As(err, &se) && cmdline.SpecFlag(se) != "" {
			// The command adds the flag to set (cmdline.Hint): the built
			// spec, and a line in it, would be noise.
			c := *se
			c.Line = 0
			return nil, &c
		}
		if flagSpecError(err, f.given) {
			// A given flag's own value: the flag says it all.
			return nil, err
		}
		return nil, fmt.Errorf("%w (in the spec built from the flags:\n%s)", err, b)
	}
	return s, nil
}

// runFit is landmark fit: it fits the spec a SPEC.yaml and the flags
// describe, saves the model with --save and prints the fit and its scores
// (as JSON with --json).
func runFit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fa, err := parseFit(args, stdout, stderr)
	if err != nil {
		return err
	}
	spec := fa.spec
	defer goLimit(spec)()
	if fa.dense {
		spec.Dataset.Storage = experiments.StorageDense
	}
	if fa.save != "" {
		// Refused before the fit, not after it: a directory, a path in a
		// folder that does not exist (as every other output), or the data.
		if err := outfile.Check(fa.save, spec.Dataset.Path, spec.Dataset.TestPath); err != nil {
			return fmt.Errorf("--save: %w", err)
		}
	}
	fopt := experiments.FitOptions{Notify: func(m string) { fmt.Fprintf(stderr, "landmark fit: %s\n", m) }}
	if fa.mem.bytes > 0 {
		fopt.Limit = "--memory " + fa.mem.text
	}
	if p := cmdline.NewProgress(fa.prog, false, stderr); p != nil {
		fopt.Progress = p.Event
		defer p.Done()
	}
	var cv *experiments.CVResult
	if fa.cv > 0 {
		// LIBSVM's svm-train -v K: the setting's cross-validated scores,
		// then the fit on every training row as without --cv.
		c := *spec
		c.CV.Folds = fa.cv
		cv, err = experiments.CrossValidate(ctx, &c, experiments.Options{Notify: fopt.Notify, Progress: fopt.Progress})
		if err != nil {
			if fa.fromFlags && flagSpecError(err, fa.sf.given) {
				return err // it names the flag
			}
			return fmt.Errorf("--cv %d: %w", fa.cv, err)
		}
	}
	res, err := experiments.FitWith(ctx, spec, fopt)
	if err != nil {
		if fa.fromFlags {
			flagSpecError(err, fa.sf.given)
		}
		return err
	}
	if fa.save != "" {
		if err := res.SaveFile(fa.save, spec); err != nil {
			return err
		}
	}
	if fa.json {
		return printFitJSON(res, cv, fa.sf.defaulted, stdout)
	}
	printFit(res, cv, spec, fa.sf.defaulted, fa.save, stdout)
	return nil
}

// cvLine is landmark fit --cv's line: the folds and the mean ± sample
// standard deviation of every metric over them.
func cvLine(cv *experiments.CVResult) string {
	parts := make([]string, len(cv.Point.Metrics))
	for i, m := range cv.Point.Metrics {
		parts[i] = fmt.Sprintf("%s %.6g ± %.3g", m.Name, m.Mean, m.Std)
	}
	reps := ""
	if cv.Repeats > 1 {
		reps = fmt.Sprintf(" × %d repeats", cv.Repeats)
	}
	return fmt.Sprintf("cv (%d folds%s of %d rows; mean ± sd over %d fits): %s", cv.Folds, reps, cv.NTrain, cv.Point.Fits, strings.Join(parts, ", "))
}

// fitArgs are landmark fit's flags, parsed, and the spec they give.
type fitArgs struct {
	spec        *experiments.Spec
	sf          specFlags    // the estimator and data flags (sf.defaulted for the output)
	mem         memoryFlag   // --memory, applied to spec
	save        string       // --save
	dense, json bool         // --dense, --json
	cv          int          // --cv: folds to cross-validate the setting with first (0: none)
	prog        cmdline.Mode // --progress
	fromFlags   bool         // the spec was built from the flags, not read from a SPEC.yaml
}

// specFlagNames maps the spec keys that flags set to those flags' names.
var specFlagNames = map[string]string{
	"dataset.path":            "data",
	"dataset.test_path":       "test-data",
	"dataset.name":            "dataset",
	"dataset.delim":           "delim",
	"dataset.target":          "target",
	"dataset.header":          "header",
	"dataset.zero_based":      "zero-based",
	"dataset.format":          "format",
	"dataset.test_fraction":   "test-fraction",
	"dataset.subsample":       "subsample",
	"dataset.scale":           "scale",
	"estimator.type":          "estimator",
	"estimator.approx.type":   "approx",
	"estimator.kernel.type":   "kernel",
	"estimator.kernel.gamma":  "gamma",
	"estimator.kernel.sigma":  "sigma",
	"estimator.kernel.degree": "degree",
	"estimator.kernel.coef0":  "coef0",
	"estimator.lambda":        "lambda",
	"estimator.alpha":         "alpha",
	"estimator.c":             "c",
	"estimator.m":             "m",
	"task":                    "task",
	"cv.folds":                "cv",
}

// flagSpecError rewrites, in place, a spec error of a spec built from the
// flags so that it names no line of the YAML document the user never saw,
// and names the flag when the error is about a key a given flag set:
// "line 2: dataset.path" becomes "--data". It reports whether it named a
// flag.
func flagSpecError(err error, given map[string]bool) bool {
	var se *experiments.SpecError
	if !errors.As(err, &se) {
		return false
	}
	se.Line = 0
	if f, ok := specFlagNames[se.Path]; ok && given[f] {
		se.Path = "--" + f
		if f == "m" && strings.Contains(se.Msg, `unknown key "m"`) {
			// The SVMs have no centers: svm-train -m 100 parsed as --m.
			se.Msg += "; LIBSVM's svm-train -m (the kernel cache in MB) is --set cache_bytes=100M here for -m 100"
		}
		return true
	}
	return false
}

// parseFit parses landmark fit's flags and builds the spec: from the flags
// alone, or a SPEC.yaml with the flags given beside it as overrides
// (printed to stdout); --memory is applied to it.
func parseFit(args []string, stdout, stderr io.Writer) (*fitArgs, error) {
	fs := cmdline.NewFlags("fit", "[SPEC.yaml | --data FILE | --dataset NAME] [flags]", stderr)
	fa := &fitArgs{}
	fa.sf.register(fs)
	fs.Var(&fa.mem, "memory", memoryUsage)
	save := fs.String("save", "", "save the fitted model to this file")
	dense := fs.Bool("dense", false, denseUsage)
	asJSON := fs.Bool("json", false, "print the scores as JSON")
	cv := fs.Int("cv", 0, "cross-validate the setting on K folds first (stratified for classification; YAML cv), as svm-train -v K, and print the mean ± sd of every metric; the fit on every training row follows")
	prog := cmdline.AddProgress(fs)
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return nil, err
	}
	switch len(pos) {
	case 0:
		fa.sf.given = map[string]bool{}
		fs.Visit(func(f *flag.Flag) { fa.sf.given[f.Name] = true })
		if fa.spec, err = fa.sf.spec("fit"); err != nil {
			return nil, err
		}
		fa.fromFlags = true
	case 1:
		if given := fs.Lookup("data").Value.String() != "" || fs.Lookup("dataset").Value.String() != ""; given && !isSpecName(pos[0]) {
			// --data never goes with a spec (overrideSpec says so for a
			// .yaml); this is svm-train TRAIN MODEL's habit, the model
			// file after the data.
			return nil, fmt.Errorf("%w: unexpected argument %s: with --data or --dataset, fit takes no SPEC.yaml; it writes the model with --save %s (svm-train's model_file)", errUsage, pos[0], pos[0])
		}
		if err := dataArg("fit", pos[0]); err != nil {
			return nil, err
		}
		if fa.spec, err = experiments.DecodeFile(pos[0]); err != nil {
			if e := specArg("fit", pos[0]); e != nil {
				return nil, e
			}
			return nil, err
		}
		if err := overrideSpec(fa.spec, &fa.sf, fs, stdout); err != nil {
			return nil, fmt.Errorf("%s: %w", pos[0], err)
		}
	default:
		if _, ok := datasets.FormatOf(pos[0]); ok && len(pos) == 2 {
			return nil, fmt.Errorf("%w: fit takes its files as flags: svm-train's TRAIN MODEL are --data %s --save %s", errUsage, pos[0], pos[1])
		}
		return nil, fmt.Errorf("%w: want at most one SPEC.yaml, got %d arguments", errUsage, len(pos))
	}
	if err := applyMemory(fa.spec, fa.mem); err != nil {
		return nil, err
	}
	if *cv == 1 || *cv < 0 {
		return nil, fmt.Errorf("%w: --cv %d: want at least 2 folds (0 for none)", errUsage, *cv)
	}
	fa.save, fa.dense, fa.json, fa.prog, fa.cv = *save, *dense, *asJSON, *prog, *cv
	return fa, nil
}

// printFitJSON prints landmark fit --json's result: the setting, task,
// data, storage and scaling, the fit time and the scores.
func printFitJSON(res *experiments.FitResult, cv *experiments.CVResult, defaulted []string, stdout io.Writer) error {
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	out := map[string]any{
		"setting": res.Point.Key(), "task": res.Task, "task_rule": res.TaskRule, "defaults": defaulted, "n_train": res.NTrain, "n_test": res.NTest, "dim": res.Dim,
		"storage": res.Storage, "density": res.Density, "storage_reason": res.StorageReason, "scaling": res.ScalingUsed,
		"fit_seconds": res.FitSeconds, "train": res.Train, "test": res.Test,
		"test_rows_beyond_dim": res.BeyondRows, "test_cols_beyond_dim": res.BeyondCols,
	}
	if res.Gamma != 0 {
		out["gamma"] = res.Gamma // the γ a gamma rule (scale, auto) resolved to
	}
	if k := kernelOf(res.Estimator); k != "" {
		out["kernel"] = k
	}
	if sv, ok := supportVectors(res); ok {
		out["support_vectors"] = sv
	}
	if res.WeightSum > 0 {
		out["sample_weights"] = map[string]any{"sum": res.WeightSum, "zero": res.ZeroWeights}
	}
	if w := classWeightsOf(res); len(w) > 0 {
		named := make(map[string]float64, len(w))
		for l, v := range w {
			named[res.ClassName(l)] = v
		}
		out["class_weights"] = named
	}
	if cv != nil {
		out["cv"] = map[string]any{"folds": cv.Folds, "repeats": cv.Repeats, "n": cv.NTrain, "fits": cv.Point.Fits, "metrics": cv.Point.Metrics, "fold_scores": cv.Point.FoldScores, "metric": cv.Metric}
	}
	return enc.Encode(out)
}

// printFit prints landmark fit's result as lines of text: the inferred
// task and defaults, the fit, storage and scaling, the scores (training,
// cross-validated with --cv, test), and where the model was saved.
func printFit(res *experiments.FitResult, cv *experiments.CVResult, spec *experiments.Spec, defaulted []string, save string, stdout io.Writer) {
	setting := " " + res.Point.Key() // a grid's single values; none for a plain fit
	if setting == " " {
		setting = ""
	}
	if res.TaskRule != "" {
		fmt.Fprintf(stdout, "task: %s (inferred from the labels: %s; --task to override)\n", res.Task, res.TaskRule)
	}
	for _, d := range defaulted {
		fmt.Fprintf(stdout, "default: %s\n", d)
	}
	fmt.Fprintf(stdout, "%s%s on %d rows × %d features in %.3g s\n", spec.Estimator.Type, setting, res.NTrain, res.Dim, res.FitSeconds)
	fmt.Fprintln(stdout, storageLine(res.Storage, res.Density, res.StorageReason, estimatorCenters(res.Estimator)))
	if k := kernelOf(res.Estimator); k != "" {
		fmt.Fprintf(stdout, "kernel: %s\n", k)
	}
	if res.ScalingUsed != "" {
		fmt.Fprintf(stdout, "scaling: %s\n", res.ScalingUsed)
	}
	switch spec.Estimator.GammaRule {
	case experiments.GammaScale:
		fmt.Fprintf(stdout, "gamma: scale = 1/(d·Var(X)) = %s on the training rows as fitted (d = %d; saved with the model)\n", strconv.FormatFloat(res.Gamma, 'g', -1, 64), res.Dim)
	case experiments.GammaAuto:
		fmt.Fprintf(stdout, "gamma: auto = 1/d = %s (d = %d; saved with the model)\n", strconv.FormatFloat(res.Gamma, 'g', -1, 64), res.Dim)
	}
	if w := weightsLine(res); w != "" {
		fmt.Fprintln(stdout, w)
	}
	if res.WeightSum > 0 {
		fmt.Fprintf(stdout, "sample weights: %s, Σw = %s over %d rows (%d of weight 0); scores below are unweighted\n",
			spec.Dataset.SampleWeights, strconv.FormatFloat(res.WeightSum, 'g', 6, 64), res.NTrain, res.ZeroWeights)
	}
	if l := supportLine(res); l != "" {
		fmt.Fprintln(stdout, l)
	}
	if e, ok := res.Estimator.(*model.SVR); ok && e.Probability {
		sigma, unit := e.Info().Sigma, ""
		if res.Target != nil {
			sigma *= res.Target.Std
			unit = " (in the target's units; standardize_target)"
		}
		fmt.Fprintf(stdout, "probability model: target = prediction + z, z Laplace e^(−|z|/σ)/(2σ), σ = %.6g%s from 5-fold cross-validated residuals (svm-train -s 3 -b 1); a 90%% interval is ± %.6g\n",
			sigma, unit, sigma*math.Log(10))
	}
	if res.BeyondRows > 0 {
		fmt.Fprintln(stdout, "test data: "+experiments.BeyondLine(res.BeyondRows, res.BeyondCols, res.Dim))
	}
	if res.Train != nil {
		fmt.Fprintf(stdout, "train: %s\n", cmdline.ScoreLine(res.Train, nil))
	}
	if cv != nil {
		fmt.Fprintln(stdout, cvLine(cv))
	}
	if res.Test != nil {
		fmt.Fprintf(stdout, "test (%d rows): %s\n", res.NTest, cmdline.ScoreLine(res.Test, nil))
	}
	if save != "" {
		fmt.Fprintf(stdout, "saved to %s\n", save)
	}
}

// overrideSpec applies the estimator flags given beside a SPEC.yaml to the
// decoded spec, printing each change ("override: gamma 5 (spec: 0.5)"), and
// refuses the flags that describe the data or the estimator type, which
// belong in the spec. A grid axis of the flag's parameter becomes that
// single value. The spec is checked again afterwards.
func overrideSpec(s *experiments.Spec, sf *specFlags, fs *flag.FlagSet, w io.Writer) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var refused []string
	for _, name := range []string{"data", "dataset", "test-data", "test-fraction", "format", "target", "delim", "header", "zero-based", "subsample", "standardize", "scale", "estimator", "kernel", "approx"} {
		if given[name] {
			refused = append(refused, "--"+name)
		}
	}
	if len(refused) > 0 {
		return fmt.Errorf("%w: %s cannot be combined with a SPEC.yaml (set them in the spec; the flags that override a spec are --task, --gamma, --sigma, --degree, --coef0, --lambda, --alpha, --c, --m, --seed and --set)", errUsage, strings.Join(refused, ", "))
	}
	var ovs []experiments.Override
	var gamma any = sf.gamma
	if sf.gammaRule != "" {
		gamma = sf.gammaRule
	}
	vals := map[string]any{"gamma": gamma, "sigma": sf.sigma, "degree": float64(sf.degree), "coef0": sf.coef0, "lambda": sf.lambda, "alpha": sf.alpha, "c": sf.c, "m": sf.m}
	for _, name := range []string{"gamma", "sigma", "degree", "coef0", "lambda", "alpha", "c", "m"} {
		if given[name] {
			ovs = append(ovs, experiments.Override{Name: name, Value: vals[name]})
		}
	}
	for _, kv := range sf.set {
		key, val, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("%w: --set %q: want KEY=VALUE", errUsage, kv)
		}
		ovs = append(ovs, experiments.Override{Name: key, Value: scalar(val), Option: true})
	}
	if given["seed"] {
		ovs = append(ovs, experiments.Override{Name: "seed", Value: sf.seed})
	}
	if given["task"] {
		ovs = append(ovs, experiments.Override{Name: "task", Value: sf.task})
	}
	lines, err := experiments.ApplyOverrides(s, ovs)
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	return err
}

// denseUsage documents --dense on fit and run.
var denseUsage = fmt.Sprintf("hold X dense (YAML dataset storage: dense); by default a LIBSVM file is kept sparse (CSR) when its density is below %g", experiments.SparseDensity)

// storageLine says how X was held and, when centers is not empty, how the
// estimator held its centers, e.g. "data: sparse X (CSR), density 0.0025
// (auto: density 0.0025 < 0.1); centers sparse (CSR, 8123 non-zeros)".
func storageLine(storage string, density float64, why, centers string) string {
	s := fmt.Sprintf("data: %s X, density %.4g", storage, density)
	switch storage {
	case experiments.StorageSparse:
		s = fmt.Sprintf("data: sparse X (CSR), density %.4g", density)
	case experiments.StorageStreamed:
		s = "data: X streamed from the shards on every pass"
	}
	if why != "" {
		s += " (" + why + ")"
	}
	if centers != "" {
		s += "; " + centers
	}
	return s
}

// centerForm is model.CenterForm: "dense" or "sparse (CSR, N non-zeros)".
func centerForm(c mat.Matrix) string { return model.CenterForm(c) }
