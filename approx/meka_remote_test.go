package approx

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// reverseBasisSolver solves the problems in-process with SolveMEKABasis, last
// first, each after a JSON round trip of the problem and of its result (as a
// solver in another process would see them). It records the problems.
func reverseBasisSolver(seen *[]MEKABasisProblem) MEKABasisSolver {
	return func(ctx context.Context, k kernel.Kernel, probs []MEKABasisProblem) ([]MEKABasis, error) {
		*seen = probs
		out := make([]MEKABasis, len(probs))
		for i := len(probs) - 1; i >= 0; i-- {
			b, err := json.Marshal(probs[i])
			if err != nil {
				return nil, err
			}
			var p MEKABasisProblem
			if err := json.Unmarshal(b, &p); err != nil {
				return nil, err
			}
			r, err := SolveMEKABasis(ctx, k, p)
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
func sameMEKA(t *testing.T, name string, a, b *MEKA, x mat.Matrix) {
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
// BasisSolver (problems JSON-encoded and solved with SolveMEKABasis in
// reverse order) equals the local fit with the same seed bit for bit — link
// matrix, bases, landmarks, projections, ranks and Transform output — for
// the three rank strategies, on dense and on sparse rows (where the
// problems carry CSR arrays), with k-means run inside FitMEKA. The solver
// gets one problem per cluster with the driver's seeds.
func TestMEKABasisSolverMatchesLocal(t *testing.T) {
	ctx := context.Background()
	xd, _ := blobs(5, 40, 4, 1.5, rand.New(rand.NewPCG(71, 72)))
	xs := sparseBlobs(rand.New(rand.NewPCG(73, 74)), 180, 30)
	k := kernel.Gaussian{Gamma: 0.3}
	for _, st := range []RankStrategy{RankSame, RankProportional, RankEigen} {
		for _, in := range []struct {
			name string
			x    mat.Matrix
		}{{"dense", xd}, {"sparse", xs}} {
			name := string(st) + "/" + in.name
			opt := MEKAOptions{Rank: 6, Clusters: 4, Strategy: st, Workers: 2}
			local, err := FitMEKA(ctx, in.x, k, opt, rand.New(rand.NewPCG(75, 76)))
			if err != nil {
				t.Fatal(err)
			}
			var probs []MEKABasisProblem
			opt.BasisSolver = reverseBasisSolver(&probs)
			remote, err := FitMEKA(ctx, in.x, k, opt, rand.New(rand.NewPCG(75, 76)))
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
// results or a result of the wrong shape is an error of FitMEKA (wrapping
// ErrInput for bad shapes), never a panic; bad problems given to
// SolveMEKABasis are ErrInput.
func TestMEKABasisSolverErrors(t *testing.T) {
	ctx := context.Background()
	x, _ := blobs(3, 20, 3, 2, rand.New(rand.NewPCG(77, 78)))
	k := kernel.Gaussian{Gamma: 0.3}
	boom := errors.New("boom")
	good := func(ctx context.Context, k kernel.Kernel, probs []MEKABasisProblem) ([]MEKABasis, error) {
		out := make([]MEKABasis, len(probs))
		for i, p := range probs {
			var err error
			if out[i], err = SolveMEKABasis(ctx, k, p); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	for name, c := range map[string]struct {
		solver MEKABasisSolver
		want   error
	}{
		"error": {func(context.Context, kernel.Kernel, []MEKABasisProblem) ([]MEKABasis, error) { return nil, boom }, boom},
		"count": {func(ctx context.Context, k kernel.Kernel, p []MEKABasisProblem) ([]MEKABasis, error) {
			out, err := good(ctx, k, p)
			return out[1:], err
		}, nil},
		"shape": {func(ctx context.Context, k kernel.Kernel, p []MEKABasisProblem) ([]MEKABasis, error) {
			out, err := good(ctx, k, p)
			out[1].W = out[1].W[1:]
			return out, err
		}, ErrInput},
		"landmarks": {func(ctx context.Context, k kernel.Kernel, p []MEKABasisProblem) ([]MEKABasis, error) {
			out, err := good(ctx, k, p)
			out[2].Landmarks[0] = -1
			return out, err
		}, ErrInput},
		"rank": {func(ctx context.Context, k kernel.Kernel, p []MEKABasisProblem) ([]MEKABasis, error) {
			out, err := good(ctx, k, p)
			out[0].Rank++
			return out, err
		}, ErrInput},
	} {
		_, err := FitMEKA(ctx, x, k, MEKAOptions{Rank: 4, Clusters: 3, BasisSolver: c.solver}, rand.New(rand.NewPCG(1, 2)))
		if err == nil || (c.want != nil && !errors.Is(err, c.want)) {
			t.Errorf("%s: err = %v, want %v", name, err, c.want)
		}
	}
	ok := MEKABasisProblem{Rows: 2, D: 1, X: []float64{0, 1}, Landmarks: 2, Seed: 1, Rank: 2}
	if b, err := SolveMEKABasis(ctx, k, ok); err != nil || b.Rank != 2 || len(b.W) != 4 {
		t.Fatalf("valid problem: rank %d, %d values, err %v", b.Rank, len(b.W), err)
	}
	for name, mod := range map[string]func(p *MEKABasisProblem){
		"rows":      func(p *MEKABasisProblem) { p.Rows = 0 },
		"values":    func(p *MEKABasisProblem) { p.X = p.X[:1] },
		"landmarks": func(p *MEKABasisProblem) { p.Landmarks = 3 },
		"rank":      func(p *MEKABasisProblem) { p.Rank = -1 },
		"both":      func(p *MEKABasisProblem) { p.Indptr = []int{0, 0, 0} },
		"neither":   func(p *MEKABasisProblem) { p.X = nil },
		"nan":       func(p *MEKABasisProblem) { p.X = []float64{0, math.NaN()} },
		"csr": func(p *MEKABasisProblem) {
			p.X, p.Indptr, p.Indices, p.Values = nil, []int{0, 1, 1}, []int32{1}, []float64{1}
		},
		// A valid 1-row CSR claiming 2 rows: the row count must come from
		// one place (was a panic in the landmark draw).
		"csr rows": func(p *MEKABasisProblem) {
			p.X, p.Indptr, p.Indices, p.Values = nil, []int{0, 1}, []int32{0}, []float64{1}
		},
	} {
		p := ok
		mod(&p)
		if _, err := SolveMEKABasis(ctx, k, p); !errors.Is(err, ErrInput) {
			t.Errorf("%s: err = %v, want ErrInput", name, err)
		}
	}
	if _, err := SolveMEKABasis(ctx, nil, ok); !errors.Is(err, ErrInput) {
		t.Errorf("nil kernel: err = %v, want ErrInput", err)
	}
}
