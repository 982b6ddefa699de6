// Package checktest holds what the tests that bad input is refused share:
// a small random data set to call an API with, and the check that a call
// returns an error wrapping check.ErrInput (the project's rule: bad input
// gets a clear error, never a panic or a silent fix) rather than panicking
// or succeeding. It is imported by tests only.
package checktest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/internal/check"
	"gonum.org/v1/gonum/mat"
)

// Normal returns an n×d matrix of standard normal values, row by row from
// a PCG seeded with (seed, seed).
func Normal(n, d int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, seed))
	x := mat.NewDense(n, d, nil)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = rng.NormFloat64()
	}
	return x
}

// Refused fails tb unless call returns an error that wraps check.ErrInput
// and whose text contains want; a panic in call is reported as such, not
// propagated, so that one bad entry point does not hide the others.
func Refused(tb testing.TB, name string, call func() error, want string) {
	tb.Helper()
	err := func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("panic: %v", r)
			}
		}()
		return call()
	}()
	if !errors.Is(err, check.ErrInput) || !strings.Contains(err.Error(), want) {
		tb.Errorf("%s: err = %v, want ErrInput naming %q", name, err, want)
	}
}
