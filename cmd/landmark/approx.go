package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/experiments"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/internal/cmdline"
	"github.com/landmark-ml/landmark/kernel"
)

// approxScales maps --scale to the YAML scale names ("standard" is the
// older spelling of standardize).
var approxScales = map[string]string{"none": "", "standard": "standardize", "standardize": "standardize", "minmax": "minmax",
	datasets.ScaleMaxAbs: datasets.ScaleMaxAbs, datasets.ScaleStd: datasets.ScaleStd}

// measureBytes plans the error measures: the exact and approximate rows of
// the Frobenius estimate (2·rows·n) and, for the spectral error, the
// subset's exact and approximate kernel matrices and their difference (3s²).
func measureBytes(n, rows, subset int) int64 {
	rows = min(rows, n)
	subset = min(subset, n)
	return 8 * (2*int64(rows)*int64(n) + 3*int64(subset)*int64(subset))
}

// approxUsage prints the flags and experiments' method table (sorted).
func approxUsage(fs interface{ PrintDefaults() }, stderr io.Writer) func() {
	return func() {
		fmt.Fprintln(stderr, "Usage: landmark approx --data FILE|NAME --method NAME --m M [flags]\n\nFlags:")
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "\nMethods (--m is the number of landmarks, of features for rff, and MEKA's total rank: m/clusters per cluster):")
		tw := tabwriter.NewWriter(stderr, 0, 0, 2, ' ', 0)
		for _, nm := range experiments.ApproximationNames() {
			fmt.Fprintf(tw, "  %s\t%s\n", nm[0], nm[1])
		}
		tw.Flush()
	}
}

// approxFlags are the flags of "landmark approx".
type approxFlags struct {
	data, kernel, method, scale, format string
	// gammaRule is --gamma scale or auto (resolved on the rows read),
	// also taken when the kernel has a width and none is given.
	gammaRule string
	// gammaDefault: no width was given, so gammaRule is scale.
	gammaDefault                  bool
	gamma, sigma, compression     float64
	m, rank, kmeansIter, clusters int
	sampleRows, subset, n         int
	seed                          uint64
	dense, qr, zeroBased          bool
	memory                        memoryFlag
	progress                      *cmdline.Mode
}

func runApprox(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f approxFlags
	fs := cmdline.NewFlags("approx", "", stderr)
	fs.StringVar(&f.data, "data", "", "dataset: a file (LIBSVM/CSV, .gz ok; also looked up in the shared dataset folder) or a bundled name")
	fs.StringVar(&f.data, "dataset", "", "bundled dataset name (the same as --data NAME; fit's flag)")
	fs.StringVar(&f.kernel, "kernel", "gaussian", "kernel: "+strings.Join(kernel.Names(), ", "))
	fs.Var(gammaFlag{&f.gamma, &f.gammaRule}, "gamma", "kernel γ (gaussian exp(−γ‖x−y‖²)), or scale: 1/(d·Var(X)) on the rows as measured (after --scale and --n), or auto: 1/d (scikit-learn SVC's); the number used is printed (default without --gamma or --sigma: scale)")
	fs.Float64Var(&f.sigma, "sigma", 0, "gaussian bandwidth σ instead of γ (γ = 1/(2σ²))")
	fs.StringVar(&f.method, "method", "uniform", "approximation method (listed below; the names of a YAML approximation run)")
	fs.IntVar(&f.m, "m", 100, "landmarks (Nyström methods), features (rff) or MEKA's total rank (m/clusters per cluster); bka ignores it")
	fs.IntVar(&f.rank, "rank", 0, "target rank k of the Nyström methods (0: all landmarks; at most --m)")
	fs.BoolVar(&f.qr, "qr", false, "removed: name the QR variant, --method NAME-qr")
	fs.Float64Var(&f.compression, "compression", 0, "clustered: compression factor p/d (0: 0.1, at least min(d, 16) dims)")
	fs.IntVar(&f.kmeansIter, "kmeans-iter", 0, "k-means Lloyd iterations of kmeans, clustered, meka, bka (0: 20)")
	fs.IntVar(&f.clusters, "clusters", 0, "meka, bka: number of k-means clusters (0: 10 for meka, 64 for bka)")
	fs.Uint64Var(&f.seed, "seed", 1, "random seed")
	fs.IntVar(&f.sampleRows, "sample-rows", 1000, "rows sampled for the relative Frobenius error")
	fs.IntVar(&f.subset, "spectral-n", 2000, "subset size for the spectral error (0: skip)")
	fs.IntVar(&f.n, "n", 0, "use a seeded random subset of this many rows, as a spec's dataset subsample (0: all)")
	fs.StringVar(&f.scale, "scale", "none", "feature scaling: none, standardize, minmax ([-1,1]) (these two need dense X); maxabs, std (scaling only, no centering: sparse X stays sparse)")
	fs.BoolVar(&f.zeroBased, "zero-based", false, "LIBSVM feature indices start at 0 (scikit-learn's dump_svmlight_file default); never guessed from the file")
	fs.BoolVar(&f.dense, "dense", false, fmt.Sprintf("hold X dense; by default a LIBSVM file is kept sparse (CSR) when its density is below %g", experiments.SparseDensity))
	fs.StringVar(&f.format, "format", "text", "output: text, or tsv (one header line and one row)")
	fs.Var(&f.memory, "memory", "cap on the planned peak memory of the build and the error measures, e.g. 4G or 512MiB; a build over it is refused before allocating")
	f.progress = cmdline.AddProgress(fs)
	fs.Usage = approxUsage(fs, stderr)
	if err := cmdline.Parse(fs, args); err != nil {
		return err
	}
	if err := f.check(fs.Args()); err != nil {
		return err
	}
	sigmaGiven := false
	fs.Visit(func(fl *flag.Flag) { sigmaGiven = sigmaGiven || fl.Name == "sigma" })
	if sigmaGiven && !(f.sigma > 0) {
		return fmt.Errorf("%w: --sigma %g: want a number > 0", errUsage, f.sigma)
	}
	if f.gamma == 0 && f.sigma == 0 && f.gammaRule == "" && needsWidth(f.kernel) {
		f.gammaRule, f.gammaDefault = experiments.GammaScale, true
	}
	if _, err := kernel.New(f.kernelSpec(1)); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	ad, err := experiments.LoadApproximationData(ctx, f.spec())
	if err != nil {
		return approxError(err)
	}
	gamma := f.gamma
	if f.gammaRule != "" {
		if gamma, _, _, err = experiments.ResolveGamma(f.gammaRule, ad.X); err != nil {
			// "--gamma scale: the variance of X's … entries is 0, …"
			return fmt.Errorf("%w: --%s", errUsage, strings.TrimPrefix(err.Error(), experiments.ErrSpec.Error()+": "))
		}
	}
	k, err := kernel.New(f.kernelSpec(gamma))
	if err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	return f.run(ctx, ad, k, stdout, stderr)
}

// check refuses flag values no method accepts.
func (f *approxFlags) check(rest []string) error {
	var known bool
	for _, nm := range experiments.ApproximationNames() {
		known = known || nm[0] == f.method
	}
	switch {
	case len(rest) > 0:
		return fmt.Errorf("%w: unexpected arguments %q", errUsage, rest)
	case f.data == "":
		return fmt.Errorf("%w: --data is required", errUsage)
	case f.qr:
		return fmt.Errorf("%w: --qr is gone: name the QR variant, --method %s-qr", errUsage, strings.TrimSuffix(f.method, "-qr"))
	case !known:
		var names []string
		for _, nm := range experiments.ApproximationNames() {
			names = append(names, nm[0])
		}
		return fmt.Errorf("%w: unknown method %q%s (known: %s)", errUsage, f.method, experiments.DidYouMean(f.method, names), strings.Join(names, ", "))
	case f.method == "meka" && f.rank > 0:
		return fmt.Errorf("%w: meka takes its rank from --m, the total rank (m/clusters per cluster); --rank is the Nyström methods' target rank", errUsage)
	case f.m < 1:
		return fmt.Errorf("%w: --m = %d, want ≥ 1", errUsage, f.m)
	case f.rank < 0:
		return fmt.Errorf("%w: --rank = %d, want ≥ 0", errUsage, f.rank)
	case f.sampleRows < 1:
		return fmt.Errorf("%w: --sample-rows = %d, want ≥ 1", errUsage, f.sampleRows)
	case f.subset < 0 || f.n < 0:
		return fmt.Errorf("%w: --spectral-n and --n must be ≥ 0", errUsage)
	case f.format != "text" && f.format != "tsv":
		return fmt.Errorf("%w: --format %q, want text or tsv", errUsage, f.format)
	}
	if _, ok := approxScales[f.scale]; !ok {
		return fmt.Errorf("%w: --scale %q, want none, standardize, minmax, maxabs or std", errUsage, f.scale)
	}
	return nil
}

// spec is the approximation run the flags describe: its data are read,
// subsampled and scaled by experiments as a YAML run's are.
func (f *approxFlags) spec() *experiments.Spec {
	ds := experiments.DatasetSpec{Scale: approxScales[f.scale], Subsample: f.n, ZeroBased: f.zeroBased}
	if _, bundled := datasets.Lookup(f.data); bundled {
		ds.Name = f.data
	} else {
		ds.Path = f.data
	}
	if f.dense {
		ds.Storage = experiments.StorageDense
	}
	s := &experiments.Spec{Name: "approx", Dataset: ds, Seed: f.seed, Approximation: &experiments.ApproximationSpec{
		Kernel: f.kernelSpec(1), Methods: []string{f.method}}}
	if f.method != "bka" {
		s.Grid = experiments.Grid{"m": {float64(f.m)}}
	}
	if f.clusters > 0 {
		s.Approximation.Clusters = f.clusters
	}
	return s
}

// kernelSpec is the kernel the flags name. A rule (--gamma scale or auto)
// has no number until the rows are read: ruled stands in for it then (the
// data spec checks the kernel but reads the rows without it).
func (f *approxFlags) kernelSpec(ruled float64) kernel.Spec {
	g := f.gamma
	if f.gammaRule != "" {
		g = ruled
	}
	return kernel.Spec{Type: f.kernel, Gamma: g, Sigma: f.sigma}
}

// gammaLine says how a rule gave the kernel's γ ("" for a number given).
func (f *approxFlags) gammaLine(k kernel.Kernel) string {
	ks, ok := kernel.SpecOf(k)
	if !ok || f.gammaRule == "" {
		return ""
	}
	g := strconv.FormatFloat(ks.Gamma, 'g', -1, 64)
	line := "auto = 1/d = " + g
	if f.gammaRule == experiments.GammaScale {
		line = "scale = 1/(d·Var(X)) = " + g + " on the rows measured"
	}
	if f.gammaDefault {
		line += " (the default, scikit-learn SVC's; --gamma or --sigma to choose)"
	}
	return line
}

// approxError makes bad input (a spec check, a bad setting) a usage error;
// a check of the grid the flags became names the flag.
func approxError(err error) error {
	var se *experiments.SpecError
	if errors.As(err, &se) && strings.HasPrefix(se.Path, "grid.m[") {
		return fmt.Errorf("%w: --%s", errUsage, se.Msg)
	}
	if errors.Is(err, check.ErrInput) || errors.Is(err, experiments.ErrSpec) {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	return err
}

// run builds the approximation, measures it and prints the report.
func (f *approxFlags) run(ctx context.Context, ad *experiments.ApproxData, k kernel.Kernel, stdout, stderr io.Writer) error {
	x := ad.X
	n, d := x.Dims()
	p := experiments.ApproxParams{M: f.m, Rank: f.rank, Clusters: f.clusters, Compression: f.compression, KMeansIter: f.kmeansIter,
		MaxBytes: f.memory.bytes, Reserve: measureBytes(n, f.sampleRows, f.subset)}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	pg := cmdline.NewProgress(*f.progress, false, stderr)
	if pg != nil {
		pg.Line("approx: building %s (m = %d) on %d rows × %d features…", f.method, f.m, n, d)
	}
	start := time.Now()
	built, err := experiments.BuildApproximation(ctx, f.method, x, k, p, rand.New(rand.NewPCG(f.seed, 1)))
	if err != nil {
		return approxError(err)
	}
	elapsed := time.Since(start)
	if pg != nil {
		pg.Line("approx: built in %s; measuring the errors…", cmdline.Duration(elapsed))
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	frob, err := approx.RelFrobeniusError(ctx, x, k, built.Rows, f.sampleRows, rand.New(rand.NewPCG(f.seed, 2)))
	if err != nil {
		return err
	}
	spec, kn := math.NaN(), math.NaN()
	if f.subset > 0 {
		sp, err := approx.SpectralError(ctx, x, k, built.Rows, f.subset, rand.New(rand.NewPCG(f.seed, 3)))
		if err != nil {
			return err
		}
		spec, kn = sp.Error, sp.Norm
	}
	name := f.data
	if _, bundled := datasets.Lookup(f.data); !bundled {
		name = filepath.Base(f.data)
	}
	allocMiB := float64(after.TotalAlloc-before.TotalAlloc) / (1 << 20)
	sysMiB := float64(after.Sys) / (1 << 20)
	if f.format == "tsv" {
		fmt.Fprintln(stdout, "data\tn\td\tkernel\tmethod\tm\trank\tseconds\trel_frob\tspectral\tspectral_rel\talloc_mib\tsys_mib\tstorage")
		fmt.Fprintf(stdout, "%s\t%d\t%d\t%v\t%s\t%d\t%d\t%.4f\t%.6g\t%.6g\t%.6g\t%.1f\t%.1f\t%s\n",
			name, n, d, k, f.method, f.m, built.Rank, elapsed.Seconds(), frob, spec, spec/kn, allocMiB, sysMiB, ad.Storage)
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "data\t%s (n=%d, d=%d, scale=%s)\n", name, n, d, f.scale)
	fmt.Fprintf(tw, "storage\t%s\n", strings.TrimPrefix(storageLine(ad.Storage, ad.Density, ad.StorageWhy, built.Centers), "data: "))
	fmt.Fprintf(tw, "kernel\t%v\n", k)
	if g := f.gammaLine(k); g != "" {
		fmt.Fprintf(tw, "gamma\t%s\n", g)
	}
	fmt.Fprintf(tw, "method\t%s (%s)\n", f.method, built.Note)
	fmt.Fprintf(tw, "rank\t%d\n", built.Rank)
	fmt.Fprintf(tw, "time\t%.3fs (building the approximation)\n", elapsed.Seconds())
	fmt.Fprintf(tw, "relative Frobenius error\t%.6g (on %d sampled rows)\n", frob, min(f.sampleRows, n))
	if f.subset > 0 {
		fmt.Fprintf(tw, "spectral error\t%.6g (‖K−K̃‖₂ on %d random points; ‖K‖₂ there = %.6g, ratio %.4g)\n", spec, min(f.subset, n), kn, spec/kn)
	}
	fmt.Fprintf(tw, "memory\t%.1f MiB allocated while building; %.1f MiB held from the OS by the Go runtime (≈ peak)\n", allocMiB, sysMiB)
	return tw.Flush()
}
