package cmdline

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/landmark-ml/landmark/experiments"
	"github.com/landmark-ml/landmark/kernel"
)

// PrintList prints the names a spec may use (landmark run --list).
func PrintList(w io.Writer) {
	fmt.Fprintln(w, "Estimators (estimator.type):")
	approx := map[string]bool{}
	for _, e := range experiments.Estimators() {
		fmt.Fprintf(w, "  %-8s %s\n", e.Name, e.Summary)
		fmt.Fprintf(w, "  %-8s tasks: %s\n", "", strings.Join(e.Tasks, ", "))
		if len(e.Approx) > 0 {
			fmt.Fprintf(w, "  %-8s approx: %s\n", "", strings.Join(e.Approx, ", "))
		}
		var opts []string
		for _, o := range e.Options {
			opts = append(opts, o.Name)
		}
		fmt.Fprintf(w, "  %-8s options: %s\n", "", strings.Join(opts, ", "))
		for _, a := range e.Approx {
			approx[a] = true
		}
	}
	fmt.Fprintln(w, "\nApproximation backends (estimator.approx.type):")
	names := make([]string, 0, len(approx))
	for a := range approx {
		names = append(names, a)
	}
	sort.Strings(names)
	for _, a := range names {
		var users []string
		for _, e := range experiments.Estimators() {
			if slices.Contains(e.Approx, a) {
				users = append(users, e.Name)
			}
		}
		fmt.Fprintf(w, "  %-18s (%s)\n", a, strings.Join(users, ", "))
	}
	fmt.Fprintln(w, "\nApproximation methods (approximation.methods, for runs without an estimator):")
	for _, a := range experiments.ApproximationNames() {
		fmt.Fprintf(w, "  %-18s %s\n", a[0], a[1])
	}
	fmt.Fprintln(w, "\nKernels (estimator.kernel.type):")
	for _, k := range kernel.Names() {
		fmt.Fprintf(w, "  %s\n", k)
	}
	fmt.Fprintln(w, "\nMetrics (cv.metric):")
	for _, m := range experiments.Metrics() {
		dir := "lower is better"
		if m.HigherBetter {
			dir = "higher is better"
		}
		fmt.Fprintf(w, "  %-18s %s (%s; %s)\n", m.Name, m.Doc, strings.Join(m.Tasks, ", "), dir)
	}
}
