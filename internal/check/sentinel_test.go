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
