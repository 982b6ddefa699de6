package datasets

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// ReadCSV reads delimited text from r: every record has the same number of
// numeric fields, one of which (opt.Target, default the last) is the target.
// A header line is detected (or forced with opt.Header); its names become
// Features and Target. Lines starting with '#' are comments. Empty fields,
// text in a numeric field, NaN/Inf and ragged records are errors carrying the
// line number. Compressed input is detected and undone.
func ReadCSV(r io.Reader, opt ReadOptions) (*Dataset, error) {
	opt.Format = CSV
	return read(context.Background(), r, opt)
}

func readCSV(ctx context.Context, r io.Reader, opt ReadOptions) (*Dataset, error) {
	cr := csv.NewReader(r)
	if opt.Comma != 0 {
		cr.Comma = opt.Comma
	}
	if cr.Comma != '#' {
		cr.Comment = '#'
	}
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true
	c := &csvRows{opt: opt, comma: cr.Comma, target: -1}
	for first := true; ; first = false {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				msg := pe.Err.Error()
				if errors.Is(pe.Err, csv.ErrFieldCount) {
					msg = fmt.Sprintf("%d fields, the first record has %d", len(rec), c.cols)
					if c.names != nil && c.rows == 0 && len(rec) == c.cols+1 {
						// The header one name short of every row.
						msg += "; a header one name short of the rows is what R's write.table writes with row names: write the file with row.names = FALSE, or name the first column"
					}
				}
				return nil, &ParseError{Line: pe.StartLine, Msg: msg, Err: pe.Err}
			}
			return nil, &ParseError{Msg: "read failed: " + err.Error(), Err: err}
		}
		line, _ := cr.FieldPos(0)
		if line%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if err := c.checkBytes(line); err != nil {
				return nil, err
			}
		}
		if first {
			header, err := c.first(rec, line)
			if err != nil {
				return nil, err
			}
			if header {
				continue
			}
			c.firstData = line
		}
		if err := c.record(rec, line); err != nil {
			return nil, err
		}
		c.rows++
		if opt.Progress != nil && c.rows%ProgressRows == 0 {
			opt.Progress(c.rows)
		}
		if opt.MaxRows > 0 && c.rows >= opt.MaxRows {
			break
		}
	}
	return c.dataset()
}

// csvRows is the state of one readCSV: the column layout decided on the
// first record and the values read so far.
type csvRows struct {
	opt       ReadOptions
	comma     rune
	names     []string
	target    int
	hint      string // the header guess, said again in an error on that line
	firstData int
	cols      int
	dx        int   // features per row
	xcol      []int // xcol[j] is kept column j's feature, −1 for the target
	// keep lists the file columns kept when ReadOptions.Drop drops some
	// (nil: every column), and kept is the record of them.
	keep []int
	kept []string
	// dropped and droppedNames are the file columns Drop (or
	// Layout) left out and their header names (Dataset.Layout).
	dropped      []int
	droppedNames []string
	layout       *Layout
	// text numbers the text labels (ReadOptions.TextLabels; nil until
	// one is read); numLine and numFirst are the line and text of the
	// first numeric label (0 before one).
	text     *labelSet
	numLine  int
	numFirst string
	// seq says that the first kept column, a feature, has held the row
	// numbers 0, 1, … so far: a pandas index read as a feature.
	seq bool
	// bools marks the kept columns, features, where True/False (pandas'
	// bool columns) were read as 1/0.
	bools  map[int]bool
	row    []float64
	row32  []float32 // row rounded, for xs32
	xs, ys chunks[float64]
	// xs32 holds the features instead of xs when they are read into
	// float32 (opt.Float32).
	xs32 chunks[float32]
	rows int
}

// bytes is the memory of the values read so far (the features' chunks and
// the targets'), which gather copies into X and y.
func (c *csvRows) bytes() int64 {
	return c.xs.bytes(8) + c.xs32.bytes(4) + c.ys.bytes(8)
}

// checkBytes refuses, when ReadOptions.MaxBytes is set, values read past
// it, naming the line reached (0: the end of the file), so that a CSV file
// over the cap is stopped while it is read rather than after.
func (c *csvRows) checkBytes(line int) error {
	budget := c.opt.MaxBytes
	if budget <= 0 || c.bytes() <= budget {
		return nil
	}
	what := fmt.Sprintf("the values read by line %d (%d rows)", line, c.rows)
	if line == 0 {
		what = fmt.Sprintf("the values read (%d rows)", c.rows)
	}
	return fmt.Errorf("datasets: %w (ReadOptions.MaxBytes)", check.Memory(what, c.bytes(), budget))
}

// first decides from the first record whether it is a header, and which
// columns are the features and the target.
func (c *csvRows) first(rec []string, line int) (header bool, err error) {
	opt := c.opt
	c.cols = len(rec)
	rec[0] = strings.TrimPrefix(rec[0], "\ufeff")
	header, why := isHeader(rec, opt.Header)
	if opt.Header == HeaderAuto {
		c.hint = why
	}
	if err := c.dropColumns(rec, header); err != nil {
		return false, &ParseError{Line: line, Msg: err.Error(), Err: ErrInput}
	}
	opt = c.opt // the target Layout may have set
	rec = c.project(rec)
	cols := len(rec)
	if header {
		c.names = make([]string, cols)
		seen := make(map[string]int, cols)
		for j, s := range rec {
			c.names[j] = strings.TrimSpace(s)
			if msg := unnamedColumn(c.names[j], c.fileCol(j)); msg != "" {
				if c.names[j] == "" && c.fileCol(j) == c.cols-1 && c.cols > 1 {
					msg += trailingDelim
				}
				return false, &ParseError{Line: line, Msg: msg, Err: ErrColumns}
			}
			// A repeated name could not be matched by name at predict
			// time (matchColumns): refused here, when the file is read.
			if i, dup := seen[c.names[j]]; dup {
				return false, &ParseError{Line: line, Msg: fmt.Sprintf("header: column name %q repeated (columns %d and %d): rename one", c.names[j], i, j), Err: ErrColumns}
			}
			seen[c.names[j]] = j
		}
	}
	if f := opt.featureNames(); header && f != nil {
		c.target, c.xcol, err = matchColumns(c.names, f, opt.Target, opt.AllowUnlabelled)
	} else {
		c.target, c.xcol, err = positionColumns(c.names, cols, opt)
	}
	if opt.Header == HeaderAuto && opt.Notify != nil {
		// The header guess, and the target it leaves when none was named.
		note := fmt.Sprintf("line %d %s", line, why)
		if err == nil {
			note += c.targetNote()
		}
		opt.Notify(note)
	}
	if err != nil {
		return false, &ParseError{Line: line, Msg: strings.TrimPrefix(err.Error(), "datasets: ") + delimHint(rec, c.comma), Err: err}
	}
	c.dx = cols
	c.layout = &Layout{Width: c.cols, Target: -1, Header: header, Dropped: c.dropped, Names: c.droppedNames}
	if c.target >= 0 {
		c.dx--
		c.layout.Target = c.fileCol(c.target)
	}
	if c.dx < 1 {
		return false, &ParseError{Line: line, Msg: fmt.Sprintf("%d field(s): want at least one feature and a target (is the delimiter %q right?)", cols, c.comma) + delimHint(rec, c.comma)}
	}
	c.seq = c.xcol[0] >= 0
	c.row = make([]float64, c.dx)
	c.xs.width, c.xs32.width, c.ys.width = c.dx, c.dx, 1
	if c.opt.Float32 {
		c.row32 = make([]float32, c.dx)
	}
	c.reserve(line, header)
	return header, nil
}

// delimHint names, for a first record read as one field, the delimiter
// its text holds that would split it: "; the line holds ';': give --delim
// ';'" (or tabs, --delim tab; or '|'); "" otherwise.
func delimHint(rec []string, comma rune) string {
	if len(rec) != 1 {
		return ""
	}
	for _, d := range []rune{';', '\t', '|'} {
		if d == comma || !strings.ContainsRune(rec[0], d) {
			continue
		}
		if d == '\t' {
			return "; the line holds tabs: give --delim tab"
		}
		return fmt.Sprintf("; the line holds '%c': give --delim '%c'", d, d)
	}
	return ""
}

// targetNote says, for a read that named no target and no feature names
// (a training file), which column the target is, the last, so that a file
// whose label comes first is not fitted on its last feature unawares:
// "; the target is its last column, "c" (--target NAME for another, as
// --target label)", the example when another column is named as targets
// often are (label, target, class, y); "" otherwise.
func (c *csvRows) targetNote() string {
	if c.opt.Target != "" || c.opt.featureNames() != nil || c.target < 0 {
		return ""
	}
	if c.names == nil {
		return fmt.Sprintf("; the target is its last column, %d counting from 0 (--target INDEX for another)", c.target)
	}
	like := ""
	for j, n := range c.names {
		switch strings.ToLower(n) {
		case "label", "labels", "target", "class", "y":
			if j != c.target && like == "" {
				like = ", as --target " + n
			}
		}
	}
	return fmt.Sprintf("; the target is its last column, %q (--target NAME for another%s)", c.names[c.target], like)
}

// record parses one data record into the features and the target.
func (c *csvRows) record(rec []string, line int) error {
	rec = c.project(rec)
	for j, s := range rec {
		if c.xcol[j] < 0 && c.opt.TextLabels {
			if err := c.label(s, j, line); err != nil {
				return err
			}
			continue
		}
		v, why, err := parseFinite([]byte(strings.TrimSpace(s)))
		if why != "" && c.xcol[j] >= 0 {
			if b, ok := c.boolValue(s, j); ok {
				v, why, err = b, "", nil
			}
		}
		if why == "" && (c.opt.Float32 || c.opt.Float32Range) && c.xcol[j] >= 0 {
			why, err = beyondFloat32(v, c.opt.float32Reason(true))
		}
		if why != "" {
			if c.xcol[j] < 0 && errors.Is(err, strconv.ErrSyntax) && strings.TrimSpace(s) != "" {
				why += " (text labels are classes, for a classification task only: task binary, multiclass or auto; ReadOptions.TextLabels)"
			}
			return c.fieldError(j, s, line, why, err)
		}
		if j == 0 && c.seq && v != float64(c.rows) {
			c.seq = false
		}
		if k := c.xcol[j]; k >= 0 {
			c.row[k] = v
		} else {
			c.ys.add(v)
		}
	}
	if c.opt.Float32 {
		for j, v := range c.row {
			c.row32[j] = float32(v)
		}
		c.xs32.add(c.row32...)
		return nil
	}
	c.xs.add(c.row...)
	return nil
}

// fieldError is the *ParseError for field j of line, holding s, that
// says why (the column by name when the header named it).
func (c *csvRows) fieldError(j int, s string, line int, why string, err error) error {
	col := strconv.Itoa(c.fileCol(j))
	if c.names != nil {
		col = strconv.Quote(c.names[j])
	}
	switch t := strings.ToLower(strings.TrimSpace(s)); {
	case t == "" && c.fileCol(j) == c.cols-1 && c.cols > 1 && line == c.firstData:
		// The first row's last field empty: likely on every line.
		why = "is empty (missing values are not supported" + trailingDelim + ")"
	case t == "":
		why = "is empty (missing values are not supported)"
	case slices.Contains(missingMarks, t):
		why += " (" + missingWhy(s) + "; missing values are not supported: drop or impute those rows first)"
	}
	if line == c.firstData && c.hint != "" {
		why += " (" + c.hint + "; read with HeaderPresent (YAML header: yes) if it is a header)"
	}
	return &ParseError{Line: line, Msg: fmt.Sprintf("column %s: value %q %s", col, s, why), Err: err}
}

// dataset is the Dataset of the rows read, its memory planned first.
func (c *csvRows) dataset() (*Dataset, error) {
	if c.rows == 0 {
		return nil, &ParseError{Msg: "no data rows"}
	}
	if c.opt.Progress != nil {
		c.opt.Progress(c.rows)
	}
	if c.seq && c.rows >= minIndexRows && c.opt.Notify != nil {
		col := "column " + strconv.Itoa(c.fileCol(0))
		if c.names != nil {
			col += " (" + strconv.Quote(c.names[0]) + ")"
		}
		c.opt.Notify(fmt.Sprintf("warning: %s holds the row numbers 0, 1, …, %d and is read as a feature: if it is a row index (pandas' to_csv writes one first), drop it with --drop %d (YAML drop: [%d])", col, c.rows-1, c.fileCol(0), c.fileCol(0)))
	}
	c.noteBoolColumns()
	d := &Dataset{Layout: c.layout}
	if err := c.checkBytes(0); err != nil {
		return nil, err
	}
	// The values held (c.bytes) are copied into X unless they are X
	// already (a reserved chunk kept in place).
	if c.opt.Float32 && !c.xs32.inPlace() {
		if err := planDense(c.rows, c.dx, 4, c.opt.MaxBytes, c.bytes()); err != nil {
			return nil, err
		}
	}
	if c.opt.Float32 {
		x32, err := kernel.NewDense32(c.rows, c.dx, c.xs32.gather())
		if err != nil {
			return nil, err
		}
		d.X32 = x32
	} else {
		if !c.xs.inPlace() {
			if err := planDense(c.rows, c.dx, 8, c.opt.MaxBytes, c.bytes()); err != nil {
				return nil, err
			}
		}
		d.X = mat.NewDense(c.rows, c.dx, c.xs.gather())
	}
	if c.target >= 0 {
		d.Y = c.ys.gather()
		if c.text != nil {
			var class []int
			d.Classes, class = c.text.classes()
			for i, id := range d.Y {
				d.Y[i] = float64(class[int(id)])
			}
			c.noteMissingClasses(d)
		}
	}
	if c.names != nil {
		d.Features = make([]string, c.dx)
		for j, k := range c.xcol {
			if k >= 0 {
				d.Features[k] = c.names[j]
			} else {
				d.Target = c.names[j]
			}
		}
	}
	return d, nil
}

// positionColumns takes the columns by position: the target is opt.Target
// (default the last column), or none for unlabelled data when
// AllowUnlabelled is set and the record has exactly opt.Dim fields.
func positionColumns(names []string, cols int, opt ReadOptions) (int, []int, error) {
	target := -1
	if !(opt.AllowUnlabelled && opt.Dim > 0 && cols == opt.Dim) {
		if cols < 2 {
			comma := opt.Comma
			if comma == 0 {
				comma = ','
			}
			return 0, nil, fmt.Errorf("datasets: %w: %d field(s): want at least one feature and a target (is the delimiter %q right?)", ErrInput, cols, comma)
		}
		spec := opt.Target
		if _, err := strconv.Atoi(spec); err != nil && names == nil && opt.featureNames() != nil {
			// The target name goes with the feature names; a file without
			// a header has it last.
			spec = ""
		}
		var err error
		if target, err = targetColumn(spec, names, cols); err != nil {
			return 0, nil, fmt.Errorf("datasets: %w: %w", ErrInput, err)
		}
	}
	xcol := make([]int, cols)
	for j := range xcol {
		switch {
		case j == target:
			xcol[j] = -1
		case target >= 0 && j > target:
			xcol[j] = j - 1
		default:
			xcol[j] = j
		}
	}
	return target, xcol, nil
}

// featureNames returns the names a CSV header is matched against: the
// Features list, the implied x1…xDim, or nil (columns by position).
func (opt ReadOptions) featureNames() featureNames {
	switch {
	case opt.Features != nil:
		return newListNames(opt.Features)
	case opt.ImpliedFeatures && opt.Dim > 0:
		return impliedNames(opt.Dim)
	}
	return nil
}

// matchColumns maps header names to the feature order of features by name;
// the column named target (exactly, else case-insensitively; an index,
// negative from the end; "" for the last column unless it is a feature) is
// the target, and may be absent when unlabelled is allowed. Missing features,
// unknown columns and repeated names are errors naming them. Its work is
// proportional to the header, whatever the number of features (implied
// names are looked up, not listed).
func matchColumns(names []string, features featureNames, target string, unlabelled bool) (int, []int, error) {
	seen := make(map[string]int, len(names))
	for j, n := range names {
		if i, dup := seen[n]; dup {
			return 0, nil, fmt.Errorf("datasets: %w: column name %q repeated (columns %d and %d)", ErrColumns, n, i, j)
		}
		seen[n] = j
	}
	isFeature := func(n string) bool { _, ok := features.index(n); return ok }
	t := -1
	switch j, ok := seen[target]; {
	case target == "":
		// The default target, the last column, unless it is a feature;
		// then the column named y, the name WriteCSV gives an unnamed target.
		if !isFeature(names[len(names)-1]) {
			t = len(names) - 1
		} else if j, ok := seen[unnamedTarget]; ok && !isFeature(unnamedTarget) {
			t = j
		}
	case ok:
		t = j
	default:
		for j, n := range names {
			if !isFeature(n) && strings.EqualFold(n, target) {
				t = j
			}
		}
		if k, err := strconv.Atoi(target); t < 0 && err == nil {
			// An index, negative from the end, as targetColumn reads it.
			if k < 0 {
				k += len(names)
			}
			if k < 0 || k >= len(names) {
				return 0, nil, fmt.Errorf("datasets: %w: target column %s out of range for %d columns", ErrColumns, target, len(names))
			}
			t = k
		}
	}
	xcol := make([]int, len(names))
	have := make(map[int]bool, len(names))
	var extra []string
	for j, n := range names {
		if j == t {
			xcol[j] = -1
			continue
		}
		k, ok := features.index(n)
		if !ok {
			extra = append(extra, strconv.Quote(n))
			continue
		}
		xcol[j] = k
		have[k] = true
	}
	// The missing features, the first listedNames of them named: a scan
	// that stops after them, at most len(have) + listedNames steps.
	var missing []string
	nMissing := features.count() - len(have)
	for k := 0; k < features.count() && len(missing) < min(nMissing, listedNames); k++ {
		if !have[k] {
			missing = append(missing, strconv.Quote(features.name(k)))
		}
	}
	if nMissing > len(missing) {
		missing = append(missing, fmt.Sprintf("… (%d in all)", nMissing))
	}
	// Every problem in one message: missing features, unknown columns, no
	// target.
	var probs []string
	if len(missing) > 0 {
		probs = append(probs, "missing feature column(s) "+strings.Join(missing, ", "))
	}
	if len(extra) > 0 {
		if len(extra) > listedNames {
			extra = append(extra[:listedNames], fmt.Sprintf("… (%d in all)", len(extra)))
		}
		what := strconv.Quote(target)
		if target == "" {
			what = "(the last column)"
		}
		probs = append(probs, fmt.Sprintf("column(s) %s are neither features nor the target %s", strings.Join(extra, ", "), what))
	}
	if t < 0 && !unlabelled {
		if target == "" {
			probs = append(probs, fmt.Sprintf("no target column: the last column, %q, is a feature", names[len(names)-1]))
		} else {
			probs = append(probs, fmt.Sprintf("no target column %q", target))
		}
	}
	if len(probs) > 0 {
		return 0, nil, fmt.Errorf("datasets: %w: %s (the features: %s; the file's columns: %s)", ErrColumns, strings.Join(probs, "; "), describeNames(features), quoteSome(len(names), func(j int) string { return names[j] }, false))
	}
	return t, xcol, nil
}

// minIndexRows is the fewest rows whose first column counting 0, 1, … is
// said to look like a row index: fewer could be a coincidence.
const minIndexRows = 3

// unnamedTarget is the name WriteCSV gives a target that has none.
const unnamedTarget = "y"

// ErrColumns is wrapped by errors about a CSV header whose names do not
// match the feature names asked for (ReadOptions.Features).
var ErrColumns = fmt.Errorf("%w: the columns do not match", ErrInput)

// isHeader decides whether the first record is a header and says why. With
// HeaderAuto it is a header when no field reads as a number (1e400, out of
// float64's range, still reads as one: it is an overflow, not a name), so
// that a headerless first row holding NA or ? is read as data, and fails
// with its line, rather than vanishing into a header.
func isHeader(rec []string, mode HeaderMode) (bool, string) {
	switch mode {
	case HeaderPresent:
		return true, "is the header (told so)"
	case HeaderAbsent:
		return false, "is data (told there is no header)"
	}
	var nums, texts []string
	for _, s := range rec {
		s = strings.TrimSpace(s)
		if _, err := strconv.ParseFloat(s, 64); err == nil || errors.Is(err, strconv.ErrRange) {
			nums = append(nums, s)
		} else {
			texts = append(texts, strconv.Quote(s))
		}
	}
	switch {
	case len(nums) == 0:
		return true, "read as the header: no field is a number (--header no to read it as data)"
	case len(texts) == 0:
		return false, "read as data: every field is a number, so the file has no header (--header yes if it has one)"
	}
	return false, fmt.Sprintf("read as data, not as a header: %d of %d fields are numbers (a header has none); not numbers: %s", len(nums), len(rec), strings.Join(texts, ", "))
}

// targetColumn resolves the Target option against the header names (nil
// without a header).
func targetColumn(spec string, names []string, cols int) (int, error) {
	if spec == "" {
		return cols - 1, nil
	}
	for j, n := range names {
		if n == spec {
			return j, nil
		}
	}
	found := -1
	for j, n := range names {
		if strings.EqualFold(n, spec) {
			if found >= 0 {
				return 0, fmt.Errorf("target %q matches columns %d and %d (case-insensitively)", spec, found, j)
			}
			found = j
		}
	}
	if found >= 0 {
		return found, nil
	}
	k, err := strconv.Atoi(spec)
	if err != nil {
		if names == nil {
			return 0, fmt.Errorf("target column %q: no header to look the name up in", spec)
		}
		return 0, fmt.Errorf("no column named %q (columns: %s)", spec, strings.Join(names, ", "))
	}
	if k < 0 {
		k += cols
	}
	if k < 0 || k >= cols {
		return 0, fmt.Errorf("target column %s out of range for %d columns", spec, cols)
	}
	return k, nil
}

// checkClasses checks that with text labels every target is the index of
// one of d.Classes.
func (d *Dataset) checkClasses() error {
	for i, y := range d.Y {
		if k := int(y); d.Classes != nil && (float64(k) != y || k < 0 || k >= len(d.Classes)) {
			return fmt.Errorf("datasets: %w: row %d has target %g, not the index of one of the %d classes", ErrInput, i, y, len(d.Classes))
		}
	}
	return nil
}

// WriteCSV writes d as delimited text (comma 0 means ','): a header line (the
// Features and Target names, or x1…xd and y when unnamed), then one record per
// row with the target last. Numbers use the shortest form that reads back to
// the same float64; text labels (d.Classes) are written as their names.
func WriteCSV(w io.Writer, d *Dataset, comma rune) error {
	if err := d.Validate(); err != nil {
		return err
	}
	if err := d.checkClasses(); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	if comma != 0 {
		cw.Comma = comma
	}
	c := d.Dim()
	rec := make([]string, c+1)
	for j := range c {
		if d.Features != nil {
			rec[j] = d.Features[j]
		} else {
			rec[j] = FeatureName(j)
		}
	}
	rec[c] = d.Target
	if rec[c] == "" {
		rec[c] = unnamedTarget
	}
	if err := cw.Write(rec); err != nil {
		return err
	}
	raw := d.X.RawMatrix()
	for i, y := range d.Y {
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+c] {
			rec[j] = strconv.FormatFloat(v, 'g', -1, 64)
		}
		if d.Classes != nil {
			rec[c] = d.Classes[int(y)]
		} else {
			rec[c] = strconv.FormatFloat(y, 'g', -1, 64)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
