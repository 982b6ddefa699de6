package datasets

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/landmark-ml/landmark/internal/outfile"
)

// Format names a text data format.
type Format string

// The formats. The zero value asks the reader to choose from the file name
// (and, failing that, from the content).
const (
	// Auto picks the format from the extension: .libsvm, .svm, .svmlight,
	// .txt, .t, .tr, .scale → LIBSVM; .csv, .tsv → CSV; otherwise the first
	// data line decides (a field holding ':' means LIBSVM, a comma CSV).
	Auto   Format = ""
	LIBSVM Format = "libsvm"
	CSV    Format = "csv"
)

// HeaderMode says whether a CSV file starts with a header line.
type HeaderMode int

// The header modes. The zero value detects a header: the first record is a
// header when none of its fields is a number, and data otherwise (so a
// headerless file whose first row holds NA or ? is an error naming that
// line, never a row lost to a guessed header). ReadOptions.Notify hears
// what was decided and why.
const (
	HeaderAuto HeaderMode = iota
	HeaderPresent
	HeaderAbsent
)

// ReadOptions tunes ReadFile and friends. The zero value reads any supported
// file whole, with the format chosen from its name.
type ReadOptions struct {
	// Format of the file; Auto (the zero value) chooses from the name.
	Format Format
	// Dim fixes the number of features of a LIBSVM file (0: the largest index
	// seen). Use it, or ReadTestFile, for test files.
	Dim int
	// ZeroBased reads a LIBSVM file whose feature indices start at 0, as
	// scikit-learn's dump_svmlight_file writes by default: index j is
	// column j (X's column j+1 in LIBSVM's 1-based count), so a file whose
	// largest index is m has m+1 columns, and with Dim set an index ≥ Dim
	// is an error. Without it index 0 is an error whose message names this
	// option. The base is never guessed from the content: a test file
	// that happens to lack index 0 would be read one column off its
	// training file. Setting it for CSV data is an error (ErrInput).
	ZeroBased bool
	// Target selects the CSV target column: a header name (matched exactly,
	// else case-insensitively), or a 0-based index, negative counting from
	// the end. "" means the last column.
	Target string
	// TextLabels reads a CSV target column that holds text ("M"/"B",
	// "setosa") as class labels, as scikit-learn's classifiers take them:
	// Dataset.Classes names the classes and Y holds class indices (see
	// Dataset.Classes). A column whose labels are all numbers reads as
	// before. Labels that mix numbers and text, and an empty label, are
	// errors naming the line. Without it (the zero value, for a
	// regression target) a text label is an error naming the line.
	TextLabels bool
	// Classes, with TextLabels, are the class names of the training data
	// (its Dataset.Classes), for a file to be scored by a model fitted on
	// it: a label that is Classes[k] reads as k, one among none of them as
	// len(Classes) and up (Dataset.Classes lists them after Classes); a
	// numeric label is an error naming the line.
	Classes []string
	// Comma is the CSV field delimiter (0: ',' or, for .tsv files, '\t').
	Comma rune
	// Drop lists CSV columns to leave out, each a header name (matched
	// exactly) or a 0-based index into the file's columns, negative from
	// the end: the index column pandas' to_csv writes first (Drop
	// []string{"0"}, what pandas' index_col=0 reads), a row id. The
	// remaining columns are the file as far as Target and Features are
	// concerned: a Target index counts them, as pandas' iloc counts the
	// columns after index_col. A name or index that matches no column is
	// an error naming it; so is Drop for LIBSVM data. Nil drops nothing.
	Drop []string
	// Layout, for a CSV file to be predicted by a model fitted on a CSV
	// read (that read's Dataset.Layout), takes its columns as that read
	// did where Drop is nil: the dropped columns by name when both files
	// have a header, else by position; and in a file without a header the
	// target at the training file's position, unless Target gives an
	// index. By position it needs a file of the training file's width, or
	// one column narrower when nothing was dropped (the target absent: the
	// columns after it move left; with dropped columns the missing one
	// could be one of those), or of the features' width (the features
	// alone, in order); another width is an ErrInput error naming them. A
	// layout of nothing dropped and the target last changes nothing.
	Layout *Layout
	// Header says whether a CSV file has a header line (default: detect).
	Header HeaderMode
	// Features, when set, names the feature columns of a CSV file with a
	// header: X holds them in this order whatever the file's order, and
	// the column named Target is Y. A feature the header lacks, a column
	// that is neither a feature nor the target, and a repeated name are
	// errors naming them (wrapping ErrColumns). A file without a header
	// is read by position.
	Features []string
	// ImpliedFeatures says the training data named no features: a CSV
	// header is matched by name, as with Features, against the names
	// x1…xDim implied for them (the header WriteCSV writes; "x<j>" is
	// feature j, the LIBSVM index), without a list of Dim names being
	// built. It needs Dim > 0 and is ignored when Features is set.
	ImpliedFeatures bool
	// AllowUnlabelled lets data lack its target: a LIBSVM file whose rows
	// start with index:value, a CSV without its target column (by name
	// with Features and a header, else by count: exactly Dim columns).
	// Such data reads with Y nil; a LIBSVM file mixing labelled and
	// unlabelled rows is an error naming the line.
	AllowUnlabelled bool
	// Notify, when set, hears in one line each decision the reader made
	// on its own (whether a CSV file's first line is a header, and why).
	Notify func(msg string)
	// MaxRows, when positive, stops after that many data rows.
	MaxRows int
	// Float32 reads X into float32 (Dataset.X32, X nil) for data held in
	// float32 (model.Falkon's Float32Storage): each value is parsed in
	// float64 and rounded, row by row, so that no float64 copy of X is
	// ever made (half the memory); the rows equal float32 of the float64
	// read's exactly. A finite value beyond float32's range (±3.4e38) is a
	// *ParseError naming the line, never an infinity. The targets stay
	// float64. A sparse read (Input.ReadSparseWith) keeps float64 values
	// but refuses such values the same way, so that the rows can be
	// rounded to float32 afterwards.
	Float32 bool
	// Float32Range refuses a finite value beyond float32's range with a
	// *ParseError naming the line, as Float32 does, but keeps X float64:
	// for data rounded to float32 later (landmark data shard --float32),
	// whose refusal would otherwise name only a row and a column.
	Float32Range bool
	// Float32Reason says, in the refusal of a value beyond float32's range
	// (Float32 or Float32Range), what rounds X to float32 at the caller
	// ("--float32 shards store X in float32"). Empty: "X is read into
	// float32" for a dense read with Float32, where that is what happens,
	// and "X is rounded to float32 later" otherwise (Float32Range, or a
	// sparse read, which keeps float64 values).
	Float32Reason string
	// MaxBytes, when set, bounds a read's peak memory: the values it
	// collects before X takes its form (a LIBSVM read's sparse rows, 12
	// bytes a non-zero and 16 a row; a CSV read's chunks of values),
	// checked every 4,096 lines and at the end so that a file over the cap
	// is refused while it is read, and then those values together with the
	// dense X they are copied into. An uncompressed CSV file is read into
	// X in place instead (allocated once, at the size its line count
	// bounds, so that its values are held once, not in chunks and in X),
	// when that X is within the bound; a LIBSVM file, uncompressed or
	// gzip, is counted first (Input.Shape) and its values parsed straight
	// into X, or into CSR arrays of exactly its non-zeros, which are
	// planned against the bound before a value is read. 0 bounds the dense
	// matrix alone by 8 GiB. Beyond the bound reading fails with ErrMemory
	// rather than exhausting memory.
	MaxBytes int64
	// Progress, when set, is called with the number of data rows read so
	// far every ProgressRows rows and once at the end.
	Progress func(rows int)
	// ProgressBytes, when set, is called where Progress is (after it when
	// both are set) with the rows read so far, the bytes of the input
	// consumed so far and, for ReadFile and ReadFileContext, the file's
	// size, so that a caller can estimate the time left. For a gzip or
	// bzip2 file the bytes are compressed bytes, counted as they are taken
	// from the file: they run ahead of the parsed rows by the read buffers
	// (a few hundred KiB) and reach the size at the end.
	ProgressBytes func(p ReadProgress)

	// minDim, when positive, is the least number of columns of a LIBSVM
	// file read without a fixed Dim (ReadLIBSVMTestFile).
	minDim int
	// sparse marks a read into CSR (ReadLIBSVMSparseWith), whose values
	// stay float64 whatever Float32 says.
	sparse bool
	// rowsHint, when positive, bounds the number of data rows from above
	// (the lines of an uncompressed file, counted before the read: see
	// Input.Read), so that a CSV read can hold X in place as it reads.
	rowsHint int
	// shape, when set, is what a first pass counted of an uncompressed
	// LIBSVM file (Input.Shape), so that the read places its values in X,
	// or in CSR arrays, as it parses them (sparseRows.place).
	shape *Shape
}

// ReadProgress is what ReadOptions.ProgressBytes reports.
type ReadProgress struct {
	// Rows is the number of data rows read so far.
	Rows int
	// Bytes is how much of the input (compressed, when it is) has been
	// consumed.
	Bytes int64
	// Size is the input's total size in bytes: the file's size for
	// ReadFile and ReadFileContext; 0 (unknown) for Read on a stream.
	Size int64
}

// ProgressRows is how often ReadOptions.Progress is called.
const ProgressRows = 1 << 16

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// FormatOf returns the format a file name implies, ignoring a trailing .gz or
// .bz2, and whether the name decided it. It is the format a file is written
// in; reading (DetectFormat, OpenInput) lets the content decide a .txt
// file's.
func FormatOf(path string) (Format, bool) {
	base := strings.ToLower(filepath.Base(path))
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".gz"), ".bz2")
	switch filepath.Ext(base) {
	case ".libsvm", ".svm", ".svmlight", ".txt", ".t", ".tr", ".scale":
		return LIBSVM, true
	case ".csv", ".tsv":
		return CSV, true
	}
	return Auto, false
}

// readFormatOf is the format a file name decides for reading: FormatOf's,
// but .txt, a name LIBSVM files and CSV or tab-separated exports both take
// (pandas' to_csv("x.txt")), leaves it to the content.
func readFormatOf(path string) (Format, bool) {
	base := strings.TrimSuffix(strings.TrimSuffix(strings.ToLower(filepath.Base(path)), ".gz"), ".bz2")
	if filepath.Ext(base) == ".txt" {
		return Auto, false
	}
	return FormatOf(path)
}

// DetectFormat returns the format of the file at path: the one its name
// implies (see FormatOf; a .txt name decides nothing) or, when the name
// does not decide (the LIBSVM site's own names, such as a9a or
// news20.binary.bz2), the one its first data line shows after any gzip or
// bzip2 compression is undone. An unreadable file or
// content that fits neither format is an error naming path. A stream (a
// pipe, FIFO or standard input) whose name does not decide is refused: the
// bytes looked at would be lost to the next reader; open it once with
// OpenInput, which reads them again.
func DetectFormat(path string) (Format, error) {
	if f, ok := readFormatOf(path); ok {
		return f, nil
	}
	if path == Stdin {
		return Auto, fmt.Errorf("datasets: %w: cannot detect the format of standard input without consuming it (use OpenInput)", ErrInput)
	}
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() && !st.IsDir() {
		return Auto, fmt.Errorf("datasets: %w: %s is a stream: its format cannot be detected without consuming it (use OpenInput)", ErrInput, path)
	}
	in, err := OpenInput(context.Background(), path, Auto)
	if err != nil {
		return Auto, err
	}
	defer in.Close()
	return in.Format, nil
}

// ReadFile reads a LIBSVM or CSV file into a dense dataset named after the
// file. Gzip and bzip2 compression are detected from the content and undone.
// Malformed data gives a *ParseError naming the file and line. The path "-"
// is standard input; pipes and FIFOs are read as streams (see OpenInput).
func ReadFile(path string, opt ReadOptions) (*Dataset, error) {
	return ReadFileContext(context.Background(), path, opt)
}

// ReadFileContext is ReadFile that stops with ctx's error when ctx is
// cancelled (reading covtype or MNIST takes seconds).
func ReadFileContext(ctx context.Context, path string, opt ReadOptions) (*Dataset, error) {
	in, err := OpenInput(ctx, path, opt.Format)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	return in.Read(ctx, opt)
}

// ReadTestFile reads a file meant to be used with a model trained on train:
// a LIBSVM file gets train's dimension (a test file whose largest index is
// smaller still has train.Dim() columns; a larger index is an error), and a
// CSV file must have the same number of feature columns, and text labels
// when train has them (read as train.Classes, ReadOptions.Classes; the
// options' TextLabels and Classes are replaced); a header is
// matched to train's names (ReadOptions.Features), or to x1…xd when train
// names none (ReadOptions.ImpliedFeatures, as landmark predict does), so
// its columns may come in any order.
func ReadTestFile(path string, train *Dataset, opt ReadOptions) (*Dataset, error) {
	if train == nil || (train.X == nil && train.X32 == nil) {
		return nil, fmt.Errorf("datasets: %w: nil training dataset", ErrInput)
	}
	opt.Dim = train.Dim()
	if opt.Features == nil {
		opt.Features = train.Features
		opt.ImpliedFeatures = train.Features == nil
	}
	if opt.Target == "" && train.Target != "" {
		opt.Target = train.Target
	}
	// Text labels read as train's classes, and only when train's were text.
	opt.TextLabels, opt.Classes = train.Classes != nil, train.Classes
	d, err := ReadFile(path, opt)
	if err != nil {
		return nil, err
	}
	if err := compatible(train, d); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return d, nil
}

// compatible checks that test has train's columns.
func compatible(train, test *Dataset) error {
	if test.Dim() != train.Dim() {
		return fmt.Errorf("datasets: %w: %d features, the training data has %d", ErrInput, test.Dim(), train.Dim())
	}
	if train.Features != nil && test.Features != nil {
		for j, name := range train.Features {
			if test.Features[j] != name {
				return fmt.Errorf("datasets: %w: feature %d is %q, the training data's is %q", ErrInput, j, test.Features[j], name)
			}
		}
	}
	return nil
}

// Read reads a LIBSVM or CSV stream (possibly gzip- or bzip2-compressed);
// with Format Auto the content decides. Errors carry line numbers but no
// file name.
func Read(r io.Reader, opt ReadOptions) (*Dataset, error) {
	return read(context.Background(), r, opt)
}

func read(ctx context.Context, r io.Reader, opt ReadOptions) (*Dataset, error) {
	in, err := newInput(r, opt.Format)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	return in.read(ctx, opt)
}

// decompress wraps r in a gzip or bzip2 reader when its first bytes say so.
func decompress(r io.Reader) (*bufio.Reader, func(), error) {
	br, closeFn, _, err := decompressFail(r)
	return br, closeFn, err
}

// sniff guesses the format from the first data line in the buffer.
func sniff(br *bufio.Reader) (Format, error) {
	head, err := br.Peek(64 << 10)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return Auto, err
	}
	for line := range bytes.Lines(head) {
		if k := bytes.IndexByte(line, '#'); k >= 0 {
			line = line[:k]
		}
		fields := bytes.Fields(line)
		if len(fields) == 0 {
			continue
		}
		for _, f := range fields[1:] {
			if bytes.IndexByte(f, ':') > 0 {
				return LIBSVM, nil
			}
		}
		if bytes.ContainsAny(line, ",;\t") {
			return CSV, nil
		}
		if len(fields) == 1 {
			return LIBSVM, nil // a label with no features
		}
		break
	}
	return Auto, &ParseError{Msg: "cannot tell the format from the content; name it (libsvm or csv)"}
}

// WriteOptions tunes WriteFile. The zero value picks the format from the name.
type WriteOptions struct {
	// Format of the file; Auto chooses from the name (see FormatOf).
	Format Format
	// Comma is the CSV delimiter (0: ',' or, for .tsv files, '\t').
	Comma rune
}

// WriteFile writes d to path as LIBSVM or CSV, gzip-compressed when the name
// ends in .gz (bzip2 cannot be written: the standard library only reads it).
// A regular file is written under a temporary name and renamed into place,
// so a failure never leaves a half-written file at path; a symbolic link is
// written through, a FIFO or device (/dev/stdout) in place.
func WriteFile(path string, d *Dataset, opt WriteOptions) error {
	return WriteFileContext(context.Background(), path, d, opt)
}

// WriteFileContext is WriteFile stopped by ctx: once ctx is done the write
// fails with ctx.Err() (at its next buffered write, every few kilobytes)
// and, as any failed write, leaves no file at path and no temporary file.
func WriteFileContext(ctx context.Context, path string, d *Dataset, opt WriteOptions) (err error) {
	if opt.Format == Auto {
		var ok bool
		if opt.Format, ok = FormatOf(path); !ok {
			return fmt.Errorf("datasets: %w: %s: cannot tell the format from the name; name it (libsvm or csv)", ErrInput, path)
		}
	}
	lower := strings.ToLower(path)
	if strings.HasSuffix(lower, ".bz2") {
		return fmt.Errorf("datasets: %w: %s: writing bzip2 is not supported (use .gz)", ErrInput, path)
	}
	if opt.Comma == 0 && strings.HasSuffix(strings.TrimSuffix(lower, ".gz"), ".tsv") {
		opt.Comma = '\t'
	}
	if opt.Format != LIBSVM && opt.Format != CSV {
		return fmt.Errorf("datasets: %w: unknown format %q (want libsvm or csv)", ErrInput, opt.Format)
	}
	if err := d.Validate(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return writeAtomic(path, func(w io.Writer) error {
		w = ContextWriter(ctx, w)
		if opt.Format == LIBSVM {
			return WriteLIBSVM(w, d)
		}
		return WriteCSV(w, d, opt.Comma)
	})
}

// ContextWriter returns w failing with ctx.Err() once ctx is done: every
// Write checks ctx first, so a long write through a buffered writer stops
// within a buffer of the cancellation.
func ContextWriter(ctx context.Context, w io.Writer) io.Writer {
	return ctxWriter{ctx, w}
}

type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// WriteLIBSVMSparseFile writes m with labels y to path as WriteLIBSVMSparse
// does, gzip-compressed when the name ends in .gz, under a temporary name
// renamed into place (as WriteFile).
func WriteLIBSVMSparseFile(path string, m *CSR, y []float64) error {
	if m == nil {
		return fmt.Errorf("datasets: %w: nil matrix", ErrInput)
	}
	if strings.HasSuffix(strings.ToLower(path), ".bz2") {
		return fmt.Errorf("datasets: %w: %s: writing bzip2 is not supported (use .gz)", ErrInput, path)
	}
	return writeAtomic(path, func(w io.Writer) error { return WriteLIBSVMSparse(w, m, y) })
}

// writeAtomic writes what write produces to path (through gzip when path
// ends in .gz) as outfile.Write does: a regular file is replaced through a
// temporary file and a rename, a symbolic link written through, a FIFO or
// device written in place; on any error no temporary file is left and an
// existing file is untouched.
func writeAtomic(path string, write func(io.Writer) error) error {
	if !strings.HasSuffix(strings.ToLower(path), ".gz") {
		return outfile.Write(path, write)
	}
	return outfile.Write(path, func(w io.Writer) error {
		gz := gzip.NewWriter(w)
		if err := write(gz); err != nil {
			return err
		}
		return gz.Close()
	})
}

// Open returns a bundled dataset when name is one of Bundled()'s names, and
// otherwise reads the file at name with ReadFile. (To read a file whose name
// is also a bundled name, give a path such as ./cadata.)
func Open(name string, opt ReadOptions) (*Dataset, error) {
	if _, ok := Lookup(name); ok {
		return Load(name)
	}
	return ReadFile(name, opt)
}
