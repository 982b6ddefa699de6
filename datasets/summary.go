package datasets

import (
	"fmt"
	"strconv"
)

// ColumnSummary describes one feature column.
type ColumnSummary struct {
	// Name is the column's header name, or x1, x2, … when unnamed.
	Name string
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
	// Target holds the statistics of Y (Name is the target's name or "y").
	Target ColumnSummary
	// Columns describes every feature.
	Columns []ColumnSummary
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
		col.Name = "x" + strconv.Itoa(j+1)
		if d.Features != nil {
			col.Name = d.Features[j]
		}
		col.Min, col.Max, col.Mean, col.Std = lo[j], hi[j], mean[j], std[j]
		s.Zeros += col.Zeros
		if lo[j] == hi[j] {
			s.Constant++
		}
	}
	if s.Task != Regression {
		s.Classes = ClassCounts(d.Y)
	}
	ym, ys, ylo, yhi := columnStats(columnOf(d.Y))
	s.Target = ColumnSummary{Name: d.Target, Min: ylo[0], Max: yhi[0], Mean: ym[0], Std: ys[0]}
	if s.Target.Name == "" {
		s.Target.Name = "y"
	}
	for _, v := range d.Y {
		if v == 0 {
			s.Target.Zeros++
		}
	}
	return s, nil
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
