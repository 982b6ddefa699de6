// Package check validates user data at the boundaries of Landmark's packages,
// so that bad input becomes a clear error rather than a panic or a silent fix.
package check

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// ErrInput is wrapped by every error this package returns.
var ErrInput = errors.New("invalid input")

// Matrix checks that x is non-nil, non-empty and finite. name labels the error.
func Matrix(name string, x *mat.Dense) error {
	if x == nil || x.IsEmpty() {
		return fmt.Errorf("%w: %s is empty", ErrInput, name)
	}
	r, c := x.Dims()
	if r == 0 || c == 0 {
		return fmt.Errorf("%w: %s is empty (%d×%d)", ErrInput, name, r, c)
	}
	raw := x.RawMatrix()
	for i := 0; i < r; i++ {
		for j, v := range raw.Data[i*raw.Stride : i*raw.Stride+c] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%w: %s[%d,%d] is %v", ErrInput, name, i, j, v)
			}
		}
	}
	return nil
}

// Vector checks that y has n finite elements.
func Vector(name string, y []float64, n int) error {
	if len(y) != n {
		return fmt.Errorf("%w: %s has %d elements, want %d", ErrInput, name, len(y), n)
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: %s[%d] is %v", ErrInput, name, i, v)
		}
	}
	return nil
}

// XY checks a training set: x non-empty and finite, y finite with one element per row of x.
func XY(x *mat.Dense, y []float64) error {
	if err := Matrix("X", x); err != nil {
		return err
	}
	r, _ := x.Dims()
	return Vector("y", y, r)
}

// Cols checks that x is a valid matrix with d columns, as a fitted model expects.
func Cols(x *mat.Dense, d int) error {
	if err := Matrix("X", x); err != nil {
		return err
	}
	if _, c := x.Dims(); c != d {
		return fmt.Errorf("%w: X has %d columns, the model was fitted on %d", ErrInput, c, d)
	}
	return nil
}

// Positive checks that v is finite and > 0.
func Positive(name string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return fmt.Errorf("%w: %s = %g, want finite and > 0", ErrInput, name, v)
	}
	return nil
}

// Context refuses a nil context, which would otherwise panic at the first
// cancellation check.
func Context(ctx context.Context) error {
	if ctx == nil {
		return fmt.Errorf("%w: nil context (pass context.Background())", ErrInput)
	}
	return nil
}

// Weights checks sample weights: n of them (one per row), each finite and
// ≥ 0, and at least one > 0. nil passes (no weights).
func Weights(w []float64, n int) error {
	if w == nil {
		return nil
	}
	if len(w) != n {
		return fmt.Errorf("%w: %d sample weights for %d rows", ErrInput, len(w), n)
	}
	pos := false
	for i, v := range w {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: sample weight %d is %g, want finite and ≥ 0", ErrInput, i, v)
		}
		pos = pos || v > 0
	}
	if !pos {
		return fmt.Errorf("%w: every sample weight is 0", ErrInput)
	}
	return nil
}
