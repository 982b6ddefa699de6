package datasets

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// ErrInput is wrapped by every error about invalid arguments or data (it is
// check.ErrInput, the same sentinel model.ErrInput is).
var ErrInput = check.ErrInput

// ErrFormat is wrapped by every error about a malformed file or stream; it
// wraps ErrInput in turn, so errors.Is(err, ErrInput) also holds. It is also
// shard.ErrFormat: one sentinel for every malformed data file.
var ErrFormat = check.ErrFormat

// ErrMemory is wrapped by a refusal to read data whose planned memory exceeds
// the caller's budget, before the large allocations; it is model.ErrMemory
// and approx.ErrMemory too, and wraps ErrInput.
var ErrMemory = check.ErrMemory

// ParseError reports malformed text data: the file (empty for a plain reader),
// the 1-based line number and what is wrong there. errors.Is(err, ErrFormat)
// holds for every ParseError; the underlying cause (a strconv error, say) is
// also reachable through errors.Is/As.
type ParseError struct {
	// File is the file name, or "" when reading from an io.Reader.
	File string
	// Line is the 1-based line number (0 when the problem is not tied to a line).
	Line int
	// Msg says what is wrong.
	Msg string
	// Err is the underlying cause, if any.
	Err error
}

// Error formats the error as "datasets: file: line N: msg" (without the
// file for a plain reader, without the line when it is 0).
func (e *ParseError) Error() string {
	s := e.Msg
	if e.Line > 0 {
		s = "line " + strconv.Itoa(e.Line) + ": " + s
	}
	if e.File != "" {
		s = e.File + ": " + s
	}
	return "datasets: " + s
}

// Unwrap returns ErrFormat and the cause.
func (e *ParseError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrFormat, e.Err}
	}
	return []error{ErrFormat}
}

// withFile sets the file name of a ParseError that has none, and prefixes
// other errors with the file name.
func withFile(err error, file string) error {
	if err == nil {
		return nil
	}
	var pe *ParseError
	if errors.As(err, &pe) && pe.File == "" {
		pe.File = file
		return err
	}
	if errors.As(err, &pe) {
		return err
	}
	return &fileError{file: file, err: err}
}

// checked gives an error of the shared input checks (internal/check) the
// package's prefix: "datasets: invalid input: X[3,1] is NaN".
func checked(err error) error { return check.Prefix(err, "datasets", "") }

// fileError names the file of an error that is not a ParseError:
// "datasets: file: what: why", the package prefix said once.
type fileError struct {
	file string
	err  error
}

func (e *fileError) Error() string {
	return "datasets: " + e.file + ": " + strings.TrimPrefix(e.err.Error(), "datasets: ")
}

func (e *fileError) Unwrap() error { return e.err }

// Dataset is a dense design matrix with one target or label per row.
type Dataset struct {
	// Name identifies the data (a file name or a bundled name).
	Name string
	// X holds one sample per row (n×d). It is nil when the data was read
	// into float32 (ReadOptions.Float32): X32 holds the rows then.
	X *mat.Dense
	// X32 holds the rows in float32 when they were read so
	// (ReadOptions.Float32), each value the float64 one rounded; nil
	// otherwise. The methods below other than Len and Dim need X.
	X32 *kernel.Dense32
	// Y holds the regression target or class label of each row; it is nil
	// for unlabelled data (ReadOptions.AllowUnlabelled).
	Y []float64
	// Features names the columns of X when the source named them (a CSV
	// header); nil otherwise.
	Features []string
	// Target names the target column when the source named it; "" otherwise.
	Target string
	// Classes names the classes when the labels were text (a CSV read
	// with ReadOptions.TextLabels): Y holds each row's class index into
	// it, 0…len(Classes)−1. A training file's names are sorted (by bytes,
	// as numpy's unique sorts them, so that "B" is class 0 and "M" class
	// 1, the positive class of a binary fit); a file read with
	// ReadOptions.Classes has those first, in their order, then the
	// labels not among them, sorted. Nil for numeric labels.
	Classes []string
	// Layout says how a CSV read took the file's columns (its width, the
	// target's column, the columns Drop left out); ReadOptions.Layout
	// reads a file to predict the same way. Nil for other sources.
	Layout *Layout
}

// Layout records how a CSV read took the columns of its file, so that a
// file to be predicted by a model fitted on that read is taken the same
// way (ReadOptions.Layout). A saved model keeps it.
type Layout struct {
	// Width is the file's number of columns.
	Width int `json:"width"`
	// Target is the file column of the target, −1 when the read had none.
	Target int `json:"target"`
	// Header says the file had a header line.
	Header bool `json:"header,omitempty"`
	// Dropped are the columns ReadOptions.Drop left out, ascending (nil for
	// none), and Names their header names when Header is set.
	Dropped []int    `json:"dropped,omitempty"`
	Names   []string `json:"names,omitempty"`
}

// Len returns the number of samples (X's rows for unlabelled data, whose
// Y is nil).
func (d *Dataset) Len() int {
	if d.Y == nil && d.X != nil {
		r, _ := d.X.Dims()
		return r
	}
	if d.Y == nil && d.X32 != nil {
		r, _ := d.X32.Dims()
		return r
	}
	return len(d.Y)
}

// Dim returns the number of features.
func (d *Dataset) Dim() int {
	switch {
	case d == nil:
		return 0
	case d.X != nil:
		_, c := d.X.Dims()
		return c
	case d.X32 != nil:
		_, c := d.X32.Dims()
		return c
	}
	return 0
}

// Validate checks that d holds a non-empty, finite X with one finite target
// per row, and that Features, when set, names every column.
func (d *Dataset) Validate() error {
	if d == nil {
		return fmt.Errorf("datasets: %w: nil dataset", ErrInput)
	}
	if err := checked(check.XY(d.X, d.Y)); err != nil {
		return err
	}
	if d.Features != nil && len(d.Features) != d.Dim() {
		return fmt.Errorf("datasets: %w: %d feature names for %d columns", ErrInput, len(d.Features), d.Dim())
	}
	return nil
}

// Subset returns a new dataset holding copies of the rows idx, in that order
// (repeats allowed). An index out of range is an error.
func (d *Dataset) Subset(idx []int) (*Dataset, error) {
	if d == nil || d.X == nil {
		return nil, fmt.Errorf("datasets: %w: nil dataset", ErrInput)
	}
	n, c := d.X.Dims()
	if len(d.Y) != n {
		return nil, fmt.Errorf("datasets: %w: dataset has %d rows and %d targets", ErrInput, n, len(d.Y))
	}
	if len(idx) == 0 {
		return nil, fmt.Errorf("datasets: %w: empty subset", ErrInput)
	}
	x := newDense(len(idx), c)
	y := make([]float64, len(idx))
	src := d.X.RawMatrix()
	dst := x.RawMatrix()
	for k, i := range idx {
		if i < 0 || i >= n {
			return nil, fmt.Errorf("datasets: %w: subset index %d out of range [0,%d)", ErrInput, i, n)
		}
		copy(dst.Data[k*dst.Stride:k*dst.Stride+c], src.Data[i*src.Stride:i*src.Stride+c])
		y[k] = d.Y[i]
	}
	out := &Dataset{Name: d.Name, X: x, Y: y, Target: d.Target, Classes: d.Classes, Layout: d.Layout}
	if d.Features != nil {
		out.Features = append([]string(nil), d.Features...)
	}
	return out, nil
}

// SharedPath returns the path of a file in the project's shared dataset folder
// (../shared/datasets beside the repository, or $LANDMARK_SHARED_DATA) and
// whether it exists. Tests and benchmarks use it to find real data and skip
// cleanly when it is absent.
func SharedPath(name string) (string, bool) {
	var dirs []string
	if d := os.Getenv("LANDMARK_SHARED_DATA"); d != "" {
		dirs = append(dirs, d)
	}
	if wd, err := os.Getwd(); err == nil {
		for dir := wd; ; dir = filepath.Dir(dir) {
			dirs = append(dirs, filepath.Join(dir, "shared", "datasets"), filepath.Join(filepath.Dir(dir), "shared", "datasets"))
			if filepath.Dir(dir) == dir {
				break
			}
		}
	}
	for _, d := range dirs {
		p := filepath.Join(d, name)
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
	}
	return "", false
}
