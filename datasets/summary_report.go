package datasets

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// SummarizeInput summarizes a bundled set (its Info is returned too) or a
// data file. A LIBSVM file is read as CSR and summarized from its non-zeros
// (SummarizeCSR: memory ∝ non-zeros, whatever the largest index); other
// data are read dense with opt, text labels as classes (TextLabels). The file is opened once, so that a pipe or
// standard input loses no row.
func SummarizeInput(ctx context.Context, name string, opt ReadOptions) (Summary, *Info, error) {
	if info, ok := Lookup(name); ok {
		d, err := Load(name)
		if err != nil {
			return Summary{}, nil, err
		}
		s, err := Summarize(d)
		if err != nil {
			return s, nil, fmt.Errorf("%s: %w", name, err)
		}
		return s, &info, nil
	}
	in, err := OpenInput(ctx, name, opt.Format)
	if err != nil {
		return Summary{}, nil, err
	}
	defer in.Close()
	var s Summary
	if in.Format == LIBSVM {
		x, y, err := in.ReadSparseWith(ctx, ReadOptions{Dim: opt.Dim, ZeroBased: opt.ZeroBased, MaxBytes: opt.MaxBytes})
		if err != nil {
			return Summary{}, nil, err
		}
		s, err = SummarizeCSR(x, y)
	} else {
		// Text labels are read as classes, and said so.
		opt.TextLabels = true
		d, err := in.Read(ctx, opt)
		if err != nil {
			return Summary{}, nil, err
		}
		s, err = Summarize(d)
	}
	if err != nil {
		return s, nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil, nil
}

// WriteText prints the summary of the data called name (info: its bundled
// description, or nil) as "landmark data info" does: an aligned block of
// rows, features, task guess, sparsity, target and labels, then per-feature
// statistics of at most maxColumns features (0: all) with the range of the
// rest.
func (s Summary) WriteText(w io.Writer, name string, info *Info, maxColumns int) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "dataset:\t%s\n", name)
	if info != nil {
		fmt.Fprintf(tw, "bundled:\t%s; %s\n", info.Task, info.Citation)
	}
	fmt.Fprintf(tw, "rows:\t%d\n", s.Rows)
	switch {
	case s.Wide:
		fmt.Fprintf(tw, "features:\t%d (%d occur, %d are zero on every row; %d constant)\n", s.Dim, s.Dim-s.Empty, s.Empty, s.Constant)
	case s.Empty > 0:
		fmt.Fprintf(tw, "features:\t%d (%d constant, %d of them zero on every row)\n", s.Dim, s.Constant, s.Empty)
	default:
		fmt.Fprintf(tw, "features:\t%d (%d constant)\n", s.Dim, s.Constant)
	}
	fmt.Fprintf(tw, "task (guess):\t%s\n", s.Task)
	fmt.Fprintf(tw, "sparsity:\t%.2f%% zeros (%d non-zeros, density %.3g)\n", 100*s.Sparsity(), s.Rows*s.Dim-s.Zeros, float64(s.Rows*s.Dim-s.Zeros)/(float64(s.Rows)*float64(s.Dim)))
	t := s.Target
	if s.ClassNames != nil {
		fmt.Fprintf(tw, "target %s:\ttext labels, %d classes\n", t.Name, len(s.ClassNames))
	} else {
		fmt.Fprintf(tw, "target %s:\tmin %.6g  max %.6g  mean %.6g  std %.6g\n", t.Name, t.Min, t.Max, t.Mean, t.Std)
	}
	if s.Classes != nil {
		parts := make([]string, len(s.Classes))
		for i, c := range s.Classes {
			label := strconv.FormatFloat(c.Label, 'g', -1, 64)
			if k := int(c.Label); s.ClassNames != nil && k >= 0 && k < len(s.ClassNames) {
				label = strconv.Quote(s.ClassNames[k])
			}
			parts[i] = fmt.Sprintf("%s: %d (%.1f%%)", label, c.Count, 100*float64(c.Count)/float64(s.Rows))
		}
		fmt.Fprintf(tw, "labels:\t%s\n", strings.Join(parts, ", "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return s.writeColumns(w, maxColumns)
}

// writeColumns prints the per-feature table of WriteText.
func (s Summary) writeColumns(w io.Writer, maxColumns int) error {
	if s.Wide {
		fmt.Fprintf(w, "per-feature statistics of the %d features that occur (more than %d features: the columns zero on every row are not listed)\n",
			len(s.Columns), WideColumns)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "#\tfeature\tmin\tmax\tmean\tstd\tzeros\t")
	show := len(s.Columns)
	if maxColumns > 0 {
		show = min(show, maxColumns)
	}
	for _, c := range s.Columns[:show] {
		fmt.Fprintf(tw, "%d\t%s\t%.6g\t%.6g\t%.6g\t%.6g\t%.1f%%\t\n", c.Index+1, c.Name, c.Min, c.Max, c.Mean, c.Std, 100*float64(c.Zeros)/float64(s.Rows))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if show < len(s.Columns) {
		lo, hi := s.Columns[0].Min, s.Columns[0].Max
		if s.Wide && s.Empty > 0 {
			lo, hi = min(lo, 0), max(hi, 0)
		}
		for _, c := range s.Columns {
			lo, hi = min(lo, c.Min), max(hi, c.Max)
		}
		fmt.Fprintf(w, "… %d more features (--all lists them); all features lie in [%.6g, %.6g]\n", len(s.Columns)-show, lo, hi)
	}
	return nil
}
