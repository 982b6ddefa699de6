package datasets

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/internal/hugemem"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// Shape is the size of a LIBSVM file's data as a first pass over its bytes
// counts it, before any value is parsed (Input.Shape).
type Shape struct {
	// Rows is the number of data rows: lines with a field before any "#".
	Rows int
	// Cols is the number of columns: the largest feature index, plus one
	// for a 0-based file.
	Cols int
	// Entries is the number of index:value pairs (svmlight's qid:N
	// aside), explicit zeros among them: the non-zeros a CSR read stores.
	Entries int
}

// Density is the fraction of X's entries stored: Entries/(Rows·Cols), 0
// for an empty shape. It equals CSR.Density of the rows read.
func (s Shape) Density() float64 {
	if s.Rows == 0 || s.Cols == 0 {
		return 0
	}
	return float64(s.Entries) / (float64(s.Rows) * float64(s.Cols))
}

// Shape counts the rows, columns and stored entries of a LIBSVM input that
// is a regular file, uncompressed or gzip-compressed, by a first pass over
// its bytes that parses no value (positioned reads: the read that follows
// is not moved; a gzip file is decompressed twice, about a tenth of the
// read's time on mnist's training file); ok is false for anything else —
// a stream, standard input, a bzip2 file (Go decompresses bzip2 more
// slowly than a whole plain read parses: 14.5 s against 6.25 s on mnist's
// training file, docs/performance.md), a CSV file — which is
// not counted, and for a file with an index beyond MaxIndex, which the
// read refuses, or a gzip stream the count cannot read to its end (the
// read reports why). Only ZeroBased and MaxRows of opt matter (MaxRows
// stops the count where a read stops). A line the parser will refuse may
// be counted otherwise; the read reports it.
//
// Read and ReadSparseWith count such a file this way themselves and then
// parse its values straight into X, or into CSR arrays of exactly the
// entries counted, so that the values are held once; Shape lets a caller
// choose between the two forms first (by Density, say) without reading
// the values twice.
func (in *Input) Shape(ctx context.Context, opt ReadOptions) (Shape, bool, error) {
	if in.Format != LIBSVM || in.file == nil || in.Stream || in.Size <= 0 || in.fail == nil || (in.fail.kind != "plain" && in.fail.kind != "gzip") {
		return Shape{}, false, nil
	}
	if c := in.shape; c != nil && c.zeroBased == opt.ZeroBased && c.maxRows == opt.MaxRows {
		return c.Shape, c.ok, nil
	}
	var r io.Reader = io.NewSectionReader(in.file, 0, in.Size)
	if in.fail.kind == "gzip" {
		gz, err := gzip.NewReader(bufio.NewReaderSize(r, 256<<10))
		if err != nil {
			return Shape{}, false, nil // the read reports it
		}
		defer gz.Close()
		r = gz
	}
	c, err := countLIBSVM(ctx, r, opt)
	if err != nil {
		if ctx.Err() != nil {
			return Shape{}, false, err
		}
		c = &shapeCounter{big: true} // not counted: the read meets and reports the failure
	}
	if c.big {
		c.sh = Shape{}
	}
	in.shape = &countedShape{Shape: c.sh, ok: !c.big, zeroBased: opt.ZeroBased, maxRows: opt.MaxRows}
	return c.sh, !c.big, nil
}

// countedShape is the Shape an Input counted, with the options it was
// counted for.
type countedShape struct {
	Shape
	ok        bool // false: not counted (an index beyond MaxIndex, a failed read)
	zeroBased bool
	maxRows   int
}

// countLIBSVM is Shape's pass over r, a line at a time (shapeCounter.line),
// skipping a byte order mark at the start. It stops early, without error,
// after MaxRows rows.
func countLIBSVM(ctx context.Context, r io.Reader, opt ReadOptions) (*shapeCounter, error) {
	c := &shapeCounter{}
	if opt.ZeroBased {
		c.off = 1
	}
	br := bufio.NewReaderSize(r, 1<<20)
	var long []byte // a line longer than br's buffer, gathered
	for k := 0; ; k++ {
		if k%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		b, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, b...)
			continue
		}
		if long != nil {
			b, long = append(long, b...), nil
		}
		if k == 0 {
			b = bytes.TrimPrefix(b, bom)
		}
		c.line(b)
		if (opt.MaxRows > 0 && c.sh.Rows >= opt.MaxRows) || err == io.EOF {
			return c, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// shapeCounter counts a LIBSVM file's lines into sh; off is 1 for a 0-based
// file (its index j is column j+1 of the 1-based count).
type shapeCounter struct {
	sh  Shape
	off int
	big bool // an index beyond MaxIndex was met: not counted
}

// line counts one line as parseLine reads it (a data row when it has a
// field before any "#"). A line without "qid" is counted by fast byte
// searches: its entries are its colons and its largest index the one
// before the last colon, which holds for every line parseLine accepts
// (one colon a field, indices ascending; a float has no colon). A line
// parseLine refuses may be counted otherwise: the read reports its own
// error for it before any difference in the counts shows (sparseRows.put).
// A line with "qid" is counted field by field (fields).
func (c *shapeCounter) line(b []byte) {
	b = bytes.TrimSuffix(b, []byte{'\n'})
	if k := bytes.IndexByte(b, '#'); k >= 0 {
		b = b[:k]
	}
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	if i == len(b) {
		return
	}
	c.sh.Rows++
	if bytes.Contains(b, []byte("qid")) {
		c.fields(b)
		return
	}
	n := bytes.Count(b, []byte{':'})
	if n == 0 {
		return
	}
	c.sh.Entries += n
	end := bytes.LastIndexByte(b, ':')
	start := end
	for start > 0 && !isSpace(b[start-1]) {
		start--
	}
	c.index(b[start:end])
}

// fields counts the entries of a line field by field, as parseLine splits
// it: each field with a colon but svmlight's qid:N (one whose index is not
// a number is counted too: parseLine refuses it).
func (c *shapeCounter) fields(b []byte) {
	for pos := 0; ; {
		var f []byte
		f, pos = nextField(b, pos)
		if len(f) == 0 {
			return
		}
		if k := bytes.IndexByte(f, ':'); k >= 0 && string(f[:k]) != "qid" {
			c.sh.Entries++
			c.index(f[:k])
		}
	}
}

// index raises Cols to the column of key, a field's index; a key that is
// not all digits adds no column (parseLine refuses it).
func (c *shapeCounter) index(key []byte) {
	k, ok, big := parseIndex(key, true)
	switch {
	case big:
		c.big = true // beyond any index: the read refuses the line
	case ok:
		c.sh.Cols = max(c.sh.Cols, k+c.off)
	}
}

// placed is where a read of counted rows puts its values (sparseRows.place):
// X itself, dense (x or x32, rows×d row-major), or the CSR arrays of the
// entries counted (ind, vals).
type placed struct {
	rows, cols, d, entries int
	x                      []float64
	x32                    []float32
	ind                    []int32
	vals                   []float64
	over                   bool // an entry beyond them was met (put)
}

// place readies s to parse rows counted by a first pass (opt.shape)
// straight into their final form: X when the read is dense, CSR arrays
// otherwise. It plans that memory against opt.MaxBytes first (a dense X
// without a bound against 8 GiB, as planDense does), refusing a file over
// the bound before any value is read. It places nothing, and the read
// collects chunks as a stream's does, when the shape is one the read will
// refuse anyway (no rows, no columns, an index beyond the fixed Dim; an
// index beyond MaxIndex leaves the file uncounted), so that it reports
// why, with the line.
func (s *sparseRows) place(opt ReadOptions) error {
	sh := opt.shape
	if sh == nil || sh.Rows == 0 || (opt.Dim > 0 && sh.Cols > opt.Dim) {
		return nil
	}
	d := max(sh.Cols, opt.minDim)
	if opt.Dim > 0 {
		d = opt.Dim
	}
	if d == 0 {
		return nil
	}
	p := &placed{rows: sh.Rows, cols: sh.Cols, d: d, entries: sh.Entries}
	switch {
	case opt.sparse:
		need := rowBytes(sh.Entries, sh.Rows)
		if opt.MaxBytes > 0 && need > opt.MaxBytes {
			what := fmt.Sprintf("the %d rows of %d non-zeros counted, as CSR", sh.Rows, sh.Entries)
			return fmt.Errorf("datasets: %w (ReadOptions.MaxBytes)", check.Memory(what, need, opt.MaxBytes))
		}
		p.ind, p.vals = make([]int32, sh.Entries), make([]float64, sh.Entries)
	case opt.Float32:
		if err := planDense(sh.Rows, d, 4, opt.MaxBytes, 0); err != nil {
			return err
		}
		p.x32 = hugemem.Float32s(sh.Rows * d)
	default:
		if err := planDense(sh.Rows, d, 8, opt.MaxBytes, 0); err != nil {
			return err
		}
		p.x = hugemem.Float64s(sh.Rows * d)
	}
	s.at = p
	s.y = make([]float64, 0, sh.Rows)
	s.start = make([]int, 1, sh.Rows+1)
	return nil
}

// put stores entry (row len(s.y), column k−1) = v where place put it. An
// entry beyond the rows, columns or entries counted is not stored but
// marked (s.at.over): the line goes on to be parsed, so that a line the
// parser refuses is reported as such (a first pass may count such a line
// otherwise), and done reports a file that changed between the passes.
func (s *sparseRows) put(k int, v float64) {
	p := s.at
	i := len(s.y)
	switch {
	case p.over || i >= p.rows:
		p.over = true
	case p.ind != nil:
		if s.n >= p.entries {
			p.over = true
			break
		}
		p.ind[s.n], p.vals[s.n] = int32(k-1), v
	case k > p.d:
		p.over = true
	case p.x32 != nil:
		p.x32[i*p.d+k-1] = float32(v)
	default:
		p.x[i*p.d+k-1] = v
	}
	s.n++
}

// done checks, at the end of the parse, that the rows placed are those
// counted: a file that changed between the passes is refused, never read
// short or past its arrays.
func (s *sparseRows) done() error {
	p := s.at
	if p.over || len(s.y) != p.rows || s.n != p.entries || s.maxd != p.cols {
		return &ParseError{Msg: fmt.Sprintf("the file changed while it was read: a first pass counted %d rows, %d columns and %d entries, the read found %d, %d and %d", p.rows, p.cols, p.entries, len(s.y), s.maxd, s.n)}
	}
	return nil
}

// placedCSR is the CSR matrix of placed rows with d columns: their arrays,
// not a copy.
func (s *sparseRows) placedCSR(d int) *CSR {
	p := s.at
	return &CSR{Indptr: s.start, Indices: p.ind, Values: p.vals, rows: len(s.y), cols: d}
}

// placedDataset is the dataset of placed dense rows: X (or X32) itself.
func (s *sparseRows) placedDataset() (*Dataset, error) {
	p := s.at
	if p.x32 != nil {
		x32, err := kernel.NewDense32(p.rows, p.d, p.x32)
		if err != nil {
			return nil, err
		}
		return &Dataset{X32: x32, Y: s.labels()}, nil
	}
	return &Dataset{X: mat.NewDense(p.rows, p.d, p.x), Y: s.labels()}, nil
}
