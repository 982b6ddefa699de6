package datasets

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
)

// ReadLIBSVMFile reads a LIBSVM/svmlight file ("label idx:val ...", 1-based
// ascending indices); gzip and bzip2 compression are detected and undone.
// It is ReadFile(path, ReadOptions{Format: LIBSVM}).
func ReadLIBSVMFile(path string) (*Dataset, error) {
	return ReadFile(path, ReadOptions{Format: LIBSVM})
}

// ReadLIBSVM reads LIBSVM/svmlight text from r into a dense dataset. dim, when
// positive, fixes the number of features (for a test file whose largest index
// is smaller than the training file's); an index above it is an error. With
// dim ≤ 0 the dimension is the largest index seen.
//
// Each non-blank line is "label idx:val idx:val ...": indices are 1-based
// (0-based with ReadOptions.ZeroBased, through ReadFile or Input.Read) and
// strictly ascending, absent features are zero (explicit zeros are fine), "#"
// starts a comment that runs to the end of the line, and svmlight's "qid:N"
// is ignored. Errors are *ParseError values carrying the line number.
func ReadLIBSVM(r io.Reader, dim int) (*Dataset, error) {
	return readLIBSVM(context.Background(), r, ReadOptions{Dim: dim})
}

// ErrIndexRange is wrapped by the error for a LIBSVM feature index beyond
// MaxIndex (it also wraps ErrFormat, through the *ParseError).
var ErrIndexRange = errors.New("feature index out of range")

// sparseRows accumulates parsed rows. Entries live in fixed-size chunks so
// that a large file is never copied by slice growth.
type sparseRows struct {
	y     []float64
	start []int // start[i] is the first entry of row i; len = rows+1
	idx   [][]int32
	val   [][]float64
	n     int // entries so far
	maxd  int
	// allowUnlabelled accepts rows that start with index:value;
	// unlabelled records that they did (0 before the first row, +1
	// labelled, −1 unlabelled), y then holding zeros.
	allowUnlabelled bool
	unlabelled      int
	// f32, when not "", refuses a feature value beyond float32's range
	// (ReadOptions.Float32 or Float32Range), naming it as what rounds X
	// (ReadOptions.float32Reason).
	f32 string
	// zeroBased reads index j as column j (ReadOptions.ZeroBased); the
	// rows store indices 1-based either way (index+1 here).
	zeroBased bool
	// at, when set, holds the rows a first pass counted in their final
	// form (place), and the chunks stay empty.
	at *placed
}

// labels returns the labels read, nil for unlabelled rows.
func (s *sparseRows) labels() []float64 {
	if s.unlabelled < 0 {
		return nil
	}
	return s.y
}

const chunkBits = 16

func (s *sparseRows) push(k int, v float64) {
	c := s.n >> chunkBits
	if c == len(s.idx) {
		s.idx = append(s.idx, make([]int32, 0, 1<<chunkBits))
		s.val = append(s.val, make([]float64, 0, 1<<chunkBits))
	}
	s.idx[c] = append(s.idx[c], int32(k))
	s.val[c] = append(s.val[c], v)
	s.n++
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

// nextField returns the next whitespace-separated field of b starting at i,
// and the position after it.
func nextField(b []byte, i int) (field []byte, next int) {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	j := i
	for j < len(b) && !isSpace(b[j]) {
		j++
	}
	return b[i:j], j
}

// MaxIndex is the largest feature index a LIBSVM file may hold, 2³¹ − 1:
// column indices are stored as int32 (12 bytes a non-zero in CSR form).
const MaxIndex = math.MaxInt32

// parseIndex parses a decimal feature index (no sign). It reports whether
// b is one (≥ 1, or ≥ 0 when zero is allowed), and whether it is beyond
// MaxIndex (too big).
func parseIndex(b []byte, zero bool) (n int, ok, big bool) {
	if len(b) == 0 {
		return 0, false, false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false, false
		}
		if n <= MaxIndex {
			n = n*10 + int(c-'0')
		}
	}
	if n > MaxIndex {
		return 0, true, true
	}
	return n, n >= 1 || zero, false
}

// parseFinite parses a float and insists that it is finite.
func parseFinite(b []byte) (float64, string, error) {
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			return 0, "is out of range (beyond ±1.8e308, the float64 limit)", err
		}
		return 0, "is not a number", err
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, "is not finite", nil
	}
	return v, "", nil
}

// ErrFloat32Range is wrapped by the *ParseError for a finite value beyond
// float32's range (±3.4028235e38) in data read into float32
// (ReadOptions.Float32): rounded, it would be an infinity. It is
// kernel.ErrFloat32Range (kernel.Dense32Of's refusal), and wraps ErrInput.
var ErrFloat32Range = kernel.ErrFloat32Range

// beyondFloat32 says why x cannot be held in float32 (its rounding is an
// infinity), "" when it can; reason is what rounds X (float32Reason).
func beyondFloat32(x float64, reason string) (string, error) {
	if math.IsInf(float64(float32(x)), 0) {
		return "is beyond float32's range (±3.4e38; " + reason + ")", ErrFloat32Range
	}
	return "", nil
}

// float32Reason is what the refusal of a value beyond float32's range
// says rounds X (ReadOptions.Float32Reason), "" when opt asks for no such
// check; into says whether the read rounds X itself (a dense read with
// Float32).
func (opt ReadOptions) float32Reason(into bool) string {
	switch {
	case !opt.Float32 && !opt.Float32Range:
		return ""
	case opt.Float32Reason != "":
		return opt.Float32Reason
	case opt.Float32 && into:
		return "X is read into float32"
	}
	return "X is rounded to float32 later"
}

// parseLine parses one LIBSVM line into s. It returns false for a blank or
// comment-only line.
func (s *sparseRows) parseLine(b []byte, line, dim int) (bool, error) {
	if k := bytes.IndexByte(b, '#'); k >= 0 {
		b = b[:k]
	}
	f, pos := nextField(b, 0)
	if len(f) == 0 {
		return false, nil
	}
	kind := 1
	if s.allowUnlabelled && bytes.IndexByte(f, ':') > 0 {
		kind, pos = -1, 0 // no label: the first field is a feature
	}
	if s.unlabelled != 0 && kind != s.unlabelled {
		which := map[int]string{1: "has a label", -1: "has no label (it starts with index:value)"}
		return false, &ParseError{Line: line, Msg: fmt.Sprintf("the row %s but the rows before it %s: a file is labelled or unlabelled throughout", which[kind], strings.TrimPrefix(which[s.unlabelled], "has "))}
	}
	s.unlabelled = kind
	var label float64
	if kind > 0 {
		var why string
		var err error
		label, why, err = parseFinite(f)
		if why != "" {
			if bytes.IndexByte(f, ',') >= 0 {
				// scikit-learn's dump_svmlight_file(multilabel=True).
				why += " (labels separated by commas are a multi-label file: fit one label a row, e.g. one model per label)"
			}
			return false, &ParseError{Line: line, Msg: fmt.Sprintf("label %q %s", f, why), Err: err}
		}
	}
	// Indices are kept 1-based (column k−1); off is what a 0-based file's
	// index gains, and messages name the index as the file writes it.
	off, lowest := 0, "1"
	if s.zeroBased {
		off, lowest = 1, "0"
	}
	prev := 0
	for {
		f, pos = nextField(b, pos)
		if len(f) == 0 {
			break
		}
		c := bytes.IndexByte(f, ':')
		if c < 0 {
			return false, &ParseError{Line: line, Msg: fmt.Sprintf("%q is not index:value", f)}
		}
		key, v := f[:c], f[c+1:]
		if string(key) == "qid" {
			continue
		}
		k, ok, big := parseIndex(key, s.zeroBased)
		if big || k+off > MaxIndex {
			limit := "2³¹ − 1"
			if s.zeroBased {
				limit = "2³¹ − 2, 0-based"
			}
			return false, &ParseError{Line: line, Msg: fmt.Sprintf("feature index %s is beyond the largest supported index %d (%s)", key, MaxIndex-off, limit), Err: ErrIndexRange}
		}
		if !ok {
			msg := fmt.Sprintf("bad feature index %q in %q (want an integer ≥ %s)", key, f, lowest)
			if string(key) == "0" {
				// scikit-learn's dump_svmlight_file writes 0-based
				// indices unless told zero_based=False.
				msg += "; LIBSVM indices start at 1: this looks like a 0-based file (scikit-learn's dump_svmlight_file writes one unless given zero_based=False); read it with --zero-based (YAML zero_based: true, datasets.ReadOptions.ZeroBased)"
			}
			return false, &ParseError{Line: line, Msg: msg}
		}
		k += off
		switch {
		case k == prev:
			return false, &ParseError{Line: line, Msg: fmt.Sprintf("feature index %d repeated", k-off)}
		case k < prev:
			return false, &ParseError{Line: line, Msg: fmt.Sprintf("feature index %d after %d: indices must ascend", k-off, prev-off)}
		case dim > 0 && k > dim:
			if s.zeroBased {
				return false, &ParseError{Line: line, Msg: fmt.Sprintf("feature index %d exceeds the dimension %d (0-based indices run to %d)", k-off, dim, dim-1)}
			}
			return false, &ParseError{Line: line, Msg: fmt.Sprintf("feature index %d exceeds the dimension %d", k, dim)}
		}
		prev = k
		x, why, err := parseFinite(v)
		if why == "" && s.f32 != "" {
			why, err = beyondFloat32(x, s.f32)
		}
		if why != "" {
			return false, &ParseError{Line: line, Msg: fmt.Sprintf("feature %d: value %q %s", k-off, v, why), Err: err}
		}
		if s.at == nil {
			s.push(k, x)
		} else {
			s.put(k, x)
		}
	}
	s.maxd = max(s.maxd, prev)
	s.y = append(s.y, label)
	s.start = append(s.start, s.n)
	return true, nil
}

// readLIBSVM is the reader behind ReadLIBSVM and ReadFile; errors carry no
// file name. ctx is checked every 4,096 lines.
func readLIBSVM(ctx context.Context, r io.Reader, opt ReadOptions) (*Dataset, error) {
	s, d, err := parseLIBSVM(ctx, r, opt)
	if err != nil {
		return nil, err
	}
	if s.at != nil {
		return s.placedDataset()
	}
	if opt.Float32 {
		if err := planDense(len(s.y), d, 4, opt.MaxBytes, s.bytes()); err != nil {
			return nil, fmt.Errorf("%w%s", err, collectedHint)
		}
		data := make([]float32, len(s.y)*d)
		for i := range s.y {
			row := data[i*d : (i+1)*d]
			for e := s.start[i]; e < s.start[i+1]; e++ {
				c, o := e>>chunkBits, e&(1<<chunkBits-1)
				row[s.idx[c][o]-1] = float32(s.val[c][o])
			}
		}
		x32, err := kernel.NewDense32(len(s.y), d, data)
		if err != nil {
			return nil, err
		}
		return &Dataset{X32: x32, Y: s.labels()}, nil
	}
	if err := planDense(len(s.y), d, 8, opt.MaxBytes, s.bytes()); err != nil {
		return nil, fmt.Errorf("%w%s", err, collectedHint)
	}
	x := newDense(len(s.y), d)
	raw := x.RawMatrix()
	for i := range s.y {
		row := raw.Data[i*raw.Stride:]
		for e := s.start[i]; e < s.start[i+1]; e++ {
			c, o := e>>chunkBits, e&(1<<chunkBits-1)
			row[s.idx[c][o]-1] = s.val[c][o]
		}
	}
	return &Dataset{X: x, Y: s.labels()}, nil
}

// parseLIBSVM parses LIBSVM text into sparse rows and returns them with the
// number of features.
func parseLIBSVM(ctx context.Context, r io.Reader, opt ReadOptions) (*sparseRows, int, error) {
	s := &sparseRows{start: []int{0}, allowUnlabelled: opt.AllowUnlabelled, f32: opt.float32Reason(!opt.sparse), zeroBased: opt.ZeroBased}
	if err := s.place(opt); err != nil {
		return nil, 0, err
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if line == 1 {
			b = bytes.TrimPrefix(b, bom)
		}
		if line%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
			if err := s.checkBytes(line, opt.MaxBytes); err != nil {
				return nil, 0, err
			}
		}
		got, err := s.parseLine(b, line, opt.Dim)
		if err != nil {
			return nil, 0, err
		}
		if got && opt.Progress != nil && len(s.y)%ProgressRows == 0 {
			opt.Progress(len(s.y))
		}
		if got && opt.MaxRows > 0 && len(s.y) >= opt.MaxRows {
			break
		}
	}
	if err := sc.Err(); err != nil {
		return nil, 0, &ParseError{Line: line + 1, Msg: "read failed: " + err.Error(), Err: err}
	}
	if len(s.y) == 0 {
		return nil, 0, &ParseError{Msg: "no data rows"}
	}
	if err := s.checkBytes(line, opt.MaxBytes); err != nil {
		return nil, 0, err
	}
	if s.at != nil {
		if err := s.done(); err != nil {
			return nil, 0, err
		}
	}
	if opt.Progress != nil {
		opt.Progress(len(s.y))
	}
	d := max(s.maxd, opt.minDim)
	if opt.Dim > 0 {
		d = opt.Dim
	}
	if d == 0 {
		return nil, 0, &ParseError{Msg: "no features on any row (give the dimension explicitly)"}
	}
	return s, d, nil
}

// bytes is the memory of the rows collected so far (rowBytes).
func (s *sparseRows) bytes() int64 { return rowBytes(s.n, len(s.y)) }

// rowBytes is the memory of rows of LIBSVM data with entries non-zeros,
// held in chunks or as CSR: 12 bytes a non-zero (its index and value) and
// 16 a row (label and start).
func rowBytes(entries, rows int) int64 { return 12*int64(entries) + 16*int64(rows) }

// checkBytes refuses, when budget is set (ReadOptions.MaxBytes > 0), rows
// collected past it, naming the line reached: a LIBSVM file is read into
// sparse rows first, whatever form X then takes, so a file larger than
// the cap is stopped while it is read rather than after.
func (s *sparseRows) checkBytes(line int, budget int64) error {
	if budget <= 0 || s.at != nil || s.bytes() <= budget {
		return nil
	}
	what := fmt.Sprintf("what was read by line %d (%d rows, %d non-zeros)", line, len(s.y), s.n)
	return fmt.Errorf("datasets: %w (ReadOptions.MaxBytes)%s", check.Memory(what, s.bytes(), budget), collectedHint)
}

// collectedHint ends a refusal for memory of a LIBSVM read that collected
// its rows (a bzip2 file, a stream: not counted first): the same file
// uncompressed or gzipped needs less.
const collectedHint = "; a bzip2 file or a stream is collected as sparse rows (12 bytes a value) before X takes its form, while the same file uncompressed or gzipped is counted first and read in place, its values straight into X or CSR"

// maxLine is the longest line the readers accept (256 MiB).
const maxLine = 256 << 20

// defaultMaxBytes bounds the dense matrix a reader allocates unless told otherwise.
const defaultMaxBytes = 8 << 30

// planDense checks that an n×d matrix of size-byte values (8: float64, 4:
// float32) fits the memory budget. With a budget set (ReadOptions.MaxBytes
// > 0) the read's peak must: the matrix and the held bytes of the rows
// parsed, which are live while they are copied into it. Without one the
// matrix alone must fit defaultMaxBytes.
func planDense(n, d, size int, budget, held int64) error {
	if budget <= 0 {
		budget, held = defaultMaxBytes, 0
	}
	need := float64(n)*float64(d)*float64(size) + float64(held)
	if need > float64(budget) {
		what := fmt.Sprintf("a dense %d×%d matrix", n, d)
		if held > 0 {
			what += fmt.Sprintf(" beside the rows parsed (%s), which are copied into it", check.FormatBytes(held))
		}
		if need >= math.MaxInt64 {
			return fmt.Errorf("datasets: %w: %s needs %.3g bytes, the limit is %d bytes (%s) (ReadOptions.MaxBytes)", check.ErrMemory, what, need, budget, check.FormatBytes(budget))
		}
		return fmt.Errorf("datasets: %w (ReadOptions.MaxBytes)", check.Memory(what, int64(need), budget))
	}
	return nil
}

// WriteLIBSVM writes d in LIBSVM format: one line "label idx:val ..." per row,
// 1-based indices, zeros omitted, numbers in the shortest form that reads
// back to the same float64 (so ReadLIBSVM(WriteLIBSVM(d)) reproduces d
// exactly, up to the sign of zero). LIBSVM labels are numbers: text labels
// (d.Classes) are an ErrInput error; give d's Y, the class indices,
// without its Classes to write those.
func WriteLIBSVM(w io.Writer, d *Dataset) error {
	if err := d.Validate(); err != nil {
		return err
	}
	if d.Classes != nil {
		return fmt.Errorf("datasets: %w: the labels are text (%s) and a LIBSVM label is a number: write the class indices (Y, with Classes nil) or a CSV", ErrInput, quoteSome(len(d.Classes), func(k int) string { return d.Classes[k] }, true))
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	raw := d.X.RawMatrix()
	c := d.Dim()
	var buf []byte
	for i, y := range d.Y {
		buf = strconv.AppendFloat(buf[:0], y, 'g', -1, 64)
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+c] {
			if v == 0 {
				continue
			}
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(j+1), 10)
			buf = append(buf, ':')
			buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}
