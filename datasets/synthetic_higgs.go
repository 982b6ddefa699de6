package datasets

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/landmark-ml/landmark/datasets/shard"
	"github.com/landmark-ml/landmark/internal/outfile"
	"gonum.org/v1/gonum/mat"
)

// HiggsDim is the number of features of the HIGGS-shaped synthetic set:
// HIGGS's 28 (21 kinematic and 7 derived features of the UCI data set).
const HiggsDim = 28

// HiggsNoise is the standard deviation σ of the label noise of the
// HIGGS-shaped labelling rule (see WriteSyntheticHiggs).
const HiggsNoise = 0.75

// HiggsOptions configure WriteSyntheticHiggs. Rows and ShardRows are
// required; the zero value of the others means their default.
type HiggsOptions struct {
	// Rows is the number of rows n (≥ 1).
	Rows int
	// ShardRows is the number of rows of every shard but the last (≥ 1).
	// It is part of the draw: the same Seed with another ShardRows gives
	// other rows.
	ShardRows int
	// Seed seeds the draw; shard s draws from its own PCG stream of it.
	Seed uint64
	// Workers is the number of shards generated at once (default
	// GOMAXPROCS). The files do not depend on it; the memory does: each
	// worker holds one shard, 8·ShardRows·(HiggsDim+1) bytes, while it
	// writes it.
	Workers int
	// Type is the shards' element type: shard.Float64 (empty means it) or
	// shard.Float32 (X rounded to float32, half the bytes; manifest format
	// shard.Format2). The rows are drawn, and the manifest's statistics
	// computed, in float64 either way, as shard.WriteDirWith does.
	Type shard.Type
	// Progress, when non-nil, is called after each shard is written with
	// the number of shards and rows written so far and their totals; calls
	// come one at a time, from the workers' goroutines.
	Progress func(shards, totalShards, rows, totalRows int)
}

// HiggsLabel is the labelling rule's noiseless score f(x) of one row of
// HiggsDim features: the label of x is the sign of f(x) + σε with ε
// standard normal and σ = HiggsNoise. It is
//
//	f(x) = sin(2x₀) + ½x₁x₂x₃ + tanh(2(x₄ − x₅)) + ¼·(x₆ + … + x₂₇)/√22
//
// a smooth function of which six features carry most of the signal and the
// other 22 a weak linear trend (as in HIGGS, where every feature is weakly
// informative). f is odd, f(−x) = −f(x), and x and ε are symmetric, so the
// classes are balanced exactly in expectation.
func HiggsLabel(x []float64) float64 {
	s := 0.0
	for _, v := range x[6:HiggsDim] {
		s += v
	}
	return math.Sin(2*x[0]) + 0.5*x[1]*x[2]*x[3] + math.Tanh(2*(x[4]-x[5])) + 0.25*s/math.Sqrt(22)
}

// higgsStream separates the shards' PCG streams from the other uses of a
// seed in the package.
const higgsStream = 0x48494747 << 32

// higgsShard draws shard s of opt, of the given number of rows, into buf
// (grown as needed and returned for the next shard): its rows are HiggsDim
// standard normal features drawn row by row from rand.New(rand.NewPCG(Seed,
// higgsStream+s)), the label's noise drawn after each row's features.
func higgsShard(opt HiggsOptions, s, rows int, buf []float64) (*mat.Dense, []float64, []float64) {
	rng := rand.New(rand.NewPCG(opt.Seed, higgsStream+uint64(s)))
	if cap(buf) < rows*(HiggsDim+1) {
		buf = make([]float64, rows*(HiggsDim+1))
	}
	buf = buf[:rows*(HiggsDim+1)]
	x := mat.NewDense(rows, HiggsDim, buf[:rows*HiggsDim])
	y := buf[rows*HiggsDim:]
	for i := range rows {
		row := x.RawRowView(i)
		for j := range row {
			row[j] = rng.NormFloat64()
		}
		y[i] = -1
		if HiggsLabel(row)+HiggsNoise*rng.NormFloat64() > 0 {
			y[i] = 1
		}
	}
	return x, y, buf
}

// moments are a block of rows' count, per-column means and sums of
// squared deviations from them (the y column last).
type moments struct {
	n    float64
	mean []float64
	m2   []float64
}

// blockMoments computes the moments of x's columns and y by two passes
// over the block (the mean first, then the squared deviations from it).
func blockMoments(x *mat.Dense, y []float64) moments {
	rows, d := x.Dims()
	m := moments{n: float64(rows), mean: make([]float64, d+1), m2: make([]float64, d+1)}
	for i := range rows {
		for j, v := range x.RawRowView(i) {
			m.mean[j] += v
		}
		m.mean[d] += y[i]
	}
	for j := range m.mean {
		m.mean[j] /= m.n
	}
	for i := range rows {
		for j, v := range x.RawRowView(i) {
			m.m2[j] += (v - m.mean[j]) * (v - m.mean[j])
		}
		m.m2[d] += (y[i] - m.mean[d]) * (y[i] - m.mean[d])
	}
	return m
}

// merge adds block b to a by the pairwise update of Chan, Golub and
// LeVeque (1979): mean += δ·n_b/n, M2 += M2_b + δ²·n_a·n_b/n with δ the
// difference of the means; no sum of squares of raw values is formed.
func (a *moments) merge(b moments) {
	if a.n == 0 {
		a.n, a.mean, a.m2 = b.n, append([]float64(nil), b.mean...), append([]float64(nil), b.m2...)
		return
	}
	n := a.n + b.n
	for j := range a.mean {
		delta := b.mean[j] - a.mean[j]
		a.mean[j] += delta * b.n / n
		a.m2[j] += b.m2[j] + delta*delta*a.n*b.n/n
	}
	a.n = n
}

// WriteSyntheticHiggs writes a HIGGS-shaped synthetic binary classification
// set straight to shards in dir (created if needed), streaming: opt.Rows
// rows of HiggsDim independent standard normal features, labelled ±1 by
// the sign of HiggsLabel(x) + σε (σ = HiggsNoise, ε standard normal), in
// shards of opt.ShardRows rows with the shard package's format and file
// names, and the manifest last. At most Workers shards are in memory at
// once, never X: n = 5·10⁷ rows (11.2 GB as float64) need a few hundred
// MB.
//
// The Bayes classifier of this rule is sign(HiggsLabel(x)); its accuracy,
// E[Φ(|f(x)|/σ)], is 0.829 (Monte Carlo over 10⁶ rows), so a kernel
// model can reach clearly better than chance, never 100%; the classes are
// balanced (P(y = 1) = ½ exactly, see HiggsLabel).
//
// Shard s is drawn from its own random stream of opt.Seed (higgsShard), so
// shards are generated in parallel and the files are byte for byte the
// same whatever Workers or GOMAXPROCS. The manifest's column means and
// population standard deviations are those of shard.WriteDir: each
// shard's by two passes over it, merged in shard order by the pairwise
// update of Chan, Golub and LeVeque (numerically stable; the fixed order
// makes them independent of Workers too). ctx cancels between shards; a
// cancelled or failed run leaves no output: no manifest, no shard (each
// file is written whole or not at all, and those written are removed),
// and dir only when it was there before. A set already in dir is replaced
// as shard.WriteDirContext replaces one (shard.DropSet): stopped, neither
// set is left. (Before, a stopped run left the shards it wrote, and the
// old manifest naming them.)
func WriteSyntheticHiggs(ctx context.Context, dir string, opt HiggsOptions) (*shard.Manifest, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	total := (opt.Rows + opt.ShardRows - 1) / opt.ShardRows
	_, statErr := os.Stat(dir)
	created := os.IsNotExist(statErr)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("datasets: %w", err)
	}
	dropOld, err := shard.DropSet(dir)
	if err != nil {
		return nil, err
	}
	m := &shard.Manifest{Format: shard.Format, N: opt.Rows, D: HiggsDim, Task: "classification", Classes: []float64{-1, 1}}
	if opt.Type == shard.Float32 {
		m.Format, m.Type = shard.Format2, shard.Float32
	}
	m.Shards = make([]shard.Entry, total)
	// No partial set on any error: the shards written go, with the set
	// this one was to replace, and the folder when this call made it.
	undo := func(err error) (*shard.Manifest, error) {
		for _, e := range m.Shards {
			if e.File != "" {
				os.Remove(filepath.Join(dir, e.File))
			}
		}
		dropOld(nil)
		if created {
			os.Remove(dir) // only when empty
		}
		return nil, err
	}
	mom, err := writeHiggsShards(ctx, dir, opt, m.Shards)
	if err != nil {
		return undo(err)
	}
	setHiggsStats(m, mom)
	if err := m.Validate(); err != nil {
		return undo(err)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return undo(fmt.Errorf("datasets: %w", err))
	}
	if err := outfile.WriteBytes(filepath.Join(dir, shard.ManifestName), append(b, '\n')); err != nil {
		return undo(fmt.Errorf("datasets: synthetic higgs: %w", err))
	}
	dropOld(m)
	return m, nil
}

// check refuses options WriteSyntheticHiggs cannot write.
func (opt HiggsOptions) check() error {
	if opt.Rows < 1 || opt.ShardRows < 1 {
		return fmt.Errorf("datasets: %w: synthetic higgs: %d rows in shards of %d, want both ≥ 1", ErrInput, opt.Rows, opt.ShardRows)
	}
	if opt.Workers < 0 {
		return fmt.Errorf("datasets: %w: synthetic higgs: %d workers, want ≥ 0", ErrInput, opt.Workers)
	}
	if opt.Type != "" && opt.Type != shard.Float64 && opt.Type != shard.Float32 {
		return fmt.Errorf("datasets: %w: synthetic higgs: element type %q, want %q or %q", ErrInput, opt.Type, shard.Float64, shard.Float32)
	}
	return nil
}

// writeHiggsShards draws and writes the len(entries) shards of opt into
// dir on opt.Workers goroutines (default GOMAXPROCS, at most one a shard),
// shard s into entries[s] once its file is written, and returns each
// shard's moments. The first failure, or ctx's cancellation, stops the
// shards not started and is returned (wrapped); entries then name the
// files written (or begun), for the caller to remove.
func writeHiggsShards(ctx context.Context, dir string, opt HiggsOptions, entries []shard.Entry) ([]moments, error) {
	total := len(entries)
	workers := opt.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, total)
	mom := make([]moments, total)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error
		done     int
		doneRows int
		wg       sync.WaitGroup
	)
	next := make(chan int)
	for range workers {
		wg.Go(func() {
			var buf []float64 // one shard's rows, reused
			for s := range next {
				var e shard.Entry
				var err error
				e, mom[s], buf, err = writeHiggsShard(dir, opt, s, buf)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = fmt.Errorf("datasets: synthetic higgs: %w", err)
					cancel()
				}
				entries[s] = e
				done++
				doneRows += e.Rows
				if err == nil && opt.Progress != nil {
					opt.Progress(done, total, doneRows, opt.Rows)
				}
				mu.Unlock()
			}
		})
	}
feed:
	for s := range total {
		select {
		case next <- s:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = fmt.Errorf("datasets: synthetic higgs: %w", ctx.Err())
	}
	return mom, firstErr
}

// writeHiggsShard draws shard s of opt into buf (grown as needed and
// returned for the next shard) and writes it into dir, whole or not at all
// (outfile.Write); it returns its entry and the moments of the values
// written (float32 shards': the rounded values; rounding again in WriteAs
// changes nothing).
func writeHiggsShard(dir string, opt HiggsOptions, s int, buf []float64) (shard.Entry, moments, []float64, error) {
	r0 := s * opt.ShardRows
	rows := min(opt.Rows, r0+opt.ShardRows) - r0
	e := shard.Entry{File: fmt.Sprintf("shard-%05d.lmks", s), Rows: rows, FirstRow: r0}
	x, y, buf := higgsShard(opt, s, rows, buf)
	if opt.Type == shard.Float32 {
		for i, v := range buf[:rows*HiggsDim] {
			buf[i] = float64(float32(v))
		}
	}
	mom := blockMoments(x, y)
	err := outfile.Write(filepath.Join(dir, e.File), func(w io.Writer) error { return shard.WriteAs(w, x, y, opt.Type) })
	return e, mom, buf, err
}

// setHiggsStats sets m's column and target means and population standard
// deviations from the shards' moments, merged in shard order.
func setHiggsStats(m *shard.Manifest, mom []moments) {
	var all moments
	for _, b := range mom {
		all.merge(b)
	}
	m.Mean, m.Std = all.mean[:HiggsDim], make([]float64, HiggsDim)
	for j := range m.Std {
		m.Std[j] = math.Sqrt(all.m2[j] / all.n)
	}
	m.YMean, m.YStd = all.mean[HiggsDim], math.Sqrt(all.m2[HiggsDim]/all.n)
}
