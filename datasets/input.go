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
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/landmark-ml/landmark/datasets/shard"
)

// Stdin is the path that names standard input ("-", as Unix tools use it).
const Stdin = "-"

// ErrTruncated is wrapped by the error for a gzip or bzip2 input that ends
// before its compressed stream does (a file cut short by a failed copy or
// download). It wraps ErrFormat, and so ErrInput.
var ErrTruncated = fmt.Errorf("%w: truncated compressed data", ErrFormat)

// Input is a data file, or a stream, opened once for reading: its
// compression undone, a UTF-8 byte order mark skipped, and its format known
// (the one asked for, else the one its name implies, else the one its first
// data line shows: the bytes looked at are buffered and read again, so a
// pipe, a FIFO, standard input ("-") or a process substitution such as
// /dev/fd/63 loses no row). A stream is never reopened: read it with one of
// Read and ReadSparse, once.
type Input struct {
	// Name is the path as given ("stdin" for "-"); errors carry it.
	Name string
	// Format is the data format, never Auto.
	Format Format
	// Size is a regular file's size in bytes; 0 for a stream.
	Size int64
	// Stream is true when the input is not a regular file (a pipe, FIFO,
	// terminal or device), so that it can be read only once.
	Stream bool

	path    string
	file    *os.File // nil for standard input
	count   *countingReader
	fail    *failReader
	br      *bufio.Reader
	closeFn func()
	stop    func()
	used    bool
	shape   *countedShape // what Shape counted
}

// URLHint says, for a path that is a URL (http, https, ftp, s3, gs,
// hdfs), that the readers take local files and standard input, and how to
// get the file; "" for other paths.
func URLHint(path string) string {
	scheme, _, ok := strings.Cut(path, "://")
	switch scheme = strings.ToLower(scheme); {
	case !ok:
		return ""
	case scheme == "http" || scheme == "https" || scheme == "ftp":
		return fmt.Sprintf("%s is a URL: Landmark reads local files and standard input; download it first (curl -LO %s), or stream it (curl -L %s | landmark … --data -)", path, path, path)
	case scheme == "s3" || scheme == "gs" || scheme == "hdfs":
		return fmt.Sprintf("%s is a URL: Landmark reads local files and standard input; copy it here first (landmark-beam reads gs:// shard manifests, docs/cluster.md)", path)
	}
	return ""
}

// fileExists reports whether path names a regular file.
func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// OpenInput opens the data at path for reading ("-" is standard input) with
// the given format (Auto: from the name, else from the content). Opening a
// FIFO that has no writer yet blocks until one comes, or until ctx is
// cancelled; a read from a stream that blocks returns when ctx is cancelled
// too (the blocked system call itself is left to finish in the background).
// Close releases the file.
func OpenInput(ctx context.Context, path string, format Format) (*Input, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	in := &Input{Name: path, path: path}
	var r io.Reader
	if path == Stdin {
		in.Name, in.Stream = "stdin", true
		r = os.Stdin
	} else {
		f, err := openContext(ctx, path)
		if err != nil {
			if hint := URLHint(path); hint != "" && errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("datasets: %w: %s", ErrInput, hint)
			}
			return nil, err
		}
		in.file, r = f, f
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		if st.IsDir() {
			f.Close()
			if m := filepath.Join(path, shard.ManifestName); fileExists(m) {
				// The folder landmark data shard wrote: the commands that
				// read shards take its manifest.
				return nil, fmt.Errorf("datasets: %w: %s is a directory, not a data file; it holds shards: give their manifest, %s (fit, predict, approx and data info read it)", ErrInput, path, m)
			}
			return nil, fmt.Errorf("datasets: %w: %s is a directory, not a data file", ErrInput, path)
		}
		if st.Mode().IsRegular() {
			in.Size = st.Size()
		} else {
			in.Stream = true
		}
	}
	if in.Stream {
		pr := newPumpReader(ctx, r)
		in.stop = pr.stop
		r = pr
	}
	if format == Auto && path != Stdin {
		format, _ = readFormatOf(path)
	}
	if err := in.init(r, format); err != nil {
		in.Close()
		return nil, withFile(err, in.Name)
	}
	return in, nil
}

// newInput is an Input on a reader (no file, no name).
func newInput(r io.Reader, format Format) (*Input, error) {
	in := &Input{}
	if err := in.init(r, format); err != nil {
		in.Close()
		return nil, err
	}
	return in, nil
}

// init counts the raw bytes, undoes compression, skips a byte order mark
// and settles the format.
func (in *Input) init(r io.Reader, format Format) error {
	in.count = &countingReader{r: r}
	br, closeFn, fail, err := decompressFail(in.count)
	if err != nil {
		return err
	}
	in.br, in.closeFn, in.fail = br, closeFn, fail
	if b, _ := br.Peek(len(bom)); bytes.Equal(b, bom) {
		br.Discard(len(bom))
	}
	if head, _ := br.Peek(32); len(head) > 0 {
		if err := binaryFile(head, in.path); err != nil {
			return err
		}
	}
	if format == Auto {
		if format, err = sniff(br); err != nil {
			if fail.err != nil {
				return fail.err
			}
			return err
		}
	}
	switch format {
	case LIBSVM, CSV:
	default:
		return fmt.Errorf("datasets: %w: unknown format %q (want libsvm or csv)", ErrInput, format)
	}
	in.Format = format
	return nil
}

// binaryFile returns the error for data that starts (head, its first
// bytes) as a binary file format users bring instead of text: a
// spreadsheet, numpy, Parquet, Arrow, HDF5, MATLAB or pickle file, or a
// compression other than gzip and bzip2, saying how to write LIBSVM or CSV
// from it; nil for anything else. path's extension tells a zip archive's
// kind.
func binaryFile(head []byte, path string) error {
	has := func(magic string) bool { return bytes.HasPrefix(head, []byte(magic)) }
	ext := strings.ToLower(filepath.Ext(path))
	var kind, how string
	switch {
	case has("landmark-fit v1\n") || has("LANDMARK\t"):
		// experiments.FitResult.Save's and model.Save's files.
		name := path
		if name == "" || name == Stdin {
			name = "FILE"
		}
		return fmt.Errorf("datasets: %w: this is a model saved by Landmark, not data: landmark model info %s describes it, and landmark predict --model %s predicts with it", ErrFormat, name, name)
	case has("PK\x03\x04") && ext == ".xlsx":
		kind, how = "an Excel workbook", "save it as CSV (pandas: pd.read_excel(f).to_csv(\"f.csv\", index=False))"
	case has("PK\x03\x04") && ext == ".npz":
		kind, how = "a numpy .npz archive", toLIBSVM+" or CSV"
	case has("PK\x03\x04"):
		kind, how = "a zip archive", "unzip it (gzip and bzip2 files are read as they are)"
	case has("\x93NUMPY"):
		kind, how = "a numpy .npy array", toLIBSVM+" or CSV (numpy.savetxt with delimiter=\",\")"
	case has("PAR1") && len(head) > 4 && head[4] < ' ' && head[4] != '\t' && head[4] != '\n' && head[4] != '\r':
		// A binary byte after the magic: not a CSV header naming PAR1.
		kind, how = "a Parquet file", "write it as CSV (pandas: pd.read_parquet(f).to_csv(\"f.csv\", index=False))"
	case has("ARROW1\x00"):
		kind, how = "an Arrow or Feather file", "write it as CSV (pandas: pd.read_feather(f).to_csv(\"f.csv\", index=False))"
	case has("\x89HDF\r\n\x1a\n"):
		kind, how = "an HDF5 file (or a MATLAB v7.3 .mat)", toCSVMatlab+"h5py, then numpy.savetxt)"
	case has("MATLAB 5.0 MAT-file"):
		kind, how = "a MATLAB .mat file", toCSVMatlab+"scipy.io.loadmat, then numpy.savetxt)"
	case len(head) >= 2 && head[0] == 0x80 && head[1] >= 2 && head[1] <= 5:
		kind, how = "a Python pickle (joblib)", "load it in Python and write LIBSVM (scikit-learn's dump_svmlight_file) or CSV"
	case has("\xfd7zXZ\x00"):
		kind, how = "xz-compressed", "decompress it (xz -d), or compress it with gzip"
	case has("\x28\xb5\x2f\xfd"):
		kind, how = "zstd-compressed", "decompress it (zstd -d), or compress it with gzip"
	case has("7z\xbc\xaf\x27\x1c"):
		kind, how = "a 7-Zip archive", "extract it"
	default:
		return nil
	}
	return fmt.Errorf("datasets: %w: the data is %s, not text: Landmark reads LIBSVM and CSV (plain, gzip or bzip2); %s", ErrFormat, kind, how)
}

// How binaryFile tells numpy and MATLAB users to write their arrays.
const (
	toLIBSVM    = `write X and y as LIBSVM (scikit-learn: dump_svmlight_file(X, y, "f.libsvm", zero_based=False))`
	toCSVMatlab = `write X and y as CSV (MATLAB: writematrix([X y], "f.csv"); Python: `
)

// bom is the UTF-8 byte order mark some editors put at the start of a file.
var bom = []byte("\ufeff")

// Close releases the file (standard input stays open).
func (in *Input) Close() error {
	if in.stop != nil {
		in.stop()
	}
	if in.closeFn != nil {
		in.closeFn()
	}
	if in.file != nil {
		return in.file.Close()
	}
	return nil
}

// take marks the input read, refusing a second read of it.
func (in *Input) take() error {
	if in.used {
		return fmt.Errorf("datasets: %w: %s: read twice (an input is read once)", ErrInput, in.Name)
	}
	in.used = true
	return nil
}

// Read reads the input into a dense dataset named after it (opt.Format is
// ignored: the input's format holds). Malformed data gives a *ParseError
// naming the file and line; a compressed input that ends early an error
// wrapping ErrTruncated.
func (in *Input) Read(ctx context.Context, opt ReadOptions) (*Dataset, error) {
	if err := in.take(); err != nil {
		return nil, err
	}
	if opt.Comma == 0 && strings.HasSuffix(strings.TrimSuffix(strings.TrimSuffix(strings.ToLower(in.path), ".gz"), ".bz2"), ".tsv") {
		opt.Comma = '\t'
	}
	if n := opt.Notify; n != nil && in.Name != "" {
		opt.Notify = func(msg string) { n(in.Name + ": " + msg) }
	}
	d, err := in.read(ctx, opt)
	if err != nil {
		return nil, withFile(err, in.Name)
	}
	if in.Name != "" {
		d.Name = filepath.Base(in.Name)
	}
	return d, nil
}

// read dispatches to the format's reader, reporting progress with the bytes
// consumed, and puts a failure of the stream itself (a truncated gzip file)
// before the parse error it caused on a cut-off line.
func (in *Input) read(ctx context.Context, opt ReadOptions) (*Dataset, error) {
	if pb := opt.ProgressBytes; pb != nil {
		rows := opt.Progress
		opt.Progress = func(n int) {
			if rows != nil {
				rows(n)
			}
			pb(ReadProgress{Rows: n, Bytes: in.count.n, Size: in.Size})
		}
	}
	var d *Dataset
	var err error
	if opt.ZeroBased && in.Format != LIBSVM {
		return nil, fmt.Errorf("datasets: %w: zero-based indices describe LIBSVM files, not %s", ErrInput, in.Format)
	}
	if len(opt.Drop) > 0 && in.Format == LIBSVM {
		return nil, fmt.Errorf("datasets: %w: dropping columns (%s) describes CSV files, not libsvm", ErrInput, strings.Join(opt.Drop, ", "))
	}
	switch in.Format {
	case LIBSVM:
		if opt, err = in.withShape(ctx, opt); err != nil {
			return nil, err
		}
		d, err = readLIBSVM(ctx, in.br, opt)
	default:
		if opt.MaxRows <= 0 { // a read of the first rows only would count every line
			if opt.rowsHint, err = in.lines(ctx); err != nil {
				return nil, err
			}
		}
		d, err = readCSV(ctx, in.br, opt)
	}
	return d, in.cause(ctx, err)
}

// cause returns the stream's own failure or ctx's error in place of err,
// which they caused.
func (in *Input) cause(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if in.fail != nil && in.fail.err != nil {
		return in.fail.err
	}
	if ctx != nil && ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return ctx.Err()
	}
	return err
}

// ReadSparse reads a LIBSVM input into a CSR matrix and labels, as
// ReadLIBSVMSparse; dim, when positive, fixes the number of columns.
func (in *Input) ReadSparse(ctx context.Context, dim int) (*CSR, []float64, error) {
	return in.ReadSparseWith(ctx, ReadOptions{Dim: dim})
}

// ReadSparseWith is ReadSparse with options, as ReadLIBSVMSparseWith:
// Dim, AllowUnlabelled, ZeroBased, MaxRows, Progress, and Float32, which refuses a
// value beyond float32's range with a *ParseError naming the line (the
// values stay float64).
func (in *Input) ReadSparseWith(ctx context.Context, opt ReadOptions) (*CSR, []float64, error) {
	if err := in.take(); err != nil {
		return nil, nil, err
	}
	if in.Format != LIBSVM {
		return nil, nil, fmt.Errorf("datasets: %w: %s: a sparse read needs LIBSVM data, not %s", ErrInput, in.Name, in.Format)
	}
	opt, err := in.withShape(ctx, opt)
	if err != nil {
		return nil, nil, withFile(err, in.Name)
	}
	x, y, err := ReadLIBSVMSparseWith(ctx, in.br, opt)
	if err = in.cause(ctx, err); err != nil {
		return nil, nil, withFile(err, in.Name)
	}
	return x, y, nil
}

// ReadTest reads LIBSVM test data for a model fitted on d columns as
// ReadLIBSVMTestFile does: d columns, or more when a row has a non-zero at
// a column ≥ d, with the rows and distinct columns beyond d counted.
func (in *Input) ReadTest(ctx context.Context, d int) (x *CSR, y []float64, rows, cols int, err error) {
	return in.ReadTestWith(ctx, d, false)
}

// ReadTestWith is ReadTest that, with unlabelled set, also reads rows
// without labels (ReadOptions.AllowUnlabelled: y is then nil).
func (in *Input) ReadTestWith(ctx context.Context, d int, unlabelled bool) (x *CSR, y []float64, rows, cols int, err error) {
	return in.ReadTestOptions(ctx, ReadOptions{Dim: d, AllowUnlabelled: unlabelled})
}

// ReadTestOptions is ReadTest with options: opt.Dim is the model's d (the
// least number of columns; a column beyond it is counted, not refused),
// AllowUnlabelled and ZeroBased are read as ReadOptions says; the others do
// not apply.
func (in *Input) ReadTestOptions(ctx context.Context, opt ReadOptions) (x *CSR, y []float64, rows, cols int, err error) {
	if err := in.take(); err != nil {
		return nil, nil, 0, 0, err
	}
	if in.Format != LIBSVM {
		return nil, nil, 0, 0, fmt.Errorf("datasets: %w: %s: a sparse read needs LIBSVM data, not %s", ErrInput, in.Name, in.Format)
	}
	if opt, err = in.withShape(ctx, opt); err != nil {
		return nil, nil, 0, 0, withFile(err, in.Name)
	}
	x, y, rows, cols, err = readLIBSVMTest(ctx, in.br, opt)
	if err = in.cause(ctx, err); err != nil {
		return nil, nil, 0, 0, withFile(err, in.Name)
	}
	return x, y, rows, cols, nil
}

// openContext opens path for reading. A FIFO is opened in a goroutine, so
// that waiting for its writer ends when ctx is cancelled (the open itself,
// uninterruptible, is left to finish and its file closed).
func openContext(ctx context.Context, path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		return os.Open(path)
	}
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		ch <- opened{f, err}
	}()
	select {
	case o := <-ch:
		return o.f, o.err
	case <-ctx.Done():
		go func() {
			if o := <-ch; o.f != nil {
				o.f.Close()
			}
		}()
		return nil, fmt.Errorf("%s: waiting for a writer: %w", path, ctx.Err())
	}
}

// pumpReader reads a stream in a goroutine so that a Read blocked on a pipe
// with nothing to say returns when ctx is cancelled.
type pumpReader struct {
	ctx  context.Context
	ch   chan chunk
	done chan struct{}
	cur  []byte
	err  error
}

type chunk struct {
	b   []byte
	err error
}

func newPumpReader(ctx context.Context, r io.Reader) *pumpReader {
	p := &pumpReader{ctx: ctx, ch: make(chan chunk, 1), done: make(chan struct{})}
	go func() {
		for {
			b := make([]byte, 64<<10)
			n, err := r.Read(b)
			select {
			case p.ch <- chunk{b[:n], err}:
			case <-p.done:
				return
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return p
}

func (p *pumpReader) Read(b []byte) (int, error) {
	for len(p.cur) == 0 {
		if p.err != nil {
			return 0, p.err
		}
		select {
		case c := <-p.ch:
			p.cur, p.err = c.b, c.err
		case <-p.ctx.Done():
			return 0, p.ctx.Err()
		}
	}
	n := copy(b, p.cur)
	p.cur = p.cur[n:]
	return n, nil
}

// stop ends the pump (once).
func (p *pumpReader) stop() {
	select {
	case <-p.done:
	default:
		close(p.done)
	}
}

// failReader passes a decompressor's output through and keeps the first
// error other than io.EOF, said in the user's terms.
type failReader struct {
	r    io.Reader
	kind string // "gzip" or "bzip2"
	n    int64  // decompressed bytes so far
	err  error
}

func (f *failReader) Read(b []byte) (int, error) {
	n, err := f.r.Read(b)
	f.n += int64(n)
	if err != nil && !errors.Is(err, io.EOF) {
		if f.err == nil {
			f.err = f.explain(err)
		}
		return n, f.err
	}
	return n, err
}

// explain turns a decompressor's error into one that names the problem.
func (f *failReader) explain(err error) error {
	var bz bzip2.StructuralError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("datasets: %w: the %s stream ends early, after %d bytes of data (was the file cut short?)", ErrTruncated, f.kind, f.n)
	case errors.Is(err, gzip.ErrChecksum), errors.Is(err, gzip.ErrHeader), errors.As(err, &bz):
		return &ParseError{Msg: fmt.Sprintf("corrupt %s data after %d bytes: %v", f.kind, f.n, err), Err: err}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	var pe *ParseError
	if errors.As(err, &pe) {
		return err
	}
	return fmt.Errorf("datasets: reading %s data: %w", f.kind, err)
}

// decompressFail wraps r in a gzip or bzip2 reader when its first bytes say
// so; the failReader (nil for plain data) records the decompressor's
// failure.
func decompressFail(r io.Reader) (*bufio.Reader, func(), *failReader, error) {
	br := bufio.NewReaderSize(r, 256<<10)
	magic, _ := br.Peek(3)
	switch {
	case len(magic) >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		gz, err := gzip.NewReader(br)
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				return nil, nil, nil, fmt.Errorf("datasets: %w: the gzip header is cut short", ErrTruncated)
			}
			return nil, nil, nil, &ParseError{Msg: "bad gzip stream", Err: err}
		}
		f := &failReader{r: gz, kind: "gzip"}
		return bufio.NewReaderSize(f, 256<<10), func() { gz.Close() }, f, nil
	case len(magic) == 3 && string(magic) == "BZh":
		f := &failReader{r: bzip2.NewReader(br), kind: "bzip2"}
		return bufio.NewReaderSize(f, 256<<10), func() {}, f, nil
	}
	return br, func() {}, &failReader{kind: "plain"}, nil
}

// withShape returns opt with the shape of the LIBSVM file in counted
// (Shape), for a read that places its values in their final form; opt
// unchanged for an input Shape does not count.
func (in *Input) withShape(ctx context.Context, opt ReadOptions) (ReadOptions, error) {
	sh, ok, err := in.Shape(ctx, opt)
	if ok {
		opt.shape = &sh
	}
	return opt, err
}

// lines returns the number of lines of an uncompressed regular file, an
// upper bound of its data rows (ReadOptions.rowsHint), counted by a first
// pass of positioned reads (the read that follows is not moved); 0 for
// anything else: a stream, standard input or a compressed file, which
// cannot be read twice or would be decompressed twice. The pass reads at
// several GB/s from the page cache, well under a CSV parse's time.
func (in *Input) lines(ctx context.Context) (int, error) {
	if in.file == nil || in.Stream || in.Size <= 0 || in.fail == nil || in.fail.kind != "plain" {
		return 0, nil
	}
	buf := make([]byte, 1<<20)
	n := 1
	for off := int64(0); off < in.Size; {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		k, err := in.file.ReadAt(buf, off)
		n += bytes.Count(buf[:k], []byte{'\n'})
		off += int64(k)
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, nil // the read itself will meet and report it
		}
	}
	return n, nil
}
