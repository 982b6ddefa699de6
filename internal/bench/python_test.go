package bench

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// runPythonScript hands the script its own text, the arrays one after the
// other as little-endian float64 and the extra arguments, and reads one
// result per JSON line; a failing script's last stderr line is the error.
// A shell script stands in for Python (no numpy needed): it copies its
// inputs where the test can read them back.
func TestRunPythonScript(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "python")
	body := "#!/bin/sh\ncp \"$1\" " + dir + "/script\ncp \"$2\" " + dir + "/data\necho \"$3 $4\" > " + dir + "/args\n" +
		"echo '{\"what\":\"a\",\"seconds\":1.5}'\necho '{\"what\":\"b\",\"seconds\":2,\"result\":[3,4]}'\n"
	if err := os.WriteFile(fake, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	x := mat.NewDense(2, 2, []float64{1, -2.5, math.Pi, 0})
	v := mat.NewDense(1, 1, []float64{7})
	res, err := runPythonScript(t.Context(), fake, "s.py", "print(1)\n", []*mat.Dense{x, v}, "10", "0.5")
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || res["a"].Seconds != 1.5 || res["b"].Seconds != 2 || len(res["b"].Result) != 2 || res["b"].Result[1] != 4 {
		t.Errorf("results %+v", res)
	}
	script, _ := os.ReadFile(filepath.Join(dir, "script"))
	data, _ := os.ReadFile(filepath.Join(dir, "data"))
	args, _ := os.ReadFile(filepath.Join(dir, "args"))
	want := []float64{1, -2.5, math.Pi, 0, 7}
	if string(script) != "print(1)\n" || len(data) != 8*len(want) || strings.TrimSpace(string(args)) != "10 0.5" {
		t.Fatalf("script %q, %d data bytes, args %q", script, len(data), args)
	}
	for i, w := range want {
		if got := math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:])); got != w {
			t.Errorf("value %d: %v, want %v", i, got, w)
		}
	}
	bad := filepath.Join(dir, "bad")
	if err := os.WriteFile(bad, []byte("#!/bin/sh\necho noise >&2\necho 'ImportError: numpy' >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := runPythonScript(t.Context(), bad, "s.py", "", nil); err == nil || !strings.Contains(err.Error(), "ImportError: numpy") {
		t.Errorf("failing script: err = %v", err)
	}
}
