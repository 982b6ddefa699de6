package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"strconv"

	"github.com/landmark-ml/landmark/experiments"
)

// memoryFlag is --memory: a cap on the planned peak memory of every fit,
// given as bytes or with a unit (K, M, G, T: powers of 1000; KiB, MiB, GiB,
// TiB: powers of 1024). It becomes the estimator option memory_limit.
type memoryFlag struct {
	bytes int64
	text  string // as given, for messages
}

func (m *memoryFlag) String() string {
	if m == nil || m.bytes == 0 {
		return ""
	}
	return strconv.FormatInt(m.bytes, 10)
}

func (m *memoryFlag) Set(s string) error {
	b, err := parseBytes(s)
	if err != nil {
		return err
	}
	m.bytes, m.text = b, s
	return nil
}

const memoryUsage = "cap on the planned peak memory of each fit (memory_limit; default: the spec's, else 75% of physical memory), e.g. 4G, 512MiB or bytes; a fit over it is refused before allocating (or, for falkon on a shard manifest, streamed); the cap is also the Go runtime's soft memory limit unless GOMEMLIMIT is set"

// parseBytes reads a byte count with an optional unit (experiments.ParseBytes).
func parseBytes(s string) (int64, error) { return experiments.ParseBytes(s) }

// applyMemory sets memory_limit on the spec's estimator (overriding the
// spec's own value); 0 leaves the spec alone. Approximation-only runs have
// no estimator and refuse the flag.
func applyMemory(spec *experiments.Spec, m memoryFlag) error {
	if m.bytes == 0 {
		return nil
	}
	if spec.Approximation != nil {
		return fmt.Errorf("%w: --memory caps estimator fits; this spec is an approximation run", errUsage)
	}
	if spec.Estimator.Options == nil {
		spec.Estimator.Options = map[string]any{}
	}
	spec.Estimator.Options["memory_limit"] = float64(m.bytes)
	return nil
}

// goLimit sets the Go runtime's soft memory limit to the cap the spec's
// fits run under (spec.MemoryLimit: --memory, else the spec's
// memory_limit, else experiments.DefaultMemoryLimit) while a command runs,
// unless GOMEMLIMIT is set or the cap is lifted (memory_limit: 0), so that
// garbage is collected before the process outgrows the cap: the plans count
// live bytes, and without a soft limit the heap may grow to twice them
// before a collection (GOGC = 100). The returned function restores the
// previous limit.
func goLimit(spec *experiments.Spec) (restore func()) {
	limit := spec.MemoryLimit()
	if limit <= 0 || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	prev := debug.SetMemoryLimit(limit)
	return func() { debug.SetMemoryLimit(prev) }
}
