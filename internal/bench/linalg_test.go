package bench

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestBenchLinalg runs a small "bench linalg" (M = 300 and 600, both across
// the 256 block) with gonum and the portable tiles, and checks every row is
// there (the float32 ones too) and that ours agrees with gonum's Dpotrf, Dlauum and Dtrsm on the
// same matrices: the rel.diff column must be at round-off (1e-12; these
// matrices have condition ≈ 1e3, the Gaussian K_MM + 1e-5·M·I).
func TestBenchLinalg(t *testing.T) {
	var out, errOut bytes.Buffer
	args := []string{"linalg", "-m", "300,600", "-rhs", "70", "-portable", "-no-python", "--progress", "always"}
	if err := Run(context.Background(), args, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	rows, rows32 := 0, 0
	for _, line := range strings.Split(out.String(), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || (f[0] != "300" && f[0] != "600") {
			continue
		}
		rows++
		if strings.HasSuffix(f[1], "32") || strings.HasPrefix(f[1], "trsm32") || (f[1] == "precond" && f[3] == "f32") {
			// Float32 rows: no gonum side; their time is a number.
			rows32++
			if len(f) < 4 || f[len(f)-1] == "NaN" {
				t.Errorf("float32 row %q", line)
			}
			continue
		}
		if f[1] == "precond" || strings.Contains(f[1], "/portable") || strings.Contains(f[2], "/portable") {
			continue
		}
		// rel.diff follows the speed-up column ("1.23×").
		col := -1
		for i, v := range f {
			if strings.HasSuffix(v, "×") {
				col = i + 1
				break
			}
		}
		if col < 0 || col >= len(f) {
			t.Fatalf("row %q has no speed-up column", line)
		}
		diff, err := strconv.ParseFloat(f[col], 64)
		if err != nil || !(diff < 1e-12) {
			t.Errorf("row %q: rel.diff %q, want < 1e-12", line, f[col])
		}
	}
	// Per M: 3 kernels, the build, 3 float32 kernels, the float32 build,
	// 3 portable kernels.
	if rows != 2*11 || rows32 != 2*4 {
		t.Errorf("%d rows (%d float32), want 22 (8):\n%s", rows, rows32, out.String())
	}
	// Progress: one line per finished size with an ETA (0 after the last).
	done := regexp.MustCompile(`(?m)^bench linalg: \[(\d)/2\] M = (\d+) done \(elapsed \S+, ETA (\S+)\)$`).FindAllStringSubmatch(errOut.String(), -1)
	if len(done) != 2 || done[0][2] != "300" || done[1][2] != "600" || done[1][3] != "0s" {
		t.Errorf("want a finished line per M (300, 600):\n%s", errOut.String())
	}
	errOut.Reset()
	if err := Run(context.Background(), []string{"linalg", "-m", "40", "-rhs", "5", "-gonum=false", "-no-python", "--progress", "never"}, &out, &errOut); err != nil || errOut.Len() != 0 {
		t.Errorf("--progress never: %v, stderr %q", err, errOut.String())
	}
}
