package beamfit

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"os"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/landmark-ml/landmark/approx/meka"
	"github.com/landmark-ml/landmark/kernel"
)

func init() {
	register.DoFn2x1[context.Context, int, error](&mekaBasisFn{})
}

// MEKASolver returns an meka.BasisSolver that computes a MEKA fit's
// per-cluster Nyström bases (Si, Hsieh & Dhillon 2017, Algorithm 1 lines
// 2–4) as one Beam pipeline: the driver (meka.Fit) fits the k-means
// partition (on its sample), draws every cluster's landmark seed and, for
// the eigen rank strategy, chooses the ranks; every cluster's problem —
// its rows, m_s, seed and target rank — is one element of a PCollection,
// solved on a worker by meka.SolveBasis (landmark draw,
// eigendecomposition of K(Z_s, Z_s), K(X_s, Z_s), thin QR), the function
// the local fit runs; the bases come back to the driver, which fits the
// link blocks and holds the approximation. The result equals the local
// fit's bit for bit.
//
// Problems and results travel through workDir (storage every worker
// reaches; empty means a local temporary folder) as gob files named with
// a random prefix per call, removed after reading when the file system
// can; run nil means Prism. Set it on meka.Options.BasisSolver, or
// on model.MEKAKRR.BasisSolver for KRR on MEKA:
//
//	est := &model.KRR{Kernel: k, Lambda: 1e-4, Approx: &model.MEKAKRR{Options: meka.Options{Rank: 128, Clusters: 10}, //		BasisSolver: beamfit.MEKASolver(nil, "")}}
func MEKASolver(run Runner, workDir string) meka.BasisSolver {
	return func(ctx context.Context, k kernel.Kernel, problems []meka.BasisProblem) ([]meka.Basis, error) {
		spec, ok := kernel.SpecOf(k)
		if !ok {
			return nil, fmt.Errorf("beamfit: %w: kernel %s has no spec to send to the workers", ErrInput, k)
		}
		r := run
		if r == nil {
			r = Prism
		}
		work := workDir
		if work == "" {
			var err error
			if work, err = os.MkdirTemp("", "landmark-beam-meka-"); err != nil {
				return nil, err
			}
			defer os.RemoveAll(work)
		}
		var id [8]byte
		if _, err := rand.Read(id[:]); err != nil {
			return nil, err
		}
		prefix := "meka-" + hex.EncodeToString(id[:])
		var files []string
		defer func() { removeFiles(context.WithoutCancel(ctx), files) }()
		idx := make([]int, len(problems))
		for j := range problems {
			var b bytes.Buffer
			if err := gob.NewEncoder(&b).Encode(&problems[j]); err != nil {
				return nil, fmt.Errorf("beamfit: meka basis problem %d: %w", j, err)
			}
			name := joinPath(work, mekaFile(prefix, "problem", j))
			if err := writeFile(ctx, name, b.Bytes()); err != nil {
				return nil, err
			}
			files = append(files, name)
			idx[j] = j
		}
		p, s := beam.NewPipelineWithRoot()
		col := beam.Reshuffle(s, beam.CreateList(s, idx))
		beam.ParDo0(s, &mekaBasisFn{Dir: work, Prefix: prefix, Kernel: spec}, col)
		if err := r(ctx, p); err != nil {
			return nil, fmt.Errorf("beamfit: meka basis pipeline: %w", err)
		}
		out := make([]meka.Basis, len(problems))
		for j := range problems {
			name := joinPath(work, mekaFile(prefix, "result", j))
			files = append(files, name)
			b, err := readFile(ctx, name)
			if err != nil {
				return nil, fmt.Errorf("beamfit: meka basis result %d: %w", j, err)
			}
			if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&out[j]); err != nil {
				return nil, fmt.Errorf("beamfit: meka basis result %d: %w", j, err)
			}
		}
		return out, nil
	}
}

// mekaFile names element j's problem or result file.
func mekaFile(prefix, kind string, j int) string {
	return fmt.Sprintf("%s-basis-%s-%06d.gob", prefix, kind, j)
}

// removeFiles removes the files it can, ignoring errors (a file system
// without removal leaves them).
func removeFiles(ctx context.Context, files []string) {
	for _, f := range files {
		fs, err := newFS(ctx, f)
		if err != nil {
			continue
		}
		if rm, ok := fs.(filesystem.Remover); ok {
			_ = rm.Remove(ctx, f)
		}
		_ = fs.Close()
		fs.Close()
	}
}

// mekaBasisFn solves one cluster's basis problem.
type mekaBasisFn struct {
	Dir, Prefix string
	Kernel      kernel.Spec
}

func (f *mekaBasisFn) ProcessElement(ctx context.Context, j int) error {
	k, err := kernel.New(f.Kernel)
	if err != nil {
		return err
	}
	b, err := readFile(ctx, joinPath(f.Dir, mekaFile(f.Prefix, "problem", j)))
	if err != nil {
		return err
	}
	var p meka.BasisProblem
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&p); err != nil {
		return fmt.Errorf("beamfit: meka basis problem %d: %w", j, err)
	}
	res, err := meka.SolveBasis(ctx, k, p)
	if err != nil {
		return fmt.Errorf("beamfit: meka basis problem %d: %w", j, err)
	}
	var out bytes.Buffer
	if err := gob.NewEncoder(&out).Encode(&res); err != nil {
		return err
	}
	return writeFile(ctx, joinPath(f.Dir, mekaFile(f.Prefix, "result", j)), out.Bytes())
}
