package check

import (
	"errors"
	"fmt"
	"testing"
)

func TestSentinel(t *testing.T) {
	s := Sentinel("pkg: bad thing", ErrInput)
	if s.Error() != "pkg: bad thing" {
		t.Errorf("text %q, want %q", s.Error(), "pkg: bad thing")
	}
	w := fmt.Errorf("%w: field = 3", s)
	if !errors.Is(w, s) || !errors.Is(w, ErrInput) {
		t.Errorf("%v: errors.Is sentinel %v, ErrInput %v; want both", w, errors.Is(w, s), errors.Is(w, ErrInput))
	}
	if errors.Is(w, ErrMemory) || errors.Is(Sentinel("pkg: bad thing", ErrInput), s) {
		t.Error("a sentinel matches another sentinel of the same text")
	}
	if !errors.Is(ErrFormat, ErrInput) || !errors.Is(ErrMemory, ErrInput) {
		t.Error("ErrFormat and ErrMemory must wrap ErrInput")
	}
}

func TestPrefix(t *testing.T) {
	base := fmt.Errorf("%w: X[3,1] is NaN", ErrInput)
	for _, c := range []struct {
		err       error
		pkg, what string
		want      string
	}{
		{base, "model", "krr", "model: krr: invalid input: X[3,1] is NaN"},
		{base, "datasets", "", "datasets: invalid input: X[3,1] is NaN"},
		{fmt.Errorf("model: svm: %w", base), "model", "krr", "model: svm: invalid input: X[3,1] is NaN"}, // already named
		{fmt.Errorf("approx: meka: %w", base), "model", "krr", "model: krr: approx: meka: invalid input: X[3,1] is NaN"},
	} {
		got := Prefix(c.err, c.pkg, c.what)
		if got.Error() != c.want || !errors.Is(got, ErrInput) {
			t.Errorf("Prefix(%q, %q, %q) = %q (Is ErrInput %v), want %q", c.err, c.pkg, c.what, got, errors.Is(got, ErrInput), c.want)
		}
	}
	if Prefix(nil, "model", "krr") != nil {
		t.Error("Prefix(nil) is not nil")
	}
}
