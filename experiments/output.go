package experiments

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
)

// TimingColumns are the results.csv columns that measure time or memory and
// so differ between otherwise identical runs.
var TimingColumns = []string{"fit_seconds", "predict_seconds", "peak_bytes"}

func fmtFloat(v float64) string {
	if math.IsNaN(v) {
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// CSV renders the results table: one row per grid point with the mean and
// standard deviation of every metric over the folds, times and peak memory.
func (r *Result) CSV() ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	axes := r.Spec.Grid.Axes()
	approxRun := r.Spec.Approximation != nil
	head := []string{"index"}
	if approxRun {
		head = append(head, "method")
	}
	head = append(head, axes...)
	head = append(head, "fits")
	var mnames []string
	if len(r.Points) > 0 {
		for _, m := range r.Points[0].Metrics {
			mnames = append(mnames, m.Name)
			head = append(head, m.Name+"_mean", m.Name+"_std")
		}
	}
	if approxRun {
		head = append(head, "bytes")
	}
	ikeys := infoKeys(r.Points)
	head = append(head, ikeys...)
	head = append(head, TimingColumns...)
	head = append(head, "error")
	if err := w.Write(head); err != nil {
		return nil, err
	}
	for _, p := range r.Points {
		row := []string{strconv.Itoa(p.Index)}
		if approxRun {
			row = append(row, p.Method)
		}
		for _, a := range axes {
			v, ok := p.Params.Value(a)
			if !ok {
				row = append(row, "")
				continue
			}
			row = append(row, fmtFloat(v))
		}
		row = append(row, strconv.Itoa(p.Fits))
		for _, n := range mnames {
			s, _ := p.Metric(n)
			row = append(row, fmtFloat(s.Mean), fmtFloat(s.Std))
		}
		if approxRun {
			row = append(row, strconv.FormatInt(p.Bytes, 10))
		}
		for _, k := range ikeys {
			if v, ok := p.Info[k]; ok {
				row = append(row, fmtFloat(v))
			} else {
				row = append(row, "")
			}
		}
		row = append(row, fmtFloat(p.FitSeconds), fmtFloat(p.PredictSeconds), strconv.FormatInt(p.PeakBytes, 10), p.Error)
		if err := w.Write(row); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return b.Bytes(), w.Error()
}

// Markdown renders summary.md: the best configuration, its test score and
// the grid table.
func (r *Result) Markdown() string {
	if r.Spec.Approximation != nil {
		return r.approxMarkdown() + r.paperMarkdown()
	}
	return r.estimatorMarkdown() + r.paperMarkdown()
}

// paperMarkdown is the "Beside the paper" section (empty without a paper
// block).
func (r *Result) paperMarkdown() string {
	lines := r.Paper()
	if lines == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Beside the paper\n\n%s.", r.Spec.Paper.Source)
	if r.Spec.Paper.Note != "" {
		fmt.Fprintf(&b, " %s", r.Spec.Paper.Note)
	}
	b.WriteString("\n\n| | paper | this run |\n|---|---|---|\n")
	for _, l := range lines {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", strings.ReplaceAll(l.What, "|", "/"), l.Paper, strings.ReplaceAll(l.Ours, "|", "/"))
	}
	return b.String()
}

// estimatorMarkdown is summary.md of an estimator run.
func (r *Result) estimatorMarkdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", r.Spec.Name)
	fmt.Fprintf(&b, "Estimator **%s**", r.Spec.Estimator.Type)
	if r.Spec.Estimator.Approx.Type != "" {
		fmt.Fprintf(&b, " (approx %s)", r.Spec.Estimator.Approx.Type)
	}
	fmt.Fprintf(&b, ", kernel %s, task %s; %d training rows × %d features", r.Spec.Estimator.Kernel.Type, r.task(), r.NTrain, r.Dim)
	if r.NTest > 0 {
		fmt.Fprintf(&b, ", %d test rows", r.NTest)
	}
	folds := r.Spec.CV.Folds
	if folds == 0 {
		folds = 5
	}
	fmt.Fprintf(&b, ". %d-fold cross-validation, selection metric %s, seed %d. λ follows the λn convention (model/doc.go).\n\n", folds, r.Metric, r.Spec.Seed)
	if r.Best >= 0 {
		bp := r.Points[r.Best]
		s, _ := bp.Metric(r.Metric)
		key := bp.Key
		if key == "" {
			key = "(no grid)"
		}
		cv := fmt.Sprintf("%.6g ± %.3g (mean ± std over %d fits)", s.Mean, s.Std, bp.Fits)
		if r.Metric == "auc" && math.IsNaN(s.Mean) {
			// A test fold of one class has no ROC curve.
			cv = fmt.Sprintf("undefined (a test fold's labels are not two classes; %d fits)", bp.Fits)
		}
		fmt.Fprintf(&b, "## Best configuration\n\n`%s`: CV %s %s, fit %.3g s per fold.\n\n", key, r.Metric, cv, bp.FitSeconds)
	}
	if r.Test != nil {
		fmt.Fprintf(&b, "## Test score (refit on all %d training rows, %d test rows)\n\n", r.Test.NTrain, r.Test.NTest)
		b.WriteString("| metric | test |\n|---|---|\n")
		for _, m := range r.Test.Metrics {
			fmt.Fprintf(&b, "| %s | %s |\n", m.Name, fmtScore(m.Name, m.Mean, "%.6g"))
		}
		fmt.Fprintf(&b, "\nRefit %.3g s, predict %.3g s, peak Go heap +%s.\n\n", r.Test.FitSeconds, r.Test.PredictSeconds, fmtBytes(r.Test.PeakBytes))
	} else {
		b.WriteString("No test set (set dataset.test_path or test_fraction for one).\n\n")
	}
	b.WriteString("## Grid\n\n|")
	axes := r.Spec.Grid.Axes()
	for _, a := range axes {
		fmt.Fprintf(&b, " %s |", a)
	}
	ikeys := infoKeys(r.Points)
	fmt.Fprintf(&b, " CV %s |", r.Metric)
	for _, k := range ikeys {
		fmt.Fprintf(&b, " %s |", strings.ReplaceAll(k, "_", " "))
	}
	b.WriteString(" fit s | peak heap | |\n|")
	for range len(axes) + len(ikeys) + 4 {
		b.WriteString("---|")
	}
	b.WriteByte('\n')
	for i, p := range r.Points {
		b.WriteByte('|')
		for _, a := range axes {
			v, _ := p.Params.Value(a)
			fmt.Fprintf(&b, " %s |", fmtFloat(v))
		}
		s, _ := p.Metric(r.Metric)
		mark := ""
		if i == r.Best {
			mark = "best"
		}
		if p.Error != "" {
			mark = "failed: " + strings.ReplaceAll(p.Error, "|", "/")
		}
		if p.Error == "" && r.Metric == "auc" && math.IsNaN(s.Mean) {
			fmt.Fprintf(&b, " %s |", fmtScore(r.Metric, s.Mean, ""))
		} else {
			fmt.Fprintf(&b, " %.6g ± %.2g |", s.Mean, s.Std)
		}
		for _, k := range ikeys {
			if v, ok := p.Info[k]; ok {
				fmt.Fprintf(&b, " %.4g |", v)
			} else {
				b.WriteString(" – |")
			}
		}
		fmt.Fprintf(&b, " %.3g | %s | %s |\n", p.FitSeconds, fmtBytes(p.PeakBytes), mark)
	}
	return b.String()
}

// fmtScore formats a metric's value v with format f, except a NaN auc,
// which Score gives when the labels scored are not two classes (there is
// no ROC curve: scikit-learn's roc_auc_score raises "Only one class present
// in y_true"): it reads "undefined (labels not two classes)", where a bare
// NaN would look like a failure. results.csv keeps NaN, for programs.
func fmtScore(name string, v float64, f string) string {
	if name == "auc" && math.IsNaN(v) {
		return "undefined (labels not two classes)"
	}
	return fmt.Sprintf(f, v)
}

// fmtBytes formats a byte count for the tables.
func fmtBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// Manifest records how and where a run was made.
type Manifest struct {
	// Spec is the spec that ran.
	Spec *Spec `json:"spec"`
	// SpecHash is Spec.Hash().
	SpecHash string `json:"spec_hash"`
	// Seed is the spec's seed.
	Seed uint64 `json:"seed"`
	// GoVersion is runtime.Version().
	GoVersion string `json:"go_version"`
	// Module is the module path and version.
	Module string `json:"module"`
	// Cores is runtime.NumCPU(); GOMAXPROCS the setting in force.
	Cores      int `json:"cores"`
	GOMAXPROCS int `json:"gomaxprocs"`
	// OS and Arch are the platform.
	OS   string `json:"os"`
	Arch string `json:"arch"`
	// Start and End bracket the run.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Computed and Resumed count the grid points computed in this run and read from the log.
	Computed int `json:"computed"`
	Resumed  int `json:"resumed"`
}

func moduleVersion(v string) string {
	path := "github.com/landmark-ml/landmark"
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Path != "" {
			path = bi.Main.Path
		}
		if v == "" && bi.Main.Version != "" {
			v = bi.Main.Version
		}
	}
	if v == "" {
		v = "(devel)"
	}
	return path + " " + v
}

// writeOutputs writes the tables, summary, manifest and plots, each atomically.
func writeOutputs(r *Result, opt Options) error {
	csvb, err := r.CSV()
	if err != nil {
		return err
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	man := Manifest{
		Spec: r.Spec, SpecHash: r.Hash, Seed: r.Spec.Seed, GoVersion: runtime.Version(),
		Module: moduleVersion(opt.Version), Cores: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
		OS: runtime.GOOS, Arch: runtime.GOARCH, Start: r.Start, End: r.End, Computed: r.Computed, Resumed: r.Resumed,
	}
	mj, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		return err
	}
	files := []struct {
		name string
		data []byte
	}{
		{"results.csv", csvb},
		{"results.json", append(js, '\n')},
		{"summary.md", []byte(r.Markdown())},
		{"manifest.json", append(mj, '\n')},
	}
	for _, f := range files {
		if err := writeFileAtomic(filepath.Join(r.Out, f.name), f.data); err != nil {
			return err
		}
	}
	if !opt.NoPlots {
		return writePlots(r)
	}
	return nil
}

// approxMarkdown is summary.md of an approximation run: one table row per
// method and grid point.
func (r *Result) approxMarkdown() string {
	a := r.Spec.Approximation
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", r.Spec.Name)
	fmt.Fprintf(&b, "Kernel approximation run: kernel %s on %d rows × %d features, methods %s, %d repeat(s), seed %d.\n", a.Kernel.Type, r.NTrain, r.Dim, strings.Join(a.Methods, ", "), max(r.Spec.Repeats, 1), r.Spec.Seed)
	b.WriteString("Errors are relative: frobenius = ‖K − K̃‖_F/‖K‖_F (sampled rows), spectral = ‖K − K̃‖₂/‖K‖₂ (random subset). Memory = bytes of K̃'s representation on the data.\n\n|")
	axes := r.Spec.Grid.Axes()
	b.WriteString(" method |")
	for _, x := range axes {
		fmt.Fprintf(&b, " %s |", x)
	}
	ms := a.measures()
	for _, m := range ms {
		fmt.Fprintf(&b, " %s |", m)
	}
	b.WriteString(" build s | memory | |\n|")
	for range 1 + len(axes) + len(ms) + 3 {
		b.WriteString("---|")
	}
	b.WriteByte('\n')
	for _, p := range r.Points {
		fmt.Fprintf(&b, "| %s |", p.Method)
		for _, x := range axes {
			if v, ok := p.Params.Value(x); ok {
				fmt.Fprintf(&b, " %s |", fmtFloat(v))
			} else {
				b.WriteString(" – |")
			}
		}
		for _, m := range ms {
			s, _ := p.Metric(m)
			fmt.Fprintf(&b, " %.4g ± %.2g |", s.Mean, s.Std)
		}
		note := ""
		if p.Error != "" {
			note = "failed: " + strings.ReplaceAll(p.Error, "|", "/")
		}
		fmt.Fprintf(&b, " %.3g | %s | %s |\n", p.FitSeconds, fmtBytes(p.Bytes), note)
	}
	return b.String()
}

// task is the task run: Task, or the spec's for a result without it (one
// read from an older results.json).
func (r *Result) task() string {
	if r.Task != "" {
		return r.Task
	}
	return r.Spec.Task
}
