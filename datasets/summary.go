package datasets

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/landmark-ml/landmark/internal/check"
)

// ColumnSummary describes one feature column.
type ColumnSummary struct {
	// Name is the column's header name, or x1, x2, … when unnamed.
	Name string
	// Index is the column's 0-based position in X.
	Index int
	// Min, Max, Mean and Std (population) of the column.
	Min, Max, Mean, Std float64
	// Zeros counts the zero entries.
	Zeros int
}

// Summary describes a dataset for a quick look (landmark data info).
type Summary struct {
	// Rows and Dim are the shape of X.
	Rows, Dim int
	// Task is GuessTask's guess from Y.
	Task Task
	// Classes holds the label counts when Task is not Regression.
	Classes []ClassCount
	// ClassNames names the classes of text labels (Dataset.Classes): the
	// labels of Classes are then indices into it. Nil for numeric labels.
	ClassNames []string
	// Target holds the statistics of Y (Name is the target's name or "y").
	Target ColumnSummary
	// Columns describes every feature, or, when Wide, only those with a
	// non-zero entry (in column order).
	Columns []ColumnSummary
	// Wide says that Columns leaves out the columns that are zero on every
	// row (SummarizeCSR with Dim > WideColumns): per-feature statistics of
	// wide sparse data take memory for the columns that occur only.
	Wide bool
	// Empty counts the columns that are zero on every row.
	Empty int
	// Zeros counts the zero entries of X; Zeros/(Rows·Dim) is its sparsity.
	Zeros int
	// Constant counts the columns whose training values are all equal.
	Constant int
}

// Summarize computes d's Summary.
func Summarize(d *Dataset) (Summary, error) {
	if err := d.Validate(); err != nil {
		return Summary{}, err
	}
	n, c := d.X.Dims()
	mean, std, lo, hi := columnStats(d.X)
	s := Summary{Rows: n, Dim: c, Task: GuessTask(d.Y), Columns: make([]ColumnSummary, c)}
	raw := d.X.RawMatrix()
	for i := range n {
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+c] {
			if v == 0 {
				s.Columns[j].Zeros++
			}
		}
	}
	for j := range s.Columns {
		col := &s.Columns[j]
		col.Name, col.Index = "x"+strconv.Itoa(j+1), j
		if d.Features != nil {
			col.Name = d.Features[j]
		}
		col.Min, col.Max, col.Mean, col.Std = lo[j], hi[j], mean[j], std[j]
		s.Zeros += col.Zeros
		if lo[j] == hi[j] {
			s.Constant++
		}
		if col.Zeros == n {
			s.Empty++
		}
	}
	s.summarizeTarget(d.Y, d.Target)
	if d.Classes != nil {
		// Text labels are classes however many there are.
		s.ClassNames, s.Classes, s.Task = d.Classes, ClassCounts(d.Y), Multiclass
		if len(d.Classes) == 2 {
			s.Task = Binary
		}
	}
	return s, nil
}

// summarizeTarget fills in the task, classes and target statistics of y.
func (s *Summary) summarizeTarget(y []float64, name string) {
	s.Task = GuessTask(y)
	if s.Task != Regression {
		s.Classes = ClassCounts(y)
	}
	ym, ys, ylo, yhi := columnStats(columnOf(y))
	s.Target = ColumnSummary{Name: name, Min: ylo[0], Max: yhi[0], Mean: ym[0], Std: ys[0]}
	if s.Target.Name == "" {
		s.Target.Name = "y"
	}
	for _, v := range y {
		if v == 0 {
			s.Target.Zeros++
		}
	}
}

// WideColumns is the number of features above which SummarizeCSR describes
// only the columns that occur in the data (Summary.Wide): a ColumnSummary
// takes about 80 bytes, so 100,000 of them are 8 MB, while a file with one
// index of 10⁸ would need 8 GB of per-feature statistics.
const WideColumns = 100_000

// SummarizeCSR computes the Summary of sparse data x with labels y in
// memory proportional to its non-zeros (plus one ColumnSummary a column when
// x has at most WideColumns columns): the stored entries are ordered by
// column (a stable sort of their positions), and each column's statistics
// add its zeros — those not stored — as one term, as ColumnScaler does. The
// numbers are those of Summarize on the dense form up to rounding (its sums
// run in row order with the zeros in between). With more than WideColumns
// columns only those with a stored entry are described (Wide).
func SummarizeCSR(x *CSR, y []float64) (Summary, error) {
	if x == nil {
		return Summary{}, fmt.Errorf("datasets: %w: X is nil", ErrInput)
	}
	n, d := x.Dims()
	if len(y) != n {
		return Summary{}, fmt.Errorf("datasets: %w: %d labels for %d rows", ErrInput, len(y), n)
	}
	if err := checked(check.Vector("y", y, n)); err != nil {
		return Summary{}, err
	}
	s := Summary{Rows: n, Dim: d, Wide: d > WideColumns}
	if !s.Wide {
		s.Columns = make([]ColumnSummary, 0, d)
	}
	next := 0 // the next column without a summary (not Wide)
	absent := func(upTo int) {
		for ; next < upTo; next++ {
			s.Columns = append(s.Columns, ColumnSummary{Name: "x" + strconv.Itoa(next+1), Index: next, Zeros: n})
		}
	}
	nonzeros, stored := 0, 0
	for _, c := range storedColumns(x, n, d) {
		j := c.Index
		c.Name = "x" + strconv.Itoa(j+1)
		stored++
		nonzeros += n - c.Zeros
		if c.Min == c.Max {
			s.Constant++
		}
		if c.Zeros == n {
			s.Empty++ // explicit zeros only
		}
		if !s.Wide {
			absent(j)
			next = j + 1
		} else if c.Zeros == n {
			continue
		}
		s.Columns = append(s.Columns, c)
	}
	if !s.Wide {
		absent(d)
	}
	// The columns with no stored entry are zero on every row: constant.
	s.Constant += d - stored
	s.Empty += d - stored
	s.Zeros = n*d - nonzeros
	s.summarizeTarget(y, "")
	return s, nil
}

// storedColumns returns the statistics (without Name) of the columns of x
// (n rows, d columns) with a stored entry, in column order. Each column's
// entries are met in row order either way, so both paths sum alike.
//
// When the entries are at least 5·d it accumulates every column at once in
// two sequential passes over x, seven values a column (landmark data info
// of mnist's 9.4 million entries took 1.4 s in all, against 6.0 s when
// every column was gathered after a stable sort of all positions, 3 s of
// it the sort; docs/performance.md); otherwise it sorts and gathers, so
// that memory stays proportional to the entries whatever the largest
// index.
func storedColumns(x *CSR, n, d int) []ColumnSummary {
	if len(x.Indices) < 5*d {
		order := make([]int, len(x.Indices))
		for p := range order {
			order[p] = p
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(x.Indices[a], x.Indices[b]) })
		var cols []ColumnSummary
		for a := 0; a < len(order); {
			j := x.Indices[order[a]]
			b := a
			for b < len(order) && x.Indices[order[b]] == j {
				b++
			}
			c := sparseColumn(x.Values, order[a:b], n)
			c.Index = int(j)
			cols = append(cols, c)
			a = b
		}
		return cols
	}
	lo, hi, sum := make([]float64, d), make([]float64, d), make([]float64, d)
	count, nz := make([]int, d), make([]int, d)
	for j := range d {
		lo[j], hi[j] = math.Inf(1), math.Inf(-1)
	}
	for p, j := range x.Indices {
		v := x.Values[p]
		lo[j], hi[j] = math.Min(lo[j], v), math.Max(hi[j], v)
		sum[j] += v
		count[j]++
		if v != 0 {
			nz[j]++
		}
	}
	// The second pass sums the squared deviations from each mean (into sum,
	// reused) and the deviations themselves (dev).
	mean, dev := make([]float64, d), make([]float64, d)
	for j := range d {
		if count[j] < n {
			lo[j], hi[j] = math.Min(lo[j], 0), math.Max(hi[j], 0) // a zero not stored
		}
		mean[j], sum[j] = sum[j]/float64(n), 0
	}
	for p, j := range x.Indices {
		e := x.Values[p] - mean[j]
		sum[j] += e * e
		dev[j] += e
	}
	var cols []ColumnSummary
	for j := range d {
		if count[j] == 0 {
			continue
		}
		c := ColumnSummary{Index: j, Min: lo[j], Max: hi[j], Zeros: n - nz[j]}
		if lo[j] == hi[j] {
			c.Mean = lo[j]
		} else {
			c.Mean, c.Std = centred(mean[j], sum[j], dev[j], n-count[j], n)
		}
		cols = append(cols, c)
	}
	return cols
}

// sparseColumn returns the statistics of a column of n rows whose stored
// values are values[p] for p in pos (row order), the others zero.
func sparseColumn(values []float64, pos []int, n int) ColumnSummary {
	var c ColumnSummary
	z := n - len(pos) // zeros not stored
	lo, hi := math.Inf(1), math.Inf(-1)
	if z > 0 {
		lo, hi = 0, 0
	}
	var sum float64
	nz := 0
	for _, p := range pos {
		v := values[p]
		lo, hi = math.Min(lo, v), math.Max(hi, v)
		sum += v
		if v != 0 {
			nz++
		}
	}
	c.Min, c.Max, c.Zeros = lo, hi, n-nz
	if lo == hi {
		c.Mean = lo // exactly constant: no round-off residue
		return c
	}
	mean := sum / float64(n)
	var ss, dev float64
	for _, p := range pos {
		e := values[p] - mean
		ss += e * e
		dev += e
	}
	c.Mean, c.Std = centred(mean, ss, dev, z, n)
	return c
}

// centred returns a column's mean and (population) standard deviation from
// a first estimate of its mean and, over its stored entries, the sum of the
// squared deviations from it (ss) and of the deviations (dev); z zeros of
// the n rows are not stored. The deviations' sum corrects the mean's
// round-off (the two-pass, corrected form).
func centred(mean, ss, dev float64, z, n int) (float64, float64) {
	ss += float64(z) * mean * mean
	dev -= float64(z) * mean
	return mean + dev/float64(n), math.Sqrt(math.Max(0, (ss-dev*dev/float64(n))/float64(n)))
}

// Sparsity is the fraction of zero entries of X.
func (s Summary) Sparsity() float64 {
	if s.Rows == 0 || s.Dim == 0 {
		return 0
	}
	return float64(s.Zeros) / (float64(s.Rows) * float64(s.Dim))
}

// String is a one-line description, e.g. "20640 rows × 8 features, regression".
func (s Summary) String() string {
	out := fmt.Sprintf("%d rows × %d features, %s", s.Rows, s.Dim, s.Task)
	if s.Classes != nil {
		out += fmt.Sprintf(" (%d classes)", len(s.Classes))
	}
	return out
}
