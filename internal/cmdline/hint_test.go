package cmdline

import (
	"errors"
	"fmt"
	"strings"
	"testing"

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
		{errors.New("disk full"), ""},
		{nil, ""},
	} {
		got := Hint(c.err)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("Hint(%v) = %q, want one containing %q", c.err, got, c.want)
		}
	}
}
