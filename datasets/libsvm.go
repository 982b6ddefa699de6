package datasets

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// ReadLIBSVMFile reads a LIBSVM/svmlight file ("label idx:val ...", 1-based
// indices); a .gz suffix is decompressed.
func ReadLIBSVMFile(path string) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer gz.Close()
		r = gz
	}
	d, err := ReadLIBSVM(r, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	d.Name = filepath.Base(path)
	return d, nil
}

// ReadLIBSVM reads LIBSVM/svmlight text from r into a dense dataset. dim, when
// positive, fixes the number of features (for a test file whose largest index
// is smaller than the training file's).
func ReadLIBSVM(r io.Reader, dim int) (*Dataset, error) {
	type entry struct {
		idx int
		val float64
	}
	var (
		rows [][]entry
		y    []float64
		maxd int
	)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<28)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		label, err := strconv.ParseFloat(fields[0], 64)
		if err != nil || label != label {
			return nil, fmt.Errorf("line %d: bad label %q", line, fields[0])
		}
		row := make([]entry, 0, len(fields)-1)
		prev := 0
		for _, f := range fields[1:] {
			k, v, ok := strings.Cut(f, ":")
			if !ok {
				return nil, fmt.Errorf("line %d: %q is not index:value", line, f)
			}
			if k == "qid" {
				continue
			}
			idx, err := strconv.Atoi(k)
			if err != nil || idx < 1 {
				return nil, fmt.Errorf("line %d: bad index %q", line, k)
			}
			if idx <= prev {
				return nil, fmt.Errorf("line %d: index %d after %d: indices must ascend", line, idx, prev)
			}
			prev = idx
			val, err := strconv.ParseFloat(v, 64)
			if err != nil || val != val || val > 1.7976931348623157e308 || val < -1.7976931348623157e308 {
				return nil, fmt.Errorf("line %d: bad value %q", line, v)
			}
			row = append(row, entry{idx, val})
			maxd = max(maxd, idx)
		}
		rows = append(rows, row)
		y = append(y, label)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", line+1, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("no data")
	}
	if dim <= 0 {
		dim = maxd
	} else if maxd > dim {
		return nil, fmt.Errorf("feature index %d exceeds the dimension %d", maxd, dim)
	}
	x := mat.NewDense(len(rows), max(dim, 1), nil)
	for i, row := range rows {
		for _, e := range row {
			x.Set(i, e.idx-1, e.val)
		}
	}
	return &Dataset{X: x, Y: y}, nil
}
