package experiments

import (
	"context"
	"fmt"
	"strings"

	"github.com/landmark-ml/landmark/datasets"
	"gonum.org/v1/gonum/mat"
)

// ReadInput reads the rows to predict from in, an input opened for them,
// as the fitted model expects them: rows may come without their label (y
// is then nil); a CSV header is matched to the training columns by name
// (x1…xd for unnamed ones), models saved before names were kept take the
// columns by position. A LIBSVM file for a model whose scaling keeps zeros
// is read sparse, and kept so below SparseDensity; columns beyond the
// training dimension are allowed there (predicted as zero-padded training
// data). opt supplies the CSV options (target, delimiter, header, drop);
// with a nil opt.Drop a CSV file is taken as the training file was
// (f.Layout: its dropped columns, and without a header the target's
// position unless opt.Target is an index), and a non-nil empty one drops
// nothing. notes say what the reader decided, naming the data and the
// model file.
func (f *FitResult) ReadInput(ctx context.Context, in *datasets.Input, opt datasets.ReadOptions, modelFile string) (x mat.Matrix, y []float64, notes []string, err error) {
	opt = f.trainedOptions(opt)
	opt.AllowUnlabelled = true
	if in.Format == datasets.LIBSVM && f.Scaling.KeepsSparse() {
		// A plain or gzip file whose counted shape (datasets.Input.Shape)
		// is to be dense and within the model's columns is read into
		// dense X directly, never held as CSR too.
		sh, ok, err := in.Shape(ctx, datasets.ReadOptions{ZeroBased: opt.ZeroBased})
		if err != nil {
			return nil, nil, nil, err
		}
		if ok && sh.Rows > 0 && sh.Cols <= f.Dim && float64(sh.Entries)/(float64(sh.Rows)*float64(f.Dim)) >= SparseDensity {
			d, err := in.Read(ctx, datasets.ReadOptions{Dim: f.Dim, AllowUnlabelled: true, ZeroBased: opt.ZeroBased})
			if err != nil {
				return nil, nil, nil, err
			}
			if note := f.unseenNote(in.Name, d.Y, nil); note != "" {
				notes = append(notes, note)
			}
			return d.X, d.Y, notes, nil
		}
		xs, ys, rows, cols, err := in.ReadTestOptions(ctx, datasets.ReadOptions{Dim: f.Dim, AllowUnlabelled: true, ZeroBased: opt.ZeroBased})
		if err != nil {
			return nil, nil, nil, err
		}
		if note := f.unseenNote(in.Name, ys, nil); note != "" {
			notes = append(notes, note)
		}
		if rows > 0 {
			notes = append(notes, fmt.Sprintf("%s: %s", in.Name, BeyondLine(rows, cols, f.Dim)))
			return xs, ys, notes, nil
		}
		if xs.Density() >= SparseDensity {
			return xs.ToDense(), ys, notes, nil
		}
		return xs, ys, notes, nil
	}
	d, err := in.Read(ctx, opt)
	if err != nil {
		return nil, nil, nil, err
	}
	if d.Dim() != f.Dim {
		why := ""
		if in.Format == datasets.CSV && d.Features == nil {
			why = fmt.Sprintf(" (a CSV without a header gives the columns by position: the %d features, then optionally the target)", f.Dim)
		}
		return nil, nil, nil, fmt.Errorf("%w: %s has %d features, the model was fitted on %d%s", datasets.ErrInput, in.Name, d.Dim(), f.Dim, why)
	}
	if f.Features == nil && !f.ImpliedFeatures && d.Features != nil {
		notes = append(notes, fmt.Sprintf("predict: %s keeps no feature names (saved before they were kept): the columns of %s are taken by position", modelFile, in.Name))
	}
	if note := f.unseenNote(in.Name, d.Y, d.Classes); note != "" {
		notes = append(notes, note)
	}
	return d.X, d.Y, notes, nil
}

// trainedOptions returns opt set to read a file as f's training data was
// read (ReadInput; the test file of a fit of shards): f's width, its
// feature names (x1…xd when implied), its target's name unless opt names
// one, text labels as f's classes (and only for a model fitted on text
// labels), and f's CSV layout (which the reader ignores when opt.Drop is
// set).
func (f *FitResult) trainedOptions(opt datasets.ReadOptions) datasets.ReadOptions {
	opt.Dim, opt.Features, opt.ImpliedFeatures = f.Dim, f.Features, f.ImpliedFeatures
	opt.Layout = f.Layout
	opt.TextLabels, opt.Classes = f.ClassNames != nil, f.ClassNames
	if opt.Target == "" {
		opt.Target = f.TargetName
	}
	return opt
}

// unseenNote warns, for a classifier, of the labels of y (the file
// name's, whose text labels are classes) that the model never saw
// ("predict: warning: …"); "" when there are none or y is nil.
func (f *FitResult) unseenNote(name string, y []float64, classes []string) string {
	if y == nil || (f.Task != TaskBinary && f.Task != TaskMulticlass) {
		return ""
	}
	cls := f.Classes()
	if cls == nil {
		return ""
	}
	if name == "" {
		name = "standard input"
	}
	note := unseenNote(name, y, cls, labelNamer(classes))
	if note == "" {
		return ""
	}
	return "predict: " + note
}

// BeyondLine says that rows rows of a test file have non-zeros in cols
// columns beyond the training dimension d.
func BeyondLine(rows, cols, d int) string {
	return fmt.Sprintf("%d rows have non-zeros in %d columns beyond the training dimension %d (zero on every training row, as LIBSVM reads them)", rows, cols, d)
}

// ColumnsNote says what the columns of res, the model's decision values
// (Scores) or, with proba, its class probabilities (Proba), are; "" when
// there is nothing to say (regression, one column of a one-class model).
func (f *FitResult) ColumnsNote(proba bool, res *mat.Dense) string {
	_, c := res.Dims()
	cls := f.Classes()
	names := make([]string, len(cls))
	for i, v := range cls {
		names[i] = f.ClassName(v)
	}
	switch {
	case proba:
		return fmt.Sprintf("predict: columns are the probabilities of the classes %s", strings.Join(names, ", "))
	case f.Task == TaskBinary && c == 1 && len(names) == 2:
		return fmt.Sprintf("predict: decision values, positive means class %s, negative class %s", names[1], names[0])
	case c == len(names) && c > 1:
		return fmt.Sprintf("predict: one decision value per class (one-vs-rest), columns %s", strings.Join(names, ", "))
	case len(names) > 2 && c == len(names)*(len(names)-1)/2:
		var pairs []string
		for a := range names {
			for b := a + 1; b < len(names); b++ {
				pairs = append(pairs, names[a]+"|"+names[b])
			}
		}
		return fmt.Sprintf("predict: one-vs-one decision values, positive means the second class of the pair, columns %s", strings.Join(pairs, ", "))
	}
	return ""
}
