package datasets

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
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
// header when any of its fields is not a number.
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
	// Target selects the CSV target column: a header name (matched exactly,
	// else case-insensitively), or a 0-based index, negative counting from
	// the end. "" means the last column.
	Target string
	// Comma is the CSV field delimiter (0: ',' or, for .tsv files, '\t').
	Comma rune
	// Header says whether a CSV file has a header line (default: detect).
	Header HeaderMode
	// MaxRows, when positive, stops after that many data rows.
	MaxRows int
	// MaxBytes bounds the dense matrix a reader may allocate (0: 8 GiB);
	// beyond it reading fails with an error rather than exhausting memory.
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
// .bz2, and whether the name decided it.
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

// DetectFormat returns the format of the file at path: the one its name
// implies (see FormatOf) or, when the name does not decide (the LIBSVM site's
// own names, such as a9a or news20.binary.bz2), the one its first data line
// shows after any gzip or bzip2 compression is undone. An unreadable file or
// content that fits neither format is an error naming path.
func DetectFormat(path string) (Format, error) {
	if f, ok := FormatOf(path); ok {
		return f, nil
	}
	file, err := os.Open(path)
	if err != nil {
		return Auto, err
	}
	defer file.Close()
	br, closeFn, err := decompress(file)
	if err != nil {
		return Auto, withFile(err, path)
	}
	defer closeFn()
	f, err := sniff(br)
	if err != nil {
		return Auto, withFile(err, path)
	}
	return f, nil
}

// ReadFile reads a LIBSVM or CSV file into a dense dataset named after the
// file. Gzip and bzip2 compression are detected from the content and undone.
// Malformed data gives a *ParseError naming the file and line.
func ReadFile(path string, opt ReadOptions) (*Dataset, error) {
	return ReadFileContext(context.Background(), path, opt)
}

// ReadFileContext is ReadFile that stops with ctx's error when ctx is
// cancelled (reading covtype or MNIST takes seconds).
func ReadFileContext(ctx context.Context, path string, opt ReadOptions) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if opt.Comma == 0 && strings.HasSuffix(strings.TrimSuffix(strings.TrimSuffix(strings.ToLower(path), ".gz"), ".bz2"), ".tsv") {
		opt.Comma = '\t'
	}
	if opt.Format == Auto {
		opt.Format, _ = FormatOf(path)
	}
	var size int64
	if opt.ProgressBytes != nil {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			size = st.Size()
		}
	}
	d, err := readSized(ctx, f, size, opt)
	if err != nil {
		return nil, withFile(err, path)
	}
	d.Name = filepath.Base(path)
	return d, nil
}

// ReadTestFile reads a file meant to be used with a model trained on train:
// a LIBSVM file gets train's dimension (a test file whose largest index is
// smaller still has train.Dim() columns; a larger index is an error), and a
// CSV file must have the same number of feature columns and, when both are
// named, the same feature names in the same order.
func ReadTestFile(path string, train *Dataset, opt ReadOptions) (*Dataset, error) {
	if train == nil || train.X == nil {
		return nil, fmt.Errorf("%w: nil training dataset", ErrInput)
	}
	opt.Dim = train.Dim()
	if opt.Target == "" && train.Target != "" {
		opt.Target = train.Target
	}
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
		return fmt.Errorf("%w: %d features, the training data has %d", ErrInput, test.Dim(), train.Dim())
	}
	if train.Features != nil && test.Features != nil {
		for j, name := range train.Features {
			if test.Features[j] != name {
				return fmt.Errorf("%w: feature %d is %q, the training data's is %q", ErrInput, j, test.Features[j], name)
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
	return readSized(ctx, r, 0, opt)
}

// readSized is read of an input of size bytes (0: unknown), which
// ReadOptions.ProgressBytes reports beside the bytes consumed.
func readSized(ctx context.Context, r io.Reader, size int64, opt ReadOptions) (*Dataset, error) {
	if pb := opt.ProgressBytes; pb != nil {
		// Count the bytes taken from the input before any buffering or
		// decompression, and report them where the readers report rows.
		cr := &countingReader{r: r}
		r = cr
		rows := opt.Progress
		opt.Progress = func(n int) {
			if rows != nil {
				rows(n)
			}
			pb(ReadProgress{Rows: n, Bytes: cr.n, Size: size})
		}
	}
	br, closeFn, err := decompress(r)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	if opt.Format == Auto {
		opt.Format, err = sniff(br)
		if err != nil {
			return nil, err
		}
	}
	switch opt.Format {
	case LIBSVM:
		return readLIBSVM(ctx, br, opt)
	case CSV:
		return readCSV(ctx, br, opt)
	}
	return nil, fmt.Errorf("%w: unknown format %q (want libsvm or csv)", ErrInput, opt.Format)
}

// decompress wraps r in a gzip or bzip2 reader when its first bytes say so.
func decompress(r io.Reader) (*bufio.Reader, func(), error) {
	br := bufio.NewReaderSize(r, 256<<10)
	magic, _ := br.Peek(3)
	switch {
	case len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, &ParseError{Msg: "bad gzip stream", Err: err}
		}
		return bufio.NewReaderSize(gz, 256<<10), func() { gz.Close() }, nil
	case len(magic) == 3 && string(magic) == "BZh":
		return bufio.NewReaderSize(bzip2.NewReader(br), 256<<10), func() {}, nil
	}
	return br, func() {}, nil
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
// The file is written under a temporary name and renamed into place, so a
// failure never leaves a half-written file at path.
func WriteFile(path string, d *Dataset, opt WriteOptions) (err error) {
	if opt.Format == Auto {
		var ok bool
		if opt.Format, ok = FormatOf(path); !ok {
			return fmt.Errorf("%w: %s: cannot tell the format from the name; name it (libsvm or csv)", ErrInput, path)
		}
	}
	lower := strings.ToLower(path)
	if strings.HasSuffix(lower, ".bz2") {
		return fmt.Errorf("%w: %s: writing bzip2 is not supported (use .gz)", ErrInput, path)
	}
	if opt.Comma == 0 && strings.HasSuffix(strings.TrimSuffix(lower, ".gz"), ".tsv") {
		opt.Comma = '\t'
	}
	if opt.Format != LIBSVM && opt.Format != CSV {
		return fmt.Errorf("%w: unknown format %q (want libsvm or csv)", ErrInput, opt.Format)
	}
	if err := d.Validate(); err != nil {
		return err
	}
	return writeAtomic(path, func(w io.Writer) error {
		if opt.Format == LIBSVM {
			return WriteLIBSVM(w, d)
		}
		return WriteCSV(w, d, opt.Comma)
	})
}

// WriteLIBSVMSparseFile writes m with labels y to path as WriteLIBSVMSparse
// does, gzip-compressed when the name ends in .gz, under a temporary name
// renamed into place (as WriteFile).
func WriteLIBSVMSparseFile(path string, m *CSR, y []float64) error {
	if m == nil {
		return fmt.Errorf("%w: nil matrix", ErrInput)
	}
	if strings.HasSuffix(strings.ToLower(path), ".bz2") {
		return fmt.Errorf("%w: %s: writing bzip2 is not supported (use .gz)", ErrInput, path)
	}
	return writeAtomic(path, func(w io.Writer) error { return WriteLIBSVMSparse(w, m, y) })
}

// writeAtomic runs write on a temporary file beside path (through gzip when
// path ends in .gz) and renames it to path; on any error the temporary file
// is removed and path is untouched.
func writeAtomic(path string, write func(io.Writer) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	var w io.Writer = tmp
	var gz *gzip.Writer
	if strings.HasSuffix(strings.ToLower(path), ".gz") {
		gz = gzip.NewWriter(tmp)
		w = gz
	}
	if err = write(w); err != nil {
		return err
	}
	if gz != nil {
		if err = gz.Close(); err != nil {
			return err
		}
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
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
