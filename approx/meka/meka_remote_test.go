package meka

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/landmark-ml/landmark/approx/internal/synth"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// reverseBasisSolver solves the problems in-process with SolveBasis, last
// first, each after a JSON round trip of the problem and of its result (as a
// solver in another process would see them). It records the problems.
func reverseBasisSolver(seen *[]BasisProblem) BasisSolver {
	return func(ctx context.Context, k kernel.Kernel, probs []BasisProblem) ([]Basis, error) {
		*seen = probs
		out := make([]Basis, len(probs))
		for i := len(probs) - 1; i >= 0; i-- {
			b, err := json.Marshal(probs[i])
			if err != nil {
				return nil, err
			}
			var p BasisProblem
			if err := json.Unmarshal(b, &p); err != nil {
				return nil, err
			}
			r, err := SolveBasis(ctx, k, p)
			if err != nil {
				return nil, err
			}
			if b, err = json.Marshal(r); err != nil {
				return nil, err
			}
			if err := json.Unmarshal(b, &out[i]); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
}

// sameMEKA fails unless a and b hold the same approximation bit for bit:
// link matrix, bases, landmarks and projections, ranks, and the features
// of x.
func sameMEKA(t *testing.T, name string, a, b *Map, x mat.Matrix) {
	t.Helper()
	if !slices.Equal(a.Link().RawSymmetric().Data, b.Link().RawSymmetric().Data) {
		t.Fatalf("%s: link matrices differ", name)
	}
	if !slices.Equal(a.Stats().Ranks, b.Stats().Ranks) || a.Stats().RankDeficit != b.Stats().RankDeficit {
		t.Fatalf("%s: ranks %v vs %v", name, a.Stats().Ranks, b.Stats().Ranks)
	}
	for s := 0; s < a.Clusters(); s++ {
		wa, ra := a.Basis(s)
		wb, rb := b.Basis(s)
		if !mat.Equal(wa, wb) || !slices.Equal(ra, rb) || !slices.Equal(a.lm[s], b.lm[s]) {
			t.Fatalf("%s: basis %d differs", name, s)
		}
		if (a.z[s] == nil) != (b.z[s] == nil) || a.z[s] != nil && (!mat.Equal(a.z[s], b.z[s]) || !mat.Equal(a.proj[s], b.proj[s])) {
			t.Fatalf("%s: landmarks or projection of cluster %d differ", name, s)
		}
	}
	n, _ := x.Dims()
	fa := mat.NewDense(n, a.Dim(), nil)
	fb := mat.NewDense(n, b.Dim(), nil)
	if err := a.Transform(context.Background(), fa, x); err != nil {
		t.Fatal(err)
	}
	if err := b.Transform(context.Background(), fb, x); err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(fa, fb) {
		t.Fatalf("%s: features differ", name)
	}
}

// TestMEKABasisSolverMatchesLocal: MEKA whose cluster bases come from a
// BasisSolver (problems JSON-encoded and solved with SolveBasis in
// reverse order) equals the local fit with the same seed bit for bit — link
// matrix, bases, landmarks, projections, ranks and Transform output — for
// the three rank strategies, on dense and on sparse rows (where the
// problems carry CSR arrays), with k-means run inside Fit. The solver
// gets one problem per cluster with the driver's seeds.
func TestMEKABasisSolverMatchesLocal(t *testing.T) {
	ctx := context.Background()
	xd, _ := blobs(5, 40, 4, 1.5, rand.New(rand.NewPCG(71, 72)))
	xs := synth.Sparse(rand.New(rand.NewPCG(73, 74)), 180, 30)
	k := kernel.Gaussian{Gamma: 0.3}
	for _, st := range []RankStrategy{RankSame, RankProportional, RankEigen} {
		for _, in := range []struct {
			name string
			x    mat.Matrix
		}{{"dense", xd}, {"sparse", xs}} {
			name := string(st) + "/" + in.name
			opt := Options{Rank: 6, Clusters: 4, Strategy: st, Workers: 2}
			local, err := Fit(ctx, in.x, k, opt, rand.New(rand.NewPCG(75, 76)))
			if err != nil {
				t.Fatal(err)
			}
			var probs []BasisProblem
			opt.BasisSolver = reverseBasisSolver(&probs)
			remote, err := Fit(ctx, in.x, k, opt, rand.New(rand.NewPCG(75, 76)))
			if err != nil {
				t.Fatal(err)
			}
			sameMEKA(t, name, local, remote, in.x)
			if len(probs) != 4 {
				t.Fatalf("%s: %d problems, want one per cluster (4)", name, len(probs))
			}
			for i, p := range probs {
				if p.Cluster != i || p.Rows != local.Stats().Sizes[i] || (p.X == nil) != (in.name == "sparse") {
					t.Fatalf("%s: problem %d is cluster %d with %d rows (dense %v)", name, i, p.Cluster, p.Rows, p.X != nil)
				}
			}
		}
	}
}

// TestMEKABasisSolverErrors: a basis solver's error, a wrong number of
// results or a result of the wrong shape is an error of Fit (wrapping
// check.ErrInput for bad shapes), never a panic; bad problems given to
// SolveBasis are check.ErrInput.
func TestMEKABasisSolverErrors(t *testing.T) {
	ctx := context.Background()
	x, _ := blobs(3, 20, 3, 2, rand.New(rand.NewPCG(77, 78)))
	k := kernel.Gaussian{Gamma: 0.3}
	boom := errors.New("boom")
	good := func(ctx context.Context, k kernel.Kernel, probs []BasisProblem) ([]Basis, error) {
		out := make([]Basis, len(probs))
		for i, p := range probs {
			var err error
			if out[i], err = SolveBasis(ctx, k, p); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	for name, c := range map[string]struct {
		solver BasisSolver
		want   error
	}{
		"error": {func(context.Context, kernel.Kernel, []BasisProblem) ([]Basis, error) { return nil, boom }, boom},
		"count": {func(ctx context.Context, k kernel.Kernel, p []BasisProblem) ([]Basis, error) {
			out, err := good(ctx, k, p)
			return out[1:], err
		}, nil},
		"shape": {func(ctx context.Context, k kernel.Kernel, p []BasisProblem) ([]Basis, error) {
			out, err := good(ctx, k, p)
			out[1].W = out[1].W[1:]
			return out, err
		}, check.ErrInput},
		"landmarks": {func(ctx context.Context, k kernel.Kernel, p []BasisProblem) ([]Basis, error) {
			out, err := good(ctx, k, p)
			out[2].Landmarks[0] = -1
			return out, err
		}, check.ErrInput},
		"rank": {func(ctx context.Context, k kernel.Kernel, p []BasisProblem) ([]Basis, error) {
			out, err := good(ctx, k, p)
			out[0].Rank++
			return out, err
		}, check.ErrInput},
	} {
		_, err := Fit(ctx, x, k, Options{Rank: 4, Clusters: 3, BasisSolver: c.solver}, rand.New(rand.NewPCG(1, 2)))
		if err == nil || (c.want != nil && !errors.Is(err, c.want)) {
			t.Errorf("%s: err = %v, want %v", name, err, c.want)
		}
	}
	ok := BasisProblem{Rows: 2, D: 1, X: []float64{0, 1}, Landmarks: 2, Seed: 1, Rank: 2}
	if b, err := SolveBasis(ctx, k, ok); err != nil || b.Rank != 2 || len(b.W) != 4 {
		t.Fatalf("valid problem: rank %d, %d values, err %v", b.Rank, len(b.W), err)
	}
	for name, mod := range map[string]func(p *BasisProblem){
		"rows":      func(p *BasisProblem) { p.Rows = 0 },
		"values":    func(p *BasisProblem) { p.X = p.X[:1] },
		"landmarks": func(p *BasisProblem) { p.Landmarks = 3 },
		"rank":      func(p *BasisProblem) { p.Rank = -1 },
		"both":      func(p *BasisProblem) { p.Indptr = []int{0, 0, 0} },
		"neither":   func(p *BasisProblem) { p.X = nil },
		"nan":       func(p *BasisProblem) { p.X = []float64{0, math.NaN()} },
		"csr": func(p *BasisProblem) {
			p.X, p.Indptr, p.Indices, p.Values = nil, []int{0, 1, 1}, []int32{1}, []float64{1}
		},
		// A valid 1-row CSR claiming 2 rows: the row count must come from
		// one place (was a panic in the landmark draw).
		"csr rows": func(p *BasisProblem) {
			p.X, p.Indptr, p.Indices, p.Values = nil, []int{0, 1}, []int32{0}, []float64{1}
		},
	} {
		p := ok
		mod(&p)
		if _, err := SolveBasis(ctx, k, p); !errors.Is(err, check.ErrInput) {
			t.Errorf("%s: err = %v, want check.ErrInput", name, err)
		}
	}
	if _, err := SolveBasis(ctx, nil, ok); !errors.Is(err, check.ErrInput) {
		t.Errorf("nil kernel: err = %v, want check.ErrInput", err)
	}
}
