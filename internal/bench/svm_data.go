package bench

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// benchSVMData loads the benchmark's train and test sets.
func benchSVMData(name string, seed uint64) (tr, te *datasets.Dataset, err error) {
	shared := func(f string) (string, error) {
		p, ok := datasets.SharedPath(f)
		if !ok {
			return "", fmt.Errorf("%s not found in the shared datasets folder (set LANDMARK_SHARED_DATA)", f)
		}
		return p, nil
	}
	switch name {
	case "ijcnn1":
		ptr, err := shared("ijcnn1.train.libsvm.gz")
		if err != nil {
			return nil, nil, err
		}
		pte, err := shared("ijcnn1.test.libsvm.gz")
		if err != nil {
			return nil, nil, err
		}
		if tr, err = datasets.ReadLIBSVMFile(ptr); err != nil {
			return nil, nil, err
		}
		te, err = datasets.ReadTestFile(pte, tr, datasets.ReadOptions{Format: datasets.LIBSVM})
		return tr, te, err
	case "covtype":
		p, err := shared("covtype.binary.libsvm.gz")
		if err != nil {
			return nil, nil, err
		}
		all, err := datasets.ReadLIBSVMFile(p)
		if err != nil {
			return nil, nil, err
		}
		if tr, te, err = all.TrainTest(0.2, false, rand.New(rand.NewPCG(seed, 0x5c))); err != nil {
			return nil, nil, err
		}
		mm := &datasets.MinMax{Lower: 0, Upper: 1}
		if err := mm.Fit(tr.X); err != nil {
			return nil, nil, err
		}
		if tr.X, err = mm.Transform(tr.X); err != nil {
			return nil, nil, err
		}
		if te.X, err = mm.Transform(te.X); err != nil {
			return nil, nil, err
		}
		return tr, te, nil
	}
	return nil, nil, fmt.Errorf("%w: -data %q: want ijcnn1 or covtype", errUsage, name)
}

// headRows keeps the first n rows of d (all when n is 0 or too large).
func headRows(d *datasets.Dataset, n int) *datasets.Dataset {
	if n <= 0 || n >= d.Len() {
		return d
	}
	_, c := d.X.Dims()
	return &datasets.Dataset{Name: d.Name, X: mat.DenseCopyOf(d.X.Slice(0, n, 0, c)), Y: d.Y[:n]}
}

// writeBenchFile writes a benchmark set as a LIBSVM file for svm-train: the
// sparse writer for CSR data (only non-zeros), the dense one otherwise.
func writeBenchFile(path string, s benchSet) error {
	if c, ok := s.x.(*datasets.CSR); ok {
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := datasets.WriteLIBSVMSparse(f, c, s.y); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	return datasets.WriteFile(path, &datasets.Dataset{X: kernel.DenseOf(s.x), Y: s.y}, datasets.WriteOptions{Format: datasets.LIBSVM})
}

// toCSR returns x as a *datasets.CSR (its non-zeros), x itself when it is one.
func toCSR(x mat.Matrix) *datasets.CSR {
	if c, ok := x.(*datasets.CSR); ok {
		return c
	}
	c, err := datasets.CSRFromDense(kernel.DenseOf(x))
	if err != nil {
		panic(err) // the non-zeros of a finite, non-empty dense matrix always make a valid CSR
	}
	return c
}

// benchSparseData reads mnist (pixels/255, kept sparse) or draws the
// synthetic text-like set, and keeps the first ntrain / ntest rows (0: all
// for mnist, 20,000 / 5,000 for text).
func benchSparseData(ctx context.Context, name string, ntrain, ntest, dim, nnz int, seed uint64) (tr, te benchSet, err error) {
	if name == "text" || name == "news20" {
		if ntrain == 0 {
			ntrain = 20000
		}
		if ntest == 0 {
			ntest = 5000
		}
		var x *datasets.CSR
		var y []float64
		if name == "text" {
			dim, nnz = cmp.Or(dim, 20000), cmp.Or(nnz, 50)
			if nnz > dim {
				return tr, te, fmt.Errorf("%w: -nnz %d > -dim %d", errUsage, nnz, dim)
			}
			x, y, err = textLike(ntrain+ntest, dim, nnz, rand.New(rand.NewPCG(seed, 0x7e)))
		} else {
			// The same draw as "landmark data synth text" with this seed.
			x, y, err = datasets.SyntheticText(rand.New(rand.NewPCG(seed, 0x7e47)), datasets.TextOptions{Rows: ntrain + ntest, Dim: dim, NNZ: nnz})
		}
		if err != nil {
			return tr, te, err
		}
		a, b := make([]int, ntrain), make([]int, ntest)
		for i := range a {
			a[i] = i
		}
		for i := range b {
			b[i] = ntrain + i
		}
		xa, _ := x.Rows(a)
		xb, _ := x.Rows(b)
		return benchSet{x: xa, y: y[:ntrain]}, benchSet{x: xb, y: y[ntrain:]}, nil
	}
	var sets [2]benchSet
	for k, f := range []string{"mnist.train.libsvm.gz", "mnist.test.libsvm.gz"} {
		p, ok := datasets.SharedPath(f)
		if !ok {
			return tr, te, fmt.Errorf("%s not found in the shared datasets folder (set LANDMARK_SHARED_DATA)", f)
		}
		x, y, err := datasets.ReadLIBSVMSparseFile(ctx, p, 784)
		if err != nil {
			return tr, te, err
		}
		for i := range x.Values {
			x.Values[i] /= 255
		}
		keep := []int{ntrain, ntest}[k]
		if n, _ := x.Dims(); keep > 0 && keep < n {
			idx := make([]int, keep)
			for i := range idx {
				idx[i] = i
			}
			x, _ = x.Rows(idx)
			y = y[:keep]
		}
		sets[k] = benchSet{x: x, y: y}
	}
	return sets[0], sets[1], nil
}

// textLike draws an rcv1-like sparse binary classification set: each row has
// nnz distinct columns drawn with P(column < j) = (j/d)^0.4 (a few frequent
// "words", a long tail), positive values 1 + Exp(1), scaled to unit L2 norm
// as rcv1's rows are; the label is the sign of w·x for a w that is standard
// normal on the d/40 most frequent columns (about a fifth of each row's
// non-zeros) and 0 elsewhere, flipped for 5% of the rows.
func textLike(n, d, nnz int, rng *rand.Rand) (*datasets.CSR, []float64, error) {
	w := make([]float64, d)
	for j := range w[:max(d/40, 1)] {
		w[j] = rng.NormFloat64()
	}
	indptr := make([]int, 1, n+1)
	indices := make([]int32, 0, n*nnz)
	values := make([]float64, 0, n*nnz)
	y := make([]float64, n)
	seen := map[int32]bool{}
	for i := 0; i < n; i++ {
		clear(seen)
		cols := make([]int32, 0, nnz)
		for len(cols) < nnz {
			j := int32(min(float64(d-1), float64(d)*math.Pow(rng.Float64(), 2.5)))
			if !seen[j] {
				seen[j] = true
				cols = append(cols, j)
			}
		}
		slices.Sort(cols)
		start := len(values)
		var ss float64
		for range cols {
			v := 1 + rng.ExpFloat64()
			values = append(values, v)
			ss += v * v
		}
		var dot float64
		for p, j := range cols {
			values[start+p] /= math.Sqrt(ss)
			dot += w[j] * values[start+p]
		}
		indices = append(indices, cols...)
		indptr = append(indptr, len(values))
		y[i] = 1
		if dot < 0 {
			y[i] = -1
		}
		if rng.Float64() < 0.05 {
			y[i] = -y[i]
		}
	}
	x, err := datasets.NewCSR(n, d, indptr, indices, values)
	return x, y, err
}

// readSparse is datasets.ReadLIBSVMSparseFile with the index base.
func readSparse(ctx context.Context, path string, dim int, zeroBased bool) (*datasets.CSR, []float64, error) {
	in, err := datasets.OpenInput(ctx, path, datasets.LIBSVM)
	if err != nil {
		return nil, nil, err
	}
	defer in.Close()
	return in.ReadSparseWith(ctx, datasets.ReadOptions{Dim: dim, ZeroBased: zeroBased})
}

// benchFiles reads a LIBSVM training and test file as CSR (indices
// 0-based with zeroBased), both with the larger of their dimensions, and
// keeps the first ntrain / ntest rows (0: all).
func benchFiles(ctx context.Context, trainPath, testPath string, ntrain, ntest int, zeroBased bool) (tr, te benchSet, err error) {
	var xs [2]*datasets.CSR
	var ys [2][]float64
	for k, p := range []string{trainPath, testPath} {
		if xs[k], ys[k], err = readSparse(ctx, p, 0, zeroBased); err != nil {
			return tr, te, err
		}
	}
	_, d0 := xs[0].Dims()
	_, d1 := xs[1].Dims()
	d := max(d0, d1)
	for k, keep := range []int{ntrain, ntest} {
		x := xs[k]
		n, _ := x.Dims()
		if keep > 0 && keep < n {
			idx := make([]int, keep)
			for i := range idx {
				idx[i] = i
			}
			x, _ = x.Rows(idx)
			ys[k] = ys[k][:keep]
			n = keep
		}
		if xs[k], err = datasets.NewCSR(n, d, x.Indptr, x.Indices, x.Values); err != nil {
			return tr, te, err
		}
	}
	return benchSet{x: xs[0], y: ys[0]}, benchSet{x: xs[1], y: ys[1]}, nil
}

// svKey is the key of a support vector by content: its non-zeros as
// "index:value" with each value rounded to 8 significant digits, the
// precision of svm-train's model file ("%.8g"), and printed back exactly.
func svKey(b []byte, indices []int32, values []float64) []byte {
	for p, j := range indices {
		if values[p] == 0 {
			continue
		}
		v, _ := strconv.ParseFloat(strconv.FormatFloat(values[p], 'e', 7, 64), 64)
		b = strconv.AppendInt(b, int64(j)+1, 10)
		b = append(b, ':')
		b = strconv.AppendFloat(b, v, 'g', -1, 64)
		b = append(b, ' ')
	}
	return b
}

// rowKeys counts the rows of x (dense or sparse) by svKey; nil x gives an
// empty map.
func rowKeys(x mat.Matrix) map[string]int {
	keys := map[string]int{}
	if x == nil {
		return keys
	}
	sp, ok := x.(kernel.Sparse)
	if !ok {
		sp = toCSR(x) // dense rows: a copy of their non-zeros
	}
	indptr, indices, values := sp.CSR()
	var b []byte
	n, _ := sp.Dims()
	for i := range n {
		b = svKey(b[:0], indices[indptr[i]:indptr[i+1]], values[indptr[i]:indptr[i+1]])
		keys[string(b)]++
	}
	return keys
}

// libsvmModelKeys reads the support vectors of an svm-train model file
// ("SV" line, then one line per vector: nr_class−1 coefficients and
// index:value pairs) and counts them by svKey.
func libsvmModelKeys(path string) (map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	coefs, inSV := 1, false
	keys := map[string]int{}
	var b []byte
	var idx []int32
	var val []float64
	for sc.Scan() {
		line := sc.Text()
		if !inSV {
			if k, ok := strings.CutPrefix(line, "nr_class "); ok {
				nc, err := strconv.Atoi(k)
				if err != nil {
					return nil, fmt.Errorf("%s: nr_class %q", path, k)
				}
				coefs = nc - 1
			}
			inSV = line == "SV"
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < coefs {
			return nil, fmt.Errorf("%s: support vector line %q", path, line)
		}
		idx, val = idx[:0], val[:0]
		for _, fl := range fields[coefs:] {
			is, vs, ok := strings.Cut(fl, ":")
			j, err1 := strconv.Atoi(is)
			v, err2 := strconv.ParseFloat(vs, 64)
			if !ok || err1 != nil || err2 != nil {
				return nil, fmt.Errorf("%s: support vector entry %q", path, fl)
			}
			idx, val = append(idx, int32(j-1)), append(val, v)
		}
		b = svKey(b[:0], idx, val)
		keys[string(b)]++
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !inSV {
		return nil, fmt.Errorf("%s: no SV section", path)
	}
	return keys, nil
}

// compareKeys returns the size of the multiset intersection of a and b and
// what is left of each.
func compareKeys(a, b map[string]int) (common, onlyA, onlyB int) {
	for k, na := range a {
		nb := b[k]
		common += min(na, nb)
		onlyA += max(na-nb, 0)
	}
	for k, nb := range b {
		onlyB += max(nb-a[k], 0)
	}
	return common, onlyA, onlyB
}
