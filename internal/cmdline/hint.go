package cmdline

import (
	"errors"

	"github.com/landmark-ml/landmark/experiments"
	"github.com/landmark-ml/landmark/model"
)

// Hint returns what to type on the command line about err, for the library
// errors whose remedy is an option the library names by its Go or YAML
// name (Options.Fresh, memory_limit, probability: true), or "" when there
// is none. The library never names a flag; the commands print
// "landmark NAME: ERR (HINT)".
func Hint(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, experiments.ErrSpecChanged), errors.Is(err, experiments.ErrResultsLog):
		return "rerun with --fresh to start over"
	case errors.Is(err, model.ErrMemory):
		return "on the command line --memory sets the cap"
	case errors.Is(err, experiments.ErrNoProba):
		return "fit with --set probability=true"
	}
	return ""
}
