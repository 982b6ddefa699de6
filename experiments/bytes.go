package experiments

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseBytes reads a byte count given as bytes or with a unit: K, M, G, T
// (and KB…TB) are powers of 1000, KiB, MiB, GiB, TiB powers of 1024; the
// unit is case-insensitive ("4G", "512MiB", "1000000").
func ParseBytes(s string) (int64, error) {
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
