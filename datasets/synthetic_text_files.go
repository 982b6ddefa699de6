package datasets

import (
	"context"
	"errors"
	"fmt"
	"io"
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
	return WriteSyntheticTextContext(context.Background(), rng, opt, parts)
}

// WriteSyntheticTextContext is WriteSyntheticText that stops when ctx is
// cancelled, checked every 1,024 rows while drawing and while writing: it
// then returns ctx's error (wrapped) and leaves no output, every part's
// file as it was before the call (each part is written to a temporary file
// that replaces it only once every part is written; a part written to
// standard output, "-", is written as it goes).
func WriteSyntheticTextContext(ctx context.Context, rng *rand.Rand, opt TextOptions, parts []TextPart) ([]int, error) {
	opt.Rows = 0
	for _, p := range parts {
		if p.Rows < 1 {
			return nil, fmt.Errorf("datasets: %w: %s: %d rows, want ≥ 1", ErrInput, p.Path, p.Rows)
		}
		opt.Rows += p.Rows
	}
	x, y, err := SyntheticTextContext(ctx, rng, opt)
	if err != nil {
		return nil, err
	}
	nnz := make([]int, len(parts))
	subs := make([]*CSR, len(parts))
	lo := 0
	for k, p := range parts {
		idx := make([]int, p.Rows)
		for i := range idx {
			idx[i] = lo + i
		}
		if subs[k], err = x.Rows(idx); err != nil {
			return nil, err
		}
		nnz[k] = subs[k].NNZ()
		lo += p.Rows
	}
	x = nil
	// Part k's file is written inside part k−1's write, so that the
	// renames come last, innermost first, once every part is written:
	// an error or a cancellation before then leaves every file untouched.
	var write func(k, lo int) error
	write = func(k, lo int) error {
		if k == len(parts) {
			return nil
		}
		p := parts[k]
		var inner error // the later parts' error, already named
		err := writeAtomic(p.Path, func(w io.Writer) error {
			var progress func(int)
			if opt.Progress != nil {
				progress = func(rows int) { opt.Progress(TextProgress{Path: p.Path, Rows: rows, Total: p.Rows}) }
			}
			if err := writeLIBSVMSparse(ctx, w, subs[k], y[lo:lo+p.Rows], progress); err != nil {
				return err
			}
			inner = write(k+1, lo+p.Rows)
			return inner
		})
		switch {
		case inner != nil:
			return inner
		case err == nil || errors.Is(err, ErrInput):
			return err
		case ctx.Err() != nil && errors.Is(err, ctx.Err()):
			return fmt.Errorf("datasets: synthetic text: %w", err)
		}
		return fmt.Errorf("datasets: writing %s: %w", p.Path, err)
	}
	if err := write(0, 0); err != nil {
		return nil, err
	}
	return nnz, nil
}
