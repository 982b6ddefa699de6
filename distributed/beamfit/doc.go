// Package beamfit runs Landmark's fits on Apache Beam (Go SDK): the same
// pipelines run in-process on the Prism runner (tests, a laptop) and on
// Flink, Spark or Google Cloud Dataflow through Beam's portable runners.
//
// Write the data as shards first (`landmark data shard`, package
// datasets/shard), then fit: set up a Falkon (its kernel, λ, M, iterations,
// a Runner such as Prism or a portable runner, and a work folder every
// worker can read) and call Fit(ctx, manifestPath); the result carries a
// model.Falkon that predicts, saves and loads like a local fit. BKASolver and
// MEKASolver plug Beam into model.BKASVM and MEKA fits, and GridEvaluator
// fans a YAML experiment's grid out, one element per grid point and fold.
// The landmark-beam command wraps all of this; docs/cluster.md walks through
// it on each runner.
//
// Falkon is FALKON (Rudi, Carratino, Rosasco, NIPS 2017; the
// preconditioner of eq. 14 of Rudi, Calandriello, Carratino, Rosasco,
// NeurIPS 2018) with the data sharded: the conjugate-gradient loop, K_MM
// and the preconditioner stay on the driver, and each CG iteration's
// operator application
//
//	H v = K_nMᵀ(K_nM v) + λn K_MM v,   K_nMᵀ(K_nM v) = Σ_s K_sᵀ(K_s v)
//
// is one pipeline: a ParDo over the shard indices computing each term with
// the core module's model.ShardPass (the shard streamed in blocks of
// model.ShardBlockRows rows, each block's kernel.Op.MulTMul added in
// order), and a Combine that adds the M×t terms in increasing shard index
// whatever order the runner delivered them in. The result therefore
// depends on the number of shards only through round-off: each of the
// k ≤ n shard sums is a fixed-order sum, and adding k of them in order
// adds at most (k−1)·u·Σ_s |K_sᵀK_s v| (u = 2⁻⁵³) per entry to the
// one-machine sum's own error. model.Falkon.FitShards runs the same
// passes and center draw in one process and gives the same model bit for
// bit.
//
// MEKASolver computes the per-cluster Nyström bases of MEKA (Si,
// Hsieh & Dhillon, JMLR 2017, Algorithm 1 lines 2–4) for meka.Fit
// and model.MEKAKRR: each cluster's meka.BasisProblem — its rows,
// the landmark count and seed drawn on the driver, the target rank — is
// one PCollection element solved by meka.SolveBasis, the function
// the local fit runs, so the approximation equals the local one bit for
// bit. k-means, the rank choice of the eigen strategy, the link blocks
// L⁽ˢᵗ⁾ (lines 5–9) and L stay on the driver. BKASolver does
// the same for BKA-SVM's per-cluster dual problems (model.SolveBKAProblem).
//
// Centers are drawn on the driver from Falkon.Seed
// (model.FalkonBuilder.SampleShards): uniformly over all
// rows (Floyd's algorithm over the global row indices), or by BLESS /
// BLESS-R (Falkon.Sampler = approx.BLESS or approx.BLESSR; Rudi et al.
// 2018, Alg. 1 / 2) run by the core library on a uniform sub-sample of
// Falkon.Subsample rows (default DefaultSubsample) read from the shards,
// its indices also drawn over the global rows, so the same seed gives the
// same centers whatever the sharding. BLESS's weights A_h, computed on the
// s-row sub-sample, are rescaled by s/n to the full data's scale, and the
// fit uses FALKON-BLESS's weighted preconditioner (eq. 15, at the path's
// λ_h) exactly as model.Falkon does with the same CenterWeights and
// CenterLambda.
//
// Failures cost at most one pass. A pass whose pipeline fails is launched
// again, up to Falkon.Attempts times (DefaultAttempts), with a log line;
// it computes the same sums in the same order, so the model is unchanged.
// With Falkon.WorkDir set, every pass's result is checkpointed there,
// keyed by a SHA-256 of what it depends on (manifest, centers, kernel,
// standardization, the pass's vector); the same fit run again reads the
// completed passes back and replays the driver's deterministic CG
// arithmetic on them, launching only the rest, to the identical model. A
// damaged shard (CRC mismatch, shard.ErrChecksum) is an error naming it.
//
// Files (the manifest, shards, WorkDir) are opened through Beam's
// filesystem package. This package registers only Beam's local file system;
// a program reading gs:// or s3:// paths registers those itself, in its main
// package (which Beam also runs on the workers), e.g.
//
//	import _ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
//
// as the landmark-beam command does for gs:// and s3://.
//
// The package depends on Beam; the core module does not (this is a
// separate Go module, github.com/landmark-ml/landmark/distributed).
package beamfit
