package cmdline

import (
	"errors"
	"slices"
	"strings"

	"github.com/landmark-ml/landmark/experiments"
	"github.com/landmark-ml/landmark/model"
)

// Hint returns what to type on the command line about err, for the library
// errors whose remedy is an option the library names by its Go or YAML
// name (Options.Fresh, memory_limit, probability: true, Options.Out, a
// kernel's gamma, HeaderPresent), or "" when there is none. The library never names a flag; the commands print
// "landmark NAME: ERR (HINT)".
func Hint(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, experiments.ErrSpecChanged), errors.Is(err, experiments.ErrResultsLog):
		return "rerun with --fresh to start over"
	case errors.Is(err, model.ErrMemory):
		return "on the command line --memory sets the cap"
	case errors.Is(err, experiments.ErrNoInterval):
		return "fit with --estimator svr --set probability=true"
	case errors.Is(err, experiments.ErrNoProba) && !strings.Contains(err.Error(), "one-class SVM"):
		// Not for a one-class SVM: it has no probability model to fit.
		return "fit with --set probability=true"
	}
	var se *experiments.SpecError
	if errors.As(err, &se) {
		if se.Path == "output" {
			return "on the command line --out DIR writes elsewhere"
		}
		if f := SpecFlag(se); f != "" {
			return "on the command line: " + f
		}
	}
	// A CSV line read as data that may be a header: the reader's words
	// reach here as a ParseError, or inside a spec error's text.
	if strings.Contains(err.Error(), "read with HeaderPresent") {
		return "on the command line --header yes if the first line is a header"
	}
	return ""
}

// SpecFlag returns the flags that set what a spec error says is missing
// ("--lambda or --alpha", "--gamma or --sigma", from SpecError.Missing), or
// "" when the error is not about a missing setting.
func SpecFlag(se *experiments.SpecError) string {
	if len(se.Missing) == 0 {
		return ""
	}
	f := "--" + strings.Join(se.Missing, " or --")
	if slices.Contains(se.Missing, "gamma") {
		f += "; --gamma scale takes 1/(d·Var(X)), scikit-learn SVC's default"
	}
	return f
}
