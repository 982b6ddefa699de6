package datasets

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// ReadWeights reads sample weights from path (Stdin is refused: the data
// usually comes from it): one number per line, one line per row of the
// training data, in its order — the weight file LIBSVM's instance-weight
// variant takes (svm-train -W), or what pandas writes with
// df["w"].to_csv(path, index=False, header=False). A weight must be finite
// and ≥ 0; blank lines and anything else are errors that name the line
// (ParseError, wrapping ErrFormat); so is a file without a weight > 0. A
// FIFO is opened as the data files are, so a cancelled ctx ends the wait for
// its writer.
func ReadWeights(ctx context.Context, path string) ([]float64, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if path == Stdin {
		return nil, fmt.Errorf("%w: sample weights cannot come from stdin; give a file", ErrInput)
	}
	f, err := openContext(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("datasets: sample weights: %w", err)
	}
	defer f.Close()
	w, err := readWeights(f)
	return w, withFile(err, path)
}

// readWeights is ReadWeights on a reader.
func readWeights(r io.Reader) ([]float64, error) {
	sc := bufio.NewScanner(r)
	var w []float64
	line, pos := 0, false
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if line == 1 {
			s = strings.TrimPrefix(s, "\ufeff") // a byte-order mark
		}
		if s == "" {
			return nil, &ParseError{Line: line, Msg: "empty line: want one weight per line, one line per training row"}
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			msg := fmt.Sprintf("%q is not a number: want one weight per line", s)
			switch {
			case strings.ContainsAny(s, ",; \t"):
				msg += " (one column only: pandas' to_csv(path, header=False, index=False))"
			case line == 1:
				msg += " (a header? the file has none: pandas' to_csv(path, header=False, index=False))"
			}
			return nil, &ParseError{Line: line, Msg: msg, Err: errors.Unwrap(err)}
		}
		if !(v >= 0) || math.IsInf(v, 0) {
			return nil, &ParseError{Line: line, Msg: fmt.Sprintf("weight %s: want finite and ≥ 0", s)}
		}
		pos = pos || v > 0
		w = append(w, v)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(w) == 0 {
		return nil, &ParseError{Msg: "no weights"}
	}
	if !pos {
		return nil, &ParseError{Msg: fmt.Sprintf("all %d weights are 0", len(w))}
	}
	return w, nil
}
