package cmdline

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/experiments"
	"github.com/landmark-ml/landmark/model"
)

// TestHint: each library sentinel whose remedy is an option gets the flag
// that sets it, however deeply wrapped; other errors get none.
func TestHint(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("x: %w: spec a, b", experiments.ErrSpecChanged), "--fresh"},
		{fmt.Errorf("x: %w: line 3", experiments.ErrResultsLog), "--fresh"},
		{fmt.Errorf("fit: %w", fmt.Errorf("%w: 3 GiB", model.ErrMemory)), "--memory"},
		{fmt.Errorf("%w: krr", experiments.ErrNoProba), "--set probability=true"},
		{fmt.Errorf("%w: X is empty", model.ErrInput), ""},
		{&experiments.SpecError{Path: "output", Msg: "output \"/x\" leaves the working directory"}, "--out DIR"},
		{&experiments.SpecError{Path: "estimator.kernel", Msg: "the gaussian kernel needs gamma (or sigma, γ = 1/(2σ²)): set it", Missing: []string{"gamma", "sigma"}}, "--gamma or --sigma"},
		{&experiments.SpecError{Path: "estimator.kernel", Msg: "the laplacian kernel needs gamma: set it", Missing: []string{"gamma"}}, "--gamma"},
		{&experiments.SpecError{Path: "estimator", Msg: "estimator krr needs lambda (or alpha): set it in the estimator block", Missing: []string{"lambda", "alpha"}}, "on the command line: --lambda or --alpha"},
		{&experiments.SpecError{Path: "estimator", Msg: "estimator falkon needs m: set it in the estimator block", Missing: []string{"m"}}, "on the command line: --m"},
		{&datasets.ParseError{Line: 2, Msg: "column 0: value \"a\" (looks like data; read with HeaderPresent (YAML header: yes) if it is a header)"}, "--header yes"},
		{errors.New("disk full"), ""},
		{nil, ""},
	} {
		got := Hint(c.err)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("Hint(%v) = %q, want one containing %q", c.err, got, c.want)
		}
	}
}
