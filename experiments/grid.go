package experiments

import (
	"slices"
	"strconv"
	"strings"
)

// Param is one parameter value of a grid point.
type Param struct {
	// Name is the grid axis (lambda, gamma, m, …).
	Name string `json:"name"`
	// Value is its value at this point.
	Value float64 `json:"value"`
}

// Point is one setting of every grid axis, in axis order.
type Point []Param

// Key is the point's canonical text form, "gamma=0.1,lambda=1e-06".
func (p Point) Key() string {
	var b strings.Builder
	for i, q := range p {
		if i > 0 {
			b.WriteByte(',')
		}
		if m, ok := strings.CutPrefix(q.Name, "method:"); ok {
			b.WriteString("method=" + m)
			continue
		}
		b.WriteString(q.Name)
		b.WriteByte('=')
		b.WriteString(strconv.FormatFloat(q.Value, 'g', -1, 64))
	}
	return b.String()
}

// Value returns the value of axis name and whether the point has it.
func (p Point) Value(name string) (float64, bool) {
	for _, q := range p {
		if q.Name == name {
			return q.Value, true
		}
	}
	return 0, false
}

// Axes returns the grid's axis names in iteration order: sorted by name,
// except that the regularization (lambda or alpha) varies fastest, so that
// consecutive points differ only in λ — the order in which a regularization
// path can be reused.
func (g Grid) Axes() []string {
	axes := sortedKeys(g)
	slices.SortStableFunc(axes, func(a, b string) int {
		ra, rb := isReg(a), isReg(b)
		switch {
		case ra && !rb:
			return 1
		case rb && !ra:
			return -1
		}
		return 0
	})
	return axes
}

func isReg(name string) bool { return name == "lambda" || name == "alpha" }

// Points enumerates the cartesian product, the last axis varying fastest and
// each axis in the order its values were written. An empty grid has one
// point with no parameters.
func (g Grid) Points() []Point {
	axes := g.Axes()
	pts := []Point{{}}
	for _, a := range axes {
		var next []Point
		for _, p := range pts {
			for _, v := range g[a] {
				q := append(slices.Clone(p), Param{Name: a, Value: v})
				next = append(next, q)
			}
		}
		pts = next
	}
	return pts
}
