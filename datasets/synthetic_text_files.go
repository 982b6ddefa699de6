package datasets

import (
	"errors"
	"fmt"
	"math/rand/v2"
)

// TextPart is one file WriteSyntheticText writes: the next Rows rows of the draw.
type TextPart struct {
	Path string
	Rows int
}

// WriteSyntheticText draws SyntheticText once for the rows of all parts
// together (opt.Rows is set to their sum, so a training and a test file
// share the class topics), splits the rows in order and writes each part as
// a sparse LIBSVM file. It returns each part's number of non-zeros.
func WriteSyntheticText(rng *rand.Rand, opt TextOptions, parts []TextPart) ([]int, error) {
	opt.Rows = 0
	for _, p := range parts {
		if p.Rows < 1 {
			return nil, fmt.Errorf("datasets: %w: %s: %d rows, want ≥ 1", ErrInput, p.Path, p.Rows)
		}
		opt.Rows += p.Rows
	}
	x, y, err := SyntheticText(rng, opt)
	if err != nil {
		return nil, err
	}
	nnz := make([]int, len(parts))
	lo := 0
	for k, p := range parts {
		idx := make([]int, p.Rows)
		for i := range idx {
			idx[i] = lo + i
		}
		sub, err := x.Rows(idx)
		if err != nil {
			return nil, err
		}
		if err := WriteLIBSVMSparseFile(p.Path, sub, y[lo:lo+p.Rows]); err != nil {
			if errors.Is(err, ErrInput) {
				return nil, err
			}
			return nil, fmt.Errorf("datasets: writing %s: %w", p.Path, err)
		}
		nnz[k] = sub.NNZ()
		lo += p.Rows
	}
	return nnz, nil
}
