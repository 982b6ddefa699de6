// Command landmark-beam runs Landmark's distributed fits on Apache Beam.
//
//	landmark-beam falkon --data OUTDIR/manifest.json --m M --sigma S --lambda L [--iter I] [--direct]
//	                     [--sampler uniform|bless|bless-r] [--bless-lambda L] [--subsample N]
//	                     [--runner prism|flink|spark|dataflow] [--endpoint HOST:PORT]
//	                     [--job_name NAME] [--work_dir DIR] [--attempts N] [--retry-wait D] [other Beam flags]
//	landmark-beam worker-pool [--port P]
//	landmark-beam run SPEC.yaml [--out DIR] [--fresh] [--smoke] [--quiet] [--progress auto|always|never]
//	                  [--json] [--dense] [--memory BYTES] [--work_dir DIR] [--beam-log LEVEL] [Beam flags]
//
// worker-pool serves Beam SDK workers in its own process (Beam's EXTERNAL
// environment, the Go SDK's runners/universal/extworker): a driver run
// with --runner universal --endpoint JOBSERVER --environment_type EXTERNAL
// --environment_config localhost:P has the job server start its workers
// here, a separate OS process from both (distributed/scripts/multiprocess.sh).
//
// Shards are written by the core command: `landmark data shard IN OUTDIR
// --rows N`. `landmark run SPEC.yaml --runner R …` delegates to
// `landmark-beam run`.
//
// --sampler bless (or bless-r) draws the centers by BLESS on the driver, on
// a uniform sub-sample of --subsample rows (default
// beamfit.DefaultSubsample: min(n, max(20·M, ⌈κ²/λ⌉)), the second term
// with --bless-lambda λ > 0), and fits with FALKON-BLESS's weighted
// preconditioner; --bless-lambda 0 (default) walks BLESS's path down until
// it has M centers.
//
// Beam's own flags (--runner, --endpoint, --job_name, --project, --region,
// --temp_location, --environment_type, …) are accepted beside Landmark's and
// passed to Beam unchanged. The default runner is Prism, in this process.
// Beam's and Prism's own log lines are kept at warnings and errors unless
// --beam-log (debug, info, warn, error) asks for more.
// The driver prints one line per pipeline launch: CG iteration, residual,
// wall time and shard throughput (rows/s).
//
// A pass that fails (a lost worker, a failed read) is launched again, up to
// --attempts times in all, --retry-wait (2s) after the failure, with a line on stderr; a damaged shard fails
// every attempt and the error names it. With --work_dir, every pass's
// result is checkpointed there as it completes: the same command, run
// again after the driver was stopped or killed, reads the completed passes
// back instead of launching them and gives the same model bit for bit.
//
// Paths (--data, --work_dir) may be local, gs://bucket/… or s3://bucket/…:
// this command registers Beam's local, Google Cloud Storage and Amazon S3
// file systems (the library, package beamfit, registers only the local
// one, so programs using it choose theirs by importing Beam's
// filesystem/gcs, /s3, … packages). GCS access uses Application Default
// Credentials, or unauthenticated access (public buckets) when none are
// found; S3 access uses the AWS SDK's default configuration (environment,
// shared config files, instance roles; AWS_ENDPOINT_URL_S3 for an
// S3-compatible store, given as an IP address or configured for
// virtual-host buckets: Beam's client does not use path-style addressing).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs" // gs:// paths, on the driver and the workers
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/s3"  // s3:// paths, with the AWS SDK's default configuration
	beamlog "github.com/apache/beam/sdks/v2/go/pkg/beam/log"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/universal/extworker"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx"
	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/distributed/beamfit"
	"github.com/landmark-ml/landmark/experiments"
	"github.com/landmark-ml/landmark/internal/cmdline"
	"github.com/landmark-ml/landmark/internal/outfile"
	"github.com/landmark-ml/landmark/kernel"
)

const usage = `landmark-beam: Landmark's fits on Apache Beam

  landmark-beam falkon --data OUTDIR/manifest.json --m M --sigma S --lambda L
      [--iter I] [--direct] [--seed S] [--standardize] [--save FILE] [--work_dir DIR] [--attempts N] [--retry-wait D]
      [--sampler uniform|bless|bless-r] [--bless-lambda L] [--subsample N]
      [--runner prism|flink|spark|dataflow] [--endpoint HOST:PORT] [--job_name NAME]
      FALKON with every data pass a Beam pipeline (Beam's flags pass through);
      --direct solves the same system in one pass (K_sᵀK_s per shard);
      a failed pass is launched again (--attempts, default 3); with --work_dir,
      every pass is checkpointed there and the same command resumes a stopped fit;
      --sampler bless draws the centers by BLESS on a uniform sub-sample of
      --subsample rows on the driver (FALKON-BLESS preconditioner)
  landmark-beam run SPEC.yaml [--out DIR] [--fresh] [--smoke] [--quiet] [--progress auto|always|never]
      [--json] [--dense] [--memory BYTES] [--work_dir DIR] [--runner …]
      a YAML experiment whose grid points are computed as a Beam PCollection;
      results.log/results.csv/plots as a local 'landmark run' (the same flags)
  landmark-beam worker-pool [--port P]
      serve Beam SDK workers from this process (Beam's EXTERNAL environment):
      a job server started with --environment_type EXTERNAL
      --environment_config localhost:P runs the pipelines' code here

Beam's and Prism's own log lines are kept at warnings unless --beam-log info (or debug) asks.

Shards (OUTDIR/manifest.json) are written by 'landmark data shard IN OUTDIR --rows N'.
Paths may be local, gs://bucket/… (Google Cloud Storage) or s3://bucket/… (Amazon S3).
`

func main() {
	if len(os.Args) < 2 || os.Args[1] == "-h" || os.Args[1] == "--help" || os.Args[1] == "help" {
		fmt.Fprint(os.Stderr, usage)
		if len(os.Args) < 2 {
			os.Exit(2)
		}
		return
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch cmd, args := os.Args[1], os.Args[2:]; cmd {
	case "shard":
		err = errors.New("shard moved to the core command: landmark data shard IN OUTDIR --rows N")
	case "falkon":
		err = runFalkon(ctx, args)
	case "run":
		err = runGrid(ctx, args)
	case "worker-pool":
		err = runWorkerPool(ctx, args)
	default:
		err = fmt.Errorf("unknown command %q (want falkon, run or worker-pool)", cmd)
	}
	if err != nil {
		if h := cmdline.Hint(err); h != "" {
			fmt.Fprintf(os.Stderr, "landmark-beam: %v (%s)\n", err, h)
			os.Exit(1)
		}
		fmt.Fprintln(os.Stderr, "landmark-beam:", err)
		os.Exit(1)
	}
}

// splitArgs separates positional arguments from flags, so that flags may
// follow them (landmark-beam run SPEC.yaml --fresh).
func splitArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) > 0 {
			pos = append(pos, args[0])
			args = args[1:]
		}
	}
	return pos, nil
}

func runFalkon(ctx context.Context, args []string) error {
	// Landmark's flags live on the command line flag set beside Beam's, so
	// one Parse serves both and Beam sees its flags unchanged.
	data := flag.String("data", "", "manifest.json of a shard folder (required)")
	m := flag.Int("m", 0, "number of centers (required)")
	sigma := flag.Float64("sigma", 0, "Gaussian bandwidth σ (required)")
	lambda := flag.Float64("lambda", 0, "λ (required)")
	iter := flag.Int("iter", 0, "CG iterations (0: model.Falkon's default)")
	seed := flag.Uint64("seed", 1, "center sampling seed")
	std := flag.Bool("standardize", false, "standardize columns with the manifest's statistics")
	save := flag.String("save", "", "save the fit here as `landmark fit --save` does: landmark predict and experiments.LoadFitFile read it (with --standardize the scaling is kept beside the model)")
	work := flag.String("work_dir", "", "folder the driver and every worker can read and write, where each pass's result is checkpointed (the same command resumes a stopped fit); default: a local temporary folder, removed after the fit")
	cache := flag.Bool("cache_shards", true, "keep decoded shards in worker memory between passes")
	direct := flag.Bool("direct", false, "one pass: each shard forms K_sᵀK_s and K_sᵀy, the driver solves by Cholesky (--iter ignored)")
	sampler := flag.String("sampler", "uniform", "center sampler: uniform (over all rows), bless or bless-r (BLESS / BLESS-R on a uniform sub-sample, FALKON-BLESS preconditioner)")
	blessLambda := flag.Float64("bless-lambda", 0, "BLESS's final λ (0: walk the path down until it has M centers)")
	subsample := flag.Int("subsample", 0, "rows BLESS runs on, drawn uniformly (0: min(n, max(20·M, ⌈κ²/bless-lambda⌉)))")
	attempts := flag.Int("attempts", beamfit.DefaultAttempts, "launches of a pass before the fit fails (a failed pass is re-run)")
	retryWait := flag.Duration("retry-wait", beamfit.DefaultRetryWait, "pause before a failed pass is launched again")
	if err := flag.CommandLine.Parse(args); err != nil {
		return err
	}
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %s", strings.Join(flag.Args(), " "))
	}
	if *data == "" || *m < 1 || !(*sigma > 0) || !(*lambda > 0) {
		return errors.New("falkon needs --data, --m ≥ 1, --sigma > 0 and --lambda > 0")
	}
	if *save != "" {
		// Refused before the fit, not after it: a missing folder, a
		// directory, or the manifest itself (as landmark fit --save does).
		if err := outfile.Check(*save, *data); err != nil {
			return fmt.Errorf("--save: %w", err)
		}
	}
	smp, err := samplerOf(*sampler, *blessLambda, *subsample)
	if err != nil {
		return err
	}
	if err := initBeam(); err != nil {
		return err
	}
	f := &beamfit.Falkon{Kernel: kernel.GaussianSigma(*sigma), Lambda: *lambda, M: *m, Seed: *seed,
		Sampler: smp, Subsample: *subsample,
		MaxIter: *iter, Direct: *direct, Standardize: *std, WorkDir: *work, CacheShards: *cache,
		Attempts: *attempts, RetryWait: *retryWait, Run: beamx.Run,
		Progress: func(p beamfit.Pass) {
			if p.Resumed {
				fmt.Printf("pass %3d  residual %.3e  from the checkpoint in --work_dir\n", p.Iteration, p.Residual)
				return
			}
			fmt.Printf("pass %3d  residual %.3e  %7.2f s  %.3g rows/s\n", p.Iteration, p.Residual,
				p.Wall.Seconds(), float64(p.Rows)/p.Wall.Seconds())
		}}
	res, err := f.Fit(ctx, *data)
	if err != nil {
		return err
	}
	in := res.Model.Info()
	if res.SubsampleRows != nil {
		fmt.Printf("centers: %s: %d distinct, λ_h = %.3g, κ²/λ_h = %d rows\n", in.Sampler, in.M, res.CenterLambda, res.BLESSRows)
		if res.BLESSRows > len(res.SubsampleRows) {
			fmt.Printf("note: the sub-sample (%d rows) is below κ²/λ_h = %d: BLESS's last steps drew from fewer rows than on all n; --subsample %d matches it\n",
				len(res.SubsampleRows), res.BLESSRows, min(res.BLESSRows, in.N))
		}
	}
	if *direct {
		fmt.Printf("fit: n = %d, d = %d, M = %d, direct solve (1 pass), jitter %g, residual %.3e, %.2f s\n",
			in.N, in.D, in.M, res.Jitter, in.Residual, in.SolveTime.Seconds())
	} else {
		fmt.Printf("fit: n = %d, d = %d, M = %d, %d iterations (%s), residual %.3e, solve %.2f s\n",
			in.N, in.D, in.M, in.Iterations, in.Status, in.Residual, in.SolveTime.Seconds())
	}
	if *save != "" {
		// A landmark fit file (what `landmark predict` reads), which keeps
		// the standardization beside the model: the model alone expects
		// standardized rows.
		fit, err := experiments.ShardFit(res.Model, res.Manifest, res.Standardized)
		if err != nil {
			return err
		}
		return fit.SaveFile(*save, nil)
	}
	return nil
}

// samplerOf turns --sampler, --bless-lambda and --subsample into
// beamfit.Falkon's Sampler.
func samplerOf(name string, blessLambda float64, subsample int) (approx.Sampler, error) {
	if blessLambda < 0 || math.IsNaN(blessLambda) || math.IsInf(blessLambda, 0) {
		return nil, fmt.Errorf("--bless-lambda = %g, want 0 (walk down to M centers) or > 0", blessLambda)
	}
	switch name {
	case "uniform":
		if blessLambda != 0 || subsample != 0 {
			return nil, errors.New("--bless-lambda and --subsample need --sampler bless or bless-r")
		}
		return nil, nil
	case "bless":
		return approx.BLESS{Lambda: blessLambda}, nil
	case "bless-r":
		return approx.BLESSR{Lambda: blessLambda}, nil
	}
	return nil, fmt.Errorf("unknown --sampler %q (want uniform, bless or bless-r)", name)
}

func runGrid(ctx context.Context, args []string) error {
	// The flags of a local `landmark run`, so that `landmark run SPEC
	// --runner R` takes the same command line with or without a runner.
	out := flag.String("out", "", "output folder (default: the spec's output, else results/NAME)")
	fresh := flag.Bool("fresh", false, "discard results already in the output folder instead of resuming")
	quiet := flag.Bool("quiet", false, "no progress on stderr (same as --progress never)")
	prog := flag.String("progress", "auto", "progress on stderr: auto or always (a line per grid point computed) or never")
	asJSON := flag.Bool("json", false, "print the result as JSON on stdout")
	smoke := flag.Bool("smoke", false, "shrink the experiment for a quick end-to-end check (≤400 rows, 2 folds, ≤2 grid points)")
	dense := flag.Bool("dense", false, "hold X dense (YAML dataset storage: dense)")
	memory := flag.String("memory", "", "cap on the planned peak memory of each fit (memory_limit), e.g. 4G, 512MiB or bytes")
	work := flag.String("work_dir", "", "folder the driver and every worker can read and write (default: a local temporary folder)")
	pos, err := splitArgs(flag.CommandLine, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("usage: landmark-beam run SPEC.yaml [--out DIR] [--fresh] [--smoke] [--quiet] [--progress auto|always|never] [--json] [--dense] [--memory BYTES] [--beam-log LEVEL] [--work_dir DIR] [Beam flags]; got %d arguments", len(pos))
	}
	switch *prog {
	case "auto", "always", "never":
	default:
		return fmt.Errorf("--progress %q: want auto, always or never", *prog)
	}
	edit := beamfit.SpecEdit{Smoke: *smoke, Dense: *dense}
	if *memory != "" {
		if edit.MemoryLimit, err = experiments.ParseBytes(*memory); err != nil {
			return err
		}
	}
	if err := initBeam(); err != nil {
		return err
	}
	spec, err := experiments.DecodeFile(pos[0])
	if err != nil {
		return err
	}
	if edit.MemoryLimit > 0 && spec.Approximation != nil {
		return errors.New("--memory caps estimator fits; this spec is an approximation run")
	}
	spec = edit.Apply(spec)
	opt := experiments.Options{Out: *out, Fresh: *fresh, Remote: beamfit.GridEvaluatorEdit(beamx.Run, pos[0], *work, edit)}
	if !*quiet && *prog != "never" {
		opt.OnPoint = func(i, n int, r experiments.PointResult) {
			fmt.Fprintf(os.Stderr, "point %d/%d %s: fit %.2f s\n", i+1, n, r.Key, r.FitSeconds)
		}
	}
	if *smoke && opt.Out == "" {
		// Smoke results go beside, never into, the full run's folder, as
		// a local run's do.
		if spec.Output == "" {
			opt.Out = "results/" + spec.Name
		} else {
			opt.Out = spec.Output + "-smoke"
		}
	}
	res, err := experiments.Run(ctx, spec, opt)
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	best := res.Points[res.Best]
	fmt.Printf("best %s (%d computed on Beam, %d resumed); results in %s\n", best.Key, res.Computed, res.Resumed, res.Out)
	return nil
}

// beamLog is --beam-log, the level of Beam's and Prism's own log lines
// (warn by default: Prism's INFO lines would flood stderr).
var beamLog = flag.String("beam-log", "warn", "level of Beam's and Prism's own log lines on stderr: debug, info, warn or error")

// initBeam sets Beam's log level from --beam-log, then initializes Beam
// (beam.Init installs the log handler at that level).
func initBeam() error {
	switch *beamLog {
	case "debug", "info", "warn", "error":
	default:
		return fmt.Errorf("--beam-log %q: want debug, info, warn or error", *beamLog)
	}
	beamlog.LogLevel = *beamLog
	beam.Init()
	return nil
}

// runWorkerPool serves Beam SDK workers (the EXTERNAL environment's worker
// pool) on localhost:--port until interrupted. Every worker runs this
// binary's registered pipeline code (package beamfit's passes) in this
// process.
func runWorkerPool(ctx context.Context, args []string) error {
	port := flag.Int("port", 50000, "port of the worker pool on localhost (0: any free port, printed)")
	if err := flag.CommandLine.Parse(args); err != nil {
		return err
	}
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %s", strings.Join(flag.Args(), " "))
	}
	if err := initBeam(); err != nil {
		return err
	}
	srv, err := extworker.StartLoopback(ctx, *port)
	if err != nil {
		return fmt.Errorf("worker pool: %w", err)
	}
	fmt.Printf("worker pool on %s (pid %d)\n", srv.EnvironmentConfig(ctx), os.Getpid())
	<-ctx.Done()
	return srv.Stop(context.Background())
}
