package bench

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestCPUModelFrom(t *testing.T) {
	text := "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9B45 128-Core\nflags\t: fpu\nprocessor\t: 1\nmodel name\t: other\n"
	if got := cpuModelFrom(strings.NewReader(text)); got != "AMD EPYC 9B45 128-Core" {
		t.Errorf("model %q", got)
	}
	if got := cpuModelFrom(strings.NewReader("processor : 0\nflags : fpu\n")); got != "" {
		t.Errorf("no model line: %q", got)
	}
	if cpuModel() == "" {
		t.Error("cpuModel is empty")
	}
}

// TestBenchEnginePath runs "landmark bench kernel" and "bench linalg" (this
// test binary as the command, tiny sizes, no Python) with LANDMARK_SIMD=
// portable and with the variable empty, and checks the host line names the
// CPU and the path that ran: portable with the variable's note naming the
// CPU's widest path, and, with the variable empty, that widest path alone.
func TestBenchEnginePath(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the test binary four times")
	}
	prefix := "host: " + cpuModel() + ", "
	for _, target := range [][]string{
		{"kernel", "-n", "50", "-m", "10", "-d", "3", "-repeats", "1", "-no-python"},
		{"linalg", "-m", "40", "-rhs", "3", "-gonum=false", "-no-python"},
	} {
		hostLine := func(simd string) string {
			cmd := exec.Command(os.Args[0], append([]string{"bench"}, target...)...)
			cmd.Env = append(os.Environ(), testMainEnv+"=1", "LANDMARK_SIMD="+simd, "LANDMARK_NOSIMD=")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("bench %s with LANDMARK_SIMD=%q: %v\n%s", target[0], simd, err, out)
			}
			for _, l := range strings.Split(string(out), "\n") {
				if strings.HasPrefix(l, prefix) {
					return l
				}
			}
			t.Fatalf("bench %s with LANDMARK_SIMD=%q: no line starting %q\n%s", target[0], simd, prefix, out)
			return ""
		}
		forced := hostLine("portable")
		const note = "; engine path: portable (LANDMARK_SIMD=portable; the CPU supports "
		i := strings.Index(forced, note)
		if i < 0 || !strings.HasSuffix(forced, ")") {
			t.Fatalf("bench %s, LANDMARK_SIMD=portable: host line %q, want it to contain %q", target[0], forced, note)
		}
		widest := strings.TrimSuffix(forced[i+len(note):], ")")
		if def := hostLine(""); !strings.HasSuffix(def, "; engine path: "+widest) {
			t.Errorf("bench %s, LANDMARK_SIMD empty: host line %q, want the path %q the portable run named as the CPU's widest", target[0], def, widest)
		}
	}
}
