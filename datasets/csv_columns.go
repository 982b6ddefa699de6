package datasets

// The columns of a CSV read beyond the numbers: those ReadOptions.Drop
// leaves out, header names that are no names (a pandas index), and target
// columns of text labels (ReadOptions.TextLabels). csvRows (csv.go) calls
// them.

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// dropColumns resolves ReadOptions.Drop against the first record (the
// header's names when header is set) into c.keep.
func (c *csvRows) dropColumns(rec []string, header bool) error {
	if c.opt.Drop == nil && c.opt.Layout != nil {
		return c.applyLayout(rec, header)
	}
	if len(c.opt.Drop) == 0 {
		return nil
	}
	drop := make([]bool, len(rec))
	for _, spec := range c.opt.Drop {
		j := -1
		if header {
			for k, s := range rec {
				if strings.TrimSpace(s) == spec {
					j = k
					break
				}
			}
		}
		if j < 0 {
			k, err := strconv.Atoi(strings.TrimSpace(spec))
			switch {
			case err != nil && !header:
				return fmt.Errorf("drop %q: no header to look the name up in (give a 0-based index)", spec)
			case err != nil:
				return fmt.Errorf("drop %q: no column of that name (the header: %s)", spec, quoteSome(len(rec), func(k int) string { return strings.TrimSpace(rec[k]) }, false))
			case k < 0:
				k += len(rec)
			}
			if k < 0 || k >= len(rec) {
				return fmt.Errorf("drop %s: out of range for %d columns", spec, len(rec))
			}
			j = k
		}
		drop[j] = true
	}
	c.keepAll(rec, header, drop)
	return nil
}

// keepAll sets c.keep (and c.kept) to the columns of rec drop does not
// mark, and c.dropped (with their header names in c.droppedNames when
// header is set) to the ones it does.
func (c *csvRows) keepAll(rec []string, header bool, drop []bool) {
	for j, d := range drop {
		switch {
		case !d:
			c.keep = append(c.keep, j)
		case header:
			c.droppedNames = append(c.droppedNames, strings.TrimSpace(rec[j]))
			fallthrough
		default:
			c.dropped = append(c.dropped, j)
		}
	}
	c.kept = make([]string, len(c.keep))
}

// applyLayout takes the columns of rec as ReadOptions.Layout says a
// training read took its file's: with a header on both, the dropped
// columns by name (the target goes by name too); otherwise by position,
// in a file of the training width, and without a header the target at its
// training position (kept-column index into c.opt.Target) unless Target
// gives an index. A file one column narrower is the rows without their
// target when nothing was dropped; with dropped columns it could as well
// lack one of those, so it is an error. A file of as many columns as the
// read kept features is those features, in order, without a target. Any
// other width is an error.
func (c *csvRows) applyLayout(rec []string, header bool) error {
	l := c.opt.Layout
	drop := make([]bool, len(rec))
	if header && l.Header {
		for j, s := range rec {
			drop[j] = slices.Contains(l.Names, strings.TrimSpace(s))
		}
		c.keepAll(rec, header, drop)
		return nil
	}
	lastTarget := l.Target < 0 || l.Target == l.Width-1
	if len(l.Dropped) == 0 && (header || lastTarget) {
		return nil // nothing dropped, and the target by name or last
	}
	shift := false // the target absent
	features := l.Width - len(l.Dropped)
	if l.Target >= 0 {
		features--
	}
	switch {
	case len(rec) == l.Width:
	case len(rec) == l.Width-1 && l.Target >= 0 && len(l.Dropped) == 0:
		shift = true
	case len(rec) == features:
		// The features alone, in their order: nothing dropped, no target.
		return nil
	default:
		var what []string
		if l.Target >= 0 {
			what = append(what, fmt.Sprintf("the target in column %d", l.Target))
		}
		if len(l.Dropped) > 0 {
			what = append(what, "column(s) "+quoteSome(len(l.Dropped), func(i int) string { return strconv.Itoa(l.Dropped[i]) }, false)+" dropped")
		}
		why := ""
		if len(rec) < l.Width && len(l.Dropped) > 0 {
			why = " (narrower, it may lack its target or a dropped column)"
		}
		return fmt.Errorf("%d columns, where the model's training file had %d (%s) and %d features: give this file's --drop and --target%s (YAML drop, target; ReadOptions.Drop, Target; --drop= for none)", len(rec), l.Width, strings.Join(what, ", "), features, why)
	}
	before := 0 // dropped columns before the target
	for _, j := range l.Dropped {
		if j < 0 || j >= len(rec) {
			return fmt.Errorf("the model's dropped column %d is out of range for %d columns", j, len(rec))
		}
		drop[j] = true
		if j < l.Target {
			before++
		}
	}
	c.keepAll(rec, header, drop)
	if _, err := strconv.Atoi(strings.TrimSpace(c.opt.Target)); err != nil && !header && !shift && l.Target >= 0 {
		c.opt.Target = strconv.Itoa(l.Target - before)
	}
	return nil
}

// project returns the fields of rec that are kept (rec itself when no
// column is dropped).
func (c *csvRows) project(rec []string) []string {
	if c.keep == nil {
		return rec
	}
	for i, j := range c.keep {
		c.kept[i] = rec[j]
	}
	return c.kept
}

// fileCol returns the file column of kept column j.
func (c *csvRows) fileCol(j int) int {
	if c.keep == nil {
		return j
	}
	return c.keep[j]
}

// unnamedColumn says why a header name is no name, "" when it is one: an
// empty name (the index column pandas' to_csv writes first has one) or
// pandas' "Unnamed: N" (such a file read back and written again), which
// would otherwise be read as a feature without a word. j is the file
// column.
func unnamedColumn(name string, j int) string {
	drop := fmt.Sprintf("drop it with --drop %d (YAML drop: [%d]; ReadOptions.Drop), or name it", j, j)
	switch {
	case name == "" && j == 0:
		return "header: column 0 has no name, as the index column pandas' to_csv writes (index=False leaves it out) and the row names of R's write.csv (row.names = FALSE leaves them out): " + drop
	case name == "":
		return fmt.Sprintf("header: column %d has no name: %s", j, drop)
	case strings.HasPrefix(name, "Unnamed: "):
		if _, err := strconv.Atoi(strings.TrimPrefix(name, "Unnamed: ")); err == nil {
			return fmt.Sprintf("header: column %d is named %q, pandas' name for an unnamed column (a to_csv index read back and written again): %s", j, name, drop)
		}
	}
	return ""
}

// label reads the target field s of line, column j, with TextLabels: a
// number (as without TextLabels) or a text label; a column mixing the two
// is refused at the first label of the other kind.
func (c *csvRows) label(s string, j, line int) error {
	t := strings.TrimSpace(s)
	if _, err := strconv.ParseFloat(t, 64); t == "" || err == nil || errors.Is(err, strconv.ErrRange) {
		switch {
		case t != "" && c.opt.Classes != nil:
			return c.fieldError(j, s, line, fmt.Sprintf("is a number, the training labels are text (%s)", quoteSome(len(c.opt.Classes), func(k int) string { return c.opt.Classes[k] }, true)), ErrInput)
		case t != "" && c.text != nil:
			why := fmt.Sprintf("is a number, the labels above are text (line %d: %q): a label column holds numbers or text, not both", c.text.line, c.text.first)
			if slices.Contains(missingMarks, strings.ToLower(c.text.first)) {
				why += fmt.Sprintf("; as for %q, %s (missing values are not supported: drop or impute those rows first)", c.text.first, missingWhy(c.text.first))
			}
			return c.fieldError(j, s, line, why, ErrInput)
		}
		v, why, err := parseFinite([]byte(t))
		if why != "" {
			return c.fieldError(j, s, line, why, err)
		}
		if c.numLine == 0 {
			c.numLine, c.numFirst = line, t
		}
		c.ys.add(v)
		return nil
	}
	if c.numLine > 0 {
		return c.fieldError(j, s, line, fmt.Sprintf("is text, the labels above are numbers (line %d: %s): a label column holds numbers or text, not both", c.numLine, c.numFirst), ErrInput)
	}
	if c.text == nil {
		c.text = newLabelSet(c.opt.Classes, line, t)
	}
	c.ys.add(float64(c.text.id(t)))
	return nil
}

// labelSet numbers the text labels of a read (ReadOptions.TextLabels) in
// the order first seen, after the known classes (ReadOptions.Classes).
type labelSet struct {
	ids   map[string]int
	names []string // names[id]
	known int      // ids below it are the known classes, kept in place
	line  int      // the first text label's line and text
	first string
}

func newLabelSet(known []string, line int, first string) *labelSet {
	l := &labelSet{ids: make(map[string]int, len(known)), known: len(known), line: line, first: strings.Clone(first)}
	for _, n := range known {
		l.id(n)
	}
	return l
}

// id returns t's id, giving it the next one when it is new.
func (l *labelSet) id(t string) int {
	if id, ok := l.ids[t]; ok {
		return id
	}
	t = strings.Clone(t) // not the whole line's string
	id := len(l.names)
	l.ids[t] = id
	l.names = append(l.names, t)
	return id
}

// classes returns the class names, the known ones first and the others
// sorted, and the class of each id.
func (l *labelSet) classes() ([]string, []int) {
	order := make([]int, len(l.names)-l.known)
	for i := range order {
		order[i] = l.known + i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(l.names[a], l.names[b]) })
	names := slices.Clone(l.names[:l.known])
	class := make([]int, len(l.names))
	for k := range l.known {
		class[k] = k
	}
	for i, id := range order {
		class[id] = l.known + i
		names = append(names, l.names[id])
	}
	return names, class
}
