package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/experiments"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/internal/cmdline"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// approxOpts are the method parameters of "landmark approx".
type approxOpts struct {
	m           int     // landmarks (Nyström), features (rff), as the method documents
	rank        int     // target rank k; 0 = all
	qr          bool    // Nyström via QR (best rank-k from the landmarks)
	compression float64 // clustered: γ = p/d
	maxIter     int     // k-means Lloyd iterations
	clusters    int     // meka, bka: number of k-means clusters c (0 = the method's default)
	memory      int64   // --memory: cap on the planned peak bytes (0 = none)
	measure     int64   // planned bytes of the error measures, counted against memory
}

// approxBuilt is a fitted approximation as the error measures see it.
type approxBuilt struct {
	rows approx.RowApproximator
	rank int
	note string
	// centers says how Nyström landmarks were held ("" for other methods):
	// "landmarks dense" or "landmarks sparse (CSR, N non-zeros)".
	centers string
}

// approxMethod is one entry of the method table.
type approxMethod struct {
	name    string
	summary string
	build   func(ctx context.Context, x mat.Matrix, k kernel.Kernel, o approxOpts, rng *rand.Rand) (approxBuilt, error)
}

// approxMethods is the one name→constructor table of "landmark approx",
// sorted by name (a test checks it). To add a method, add one line here.
var approxMethods = []approxMethod{
	{"bka", "block-diagonal kernel approximation on --clusters k-means clusters (Si, Hsieh & Dhillon, Sec. 4)", buildBKA},
	{"bless", "BLESS landmarks, fixed-size mode: λ path walked down until 3·d_eff reaches --m (Rudi et al., Alg. 1)",
		nystromWith(func(approxOpts) approx.Sampler { return approx.BLESS{} })},
	{"bless-r", "BLESS-R landmarks, fixed-size mode, without replacement (Rudi et al., Alg. 2)",
		nystromWith(func(approxOpts) approx.Sampler { return approx.BLESSR{} })},
	{"clustered", "randomized clustered Nyström: k-means on a ±1 sketch of ⌈(p/d)·d⌉ dims, --compression p/d (Pourkamali-Anaraki & Becker, Alg. 3)",
		nystromWith(func(o approxOpts) approx.Sampler {
			return approx.RandomizedClustered{Compression: o.compression, MaxIter: o.maxIter}
		})},
	{"exact-rls", "exact ridge leverage-score sampling, O(n³): small n only (approx.MaxExactPoints)",
		nystromWith(func(approxOpts) approx.Sampler { return approx.ExactRLS{} })},
	{"kmeans", "k-means Nyström: landmarks are k-means centroids (Zhang & Kwok)",
		nystromWith(func(o approxOpts) approx.Sampler { return approx.KMeansCenters{MaxIter: o.maxIter} })},
	{"meka", "MEKA: per-cluster Nyström bases of rank --rank + least-squares link blocks, --clusters c (Si, Hsieh & Dhillon, Alg. 1)", buildMEKA},
	{"rff", "random Fourier features, --m features (Rahimi & Recht); gaussian or laplacian kernel", buildRFF},
	{"rls", "recursive RLS-Nyström, fixed-sample-size variant (Musco & Musco, Alg. 2 and App. D)",
		nystromWith(func(approxOpts) approx.Sampler { return approx.RecursiveRLS{} })},
	{"uniform", "uniform Nyström: --m rows without replacement",
		nystromWith(func(approxOpts) approx.Sampler { return approx.Uniform{} })},
}

func findApproxMethod(name string) (approxMethod, bool) {
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

// nystromWith builds a Nyström approximation from the landmarks of a sampler.
func nystromWith(sampler func(approxOpts) approx.Sampler) func(context.Context, mat.Matrix, kernel.Kernel, approxOpts, *rand.Rand) (approxBuilt, error) {
	return func(ctx context.Context, x mat.Matrix, k kernel.Kernel, o approxOpts, rng *rand.Rand) (approxBuilt, error) {
		smp := sampler(o)
		if o.memory > 0 {
			n, _ := x.Dims()
			// Landmarks of sparse X are counted as the CSR rows they are.
			sample, _ := approx.PlanSample(smp, x, o.m)
			// The map: W, its eigenvectors and workspace (3M²), and for QR
			// C on the training rows and its factor (2nM).
			mm := int64(o.m)
			nys := 8 * 3 * mm * mm
			if o.qr {
				nys += 8 * 2 * int64(n) * mm
			}
			if err := checkApproxMemory(o, "sampling", sample, "Nyström map", nys); err != nil {
				return approxBuilt{}, err
			}
		}
		lm, err := smp.Sample(ctx, x, k, o.m, rng)
		if err != nil {
			return approxBuilt{}, err
		}
		rank := o.rank
		if m, _ := lm.Points.Dims(); rank > m {
			rank = m // samplers may return fewer than m landmarks
		}
		nm, err := approx.Nystrom{Rank: rank, QR: o.qr}.Fit(ctx, x, k, lm)
		if err != nil {
			return approxBuilt{}, err
		}
		m, _ := lm.Points.Dims()
		note := fmt.Sprintf("M=%d landmarks", m)
		if nm.Dropped > 0 {
			note += fmt.Sprintf(", %d eigenvalues of W under the floor dropped", nm.Dropped)
		}
		return approxBuilt{rows: &mapRows{f: nm, x: x}, rank: nm.Dim(), note: note, centers: "landmarks " + centerForm(nm.Landmarks)}, nil
	}
}

func buildRFF(_ context.Context, x mat.Matrix, k kernel.Kernel, o approxOpts, rng *rand.Rand) (approxBuilt, error) {
	_, d := x.Dims()
	// The frequencies and phases (m(d+1)) and a 4,096-row block of features.
	if err := checkApproxMemory(o, "features", 8*int64(o.m)*int64(d+1+4096), "", 0); err != nil {
		return approxBuilt{}, err
	}
	f, err := approx.RFF{Features: o.m}.Fit(k, d, rng)
	if err != nil {
		return approxBuilt{}, err
	}
	return approxBuilt{rows: &mapRows{f: f, x: x}, rank: f.Dim(), note: fmt.Sprintf("D=%d features", f.Dim())}, nil
}

// checkApproxMemory refuses, before anything large is allocated, a build
// whose plan exceeds --memory: the larger of the first phase (a) and the
// second (b) plus the error measures.
func checkApproxMemory(o approxOpts, a string, aBytes int64, b string, bBytes int64) error {
	if o.memory <= 0 {
		return nil
	}
	peak := max(aBytes, bBytes+o.measure)
	if peak <= o.memory {
		return nil
	}
	parts := fmt.Sprintf("%s %s", a, fmtMiB(aBytes))
	if b != "" {
		parts += fmt.Sprintf(", %s %s", b, fmtMiB(bBytes))
	}
	return fmt.Errorf("approx: %w: planned peak %s (%s, error measures %s) exceeds --memory %s",
		approx.ErrMemory, fmtMiB(peak), parts, fmtMiB(o.measure), fmtMiB(o.memory))
}

// fmtMiB prints a byte count in MiB.
func fmtMiB(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// measureBytes plans the error measures: the exact and approximate rows of
// the Frobenius estimate (2·rows·n) and, for the spectral error, the
// subset's exact and approximate kernel matrices and their difference (3s²).
func measureBytes(n, rows, subset int) int64 {
	rows = min(rows, n)
	subset = min(subset, n)
	return 8 * (2*int64(rows)*int64(n) + 3*int64(subset)*int64(subset))
}

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
	n, d := m.x.Dims()
	if rd, cd := dst.Dims(); rd != len(idx) || cd != n {
		return fmt.Errorf("map rows: dst is %d×%d, want %d×%d", rd, cd, len(idx), n)
	}
	r := m.f.Dim()
	for _, i := range idx {
		if i < 0 || i >= n {
			return fmt.Errorf("%w: row index %d outside [0, %d)", check.ErrInput, i, n)
		}
	}
	fs := mat.NewDense(len(idx), r, nil)
	if err := m.f.Transform(ctx, fs, m.rows(idx)); err != nil {
		return err
	}
	const block = 4096
	for c0 := 0; c0 < n; c0 += block {
		c1 := min(c0+block, n)
		fb := mat.NewDense(c1-c0, r, nil)
		var xb mat.Matrix
		if _, ok := m.x.(kernel.Sparse); ok {
			span := make([]int, c1-c0)
			for j := range span {
				span[j] = c0 + j
			}
			xb = m.rows(span)
		} else {
			xb = m.x.(*mat.Dense).Slice(c0, c1, 0, d)
		}
		if err := m.f.Transform(ctx, fb, xb); err != nil {
			return err
		}
		dst.Slice(0, len(idx), c0, c1).(*mat.Dense).Mul(fs, fb.T())
	}
	return nil
}

// rows returns rows idx of x (see pickApproxRows).
func (m *mapRows) rows(idx []int) mat.Matrix { return pickApproxRows(m.x, idx) }

// pickApproxRows returns rows idx of x (valid indices): CSR rows for sparse
// x, a dense copy otherwise.
func pickApproxRows(x mat.Matrix, idx []int) mat.Matrix {
	if s, ok := x.(kernel.Sparse); ok {
		return kernel.SubsetRows(s, idx)
	}
	_, d := x.Dims()
	xd := x.(*mat.Dense)
	out := mat.NewDense(len(idx), d, nil)
	for a, i := range idx {
		out.SetRow(a, xd.RawRowView(i))
	}
	return out
}

func runApprox(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cmdline.NewFlags("approx", "--data FILE|NAME --method NAME --m M [flags]", stderr)
	data := fs.String("data", "", "dataset: a file (LIBSVM/CSV, .gz ok) or a bundled name")
	kname := fs.String("kernel", "gaussian", "kernel: "+strings.Join(kernel.Names(), ", "))
	gamma := fs.Float64("gamma", 0, "kernel γ (gaussian exp(−γ‖x−y‖²))")
	sigma := fs.Float64("sigma", 0, "gaussian bandwidth σ instead of γ (γ = 1/(2σ²))")
	method := fs.String("method", "uniform", "approximation method (listed below)")
	m := fs.Int("m", 100, "landmarks (Nyström methods) or features (rff)")
	rank := fs.Int("rank", 0, "target rank k of the Nyström approximation (0: all)")
	qr := fs.Bool("qr", false, "Nyström via QR: the best rank-k approximation from the landmarks (stores n×M)")
	compression := fs.Float64("compression", 0, "clustered: compression factor p/d (0: 0.1, at least min(d, 16) dims)")
	maxIter := fs.Int("kmeans-iter", 0, "k-means Lloyd iterations (0: 20)")
	clusters := fs.Int("clusters", 0, "meka, bka: number of k-means clusters (0: 10 for meka, 64 for bka)")
	seed := fs.Uint64("seed", 1, "random seed")
	sampleRows := fs.Int("sample-rows", 1000, "rows sampled for the relative Frobenius error")
	subset := fs.Int("spectral-n", 2000, "subset size for the spectral error (0: skip)")
	nmax := fs.Int("n", 0, "use a seeded random subset of this many rows (0: all)")
	scale := fs.String("scale", "none", "feature scaling: none, standard, minmax ([-1,1]) (these two need dense X); maxabs, std (scaling only, no centering: sparse X stays sparse)")
	dense := fs.Bool("dense", false, fmt.Sprintf("hold X dense; by default a LIBSVM file is kept sparse (CSR) when its density is below %g", experiments.SparseDensity))
	format := fs.String("format", "text", "output: text, or tsv (one header line and one row)")
	var memory memoryFlag
	fs.Var(&memory, "memory", "cap on the planned peak memory of the build and the error measures, e.g. 4G or 512MiB; a build over it is refused before allocating")
	prog := cmdline.AddProgress(fs)
	usage := fs.Usage
	fs.Usage = func() {
		usage()
		fmt.Fprintln(stderr, "\nMethods:")
		tw := tabwriter.NewWriter(stderr, 0, 0, 2, ' ', 0)
		for _, am := range approxMethods {
			fmt.Fprintf(tw, "  %s\t%s\n", am.name, am.summary)
		}
		tw.Flush()
	}
	if err := cmdline.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, fs.Args())
	}
	am, ok := findApproxMethod(*method)
	switch {
	case *data == "":
		return fmt.Errorf("%w: --data is required", errUsage)
	case !ok:
		return fmt.Errorf("%w: unknown method %q (known: %s)", errUsage, *method, strings.Join(approxMethodNames(), ", "))
	case *m < 1:
		return fmt.Errorf("%w: --m = %d, want ≥ 1", errUsage, *m)
	case *rank < 0:
		return fmt.Errorf("%w: --rank = %d, want ≥ 0", errUsage, *rank)
	case *sampleRows < 1:
		return fmt.Errorf("%w: --sample-rows = %d, want ≥ 1", errUsage, *sampleRows)
	case *subset < 0 || *nmax < 0:
		return fmt.Errorf("%w: --spectral-n and --n must be ≥ 0", errUsage)
	case *format != "text" && *format != "tsv":
		return fmt.Errorf("%w: --format %q, want text or tsv", errUsage, *format)
	}
	k, err := kernel.New(kernel.Spec{Type: *kname, Gamma: *gamma, Sigma: *sigma})
	if err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	switch *scale {
	case "none", "standard", "minmax", datasets.ScaleMaxAbs, datasets.ScaleStd:
	default:
		return fmt.Errorf("%w: --scale %q, want none, standard, minmax, maxabs or std", errUsage, *scale)
	}
	var denseWhy string // why X is forced dense ("" for --dense: asked, not chosen)
	if !*dense && (*scale == "standard" || *scale == "minmax") {
		denseWhy = "auto: scale " + *scale + " needs dense data"
	}
	ad, err := readApproxData(ctx, *data, *dense || denseWhy != "", denseWhy)
	if err != nil {
		return err
	}
	x := ad.x
	rng := rand.New(rand.NewPCG(*seed, 0x5eed))
	if n, _ := x.Dims(); *nmax > 0 && *nmax < n {
		// CSR rows stay a datasets.CSR, which the column scalers read.
		idx := rng.Perm(n)[:*nmax]
		if xs, ok := x.(*datasets.CSR); ok {
			if x, err = xs.Rows(idx); err != nil {
				return err
			}
		} else {
			x = pickApproxRows(x, idx)
		}
	}
	if x, err = scaleApproxData(x, *scale); err != nil {
		return err
	}
	n, d := x.Dims()

	opts := approxOpts{m: *m, rank: *rank, qr: *qr, compression: *compression, maxIter: *maxIter, clusters: *clusters,
		memory: memory.bytes, measure: measureBytes(n, *sampleRows, *subset)}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	pg := cmdline.NewProgress(*prog, false, stderr)
	if pg != nil {
		pg.Line("approx: building %s (m = %d) on %d rows × %d features…", *method, *m, n, d)
	}
	start := time.Now()
	built, err := am.build(ctx, x, k, opts, rand.New(rand.NewPCG(*seed, 1)))
	if pg != nil && err == nil {
		pg.Line("approx: built in %s; measuring the errors…", cmdline.Duration(time.Since(start)))
	}
	if err != nil {
		if errors.Is(err, check.ErrInput) {
			return fmt.Errorf("%w: %w", errUsage, err)
		}
		return err
	}
	elapsed := time.Since(start)
	var after runtime.MemStats
	runtime.ReadMemStats(&after)

	frob, err := approx.RelFrobeniusError(ctx, x, k, built.rows, *sampleRows, rand.New(rand.NewPCG(*seed, 2)))
	if err != nil {
		return err
	}
	spec, kn := math.NaN(), math.NaN()
	if *subset > 0 {
		sp, err := approx.SpectralError(ctx, x, k, built.rows, *subset, rand.New(rand.NewPCG(*seed, 3)))
		if err != nil {
			return err
		}
		spec, kn = sp.Error, sp.Norm
	}
	allocMiB := float64(after.TotalAlloc-before.TotalAlloc) / (1 << 20)
	sysMiB := float64(after.Sys) / (1 << 20)
	if *format == "tsv" {
		fmt.Fprintln(stdout, "data\tn\td\tkernel\tmethod\tm\trank\tseconds\trel_frob\tspectral\tspectral_rel\talloc_mib\tsys_mib\tstorage")
		fmt.Fprintf(stdout, "%s\t%d\t%d\t%v\t%s\t%d\t%d\t%.4f\t%.6g\t%.6g\t%.6g\t%.1f\t%.1f\t%s\n",
			ad.name, n, d, k, am.name, *m, built.rank, elapsed.Seconds(), frob, spec, spec/kn, allocMiB, sysMiB, ad.storage)
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "data\t%s (n=%d, d=%d, scale=%s)\n", ad.name, n, d, *scale)
	fmt.Fprintf(tw, "storage\t%s\n", strings.TrimPrefix(storageLine(ad.storage, ad.density, ad.why, built.centers), "data: "))
	fmt.Fprintf(tw, "kernel\t%v\n", k)
	fmt.Fprintf(tw, "method\t%s (%s)\n", am.name, built.note)
	fmt.Fprintf(tw, "rank\t%d\n", built.rank)
	fmt.Fprintf(tw, "time\t%.3fs (building the approximation)\n", elapsed.Seconds())
	fmt.Fprintf(tw, "relative Frobenius error\t%.6g (on %d sampled rows)\n", frob, min(*sampleRows, n))
	if *subset > 0 {
		fmt.Fprintf(tw, "spectral error\t%.6g (‖K−K̃‖₂ on %d random points; ‖K‖₂ there = %.6g, ratio %.4g)\n", spec, min(*subset, n), kn, spec/kn)
	}
	fmt.Fprintf(tw, "memory\t%.1f MiB allocated while building; %.1f MiB held from the OS by the Go runtime (≈ peak)\n", allocMiB, sysMiB)
	return tw.Flush()
}

// approxData is the data of "landmark approx" and how it is held.
type approxData struct {
	x       mat.Matrix // *mat.Dense or *datasets.CSR
	name    string
	d       int
	storage string  // experiments.StorageDense or StorageSparse
	density float64 // non-zeros / (n·d)
	why     string  // why auto chose the storage ("" when forced)
}

// readApproxData reads --data as fit and run do: a LIBSVM file straight
// into CSR, kept sparse below experiments.SparseDensity unless dense is
// set (--dense, or a scaling that fills in zeros, which denseWhy names); a
// bundled set or another format dense.
func readApproxData(ctx context.Context, name string, dense bool, denseWhy string) (approxData, error) {
	dsApprox := func(ds *datasets.Dataset, why string) approxData {
		return approxData{x: ds.X, name: ds.Name, d: ds.Dim(), storage: experiments.StorageDense, density: nonZeroShare(ds.X), why: why}
	}
	if _, bundled := datasets.Lookup(name); bundled {
		ds, err := datasets.Load(name)
		if err != nil {
			return approxData{}, err
		}
		return dsApprox(ds, "auto: bundled sets are dense"), nil
	}
	// Opened once: a pipe cannot be read twice, so the format found on the
	// open input (the name's, else the content's) picks the reader.
	in, err := datasets.OpenInput(ctx, name, datasets.Auto)
	if err != nil {
		return approxData{}, err
	}
	defer in.Close()
	if dense || in.Format != datasets.LIBSVM {
		ds, err := in.Read(ctx, datasets.ReadOptions{})
		if err != nil {
			return approxData{}, err
		}
		why := "auto: not a LIBSVM file"
		if dense {
			why = denseWhy
		}
		return dsApprox(ds, why), nil
	}
	xs, _, err := in.ReadSparse(ctx, 0)
	if err != nil {
		return approxData{}, err
	}
	_, d := xs.Dims()
	ad := approxData{x: xs, name: filepath.Base(name), d: d, storage: experiments.StorageSparse, density: xs.Density()}
	if ad.density >= experiments.SparseDensity {
		ad.x, ad.storage = xs.ToDense(), experiments.StorageDense
		ad.why = fmt.Sprintf("auto: density %.3g ≥ %g", ad.density, experiments.SparseDensity)
	} else {
		ad.why = fmt.Sprintf("auto: density %.3g < %g", ad.density, experiments.SparseDensity)
	}
	return ad, nil
}

// scaleApproxData applies --scale: standard and minmax to dense x (the
// caller read it dense), maxabs and std (scaling only) to either storage.
func scaleApproxData(x mat.Matrix, kind string) (mat.Matrix, error) {
	switch kind {
	case "none":
		return x, nil
	case "standard":
		var s datasets.Standardizer
		if err := s.Fit(x.(*mat.Dense)); err != nil {
			return nil, err
		}
		return s.Transform(x.(*mat.Dense))
	case "minmax":
		var s datasets.MinMax
		if err := s.Fit(x.(*mat.Dense)); err != nil {
			return nil, err
		}
		return s.Transform(x.(*mat.Dense))
	}
	c := datasets.ColumnScaler{Kind: kind}
	if err := c.Fit(x); err != nil {
		return nil, err
	}
	return c.Transform(x)
}

// nonZeroShare is the fraction of non-zero entries of dense x.
func nonZeroShare(x *mat.Dense) float64 {
	n, d := x.Dims()
	if n == 0 || d == 0 {
		return 0
	}
	var nz int
	for i := 0; i < n; i++ {
		for _, v := range x.RawRowView(i) {
			if v != 0 {
				nz++
			}
		}
	}
	return float64(nz) / float64(n*d)
}
