package check

import (
	"fmt"
	"strings"
)

// ErrFormat is wrapped by every error about a malformed data file (text,
// compressed or shard): datasets.ErrFormat and shard.ErrFormat are this
// error. It wraps ErrInput: a malformed file is bad input.
var ErrFormat = fmt.Errorf("%w: malformed data", ErrInput)

// Sentinel returns a sentinel error whose text is msg and for which
// errors.Is(err, parent) holds. A package uses it for a sentinel of its own
// (kernel.ErrParam, solver.ErrShape, ...) that belongs to a shared lineage
// such as ErrInput, so one errors.Is(err, model.ErrInput) finds every
// refusal of bad input whichever package made it, while the message keeps
// the package's own words.
func Sentinel(msg string, parent error) error {
	return &sentinel{msg: msg, parent: parent}
}

type sentinel struct {
	msg    string
	parent error
}

func (e *sentinel) Error() string { return e.msg }

func (e *sentinel) Unwrap() error { return e.parent }

// Prefix gives err the context "pkg: what: " of the exported function it
// leaves through, so that every error of a package reads "pkg: what: why",
// unless its text already starts with "pkg: " (errors made in the package
// name themselves). errors.Is and errors.As see through the prefix; nil
// stays nil. An empty what gives "pkg: ".
func Prefix(err error, pkg, what string) error {
	if err == nil || strings.HasPrefix(err.Error(), pkg+": ") {
		return err
	}
	if what == "" {
		return fmt.Errorf("%s: %w", pkg, err)
	}
	return fmt.Errorf("%s: %s: %w", pkg, what, err)
}
