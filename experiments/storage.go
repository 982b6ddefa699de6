package experiments

import (
	"context"
	"fmt"
	"runtime"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// storage resolves the dataset block's storage ("" is auto).
func (d DatasetSpec) storage() string {
	if d.Storage == "" {
		return StorageAuto
	}
	return d.Storage
}

// loadSparse reads the dataset block's LIBSVM input in (and test file)
// straight into CSR matrices when the storage allows it: sparse, or auto
// without a scaling that moves zeros (standardize, minmax; maxabs and std
// keep them). With auto the density decides: at or above SparseDensity the
// data is converted to dense; storage dense converts it always. An
// uncompressed or gzip file's density is counted before its values are read
// (datasets.Input.Shape), and a file that is to be dense is then read
// into dense X directly, never held as CSR too. Read this way, a LIBSVM
// test file may use columns the training rows never do (kept sparse for
// the estimators, as predict reads them). Both reads are bounded by the
// fit's memory cap. It returns a nil x, leaving in unread for the dense
// reader, when the data is not LIBSVM or a scaling that moves zeros needs
// it dense from the start.
func (r *runner) loadSparse(in *datasets.Input) (x mat.Matrix, y []float64, xt mat.Matrix, yt []float64, err error) {
	d := r.s.Dataset
	st := d.storage()
	if (st != StorageSparse && d.shifts()) || in.Format != datasets.LIBSVM {
		return nil, nil, nil, nil, nil
	}
	ctx := r.ctx
	// With f32 a value beyond float32's range is refused with its line,
	// as the dense float32 read does: the rows may become float32 below.
	opt := datasets.ReadOptions{Float32: r.f32, Float32Range: r.f32Passes, Float32Reason: r.float32Reason(true), ZeroBased: d.ZeroBased, MaxBytes: max(r.readLimit(), 0)}
	sh, counted, err := in.Shape(ctx, opt)
	if err != nil {
		return nil, nil, nil, nil, r.readError(err, "path")
	}
	toDense := func(density float64) bool {
		return st == StorageDense || (st == StorageAuto && density >= SparseDensity)
	}
	var xs *datasets.CSR
	if counted && toDense(sh.Density()) {
		// Read into dense X (float32 with f32) as the file is parsed.
		train, err := in.Read(ctx, opt)
		if err != nil {
			return nil, nil, nil, nil, r.readError(err, "path")
		}
		x, y = train.X, train.Y
		if train.X32 != nil {
			x = train.X32
		}
	} else if xs, y, err = in.ReadSparseWith(ctx, opt); err != nil {
		return nil, nil, nil, nil, r.readError(err, "path")
	}
	var xts *datasets.CSR
	if d.TestPath != "" {
		tp, err := resolvePath(r.s.dir, d.TestPath)
		if err != nil {
			return nil, nil, nil, nil, r.s.errAt(err.Error(), "dataset", "test_path")
		}
		var cols int
		if xs != nil {
			_, cols = xs.Dims()
		} else {
			_, cols = x.Dims()
		}
		if f, ok := datasets.FormatOf(tp); ok && f == datasets.CSV && d.Format == "" {
			// A CSV test file (its name says so) beside the LIBSVM
			// training file: read dense, its header matched to the
			// implied names x1…xd (as predict does), then held as CSR.
			if xts, yt, err = r.readCSVTest(tp, cols); err != nil {
				return nil, nil, nil, nil, err
			}
		} else if xts, yt, r.beyondRows, r.beyondCols, err = readLIBSVMTest(ctx, tp, cols, d.ZeroBased); err != nil {
			return nil, nil, nil, nil, r.s.errAt(err.Error(), "dataset", "test_path")
		}
	}
	if xs != nil {
		r.density = xs.Density()
	} else {
		r.density = sh.Density()
	}
	if toDense(r.density) {
		r.storage = StorageDense
		if st == StorageAuto {
			r.storageWhy = fmt.Sprintf("auto: density %.3g ≥ %g", r.density, SparseDensity)
		}
		// The dense copies still to make: of the training rows when
		// they were read as CSR, and of the test rows.
		n, c, what := 0, 0, d.Path
		if xs != nil {
			n, c = xs.Dims()
		} else {
			what = d.TestPath // X was read dense (and within the cap)
		}
		if xts != nil {
			nt, ct := xts.Dims()
			n, c = n+nt, ct
		}
		need := 8 * int64(n) * int64(c)
		if r.f32 && xs != nil {
			// The training rows in float32, the test rows in float64.
			ntr, _ := xs.Dims()
			need -= 4 * int64(ntr) * int64(c)
		}
		if err := check.Memory(fmt.Sprintf("the dense copy of %s (%d×%d)", what, n, c), need, r.readLimit()); n > 0 && err != nil {
			return nil, nil, nil, nil, r.memoryHint(err)
		}
		if xs != nil {
			// The parser's rows, garbage now, are collected before the
			// dense copy is allocated, so that it reuses their memory
			// rather than the heap growing past both.
			runtime.GC()
			if r.f32 {
				// Row by row into float32: no float64 copy of X.
				if x, err = kernel.Dense32Of(xs); err != nil {
					return nil, nil, nil, nil, r.s.errAt(err.Error(), "dataset", "path")
				}
			} else {
				x = xs.ToDense()
			}
		}
		if xts != nil {
			xt = xts.ToDense()
			if r.beyondRows > 0 {
				xt = xts // columns beyond the training data's: the estimators take them sparse
			}
		}
		return x, y, xt, yt, nil
	}
	r.storage = StorageSparse
	if st == StorageAuto {
		r.storageWhy = fmt.Sprintf("auto: density %.3g < %g", r.density, SparseDensity)
	}
	x = xs
	if xts != nil {
		xt = xts
	}
	return x, y, xt, yt, nil
}

// readLIBSVMTest is datasets.ReadLIBSVMTestFile with the dataset block's
// index base.
func readLIBSVMTest(ctx context.Context, path string, cols int, zeroBased bool) (x *datasets.CSR, y []float64, rows, beyond int, err error) {
	in, err := datasets.OpenInput(ctx, path, datasets.LIBSVM)
	if err != nil {
		return nil, nil, 0, 0, err
	}
	defer in.Close()
	return in.ReadTestOptions(ctx, datasets.ReadOptions{Dim: cols, ZeroBased: zeroBased})
}

// readCSVTest reads the CSV test file at path for training data of cols
// unnamed features (a LIBSVM file): a header is matched to x1…x<cols> by
// name (datasets.ReadTestFile's rule), a file without one is taken by
// position; the rows are returned as CSR.
func (r *runner) readCSVTest(path string, cols int) (*datasets.CSR, []float64, error) {
	opt, err := r.s.Dataset.readOptions()
	if err != nil {
		return nil, nil, r.s.errAt(err.Error(), "dataset", "delim")
	}
	opt.Format, opt.Dim, opt.ImpliedFeatures = datasets.CSV, cols, true
	opt.ZeroBased = false // the LIBSVM training file's base
	opt.Notify, opt.MaxBytes = r.notify, max(r.readLimit(), 0)
	t, err := datasets.ReadFileContext(r.ctx, path, opt)
	if err != nil {
		return nil, nil, r.readError(err, "test_path")
	}
	if t.Dim() != cols {
		return nil, nil, r.s.errAt(fmt.Sprintf("%s: %d features, the training data has %d", path, t.Dim(), cols), "dataset", "test_path")
	}
	c, err := datasets.CSRFromDense(t.X)
	if err != nil {
		return nil, nil, r.s.errAt(err.Error(), "dataset", "test_path")
	}
	return c, t.Y, nil
}

// dense records the storage of data read dense (a CSV file, a bundled set,
// or storage dense) and converts it to CSR for storage sparse.
func (r *runner) dense(x, xt *mat.Matrix) error {
	r.density = datasets.Density(*x)
	st := r.s.Dataset.storage()
	switch {
	case st != StorageSparse:
		r.storage = StorageDense
		if st == StorageAuto {
			switch {
			case r.s.Dataset.shifts():
				r.storageWhy = "auto: scale " + r.s.Dataset.scale() + " needs dense data"
			case r.s.Dataset.Name != "":
				r.storageWhy = "auto: bundled sets are dense"
			case IsManifest(r.s.Dataset.Path):
				r.storageWhy = "auto: shards are dense"
			default:
				r.storageWhy = "auto: not a LIBSVM file"
			}
		}
		return nil
	}
	c, err := datasets.CSRFromDense(kernel.DenseOf(*x))
	if err != nil {
		return r.s.errAt(err.Error(), "dataset")
	}
	*x = c
	r.storage = StorageSparse
	if *xt != nil {
		ct, err := datasets.CSRFromDense(kernel.DenseOf(*xt))
		if err != nil {
			return r.s.errAt(err.Error(), "dataset")
		}
		*xt = ct
	}
	return nil
}

// copyX returns a copy of dense x that a fit may scale in place; sparse
// data is never modified by a fit (its scalings return new matrices) and is
// shared.
func copyX(x mat.Matrix) mat.Matrix {
	if d, ok := x.(*mat.Dense); ok {
		return mat.DenseCopyOf(d)
	}
	return x
}

// scalingUsed describes the feature scaling the run's fits apply on its
// storage ("" for none).
func (r *runner) scalingUsed() string {
	return scaleUsed(r.s.Dataset.scale(), r.storage == StorageSparse)
}
