package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/landmark-ml/landmark/experiments"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/internal/cmdline"
	"github.com/landmark-ml/landmark/model"
)

// modelUsage is landmark model's help.
const modelUsage = `Usage: landmark model info MODEL [--json]

  info   describe a model saved by landmark fit --save: the estimator and its
         parameters, the kernel, the task and classes, the features the rows
         must have, the scaling, what was fitted, and the outputs predict gives
`

// runModel is landmark model: its one subcommand, info, describes a saved
// model, as a LIBSVM model file's header or scikit-learn's repr does.
func runModel(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, modelUsage)
		return fmt.Errorf("%w: missing model subcommand (info)", errUsage)
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, modelUsage)
		return nil
	case "info":
		return modelInfo(args[1:], stdout, stderr)
	}
	fmt.Fprint(stderr, modelUsage)
	return fmt.Errorf("%w: unknown model subcommand %q (want info)", errUsage, args[0])
}

// modelInfo is landmark model info MODEL [--json].
func modelInfo(args []string, stdout, stderr io.Writer) error {
	fs := cmdline.NewFlags("model info", "MODEL [--json]", stderr)
	asJSON := fs.Bool("json", false, "print the description as JSON")
	pos, err := parseDataArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return fmt.Errorf("%w: model info takes one MODEL file, got %d arguments", errUsage, len(pos))
	}
	path := pos[0]
	fit, err := experiments.LoadFitFile(path)
	if err != nil {
		return err
	}
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	d := describeModel(fit)
	d.File, d.Bytes = path, st.Size()
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(d)
	}
	d.writeText(stdout)
	return nil
}

// modelDescription is what model info prints (its JSON form with --json).
type modelDescription struct {
	File  string `json:"file"`
	Bytes int64  `json:"bytes"`
	// Bare says that the file holds an estimator alone, as model.Save
	// writes it (experiments.FitResult.Bare).
	Bare bool `json:"bare,omitempty"`
	// Estimator is the YAML type (svm, falkon, …); Params its fitted
	// parameters by YAML name, defaults resolved.
	Estimator string         `json:"estimator"`
	Params    map[string]any `json:"params"`
	Kernel    string         `json:"kernel,omitempty"`
	Task      string         `json:"task"`
	TaskRule  string         `json:"task_rule,omitempty"`
	Classes   []string       `json:"classes,omitempty"`
	// Features is d; FeatureNames their names when the training data
	// named them (nil for x1…xd).
	Features     int      `json:"features"`
	FeatureNames []string `json:"feature_names,omitempty"`
	Target       string   `json:"target,omitempty"`
	ZeroBased    bool     `json:"zero_based,omitempty"`
	Scaling      string   `json:"scaling"`
	TargetScaled bool     `json:"target_scaled,omitempty"`
	// Fitted holds the fit's counts (support vectors, centers, rank, CG
	// iterations), as experiments.FitInfo gives them.
	Fitted map[string]float64 `json:"fitted,omitempty"`
	// Outputs are predict's --output values the model gives; NoOutputs
	// says why the others are not given.
	Outputs   []string          `json:"outputs"`
	NoOutputs map[string]string `json:"no_outputs,omitempty"`
}

// describeModel describes a loaded fit.
func describeModel(fit *experiments.FitResult) *modelDescription {
	params := estimatorParams(fit.Estimator)
	if _, ok := fit.Estimator.(*model.KRR); ok && fit.SavedSpec != nil && fit.SavedSpec.Estimator.Approx.Type != "" {
		params["approx"] = fit.SavedSpec.Estimator.Approx.Type // the name fit took, not the backend's kind
	}
	d := &modelDescription{Estimator: estimatorType(fit.Estimator), Params: params, Kernel: kernelOf(fit.Estimator),
		Task: fit.Task, TaskRule: fit.TaskRule, Features: fit.Dim, Target: fit.TargetName, ZeroBased: fit.ZeroBased,
		Scaling: fit.Scaling.Name(), TargetScaled: fit.Target != nil, Fitted: experiments.FitInfo(fit.Estimator), Bare: fit.Bare}
	if !fit.ImpliedFeatures {
		d.FeatureNames = fit.Features
	}
	for _, c := range fit.Classes() {
		d.Classes = append(d.Classes, fit.ClassName(c))
	}
	d.Outputs = []string{outLabels, outScores}
	d.NoOutputs = map[string]string{}
	if err := fit.HasProba(); err == nil {
		d.Outputs = append(d.Outputs, outProba)
	} else {
		d.NoOutputs[outProba] = strings.TrimPrefix(err.Error(), experiments.ErrNoProba.Error()+": ")
	}
	if err := fit.HasInterval(); err == nil {
		d.Outputs = append(d.Outputs, outInterval)
	} else {
		d.NoOutputs[outInterval] = strings.TrimPrefix(err.Error(), experiments.ErrNoInterval.Error()+": ")
	}
	return d
}

// writeText prints the description as aligned lines.
func (d *modelDescription) writeText(w io.Writer) {
	line := func(k, v string) { fmt.Fprintf(w, "%-11s %s\n", k+":", v) }
	line("model", fmt.Sprintf("%s (%s)", d.File, check.FormatBytes(d.Bytes)))
	if d.Bare {
		line("saved", "by model.Save (Go): the estimator alone; no scaling or feature names recorded, features taken by position, the task from its classes")
	}
	line("estimator", d.Estimator+paramText(d.Params))
	if d.Kernel != "" {
		line("kernel", d.Kernel)
	}
	task := d.Task
	if d.TaskRule != "" {
		task += " (inferred from the labels: " + d.TaskRule + ")"
	}
	line("task", task)
	if len(d.Classes) > 0 {
		line("classes", fmt.Sprintf("%d: %s", len(d.Classes), strings.Join(d.Classes, ", ")))
	}
	feat := strconv.Itoa(d.Features)
	switch {
	case d.FeatureNames != nil:
		feat += ", named: " + nameList(d.FeatureNames, 10)
	case d.ZeroBased:
		feat += " (LIBSVM indices 0…" + strconv.Itoa(d.Features-1) + ")"
	default:
		feat += " (LIBSVM indices 1…" + strconv.Itoa(d.Features) + ")"
	}
	line("features", feat)
	if d.Target != "" {
		line("target", d.Target)
	}
	scaling := d.Scaling
	if d.TargetScaled {
		scaling += "; target standardized (predictions are in its units)"
	}
	line("scaling", scaling)
	if len(d.Fitted) > 0 {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(d.Fitted)) {
			parts = append(parts, fmt.Sprintf("%s %s", strings.ReplaceAll(k, "_", " "), strconv.FormatFloat(d.Fitted[k], 'g', 6, 64)))
		}
		line("fitted", strings.Join(parts, ", "))
	}
	out := strings.Join(d.Outputs, ", ")
	for _, k := range []string{outProba, outInterval} {
		if why, ok := d.NoOutputs[k]; ok && (k == outProba || d.Task == experiments.TaskRegression) {
			out += "; no " + k + ": " + why
		}
	}
	line("predict", "--output "+out)
}

// nameList lists up to max names, then how many more.
func nameList(names []string, max int) string {
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:max], ", ") + fmt.Sprintf(", … (%d more)", len(names)-max)
}

// paramText writes params as ": k = v, …" in sorted order, "" for none.
func paramText(params map[string]any) string {
	if len(params) == 0 {
		return ""
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(params)) {
		parts = append(parts, fmt.Sprintf("%s = %v", k, params[k]))
	}
	return ": " + strings.Join(parts, ", ")
}

// estimatorType is the YAML type of a fitted estimator, with the SVMs'
// formulation (C-SVC or ν-SVC, ε-SVR or ν-SVR).
func estimatorType(est model.Estimator) string {
	t := experiments.EstimatorType(est)
	switch e := est.(type) {
	case *model.SVM:
		if e.Nu > 0 {
			return t + " (ν-SVC)"
		}
		return t + " (C-SVC)"
	case *model.SVR:
		if e.Nu > 0 {
			return t + " (ν-SVR)"
		}
		return t + " (ε-SVR)"
	}
	return t
}

// estimatorParams are a fitted estimator's parameters by YAML name, with
// the defaults resolved as the fit resolved them (C 0 → 1; ε 0 → 0.1).
func estimatorParams(est model.Estimator) map[string]any {
	orOne := func(c float64) float64 {
		if c == 0 {
			return 1
		}
		return c
	}
	p := map[string]any{}
	switch e := est.(type) {
	case *model.KRR:
		in := e.Info()
		p["lambda"], p["backend"] = in.Lambda, in.Backend
		p["probability"] = e.Probability
	case *model.Falkon:
		in := e.Info()
		p["lambda"], p["m"], p["preconditioner"] = in.Lambda, in.M, in.Preconditioner
		if name := experiments.SamplerName(e.Sampler); name != "" {
			p["centers"] = name
		} else if e.Sampler == nil {
			p["centers"] = "uniform"
		} else {
			p["centers"] = in.Sampler
		}
		p["probability"] = e.Probability
	case *model.SVM:
		if e.Nu > 0 {
			p["nu"] = e.Nu
		} else {
			p["c"] = orOne(e.C)
		}
		if len(e.Classes()) > 2 {
			p["multiclass"] = map[bool]string{true: "ovr", false: "ovo"}[e.Multiclass == model.OneVsRest]
		}
		p["probability"] = e.Probability
	case *model.BKASVM:
		p["c"], p["clusters"] = orOne(e.C), len(e.Info().ClusterSizes)
		p["probability"] = e.Probability
	case *model.SVR:
		in := e.Info()
		p["c"], p["epsilon"] = in.C, in.Epsilon
		if e.Nu > 0 {
			p["nu"] = e.Nu
		}
		p["probability"] = e.Probability
	case *model.OneClassSVM:
		p["nu"] = e.Info().Nu
	}
	return p
}
