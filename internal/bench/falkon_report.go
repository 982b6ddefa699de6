package bench

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// The tables bench falkon prints after its fits: the ratios against each
// baseline, the setup and factoring notes of a row, and with -curve the
// test error by iteration and where each fit reaches the baseline's.

// falkonBenchFit is one row of the table: a Landmark fit (asked for m
// centers) or a baseline's.
type falkonBenchFit struct {
	name string
	m    int
	r    falkonBenchResult
}

// falkonBenchRatios prints, when baselines ran, each Landmark fit's
// speed-up (the baseline's fit time over Landmark's) and peak RSS ratio
// (Landmark's over the baseline's) against every baseline row at the same
// M: one column per baseline name (FALKON's float32 and float64 rows).
func falkonBenchRatios(w io.Writer, fits, bases []falkonBenchFit) {
	var names []string
	for _, b := range bases {
		if !slices.Contains(names, b.name) {
			names = append(names, b.name)
		}
	}
	if len(fits) == 0 || len(names) == 0 {
		return
	}
	fmt.Fprintf(w, "\nSpeed-up of the fit (baseline's fit time / Landmark's) and peak RSS (Landmark's / baseline's), same M:\n\n| Landmark | M |")
	for _, n := range names {
		fmt.Fprintf(w, " vs %s |", n)
	}
	fmt.Fprint(w, "\n|---|---:|")
	for range names {
		fmt.Fprint(w, "---:|")
	}
	fmt.Fprintln(w)
	for _, f := range fits {
		fmt.Fprintf(w, "| %s | %d |", f.name, f.m)
		for _, n := range names {
			i := slices.IndexFunc(bases, func(b falkonBenchFit) bool { return b.name == n && b.m == f.m })
			if i < 0 || f.r.FitS <= 0 || bases[i].r.RSSBytes <= 0 {
				fmt.Fprint(w, " |")
				continue
			}
			fmt.Fprintf(w, " %.2f× (RSS %.2f×) |", bases[i].r.FitS/f.r.FitS, float64(f.r.RSSBytes)/float64(bases[i].r.RSSBytes))
		}
		fmt.Fprintln(w)
	}
}

// falkonBenchSetup describes a fit's setup: issue 25's "setup" (centers,
// K_MM and the preconditioner's factorizations, before any pass over the
// data) split into its parts, then the K_nMᵀy pass.
func falkonBenchSetup(r falkonBenchResult) string {
	return fmt.Sprintf("setup %.2f s (centers %.2f + K_MM %.2f + preconditioner %.2f), K_nMᵀy pass %.2f s",
		r.CentersS+r.KMMS+r.FactorS, r.CentersS, r.KMMS, r.FactorS, r.RHSS)
}

// falkonBenchFactoring says whether a Landmark fit's passes were factored
// (model.Falkon.Factor) and over what split.
func falkonBenchFactoring(r falkonBenchResult) string {
	if r.Factoring == "" {
		return "not factored"
	}
	return "factored: " + r.Factoring
}

// falkonBaseError is the baseline's test error at one M.
type falkonBaseError struct {
	m   int
	err float64
}

// falkonBenchReach prints, for every recorded curve whose asked M the
// baseline also ran, the first iteration at which Landmark's test error is at or
// below the baseline's final one (time to accuracy, not per iteration).
func falkonBenchReach(w io.Writer, baseName string, iters int, curves []falkonBenchCurve, base []falkonBaseError, scale func(float64) float64) {
	header := false
	for _, c := range curves {
		for _, b := range base {
			if b.m != c.asked {
				continue
			}
			if !header {
				what := "its direct solve"
				if strings.HasPrefix(baseName, "FALKON") {
					what = fmt.Sprintf("its %d iterations", iters)
				}
				fmt.Fprintf(w, "\nIterations for Falkon to reach the test error of %s (%s):\n\n", baseName, what)
				header = true
			}
			reached := "not reached in " + strconv.Itoa(len(c.errs)) + " iterations"
			for i, e := range c.errs {
				if e <= b.err {
					reached = "iteration " + strconv.Itoa(i+1)
					break
				}
			}
			kept := ""
			if c.m != c.asked {
				kept = fmt.Sprintf(" (%d kept)", c.m)
			}
			fmt.Fprintf(w, "- %s centers, M = %d%s: baseline %.5g, Falkon %s (best %.5g)\n", c.sampler, c.asked, kept, scale(b.err), reached, scale(slices.Min(c.errs)))
		}
	}
}

// falkonBenchCurve is one Falkon fit's test error after each iteration.
type falkonBenchCurve struct {
	sampler string
	m       int // centers the fit kept (BLESS merges repeated draws)
	asked   int // centers asked for (-m), which the baseline's M is matched on
	errs    []float64
}

// falkonBenchCurves prints curves side by side: one row per iteration, one
// column per fit (sampler and M), blank past a curve's end.
func falkonBenchCurves(w io.Writer, curves []falkonBenchCurve, scale func(float64) float64) {
	n := 0
	fmt.Fprint(w, "| iteration |")
	for _, c := range curves {
		fmt.Fprintf(w, " %s M = %d |", c.sampler, c.m)
		n = max(n, len(c.errs))
	}
	fmt.Fprint(w, "\n|---:|")
	for range curves {
		fmt.Fprint(w, "---:|")
	}
	fmt.Fprintln(w)
	for i := range n {
		fmt.Fprintf(w, "| %d |", i+1)
		for _, c := range curves {
			if i < len(c.errs) {
				fmt.Fprintf(w, " %.4g |", scale(c.errs[i]))
			} else {
				fmt.Fprint(w, " |")
			}
		}
		fmt.Fprintln(w)
	}
}
