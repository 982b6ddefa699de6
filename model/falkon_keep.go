package model

// How a Falkon fit keeps K_nM's blocks in memory (kernel.Op.Keep64 and
// Keep32) when asked (CacheKnm) or unasked at high d: the room it takes
// them from and the plan with them.

import (
	"math"

	"github.com/landmark-ml/landmark/internal/physmem"
	"github.com/landmark-ml/landmark/kernel"
)

// physicalMemory is the memory this process may use (physmem.Total); a
// variable so that tests can stand in a small machine.
var physicalMemory = physmem.Total

// keepRoom is the limit the room to keep K_nM unasked is taken from:
// MemoryLimit, or without one physmem.DefaultShare of the memory this
// process may use (the command line's default cap), as FALKON keeps K_nM
// when the free memory allows without being given a cap.
func (m *Falkon) keepRoom() int64 {
	if m.MemoryLimit > 0 {
		return m.MemoryLimit
	}
	b, _ := physicalMemory()
	return int64(physmem.DefaultShare * float64(b))
}

// autoKeepMinDim is the least d at which a fit keeps K_nM's blocks without
// being asked (CacheKnm), in what keepRoom leaves spare. Forming a block
// costs about 2d flops a value, reading a kept one 8 bytes (4 in float32).
// BenchmarkFalkonKeep (30,000 random rows, M = 1,000, 20 iterations;
// machine F, AVX2 EPYC, -benchtime 2x), recomputed time over kept, one
// output and ten: d = 16 1.59× and 1.15×, d = 32 1.54× and 1.41×, d = 64
// 2.20× and 1.75×, d = 128 3.06× and 2.18×, d = 256 4.53× and 3.38×;
// mnist (d = 780, ten outputs) 46.6 s against 7.5 s (docs/performance.md,
// "Falkon's K_nM kept in float64" and "Kept float64 rows for few
// outputs"). Below 64 keeping still pays, but 8 bytes a value of K_nM buy
// less than at high d (FALKON keeps nothing below d = 1,200): CacheKnm asks
// for it there.
const autoKeepMinDim = 64

// keepPlan returns plan p with the engine keeping K_nM's blocks (Op.Keep64,
// or Keep32 with float32 passes), beside the panel products' scratch that
// kept blocks take even for one output: as many blocks as limit leaves
// room for (all with limit 0), or, when auto (no CacheKnm asked), half
// that room, the other half left to the garbage collector and to whatever
// else runs. It reports false when nothing would be kept (the portable
// path, sparse centers, no room).
func keepPlan(p FalkonPlan, op *kernel.Op, cfg falkonConfig, t int, limit int64, auto bool) (FalkonPlan, bool) {
	engine := op.ScratchBytes(max(t, 2))
	budget := int64(math.MaxInt64)
	if limit > 0 {
		budget = limit - (p.Total - p.Engine + engine)
		if auto {
			budget /= 2
		}
	}
	keepRows, keepBytes := op.KeepRows64, op.KeepBytes64
	if cfg.passes.Float32 {
		keepRows, keepBytes = op.KeepRows, op.KeepBytes
	}
	rows := keepRows(budget)
	if rows == 0 {
		return p, false
	}
	p.Cache = keepBytes(rows)
	p.Total += p.Cache + engine - p.Engine
	p.Engine = engine
	return p, true
}
