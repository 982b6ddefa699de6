package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/landmark-ml/landmark/experiments"
)

// memoryFlag is --memory: a cap on the planned peak memory of every fit,
// given as bytes or with a unit (K, M, G, T: powers of 1000; KiB, MiB, GiB,
// TiB: powers of 1024). It becomes the estimator option memory_limit.
type memoryFlag struct{ bytes int64 }

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
	m.bytes = b
	return nil
}

const memoryUsage = "cap on the planned peak memory of each fit (memory_limit), e.g. 4G, 512MiB or bytes; a fit over it is refused before allocating"

// parseBytes reads a byte count with an optional unit.
func parseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   float64
	}{
		{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
		{"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"B", 1},
	}
	mult := 1.0
	for _, u := range units {
		if strings.HasSuffix(strings.ToUpper(t), strings.ToUpper(u.suffix)) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v*mult > math.MaxInt64/2 {
		return 0, fmt.Errorf("memory %q: want a non-negative byte count such as 4G, 512MiB or 1000000", s)
	}
	return int64(v * mult), nil
}

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
