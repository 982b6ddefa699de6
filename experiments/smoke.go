package experiments

import (
	"maps"
	"math"
	"slices"
)

// Smoke limits: small enough that every example runs end to end in seconds.
const (
	smokeTrain = 400 // training rows kept
	smokeTest  = 200 // test rows kept
	smokeSize  = 50  // cap on sample-size options (m, clusters): ≤ a 2-fold training half
	smokeRank  = 10  // cap on rank options
)

// Smoke returns a copy of s shrunk for a quick end-to-end check (CI, `landmark
// run --smoke`): at most 400 training and 200 test rows, 2 folds, one
// repeat, the first value of every grid axis except the first multi-valued
// one, which keeps its first two values (so at most two grid points), and
// sample-size options (m, clusters) capped at 50 and ranks at 10 (an axis
// whose values all exceed the cap keeps two: half the cap and the cap). Approximation runs keep
// their methods and measure errors on 200 rows, with at most 10 clusters. The paper block, if any,
// is dropped. The copy has its own hash, so smoke results never mix with full ones.
func (s *Spec) Smoke() *Spec {
	c := *s
	c.Name = s.Name + "-smoke"
	c.Estimator.Options = maps.Clone(s.Estimator.Options)
	c.Estimator.Approx.Options = maps.Clone(s.Estimator.Approx.Options)
	if c.Dataset.Subsample == 0 || c.Dataset.Subsample > smokeTrain {
		c.Dataset.Subsample = smokeTrain
	}
	if c.Dataset.TestSubsample == 0 || c.Dataset.TestSubsample > smokeTest {
		c.Dataset.TestSubsample = smokeTest
	}
	c.Repeats = 0
	// A smoke run reproduces nothing, and its shrunk grid may lack the
	// points the paper's figures name: the paper block is dropped.
	c.Paper = nil
	ent, _ := estimatorByName(s.Estimator.Type)
	capSize := func(name string, v float64) float64 {
		if o, ok := ent.option(name); ok && o.AtMostN && v > smokeSize {
			return smokeSize
		}
		if s.Approximation != nil && (name == "m" || name == "clusters") && v > smokeSize {
			return smokeSize
		}
		if name == "rank" && v > smokeRank {
			return smokeRank
		}
		return v
	}
	if s.Approximation == nil {
		c.CV.Folds = 2
	} else {
		a := *s.Approximation
		a.Rows = min(a.Rows, 200)
		if a.Rows == 0 {
			a.Rows = 200
		}
		a.Subset = min(a.Subset, 200)
		if a.Subset == 0 {
			a.Subset = 200
		}
		if a.Clusters > smokeSize/5 {
			a.Clusters = smokeSize / 5
		}
		c.Approximation = &a
	}
	for k, v := range c.Estimator.Options {
		if f, ok := toFloat(v); ok {
			if g := capSize(k, f); g != f {
				c.Estimator.Options[k] = g
			}
		}
	}
	c.Grid = Grid{}
	two := false
	for _, a := range s.Grid.Axes() {
		var vals []float64
		for _, v := range s.Grid[a] {
			v = capSize(a, v)
			if !slices.Contains(vals, v) {
				vals = append(vals, v)
			}
		}
		if len(vals) == 1 && len(s.Grid[a]) >= 2 && vals[0] >= 2 {
			// Capping merged the axis into one value: keep it two-valued
			// (half the cap and the cap) so the smoke run still varies it
			// and draws its plots.
			vals = []float64{math.Floor(vals[0] / 2), vals[0]}
		}
		keep := 1
		if !two && len(vals) >= 2 {
			keep, two = 2, true
		}
		c.Grid[a] = vals[:keep]
	}
	if len(c.Grid) == 0 {
		c.Grid = nil
	}
	return &c
}
