package bench

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// zeroBasedCopy writes the LIBSVM file at path with every index one less
// (0-based, as scikit-learn's dump_svmlight_file writes by default).
func zeroBasedCopy(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := regexp.MustCompile(`(\d+):`).ReplaceAllFunc(b, func(m []byte) []byte {
		k, _ := strconv.Atoi(string(m[:len(m)-1]))
		return []byte(strconv.Itoa(k-1) + ":")
	})
	p := filepath.Join(t.TempDir(), "zero-"+filepath.Base(path))
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBenchFilesZeroBased: bench svm's -train-file/-test-file pair written
// 0-based and read with -zero-based is the 1-based pair's CSR exactly;
// without it index 0 is refused.
func TestBenchFilesZeroBased(t *testing.T) {
	train, test := sparseBenchToy(t, 30, 20)
	tr1, te1, err := benchFiles(t.Context(), train, test, 0, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	z0, z1 := zeroBasedCopy(t, train), zeroBasedCopy(t, test)
	tr0, te0, err := benchFiles(t.Context(), z0, z1, 0, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range [][2]benchSet{{tr0, tr1}, {te0, te1}} {
		if !mat.Equal(mat.DenseCopyOf(p[0].x), mat.DenseCopyOf(p[1].x)) || fmt.Sprint(p[0].y) != fmt.Sprint(p[1].y) {
			t.Fatal("0-based pair read with -zero-based differs from the 1-based pair")
		}
	}
	if _, _, err := benchFiles(t.Context(), z0, z1, 0, 0, false); err == nil {
		t.Fatal("0-based pair read without -zero-based: no error")
	}
}

// TestSparseBenchZeroBased: bench sparse -zero-based on the 0-based copy of
// the toy pair prints the accuracies the 1-based pair gives, for Landmark
// (its child reads with the flag) and scikit-learn (told zero_based=True;
// never "auto"). Skipped without Python and scikit-learn.
func TestSparseBenchZeroBased(t *testing.T) {
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import sklearn").Run(); err != nil {
		t.Skip("no " + py + " with scikit-learn")
	}
	t.Setenv(testMainEnv, "1")
	train, test := sparseBenchToy(t, 40, 30)
	row := regexp.MustCompile(`(?m)^\| (landmark Falkon|scikit-learn)[^|]* \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \| ([0-9.]+) \|`)
	accs := func(args ...string) string {
		var so, se bytes.Buffer
		args = append(args, "-m", "40", "-gamma", "1", "-lambda", "0.05", "-iter", "40", "-methods", "landmark,sklearn", "-python", py, "-progress", "never")
		if err := runBenchSparse(t.Context(), args, &so, &se); err != nil {
			t.Fatalf("%v\n%s", err, se.String())
		}
		m := row.FindAllStringSubmatch(so.String(), -1)
		if len(m) != 2 {
			t.Fatalf("want two rows:\n%s\n%s", so.String(), se.String())
		}
		return m[0][1] + " " + m[0][2] + ", " + m[1][1] + " " + m[1][2]
	}
	one := accs("-train", train, "-test", test)
	zero := accs("-train", zeroBasedCopy(t, train), "-test", zeroBasedCopy(t, test), "-zero-based")
	if one != zero {
		t.Fatalf("accuracies: 1-based %s, 0-based with -zero-based %s", one, zero)
	}
}
