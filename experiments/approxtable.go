package experiments

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/approx/cluster"
	"github.com/landmark-ml/landmark/approx/meka"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// ApproxParams are the settings of one approximation build
// (BuildApproximation); zero values mean the defaults. An approximation
// run fills them from its spec and grid point, "landmark approx" from its
// flags.
type ApproxParams struct {
	// M is the number of landmarks (Nyström methods), of random features
	// (rff), or MEKA's total rank: each of its clusters gets rank M/Clusters.
	// bka does not use it.
	M int
	// Rank is the target rank k of the Nyström methods (0: every landmark);
	// it may not exceed M.
	Rank int
	// Clusters is c for meka (0: 10, the paper's) and bka (0: 64, as
	// meka.BKAOptions and BKA-SVM).
	Clusters int
	// Compression is the clustered sampler's p/d (0: its default).
	Compression float64
	// KMeansIter caps the Lloyd iterations of kmeans, clustered, meka and
	// bka (0: their default).
	KMeansIter int
	// MaxBytes caps the planned peak bytes of the build plus Reserve; a
	// build over it is refused with approx.ErrMemory before allocating.
	// 0: no cap beyond the methods' own defaults.
	MaxBytes int64
	// Reserve is what the caller will hold beside the build (the error
	// measures), counted against MaxBytes.
	Reserve int64
}

// Approximation is a built approximation K̃ of the kernel matrix of X.
type Approximation struct {
	// Rows gives rows of K̃. For a feature map they are φ(x_i)·φ(X)ᵀ with
	// φ(X) recomputed block by block (no n×r array held).
	Rows approx.RowApproximator
	// Map is the feature map of the Nyström methods and rff (nil for meka
	// and bka).
	Map approx.FeatureMap
	// Bytes is what a representation of K̃ on X holds: φ(X) (8·n·r) for a
	// map, the fitted structure's bytes for meka and bka.
	Bytes int64
	// Rank is the rank of K̃ (n for bka).
	Rank int
	// Note describes the build (landmarks kept, clusters, stage times).
	Note string
	// Centers says how Nyström landmarks are held, "landmarks dense" or
	// "landmarks sparse (CSR, N non-zeros)"; "" for other methods.
	Centers string
}

// approxMethod is one row of the approximation table.
type approxMethod struct {
	name    string
	summary string
	// usesM says whether the method takes the sample size m.
	usesM bool
	build func(ctx context.Context, x mat.Matrix, k kernel.Kernel, p ApproxParams, rng *rand.Rand) (*Approximation, error)
}

// approxMethods is the one table of approximation method names, used by
// approximation runs (YAML), "landmark approx", its help and the generated
// YAML reference; sorted by name. Every sampler of the sampler table is a
// Nyström method, and appears again with a -qr suffix: the best rank-k
// approximation from the same landmarks (Pourkamali-Anaraki & Becker, Alg. 2).
var approxMethods = func() []approxMethod {
	var t []approxMethod
	for _, s := range samplers {
		t = append(t,
			approxMethod{name: s.name, summary: "Nyström on " + s.summary + "; standard rank-k truncation", usesM: true, build: nystromMethod(s, false)},
			approxMethod{name: s.name + "-qr", summary: "Nyström on " + s.summary + "; best rank-k via QR (Pourkamali-Anaraki & Becker, Alg. 2)", usesM: true, build: nystromMethod(s, true)})
	}
	t = append(t,
		approxMethod{name: "bka", summary: "block kernel approximation: exact blocks of a k-means partition, clusters c (default 64; Si, Hsieh & Dhillon)", build: buildBKA},
		approxMethod{name: "meka", summary: "MEKA with total rank m: rank m/clusters in each of c clusters (default c = 10; Si, Hsieh & Dhillon, Alg. 1)", usesM: true, build: buildMEKA},
		approxMethod{name: "rff", summary: "random Fourier features, m features (Rahimi & Recht); gaussian or laplacian kernel", usesM: true, build: buildRFF},
	)
	slices.SortFunc(t, func(a, b approxMethod) int { return strings.Compare(a.name, b.name) })
	return t
}()

// ApproximationNames returns the approximation methods, sorted, each with a
// one-line summary: the names an approximation run may list and "landmark
// approx --method" takes.
func ApproximationNames() [][2]string {
	out := make([][2]string, len(approxMethods))
	for i, m := range approxMethods {
		out[i] = [2]string{m.name, m.summary}
	}
	return out
}

func approxMethodByName(name string) (approxMethod, bool) {
	for _, m := range approxMethods {
		if m.name == name {
			return m, true
		}
	}
	return approxMethod{}, false
}

func approxMethodNames() []string {
	names := make([]string, len(approxMethods))
	for i, m := range approxMethods {
		names[i] = m.name
	}
	return names
}

// BuildApproximation builds the named approximation (ApproximationNames)
// of the kernel matrix of x (dense or CSR) with randomness from rng. Bad
// settings wrap ErrSpec; a build over p.MaxBytes wraps approx.ErrMemory.
func BuildApproximation(ctx context.Context, method string, x mat.Matrix, k kernel.Kernel, p ApproxParams, rng *rand.Rand) (*Approximation, error) {
	am, ok := approxMethodByName(method)
	names := approxMethodNames()
	switch {
	case !ok:
		return nil, fmt.Errorf("%w: unknown approximation %q%s (known: %s)", ErrSpec, method, DidYouMean(method, names), strings.Join(names, ", "))
	case p.M < 0 || p.Rank < 0 || p.Clusters < 0 || p.KMeansIter < 0 || p.Compression < 0 || p.MaxBytes < 0 || p.Reserve < 0:
		return nil, fmt.Errorf("%w: %s: negative setting in %+v", ErrSpec, method, p)
	case am.usesM && p.M == 0:
		return nil, fmt.Errorf("%w: %s needs m ≥ 1", ErrSpec, method)
	}
	return am.build(ctx, x, k, p, rng)
}

// nystromMethod is Nyström from a sampler's landmarks (standard rank-k, or
// QR rank-k with qr).
func nystromMethod(s samplerEntry, qr bool) func(context.Context, mat.Matrix, kernel.Kernel, ApproxParams, *rand.Rand) (*Approximation, error) {
	return func(ctx context.Context, x mat.Matrix, k kernel.Kernel, p ApproxParams, rng *rand.Rand) (*Approximation, error) {
		if p.Rank > p.M {
			return nil, fmt.Errorf("%w: %s: rank %d exceeds m = %d", ErrSpec, s.name, p.Rank, p.M)
		}
		smp := s.make(p)
		if p.MaxBytes > 0 {
			n, _ := x.Dims()
			// Landmarks of sparse X are counted as the CSR rows they are.
			sample, _ := approx.PlanSample(smp, x, p.M)
			// The map: W, its eigenvectors and workspace (3M²), and for QR
			// C on the training rows and its factor (2nM).
			mm := int64(p.M)
			nys := 8 * 3 * mm * mm
			if qr {
				nys += 8 * 2 * int64(n) * mm
			}
			if err := checkBuildMemory(p, "sampling", sample, "Nyström map", nys); err != nil {
				return nil, err
			}
		}
		lm, err := smp.Sample(ctx, x, k, p.M, rng)
		if err != nil {
			return nil, err
		}
		m, _ := lm.Points.Dims()
		// Samplers may keep fewer landmarks than asked (BLESS merges
		// repeated draws): the rank is then at most what they kept, and the
		// note says how many.
		nm, err := approx.Nystrom{Rank: min(p.Rank, m), QR: qr}.Fit(ctx, x, k, lm)
		if err != nil {
			return nil, err
		}
		note := fmt.Sprintf("M=%d landmarks", m)
		if m < p.M {
			note += fmt.Sprintf(" of %d asked", p.M)
		}
		if nm.Dropped > 0 {
			note += fmt.Sprintf(", %d eigenvalues of W under the floor dropped", nm.Dropped)
		}
		a := mapApproximation(nm, x, note)
		a.Centers = "landmarks " + model.CenterForm(nm.Landmarks)
		return a, nil
	}
}

func buildRFF(_ context.Context, x mat.Matrix, k kernel.Kernel, p ApproxParams, rng *rand.Rand) (*Approximation, error) {
	_, d := x.Dims()
	// The frequencies and phases (m(d+1)) and a 4,096-row block of features.
	if err := checkBuildMemory(p, "features", 8*int64(p.M)*int64(d+1+4096), "", 0); err != nil {
		return nil, err
	}
	f, err := approx.RFF{Features: p.M}.Fit(k, d, rng)
	if err != nil {
		return nil, err
	}
	return mapApproximation(f, x, fmt.Sprintf("D=%d features", f.Dim())), nil
}

// mapApproximation is K̃ = φ(X)φ(X)ᵀ of a feature map.
func mapApproximation(f approx.FeatureMap, x mat.Matrix, note string) *Approximation {
	n, _ := x.Dims()
	return &Approximation{Rows: &mapRows{f: f, x: x}, Map: f, Bytes: 8 * int64(n) * int64(f.Dim()), Rank: f.Dim(), Note: note}
}

// buildMEKA fits MEKA with total rank m: rank m/c in each of c clusters
// (each cluster samples 2k_s landmarks). The note reports the memory held
// and the paper's per-stage times.
func buildMEKA(ctx context.Context, x mat.Matrix, k kernel.Kernel, p ApproxParams, rng *rand.Rand) (*Approximation, error) {
	c := cmp.Or(p.Clusters, 10)
	r := p.M / c
	if r < 1 {
		return nil, fmt.Errorf("%w: meka: m = %d is below clusters = %d (rank per cluster m/clusters < 1)", ErrSpec, p.M, c)
	}
	m, err := meka.Fit(ctx, x, k, meka.Options{
		Rank: r, Clusters: c, KMeans: cluster.KMeans{MaxIter: p.KMeansIter}, MaxBytes: capLeft(p),
	}, rng)
	if err != nil {
		return nil, err
	}
	st := m.Stats()
	note := fmt.Sprintf("c=%d clusters, rank %d each, Σk_s=%d, %d linked pairs, %d thresholded; memory %d bytes (W + L + extension); T_C=%.3fs T_W=%.3fs T_L=%.3fs",
		m.Clusters(), r, m.Rank(), st.Linked, st.Thresholded, m.Bytes(),
		st.ClusterTime.Seconds(), st.BasisTime.Seconds(), st.LinkTime.Seconds())
	return &Approximation{Rows: m, Bytes: m.Bytes(), Rank: m.Rank(), Note: note}, nil
}

// buildBKA fits the block-diagonal approximation on c clusters (0: 64).
func buildBKA(ctx context.Context, x mat.Matrix, k kernel.Kernel, p ApproxParams, rng *rand.Rand) (*Approximation, error) {
	b, err := meka.FitBKA(ctx, x, k, meka.BKAOptions{
		Clusters: p.Clusters, KMeans: cluster.KMeans{MaxIter: p.KMeansIter}, MaxBytes: capLeft(p),
	}, rng)
	if err != nil {
		return nil, err
	}
	st := b.Stats()
	n, _ := x.Dims()
	note := fmt.Sprintf("c=%d clusters; memory %d bytes (8·Σn_s²); clustering %.3fs, blocks %.3fs",
		len(st.Sizes), b.Bytes(), st.ClusterTime.Seconds(), st.BlockTime.Seconds())
	return &Approximation{Rows: b, Bytes: b.Bytes(), Rank: n, Note: note}, nil
}

// capLeft is the MaxBytes of MEKA and BKA under p.MaxBytes: the cap less
// the reserve (at least 1 byte, so a cap smaller than the reserve is still
// refused), or 0 (the package default) without a cap.
func capLeft(p ApproxParams) int64 {
	if p.MaxBytes <= 0 {
		return 0
	}
	return max(p.MaxBytes-p.Reserve, 1)
}

// checkBuildMemory refuses, before anything large is allocated, a build
// whose plan exceeds p.MaxBytes: the larger of the first phase (a) and the
// second (b) plus the reserve.
func checkBuildMemory(p ApproxParams, a string, aBytes int64, b string, bBytes int64) error {
	if p.MaxBytes <= 0 {
		return nil
	}
	peak := max(aBytes, bBytes+p.Reserve)
	if peak <= p.MaxBytes {
		return nil
	}
	parts := fmt.Sprintf("%s %s", a, mib(aBytes))
	if b != "" {
		parts += fmt.Sprintf(", %s %s", b, mib(bBytes))
	}
	return fmt.Errorf("approx: %w: planned peak %s (%s, error measures %s) exceeds the cap %s",
		approx.ErrMemory, mib(peak), parts, mib(p.Reserve), mib(p.MaxBytes))
}

// mib prints a byte count in MiB.
func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// mapRows gives rows of K̃ = φ(X)φ(X)ᵀ without storing φ(X) (unlike
// approx.FeatureRows, which holds n×r): the columns are transformed block by
// block, memory O(block·r + |idx|·r), at the price of recomputing φ(X) for
// every call. x may be dense or CSR (the feature maps read CSR rows).
type mapRows struct {
	f approx.FeatureMap
	x mat.Matrix
}

var _ approx.RowApproximator = (*mapRows)(nil)

// Rows writes φ(x_i)·φ(X)ᵀ for i in idx into the rows of dst (|idx|×n).
func (m *mapRows) Rows(ctx context.Context, dst *mat.Dense, idx []int) error {
	n, _ := m.x.Dims()
	if rd, cd := dst.Dims(); rd != len(idx) || cd != n {
		return fmt.Errorf("map rows: dst is %d×%d, want %d×%d", rd, cd, len(idx), n)
	}
	for _, i := range idx {
		if i < 0 || i >= n {
			return fmt.Errorf("%w: row index %d outside [0, %d)", check.ErrInput, i, n)
		}
	}
	r := m.f.Dim()
	fs := mat.NewDense(len(idx), r, nil)
	if err := m.f.Transform(ctx, fs, pickRows(m.x, idx)); err != nil {
		return err
	}
	const block = 4096
	for c0 := 0; c0 < n; c0 += block {
		c1 := min(c0+block, n)
		fb := mat.NewDense(c1-c0, r, nil)
		if err := m.f.Transform(ctx, fb, blockRows(m.x, c0, c1)); err != nil {
			return err
		}
		dst.Slice(0, len(idx), c0, c1).(*mat.Dense).Mul(fs, fb.T())
	}
	return nil
}

// blockRows returns rows c0…c1−1 of x: CSR rows for sparse x, a view of
// dense x.
func blockRows(x mat.Matrix, c0, c1 int) mat.Matrix {
	if _, ok := x.(kernel.Sparse); ok {
		span := make([]int, c1-c0)
		for j := range span {
			span[j] = c0 + j
		}
		return pickRows(x, span)
	}
	_, d := x.Dims()
	return kernel.DenseOf(x).Slice(c0, c1, 0, d)
}

// pickRows returns rows idx of x (valid indices): CSR rows for sparse x, a
// dense copy otherwise.
func pickRows(x mat.Matrix, idx []int) mat.Matrix {
	if s, ok := x.(kernel.Sparse); ok {
		return kernel.SubsetRows(s, idx)
	}
	xd := kernel.DenseOf(x)
	_, d := xd.Dims()
	out := mat.NewDense(len(idx), d, nil)
	for a, i := range idx {
		out.SetRow(a, xd.RawRowView(i))
	}
	return out
}
