package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/experiments"
	"github.com/landmark-ml/landmark/internal/cmdline"
	"github.com/landmark-ml/landmark/internal/outfile"
)

const dataUsage = `Usage:
  landmark data list                      list the datasets compiled into the binary
  landmark data info FILE|NAME [flags]    rows, features, task, labels or target range, sparsity, per-feature ranges
                                          (of a shard manifest DIR/manifest.json: what the manifest records)
  landmark data convert IN OUT [flags]    convert between LIBSVM and CSV (format from the names; .gz written compressed)
  landmark data split IN TRAIN TEST --test-fraction F
                                          write a training and a test file, the split fit --test-fraction makes
                                          (stratified for classification; --seed), as train_test_split
  landmark data shard IN OUTDIR --rows N  write binary shards of N rows and manifest.json, for landmark-beam (see README)
  landmark data synth text TRAIN [TEST]   write a synthetic news20-shaped sparse LIBSVM set (Zipf columns; see --help)
  landmark data synth higgs OUTDIR --rows N --shard-rows R
                                          write a synthetic HIGGS-shaped set (d = 28) straight to shards, streaming

FILE is a LIBSVM/svmlight (.libsvm .svm .txt .t) or CSV (.csv .tsv) file, optionally .gz or .bz2
(a name without these extensions, such as a9a, is read as its first data line shows; --zero-based
for LIBSVM indices that start at 0, as scikit-learn's dump_svmlight_file writes them);
NAME is a bundled dataset (see "landmark data list"). Run "landmark data info --help" for flags.
`

func runData(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, dataUsage)
		return fmt.Errorf("%w: missing data subcommand (list, info, convert, split, shard or synth)", errUsage)
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, dataUsage)
		return nil
	case "list":
		return dataList(args[1:], stdout, stderr)
	case "info":
		return dataInfo(ctx, args[1:], stdout, stderr)
	case "convert":
		return dataConvert(ctx, args[1:], stdout, stderr)
	case "shard":
		return dataShard(ctx, args[1:], stdout, stderr)
	case "split":
		return dataSplit(ctx, args[1:], stdout, stderr)
	case "synth":
		if len(args) > 1 && args[1] == "higgs" {
			return dataSynthHiggs(ctx, args[2:], stdout, stderr)
		}
		return dataSynth(ctx, args[1:], stdout, stderr)
	}
	fmt.Fprint(stderr, dataUsage)
	return fmt.Errorf("%w: unknown data subcommand %q%s (want list, info, convert, split, shard or synth)", errUsage, args[0], experiments.DidYouMean(args[0], []string{"list", "info", "convert", "split", "shard", "synth"}))
}

// readFlags holds the flags that say how to read a data file.
type readFlags struct {
	format, target, delim, header string
	// drop is --drop: CSV columns to leave out, comma-separated.
	drop string
	dim  int
	// zeroBased is --zero-based: LIBSVM indices start at 0.
	zeroBased bool
	// notify, when set, becomes ReadOptions.Notify.
	notify func(string)
	// mem is --memory, the cap on the dense X read (register's commands
	// only: capped); default experiments.DefaultMemoryLimit.
	mem    memoryFlag
	capped bool
}

func (r *readFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&r.format, "format", "", "input format: libsvm or csv (default: from the file name, else the content)")
	r.registerCSV(fs)
	fs.IntVar(&r.dim, "dim", 0, "LIBSVM number of features (default: the largest index; give the training d for test files)")
	fs.Var(&r.mem, "memory", "cap on the X read into memory (default 75% of physical memory), e.g. 16G, 512MiB or bytes: a dense X over it is refused before allocating, and so is a LIBSVM file's sparse X (12 bytes a non-zero, counted first; a pipe or bzip2 file while it is read)")
	r.capped = true
}

// registerCSV registers the CSV flags and --zero-based (fit, predict and
// run have their own --format).
func (r *readFlags) registerCSV(fs *flag.FlagSet) {
	fs.BoolVar(&r.zeroBased, "zero-based", false, "LIBSVM feature indices start at 0 (scikit-learn's dump_svmlight_file default): index j is column j; never guessed from the file (YAML zero_based: true)")
	fs.StringVar(&r.target, "target", "", "CSV target column: header name or 0-based index, negative from the end (default: last)")
	fs.StringVar(&r.delim, "delim", "", `CSV delimiter, one character; "tab" for a tab (default: ",", or tab for .tsv)`)
	fs.StringVar(&r.header, "header", "auto", "CSV header line: auto (a header when no field of line 1 is a number; the decision is printed), yes or no")
	fs.StringVar(&r.drop, "drop", "", "CSV columns to leave out, comma-separated header names or 0-based indices (negative from the end), e.g. 0 for the index column pandas' to_csv writes first; --target's index counts the columns kept (YAML drop); predict takes a CSV's columns as the model's fit did (dropped columns, and without a header the target's position) unless given (--drop= for none)")
}

// parseDelim reads a delimiter flag by the YAML delim key's rule.
func parseDelim(flag, s string) (rune, error) {
	opt, err := experiments.DatasetSpec{Delim: s}.ReadOptions()
	if err != nil {
		return 0, fmt.Errorf("%w: --%s %q: want one character other than a quote or newline, or tab", errUsage, flag, s)
	}
	return opt.Comma, nil
}

func (r *readFlags) options() (datasets.ReadOptions, error) {
	opt := datasets.ReadOptions{Target: r.target, Dim: r.dim, ZeroBased: r.zeroBased}
	if r.capped {
		opt.MaxBytes = r.mem.bytes
		if opt.MaxBytes == 0 {
			opt.MaxBytes = experiments.DefaultMemoryLimit()
		}
	}
	if r.notify != nil {
		opt.Notify = r.notify
	}
	switch strings.ToLower(r.format) {
	case "":
	case "libsvm", "svmlight", "svm":
		opt.Format = datasets.LIBSVM
	case "csv":
		opt.Format = datasets.CSV
	default:
		return opt, fmt.Errorf("%w: --format %q: want libsvm or csv", errUsage, r.format)
	}
	if r.dim < 0 {
		return opt, fmt.Errorf("%w: --dim %d: want ≥ 0", errUsage, r.dim)
	}
	csv, err := experiments.DatasetSpec{Header: r.header, Delim: r.delim, Drop: splitDrop(r.drop)}.ReadOptions()
	if err != nil {
		return opt, fmt.Errorf("%w: --%w", errUsage, err)
	}
	opt.Header, opt.Comma, opt.Drop = csv.Header, csv.Comma, csv.Drop
	return opt, nil
}

// splitDrop splits --drop's comma-separated columns (nil for "").
func splitDrop(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// noteTo returns a ReadOptions.Notify that prints the reader's decisions
// (the CSV header guess) on w.
func noteTo(w io.Writer) func(string) {
	return func(msg string) { fmt.Fprintf(w, "landmark: %s\n", msg) }
}

// parseDataArgs parses flags that may come before, between or after the
// positional arguments, and returns the positional ones.
func parseDataArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := cmdline.Parse(fs, args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func dataList(args []string, stdout, stderr io.Writer) error {
	fs := cmdline.NewFlags("data list", "", stderr)
	if err := cmdline.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: data list takes no arguments", errUsage)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tROWS\tD\tTASK\tCLASSES\tSPLIT\tTARGET\tSOURCE")
	for _, b := range datasets.Bundled() {
		split := "-"
		switch {
		case b.Test != "":
			split = "train (test: " + b.Test + ")"
		case b.Train != "":
			split = "test (train: " + b.Train + ")"
		}
		classes := "-"
		if b.Classes > 0 {
			classes = fmt.Sprint(b.Classes)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\n", b.Name, b.N, b.D, b.Task, classes, split, b.Target, b.Citation)
	}
	return tw.Flush()
}

// bundledZero is the error for --zero-based with a bundled set, which is
// read as it is.
func bundledZero(name string) error {
	return fmt.Errorf("%w: --zero-based describes a LIBSVM file's indices; %s is a bundled set, read as it is", errUsage, name)
}

// openData reads a bundled set or a file (a bundled name wins, as in datasets.Open).
func openData(ctx context.Context, name string, opt datasets.ReadOptions) (*datasets.Dataset, *datasets.Info, error) {
	if info, ok := datasets.Lookup(name); ok {
		if opt.ZeroBased {
			return nil, nil, bundledZero(name)
		}
		d, err := datasets.Load(name)
		return d, &info, err
	}
	if experiments.IsManifest(name) {
		// Read as text it failed at its first line ("label \"{\" is not a
		// number").
		return nil, nil, fmt.Errorf("%w: %s is a shard manifest, which data convert and data shard do not read (a LIBSVM or CSV file, or a bundled name; fit, predict and approx read manifests, data info describes one)", datasets.ErrInput, name)
	}
	d, err := datasets.ReadFileContext(ctx, name, opt)
	return d, nil, err
}

func dataInfo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cmdline.NewFlags("data info", "FILE|NAME [flags]", stderr)
	var rf readFlags
	rf.register(fs)
	all := fs.Bool("all", false, "list every feature (default: at most 30)")
	pos, err := parseDataArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return fmt.Errorf("%w: data info takes one FILE or bundled NAME, got %d arguments", errUsage, len(pos))
	}
	maxColumns := 30
	if *all {
		maxColumns = 0
	}
	if experiments.IsManifest(pos[0]) {
		return cmdline.ManifestInfo(stdout, pos[0], maxColumns)
	}
	rf.notify = noteTo(stderr)
	opt, err := rf.options()
	if err != nil {
		return err
	}
	if _, ok := datasets.Lookup(pos[0]); ok && opt.ZeroBased {
		return bundledZero(pos[0])
	}
	s, info, err := datasets.SummarizeInput(ctx, pos[0], opt)
	if err != nil {
		return err
	}
	return s.WriteText(stdout, pos[0], info, maxColumns)
}

func dataConvert(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cmdline.NewFlags("data convert", "IN OUT [flags]", stderr)
	var rf readFlags
	rf.register(fs)
	to := fs.String("to", "", "output format: libsvm or csv (default: from OUT's name)")
	outDelim := fs.String("out-delim", "", `CSV output delimiter (default: ",", or tab for .tsv)`)
	prog := cmdline.AddProgress(fs)
	pos, err := parseDataArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		fs.Usage()
		return fmt.Errorf("%w: data convert takes IN and OUT, got %d arguments", errUsage, len(pos))
	}
	rf.notify = noteTo(stderr)
	opt, err := rf.options()
	if err != nil {
		return err
	}
	wopt := datasets.WriteOptions{}
	switch strings.ToLower(*to) {
	case "":
		if _, ok := datasets.FormatOf(pos[1]); !ok {
			return fmt.Errorf("%w: cannot tell the output format from %q: use --to libsvm|csv", errUsage, pos[1])
		}
	case "libsvm", "svmlight", "svm":
		wopt.Format = datasets.LIBSVM
	case "csv":
		wopt.Format = datasets.CSV
	default:
		return fmt.Errorf("%w: --to %q: want libsvm or csv", errUsage, *to)
	}
	if wopt.Comma, err = parseDelim("out-delim", *outDelim); err != nil {
		return err
	}
	// Refuse OUT = IN (or a directory) before reading anything.
	if err := outfile.Check(pos[1], pos[0]); err != nil {
		return err
	}
	pg, t0 := cmdline.NewProgress(*prog, false, stderr), time.Now()
	opt.ProgressBytes = cmdline.ReadProgress(pg, "data convert", t0)
	opt.TextLabels = true // a CSV's text labels stay names, or become indices in LIBSVM (said below)
	d, _, err := openData(ctx, pos[0], opt)
	if err != nil {
		return err
	}
	d = classIndices(d, pos[1], wopt, "data convert", stderr)
	if pg != nil {
		pg.Line("data convert: writing %d rows to %s… (elapsed %s)", d.Len(), pos[1], cmdline.Duration(time.Since(t0)))
	}
	if pos[1] == "-" {
		// Standard output: the data alone, the summary on stderr; Ctrl-C
		// stops the write.
		w := datasets.ContextWriter(ctx, stdout)
		if wopt.Format == datasets.LIBSVM {
			err = datasets.WriteLIBSVM(w, d)
		} else {
			err = datasets.WriteCSV(w, d, wopt.Comma)
		}
		if err != nil {
			return fmt.Errorf("writing to stdout: %w", err)
		}
		fmt.Fprintf(stderr, "wrote stdout: %d rows × %d features\n", d.Len(), d.Dim())
		return nil
	}
	if err := datasets.WriteFileContext(ctx, pos[1], d, wopt); err != nil {
		if errors.Is(err, datasets.ErrInput) {
			return err
		}
		return fmt.Errorf("writing %s: %w", pos[1], err)
	}
	fmt.Fprintf(stdout, "wrote %s: %d rows × %d features\n", pos[1], d.Len(), d.Dim())
	return nil
}

func dataShard(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cmdline.NewFlags("data shard", "IN OUTDIR --rows N [flags]", stderr)
	var rf readFlags
	rf.register(fs)
	rows := fs.Int("rows", 0, "rows per shard (required, ≥ 1)")
	task := fs.String("task", "auto", taskUsage)
	f32 := fs.Bool("float32", false, float32Usage)
	prog := cmdline.AddProgress(fs)
	pos, err := parseDataArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		fs.Usage()
		return fmt.Errorf("%w: data shard takes IN and OUTDIR, got %d arguments", errUsage, len(pos))
	}
	if *rows < 1 {
		return fmt.Errorf("%w: --rows %d: want ≥ 1 rows per shard", errUsage, *rows)
	}
	if err := checkOutDir(pos[1]); err != nil {
		return err
	}
	if err := checkTaskFlag(*task); err != nil {
		return err
	}
	rf.notify = noteTo(stderr)
	opt, err := rf.options()
	if err != nil {
		return err
	}
	// A file's value beyond float32's range is refused at its line (a
	// bundled set's by shard, with its row and column).
	opt.Float32Range, opt.Float32Reason = *f32, "--float32 shards store X rounded to float32"
	// Text labels are classes, as fit reads them: the shards hold class
	// indices and the manifest their names.
	opt.TextLabels = *task != "regression"
	pg, t0 := cmdline.NewProgress(*prog, false, stderr), time.Now()
	opt.ProgressBytes = cmdline.ReadProgress(pg, "data shard", t0)
	d, info, err := openData(ctx, pos[0], opt)
	if err != nil {
		return err
	}
	classification := isClassification(*task, d, info)
	x := d.X
	if x == nil {
		return fmt.Errorf("%s: %w: no dense rows to shard", pos[0], datasets.ErrInput)
	}
	// One line per shard written, with the ETA from the rows written so far.
	var shardDone func(done, total int)
	if pg != nil {
		n := d.Len()
		clock := cmdline.NewClock(float64(n))
		shardDone = func(done, total int) {
			r1 := min(n, done**rows)
			elapsed, eta := clock.Add(float64(r1 - (done-1)**rows))
			pg.Line("data shard: shard %d/%d written (rows %d/%d; elapsed %s, ETA %s)", done, total, r1, n, cmdline.Duration(elapsed), cmdline.Duration(eta))
		}
	}
	so := shard.Options{Rows: *rows, Classification: classification, Type: shardType(*f32), Progress: shardDone, ZeroBased: opt.ZeroBased,
		Features: d.Features, Target: d.Target, ClassNames: d.Classes}
	if d.Layout != nil {
		// Kept so that predict takes a headerless CSV's columns as this
		// read did (its dropped columns, the target's position).
		if so.Layout, err = json.Marshal(d.Layout); err != nil {
			return err
		}
	}
	m, err := shard.WriteDirContext(ctx, pos[1], x, d.Y, so)
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	fmt.Fprintf(stdout, "wrote %d rows × %d features (%s) in %d shards: %s\n", m.N, m.D, m.Task, len(m.Shards), filepath.Join(pos[1], shard.ManifestName))
	return nil
}

// taskUsage is the --task flag's help of data shard and data split.
const taskUsage = "regression, classification, or auto (a bundled set's task, else guessed from the labels; text labels are classes)"

// checkTaskFlag refuses a --task other than regression, classification
// and auto (data shard, data split).
func checkTaskFlag(task string) error {
	switch task {
	case "auto", "regression", "classification":
		return nil
	}
	return fmt.Errorf("%w: --task %q: want regression, classification or auto", errUsage, task)
}

// isClassification resolves --task for the data d read (info: its bundled
// description, or nil): classification when named so, or for text labels;
// with auto, the bundled set's task, else datasets.GuessTask's.
func isClassification(task string, d *datasets.Dataset, info *datasets.Info) bool {
	if task != "auto" || d.Classes != nil {
		return task == "classification" || d.Classes != nil
	}
	t := datasets.GuessTask(d.Y)
	if info != nil {
		t = info.Task
	}
	return t != datasets.Regression
}

// classIndices returns d ready to be written to out: for a LIBSVM file
// (wopt.Format, else out's name), whose labels are numbers, text labels as
// their class indices, as scikit-learn's LabelEncoder numbers them (the
// names sorted), said on stderr; d itself otherwise.
func classIndices(d *datasets.Dataset, out string, wopt datasets.WriteOptions, cmd string, stderr io.Writer) *datasets.Dataset {
	f, _ := datasets.FormatOf(out)
	if d.Classes == nil || !(wopt.Format == datasets.LIBSVM || (wopt.Format == "" && f == datasets.LIBSVM)) {
		return d
	}
	pairs := make([]string, len(d.Classes))
	for k, c := range d.Classes {
		pairs[k] = fmt.Sprintf("%q → %d", c, k)
	}
	fmt.Fprintf(stderr, "landmark %s: LIBSVM labels are numbers: the text labels are written as their class indices: %s\n", cmd, strings.Join(pairs, ", "))
	plain := *d
	plain.Classes = nil
	return &plain
}

// dataSplit writes a training and a test file split from one, as fit's
// --test-fraction splits (experiments.SplitRows: stratified for
// classification, from --seed), rows in that split's order: a fit of
// TRAIN then trains on the rows, in the order, that fit --test-fraction
// of IN trains on. scikit-learn's train_test_split, LIBSVM's subset.py.
func dataSplit(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cmdline.NewFlags("data split", "IN TRAIN TEST --test-fraction F [flags]", stderr)
	var rf readFlags
	rf.register(fs)
	frac := fs.Float64("test-fraction", 0, "share of the rows written to TEST, in (0, 1) (required)")
	seed := fs.Uint64("seed", 1, "random seed (fit's --seed: the same seed and fraction give fit --test-fraction's split)")
	task := fs.String("task", "auto", taskUsage+"; classification splits stratified (each class in proportion), regression at random")
	outDelim := fs.String("out-delim", "", `CSV output delimiter (default: ",", or tab for .tsv)`)
	prog := cmdline.AddProgress(fs)
	pos, err := parseDataArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 3 {
		fs.Usage()
		return fmt.Errorf("%w: data split takes IN, TRAIN and TEST, got %d arguments", errUsage, len(pos))
	}
	if !(*frac > 0 && *frac < 1) {
		return fmt.Errorf("%w: --test-fraction %g: want a share of the rows in (0, 1)", errUsage, *frac)
	}
	if err := checkTaskFlag(*task); err != nil {
		return err
	}
	for _, out := range pos[1:] {
		if _, ok := datasets.FormatOf(out); !ok {
			return fmt.Errorf("%w: cannot tell the output format from %q: name it .libsvm, .csv, .tsv (.gz to compress)", errUsage, out)
		}
	}
	if pos[1] == pos[2] {
		return fmt.Errorf("%w: TRAIN and TEST are both %s", errUsage, pos[1])
	}
	wopt := datasets.WriteOptions{}
	if wopt.Comma, err = parseDelim("out-delim", *outDelim); err != nil {
		return err
	}
	// Refuse an output that is the input (or a directory) before reading.
	for _, out := range pos[1:] {
		if err := outfile.Check(out, pos[0]); err != nil {
			return err
		}
	}
	rf.notify = noteTo(stderr)
	opt, err := rf.options()
	if err != nil {
		return err
	}
	pg, t0 := cmdline.NewProgress(*prog, false, stderr), time.Now()
	opt.ProgressBytes = cmdline.ReadProgress(pg, "data split", t0)
	opt.TextLabels = *task != "regression"
	d, info, err := openData(ctx, pos[0], opt)
	if err != nil {
		return err
	}
	if d.X == nil {
		return fmt.Errorf("%s: %w: no dense rows to split", pos[0], datasets.ErrInput)
	}
	classification := isClassification(*task, d, info)
	tr, te, err := experiments.SplitRows(d.Y, classification, *frac, *seed)
	if err != nil {
		return fmt.Errorf("%s: %w", pos[0], err)
	}
	how := "random"
	if classification {
		how = "stratified"
	}
	for k, part := range [][]int{tr, te} {
		sub, err := d.Subset(part)
		if err != nil {
			return err
		}
		out := pos[1+k]
		sub = classIndices(sub, out, wopt, "data split", stderr)
		if err := datasets.WriteFileContext(ctx, out, sub, wopt); err != nil {
			if errors.Is(err, datasets.ErrInput) {
				return err
			}
			return fmt.Errorf("writing %s: %w", out, err)
		}
		fmt.Fprintf(stdout, "wrote %s: %d rows × %d features\n", out, sub.Len(), sub.Dim())
	}
	fmt.Fprintf(stdout, "split: %s, seed %d, --test-fraction %g (fit --test-fraction %g --seed %d of %s trains on %s's rows, in its order)\n", how, *seed, *frac, *frac, *seed, pos[0], pos[1])
	return nil
}

// dataSynth writes a synthetic set: "text" is datasets.SyntheticText, drawn
// once for the training and test rows together (so both share the class
// topics) and split in order. It stops on ctx's cancellation (Ctrl-C)
// while drawing or writing, leaving TRAIN and TEST as they were.
func dataSynth(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cmdline.NewFlags("data synth text", "TRAIN [TEST] [flags]", stderr)
	rows := fs.Int("rows", 20000, "training rows")
	testRows := fs.Int("test-rows", 5000, "test rows, written to TEST (ignored without TEST)")
	dim := fs.Int("dim", datasets.News20Dim, "number of columns (news20's by default)")
	nnz := fs.Int("nnz", 80, "mean non-zeros a row (each row has between nnz−⌊nnz/2⌋ and nnz+⌊nnz/2⌋)")
	classes := fs.Int("classes", 2, "classes (2: labels ±1; more: 1…classes)")
	exponent := fs.Float64("exponent", 1, "Zipf exponent s of the column frequencies, 0 < s ≤ 1.5")
	share := fs.Float64("topic-share", 0.1, "share of a row's words drawn from its class's topic, in (0, 1]: how learnable the labels are")
	seed := fs.Uint64("seed", 1, "random seed (the same seed and flags give the same files)")
	prog := cmdline.AddProgress(fs)
	if len(args) == 0 || args[0] != "text" {
		fs.Usage()
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help" || args[0] == "help") {
			return nil
		}
		return fmt.Errorf("%w: data synth: want the kind \"text\" or \"higgs\" first", errUsage)
	}
	pos, err := parseDataArgs(fs, args[1:])
	if err != nil {
		return err
	}
	if len(pos) < 1 || len(pos) > 2 {
		fs.Usage()
		return fmt.Errorf("%w: data synth text takes TRAIN and optionally TEST, got %d arguments", errUsage, len(pos))
	}
	if *rows < 1 || (len(pos) == 2 && *testRows < 1) {
		return fmt.Errorf("%w: --rows %d and --test-rows %d must be ≥ 1", errUsage, *rows, *testRows)
	}
	// Zero would mean "default" to TextOptions; on the command line it is a mistake.
	if *exponent == 0 || *share == 0 || *dim == 0 || *nnz == 0 || *classes == 0 {
		return fmt.Errorf("%w: --dim, --nnz, --classes, --exponent and --topic-share must be positive", errUsage)
	}
	parts := []datasets.TextPart{{Path: pos[0], Rows: *rows}}
	if len(pos) == 2 {
		if filepath.Clean(pos[0]) == filepath.Clean(pos[1]) {
			return fmt.Errorf("%w: data synth text: TRAIN and TEST are both %s (one file would replace the other)", errUsage, pos[0])
		}
		parts = append(parts, datasets.TextPart{Path: pos[1], Rows: *testRows})
	}
	// A directory or a missing folder is refused before the rows are drawn.
	for _, p := range parts {
		if err := outfile.Check(p.Path); err != nil {
			return err
		}
	}
	opt := datasets.TextOptions{Dim: *dim, NNZ: *nnz, Classes: *classes, Exponent: *exponent, TopicShare: *share,
		Progress: textProgress(cmdline.NewProgress(*prog, false, stderr))}
	nnzs, err := datasets.WriteSyntheticTextContext(ctx, rand.New(rand.NewPCG(*seed, 0x7e47)), opt, parts)
	if err != nil {
		return err
	}
	for k, p := range parts {
		fmt.Fprintf(stdout, "wrote %s: %d rows × %d features, %d non-zeros (the last columns may be empty: give --dim %d to data info, convert and shard; fit reads d from the file)\n", p.Path, p.Rows, *dim, nnzs[k], *dim)
	}
	return nil
}

// textProgress is data synth text's datasets.TextOptions.Progress: a line
// per ProgressRows rows drawn, then per ProgressRows rows written to each
// file, and when each is done, with the elapsed time, the rate and the
// stage's ETA at that rate: "data synth text: drew 65536/200000 rows
// (elapsed 1.2s, 5.5e+04 rows/s, draw ETA 2.4s)", "… wrote 65536/160000
// rows to train.svm (…, write ETA …)"; nil when pg is.
func textProgress(pg *cmdline.Progress) func(datasets.TextProgress) {
	if pg == nil {
		return nil
	}
	start := time.Now() // of the stage: the draw, then each file in turn
	return func(p datasets.TextProgress) {
		elapsed := time.Since(start)
		var eta time.Duration
		if p.Rows > 0 && p.Rows < p.Total {
			eta = time.Duration(float64(elapsed) * float64(p.Total-p.Rows) / float64(p.Rows))
		}
		rate := float64(p.Rows) / max(elapsed.Seconds(), 1e-9)
		if p.Path == "" {
			pg.Line("data synth text: drew %d/%d rows (elapsed %s, %.3g rows/s, draw ETA %s)", p.Rows, p.Total, cmdline.Duration(elapsed), rate, cmdline.Duration(eta))
		} else {
			pg.Line("data synth text: wrote %d/%d rows to %s (elapsed %s, %.3g rows/s, write ETA %s)", p.Rows, p.Total, p.Path, cmdline.Duration(elapsed), rate, cmdline.Duration(eta))
		}
		if p.Rows == p.Total {
			start = time.Now() // the next stage starts
		}
	}
}

// dataSynthHiggs writes datasets.WriteSyntheticHiggs's shards and manifest.
func dataSynthHiggs(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cmdline.NewFlags("data synth higgs", "OUTDIR --rows N --shard-rows R [flags]", stderr)
	rows := fs.Int("rows", 0, "rows (required, ≥ 1)")
	shardRows := fs.Int("shard-rows", 0, "rows per shard (required, ≥ 1; part of the draw: another value gives other rows)")
	seed := fs.Uint64("seed", 1, "random seed (the same seed, --rows and --shard-rows give the same files; give a test set another seed: shard s of every set draws from the seed's stream s)")
	workers := fs.Int("workers", 0, "shards generated at once, each held in memory while written (default GOMAXPROCS; the files do not depend on it)")
	f32 := fs.Bool("float32", false, float32Usage)
	prog := cmdline.AddProgress(fs)
	pos, err := parseDataArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || *rows < 1 || *shardRows < 1 || *workers < 0 {
		fs.Usage()
		return fmt.Errorf("%w: data synth higgs takes OUTDIR, --rows ≥ 1, --shard-rows ≥ 1 (and --workers ≥ 0)", errUsage)
	}
	if err := checkOutDir(pos[0]); err != nil {
		return err
	}
	opt := datasets.HiggsOptions{Rows: *rows, ShardRows: *shardRows, Seed: *seed, Workers: *workers, Type: shardType(*f32),
		Progress: cmdline.ShardProgress(cmdline.NewProgress(*prog, false, stderr), "data synth higgs", shardRowBytes(*f32, datasets.HiggsDim))}
	m, err := datasets.WriteSyntheticHiggs(ctx, pos[0], opt)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d rows × %d features (%s) in %d shards: %s\n", m.N, m.D, m.Task, len(m.Shards), filepath.Join(pos[0], shard.ManifestName))
	return nil
}

// checkOutDir refuses, before any work, an OUTDIR that exists and is not
// a folder (a file would fail only once the set was read or drawn, as
// "mkdir OUTDIR: not a directory"); a missing one is made by the writer.
func checkOutDir(dir string) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return fmt.Errorf("%w: %s exists and is not a folder (OUTDIR is the folder the shards and manifest.json go in)", outfile.ErrRefused, dir)
	}
	return nil
}

const float32Usage = "write X as float32 (half the bytes to read on every pass; values rounded to float32, the manifest's statistics those of the rounded values)"

// shardRowBytes is a shard row's bytes on disk: d values of X (4 bytes
// for float32 shards, 8 for float64) and the float64 target.
func shardRowBytes(f32 bool, d int) int {
	if f32 {
		return 4*d + 8
	}
	return 8 * (d + 1)
}

// shardType is the shard element type --float32 asks for.
func shardType(f32 bool) shard.Type {
	if f32 {
		return shard.Float32
	}
	return shard.Float64
}
