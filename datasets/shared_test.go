package datasets

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// sharedFile is one row of ../shared/datasets/MANIFEST.md: the numbers below
// are copied from that table (rows, d, label set or target range).
type sharedFile struct {
	name   string
	rows   int
	dim    int
	labels []float64 // the distinct labels of a classification set
	lo, hi float64   // the target range of a regression set
	large  bool      // only the first rows in tests; BenchmarkReadLarge reads it whole
	pos    float64   // the fraction of +1 labels, when the MANIFEST gives it
	sparse bool      // read as CSR (2²⁰ hashed columns: dense would be 21 GB)
	nnz    float64   // the MANIFEST's non-zeros a row (≈, checked to ±5%), sparse files
}

var manifest = []sharedFile{
	{name: "cadata.libsvm.gz", rows: 20640, dim: 8, lo: 14999, hi: 500001},
	{name: "cpusmall.libsvm.gz", rows: 8192, dim: 12, lo: 0, hi: 99},
	{name: "ijcnn1.train.libsvm.gz", rows: 49990, dim: 22, labels: []float64{-1, 1}, pos: 0.097},
	{name: "ijcnn1.test.libsvm.gz", rows: 91701, dim: 22, labels: []float64{-1, 1}},
	{name: "covtype.binary.libsvm.gz", rows: 581012, dim: 54, labels: []float64{1, 2}, large: true},
	{name: "pendigits.train.libsvm.gz", rows: 7494, dim: 16, labels: []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
	{name: "pendigits.test.libsvm.gz", rows: 3498, dim: 16, labels: []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
	{name: "satimage.train.libsvm.gz", rows: 4435, dim: 36, labels: []float64{1, 2, 3, 4, 5, 7}},
	{name: "satimage.test.libsvm.gz", rows: 2000, dim: 36, labels: []float64{1, 2, 3, 4, 5, 7}},
	{name: "mnist.train.libsvm.gz", rows: 60000, dim: 784, labels: []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, large: true},
	{name: "mnist.test.libsvm.gz", rows: 10000, dim: 784, labels: []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
	{name: "manpages.train.libsvm.gz", rows: 2500, dim: 1 << 20, labels: []float64{1, 2, 3, 5, 7, 8}, sparse: true, nnz: 255},
	{name: "manpages.test.libsvm.gz", rows: 626, dim: 1 << 20, labels: []float64{1, 2, 3, 5, 7, 8}, sparse: true, nnz: 255},
	{name: "heart_scale.libsvm", rows: 270, dim: 13, labels: []float64{-1, 1}},
	{name: "winequality-red.csv.gz", rows: 1599, dim: 11, lo: 3, hi: 9},
	{name: "winequality-white.csv.gz", rows: 4898, dim: 11, lo: 3, hi: 9},
}

// TestReadSharedDatasets reads every file of the shared folder and checks the
// MANIFEST's counts. LIBSVM files are read with the MANIFEST's d fixed (the
// MNIST files never use their last pixels: their largest index is 780 and
// 778). covtype and the MNIST training set take 1.5–2.5 s of CPU each (more
// when the machine is shared), so the test reads their first 2,000 rows and
// BenchmarkReadLarge reads them whole with the same checks.
func TestReadSharedDatasets(t *testing.T) {
	for _, m := range manifest {
		t.Run(m.name, func(t *testing.T) {
			p, ok := SharedPath(m.name)
			if !ok {
				t.Skip("shared dataset absent")
			}
			t.Parallel()
			rows := 0
			if m.large {
				rows = 2000
			}
			if err := m.check(p, rows); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestManifestCoversSharedFolder makes sure no shared data file escapes
// TestReadSharedDatasets.
func TestManifestCoversSharedFolder(t *testing.T) {
	p, ok := SharedPath("MANIFEST.md")
	if !ok {
		t.Skip("shared datasets absent")
	}
	entries, err := os.ReadDir(filepath.Dir(p))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "MANIFEST.md" || e.IsDir() {
			continue
		}
		if !slices.ContainsFunc(manifest, func(m sharedFile) bool { return m.name == e.Name() }) {
			t.Errorf("shared file %s is not checked by TestReadSharedDatasets", e.Name())
		}
	}
}

// check reads the file (its first maxRows rows when positive) and compares
// with the MANIFEST.
func (m sharedFile) check(path string, maxRows int) error {
	var d *Dataset
	var err error
	if m.sparse {
		d, err = m.readSparse(path)
	} else {
		d, err = ReadFile(path, ReadOptions{Dim: m.dim, MaxRows: maxRows})
	}
	if err != nil {
		return err
	}
	rows := m.rows
	if maxRows > 0 {
		rows = maxRows
	}
	dim := d.Dim()
	if m.sparse {
		dim = m.dim // checked by readSparse
	}
	if d.Len() != rows || dim != m.dim {
		return fmt.Errorf("%d×%d, MANIFEST says %d×%d", d.Len(), dim, rows, m.dim)
	}
	if err := d.Validate(); err != nil {
		return err
	}
	cc := ClassCounts(d.Y)
	if m.labels == nil {
		if cc[0].Label < m.lo || cc[len(cc)-1].Label > m.hi {
			return fmt.Errorf("target range [%v, %v], MANIFEST says within [%v, %v]", cc[0].Label, cc[len(cc)-1].Label, m.lo, m.hi)
		}
		return nil
	}
	got := make([]float64, len(cc))
	for i, c := range cc {
		got[i] = c.Label
	}
	if !slices.Equal(got, m.labels) {
		return fmt.Errorf("labels %v, MANIFEST says %v", got, m.labels)
	}
	if err := CheckClasses(d.Y, 0); err != nil {
		return err
	}
	// "9.7% positive" is rounded to 0.1%.
	if f := float64(cc[len(cc)-1].Count) / float64(d.Len()); m.pos > 0 && math.Abs(f-m.pos) > 0.0005 {
		return fmt.Errorf("%.4f positive, MANIFEST says %v", f, m.pos)
	}
	return nil
}

// readSparse reads a sparse shared file as CSR, checks its non-zeros a row
// against the MANIFEST, and returns its labels with a 1-column stand-in X
// (the checks that follow look at the shape and the labels only).
func (m sharedFile) readSparse(path string) (*Dataset, error) {
	x, y, err := ReadLIBSVMSparseFile(context.Background(), path, m.dim)
	if err != nil {
		return nil, err
	}
	n, c := x.Dims()
	if c != m.dim {
		return nil, fmt.Errorf("%d columns, MANIFEST says %d", c, m.dim)
	}
	if a := float64(x.NNZ()) / float64(n); math.Abs(a-m.nnz) > 0.05*m.nnz {
		return nil, fmt.Errorf("%.1f non-zeros a row, MANIFEST says ≈ %v", a, m.nnz)
	}
	return &Dataset{X: mat.NewDense(n, 1, nil), Y: y}, nil
}

// BenchmarkReadLarge reads the two largest shared files whole (covtype:
// 581,012×54; MNIST train: 60,000×784) and checks them against the MANIFEST:
//
//	go test -run XXX -bench ReadLarge -benchtime 1x ./datasets/
func BenchmarkReadLarge(b *testing.B) {
	for _, m := range manifest {
		if !m.large {
			continue
		}
		b.Run(m.name, func(b *testing.B) {
			p, ok := SharedPath(m.name)
			if !ok {
				b.Skip("shared dataset absent")
			}
			for b.Loop() {
				if err := m.check(p, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
