package experiments

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/internal/outfile"
	"github.com/landmark-ml/landmark/model"
)

// savedMagic starts a saved fit: the preprocessing as one JSON line, then
// the estimator in model.Save's format.
const savedMagic = "landmark-fit v1\n"

// ErrSaved is wrapped by errors about a malformed saved fit.
var ErrSaved = errors.New("not a saved landmark fit")

// savedHeader is the JSON line of a saved fit.
type savedHeader struct {
	Spec    *Spec                  `json:"spec"`
	Setting string                 `json:"setting"`
	Task    string                 `json:"task"`
	Dim     int                    `json:"dim"`
	Scaling Scaling                `json:"scaling"`
	Target  *datasets.TargetScaler `json:"target,omitempty"`
	// Features and TargetName name the training columns (absent in files
	// saved before they were kept); ImpliedFeatures, for unnamed features,
	// replaces the list x1…xd that the files saved since names were kept
	// and before this field stored in full (all of it, later only up to
	// d = 100,000): such a list loads as it was saved. A file with a
	// target name and no features (saved then with d > 100,000) is read
	// as implied too.
	Features        []string `json:"features,omitempty"`
	ImpliedFeatures bool     `json:"implied_features,omitempty"`
	TargetName      string   `json:"target_name,omitempty"`
	// ClassNames is FitResult.ClassNames (absent for numeric labels).
	ClassNames []string `json:"class_names,omitempty"`
	// TaskRule says how task auto decided the task.
	TaskRule string `json:"task_rule,omitempty"`
	// Gamma is the γ the spec's gamma rule resolved to (FitResult.Gamma;
	// the model's kernel holds it too).
	Gamma float64 `json:"gamma,omitempty"`
	// ZeroBased is FitResult.ZeroBased, kept here too because a fit need
	// not come from a spec that says it (shards of a 0-based file; Save
	// with a nil spec). Files saved before it have the spec's zero_based.
	ZeroBased bool `json:"zero_based,omitempty"`
	// Layout is FitResult.Layout.
	Layout *datasets.Layout `json:"layout,omitempty"`
}

// Save writes the fit — its preprocessing (feature scaling, target scaling)
// and the estimator (model.Save, streamed) — so that LoadFit predicts
// identically.
func (f *FitResult) Save(w io.Writer, s *Spec) error {
	if err := f.save(w, s); err != nil {
		return fmt.Errorf("experiments: save fit: %w", err)
	}
	return nil
}

// save is Save without the error prefix.
func (f *FitResult) save(w io.Writer, s *Spec) error {
	h := savedHeader{Spec: s, Setting: f.Point.Key(), Task: f.Task, Dim: f.Dim, Scaling: f.Scaling, Target: f.Target,
		Features: f.Features, ImpliedFeatures: f.ImpliedFeatures && f.Features == nil, TargetName: f.TargetName, TaskRule: f.TaskRule, Gamma: f.Gamma, ZeroBased: f.ZeroBased, ClassNames: f.ClassNames, Layout: f.Layout}
	b, err := json.Marshal(h)
	if err != nil {
		return err
	}
	head := append([]byte(savedMagic), b...)
	if _, err := w.Write(append(head, '\n')); err != nil {
		return err
	}
	return model.Save(w, f.Estimator)
}

// SaveFile writes the fit to path atomically (temporary file, fsync, rename),
// streaming the model to the file. A folder of path that does not exist is
// refused (an error wrapping model.ErrInput), as
// model.SaveFile refuses it: it is not created.
func (f *FitResult) SaveFile(path string, s *Spec) error {
	if err := outfile.Check(path); err != nil {
		return fmt.Errorf("experiments: save fit: %w", err)
	}
	if err := outfile.Write(path, func(w io.Writer) error { return f.save(w, s) }); err != nil {
		return fmt.Errorf("experiments: save fit %s: %w", path, err)
	}
	return nil
}

// LoadFit reads a fit written by Save. Its Predict takes raw features. When
// r is a file (an io.Seeker model.Load can size, see model.Load) the model is
// decoded as it is read, not held whole in memory. It reads a file written
// by model.Save too, as a fit without preprocessing (FitResult.Bare): its
// features are taken by position, and its task is the one its classes
// imply.
func LoadFit(r io.Reader) (*FitResult, error) {
	res, err := loadFit(r)
	if err != nil {
		return nil, fmt.Errorf("experiments: load fit: %w", err)
	}
	return res, nil
}

// loadFit is LoadFit without the error prefix.
func loadFit(r io.Reader) (*FitResult, error) {
	start := int64(-1)
	if sk, ok := r.(io.Seeker); ok {
		if at, err := sk.Seek(0, io.SeekCurrent); err == nil {
			start = at
		}
	}
	br := bufio.NewReader(r)
	if head, _ := br.Peek(len(modelMagic)); string(head) == modelMagic {
		var mr io.Reader = br
		if start >= 0 {
			if _, err := r.(io.Seeker).Seek(start, io.SeekStart); err == nil {
				mr = r
			}
		}
		return loadModel(mr)
	}
	magic := make([]byte, len(savedMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != savedMagic {
		return nil, fmt.Errorf("%w: it starts neither with %q (FitResult.Save, landmark fit --save) nor with %q (model.Save)", ErrSaved, savedMagic[:len(savedMagic)-1], modelMagic)
	}
	line, err := br.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("%w: truncated header", ErrSaved)
	}
	var h savedHeader
	if err := json.Unmarshal(line, &h); err != nil {
		return nil, fmt.Errorf("%w: header: %v", ErrSaved, err)
	}
	var mr io.Reader = br
	if start >= 0 {
		// Back to the end of the header (bufio read ahead), and the model
		// straight from r.
		if _, err := r.(io.Seeker).Seek(start+int64(len(magic)+len(line)), io.SeekStart); err == nil {
			mr = r
		}
	}
	est, err := model.Load(mr)
	if err != nil {
		return nil, err
	}
	if h.Features != nil && len(h.Features) != h.Dim {
		return nil, fmt.Errorf("%w: %d feature names for %d features", ErrSaved, len(h.Features), h.Dim)
	}
	for _, c := range classesOf(est, h.Task) {
		if k := int(c); h.ClassNames != nil && (float64(k) != c || k < 0 || k >= len(h.ClassNames)) {
			return nil, fmt.Errorf("%w: the model's class %v is not one of the %d class names", ErrSaved, c, len(h.ClassNames))
		}
	}
	if err := checkLayout(h.Layout); err != nil {
		return nil, err
	}
	// Every file that kept a target name kept the feature names too, or
	// left them implied (see savedHeader).
	implied := h.Features == nil && (h.ImpliedFeatures || h.TargetName != "")
	return &FitResult{Estimator: est, SavedSpec: h.Spec, Dim: h.Dim, Scaling: h.Scaling, Target: h.Target, Task: h.Task, TaskRule: h.TaskRule,
		Features: h.Features, ImpliedFeatures: implied, TargetName: h.TargetName, ClassNames: h.ClassNames, ZeroBased: h.ZeroBased || (h.Spec != nil && h.Spec.Dataset.ZeroBased), Gamma: h.Gamma, Layout: h.Layout}, nil
}

// modelMagic starts a file model.Save wrote (model/doc.go): an estimator
// alone, without the preprocessing a saved fit records.
const modelMagic = "LANDMARK"

// fittedDim is implemented by the estimators that report the number of
// features they were fitted on (model.KRR.Dim and the others').
type fittedDim interface{ Dim() int }

// loadModel reads a file model.Save wrote as a fit: the estimator with no
// preprocessing (no scaling, no target scaling; the Go caller applied its
// own), its features taken by position under no names, and the task its
// classes imply (two: binary, more: multiclass, none: regression).
func loadModel(r io.Reader) (*FitResult, error) {
	est, err := model.Load(r)
	if err != nil {
		return nil, err
	}
	fd, ok := est.(fittedDim)
	if !ok || fd.Dim() < 1 {
		return nil, fmt.Errorf("%w: a %T saved by model.Save without its number of features", ErrSaved, est)
	}
	task := TaskRegression
	if c, ok := est.(classer); ok {
		switch k := len(c.Classes()); {
		case k == 2:
			task = TaskBinary
		case k > 2:
			task = TaskMulticlass
		}
	}
	return &FitResult{Estimator: est, Dim: fd.Dim(), Task: task, Bare: true}, nil
}

// checkLayout refuses a saved layout no CSV read makes: no columns, the
// target or a dropped column outside them, dropped columns not ascending
// or holding the target, none left for a feature, or names other than one
// for each dropped column of a file with a header.
func checkLayout(l *datasets.Layout) error {
	if err := layoutProblem(l); err != nil {
		return fmt.Errorf("%w: %w", ErrSaved, err)
	}
	return nil
}

// layoutProblem is checkLayout's test, its error without a sentinel.
func layoutProblem(l *datasets.Layout) error {
	if l == nil {
		return nil
	}
	kept := l.Width - len(l.Dropped)
	if l.Target >= 0 {
		kept--
	}
	bad := l.Width < 1 || l.Target < -1 || l.Target >= l.Width || kept < 1 ||
		(l.Names != nil && (!l.Header || len(l.Names) != len(l.Dropped)))
	for i, j := range l.Dropped {
		bad = bad || j < 0 || j >= l.Width || j == l.Target || (i > 0 && j <= l.Dropped[i-1])
	}
	if bad {
		return fmt.Errorf("a CSV layout of %d columns, target %d, dropped %v (names %q) no read makes", l.Width, l.Target, l.Dropped, l.Names)
	}
	return nil
}

// decodeLayout decodes the JSON of a layout a shard manifest keeps
// (shard.Manifest.Layout) and checks it as checkLayout does; nil for none.
// Its errors wrap shard.ErrFormat.
func decodeLayout(raw json.RawMessage) (*datasets.Layout, error) {
	if raw == nil {
		return nil, nil
	}
	var l datasets.Layout
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("%w: manifest layout: %w", shard.ErrFormat, err)
	}
	if err := layoutProblem(&l); err != nil {
		return nil, fmt.Errorf("%w: manifest layout: %w", shard.ErrFormat, err)
	}
	return &l, nil
}

// classesOf returns the classes of est fitted for task, as
// FitResult.Classes.
func classesOf(est model.Estimator, task string) []float64 {
	return (&FitResult{Estimator: est, Task: task}).Classes()
}

// LoadFitFile reads a fit saved with SaveFile.
// Its errors read "experiments: load fit PATH: why".
func LoadFitFile(path string) (*FitResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("experiments: load fit: %w", err) // *PathError names the file
	}
	defer f.Close()
	res, err := loadFit(f)
	if err != nil {
		return nil, fmt.Errorf("experiments: load fit %s: %w", path, err)
	}
	return res, nil
}
