package datasets

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// The CSV reader's words about the habits of the files users bring: pandas'
// bool columns, missing-value marks, trailing delimiters.

// boolValue reads field s of kept column j, a feature that is no number,
// as pandas writes a bool column (get_dummies' since pandas 2.0): True is
// 1, False 0, as scikit-learn takes them; ok is false for other text. The
// column is remembered for noteBoolColumns.
func (c *csvRows) boolValue(s string, j int) (v float64, ok bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true":
		v = 1
	case "false":
	default:
		return 0, false
	}
	if c.bools == nil {
		c.bools = make(map[int]bool)
	}
	c.bools[j] = true
	return v, true
}

// noteBoolColumns tells ReadOptions.Notify which columns boolValue read.
func (c *csvRows) noteBoolColumns() {
	if len(c.bools) == 0 || c.opt.Notify == nil {
		return
	}
	cols := slices.Sorted(maps.Keys(c.bools))
	c.opt.Notify(fmt.Sprintf("column(s) %s: True and False read as 1 and 0 (bool columns, as pandas writes them)", quoteSome(len(cols), func(i int) string {
		if c.names != nil {
			return strconv.Quote(c.names[cols[i]])
		}
		return strconv.Itoa(c.fileCol(cols[i]))
	}, false)))
}

// trailingDelim is said of an empty last column: some exporters end every
// line with the delimiter.
const trailingDelim = "; lines ending with the delimiter, as some spreadsheet exporters write them, make an empty last column: drop that column or remove the trailing delimiters"

// missingMarks are the texts that stand for a missing value in the files
// users bring, lower-cased: R's NA, pandas' NaN and None (to_csv with
// na_rep), null, the UCI repository's ?, and spreadsheets' #N/A.
var missingMarks = []string{"na", "n/a", "#n/a", "nan", "none", "null", "?"}

// missingWhy says who writes the missing-value mark s (one of
// missingMarks).
func missingWhy(s string) string {
	if strings.TrimSpace(s) == "?" {
		return "the UCI repository's files mark a missing value so"
	}
	return "pandas' read_csv reads it as a missing value (NaN), and R writes NA for one"
}

// noteMissingClasses warns (ReadOptions.Notify) of each text class of d
// whose name marks a missing value (missingMarks): R, pandas and the UCI
// files write a missing label so, and it is read as a class of its own. A
// class may be called that, so it is a warning, not an error.
func (c *csvRows) noteMissingClasses(d *Dataset) {
	if c.opt.Notify == nil {
		return
	}
	for k, name := range d.Classes {
		if !slices.Contains(missingMarks, strings.ToLower(name)) {
			continue
		}
		rows := 0
		for _, v := range d.Y {
			if v == float64(k) {
				rows++
			}
		}
		if rows > 0 {
			c.opt.Notify(fmt.Sprintf("warning: the label %q of %d row(s) is read as a class, but %s: if those labels are missing, drop the rows", name, rows, missingWhy(name)))
		}
	}
}
