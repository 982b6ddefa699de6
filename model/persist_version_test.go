package model

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/internal/binfmt"
	"gonum.org/v1/gonum/mat"
)

// v2Inputs are the inputs the decision values in testdata/v2 were computed
// on, by name (the generator used conformance cases 11–13 and a sparse
// classification set drawn from PCG(5, 6): 60 training rows, then 10 test
// rows, 40 columns, density 0.1).
func v2Inputs(t *testing.T) map[string]mat.Matrix {
	t.Helper()
	bin, multi, reg := conformanceBinary(12), conformanceMulticlass(13), conformanceRegression(11)
	rng := rand.New(rand.NewPCG(5, 6))
	sparseClassification(rng, 60, 40, 0.1)
	xst, _ := sparseClassification(rng, 10, 40, 0.1)
	return map[string]mat.Matrix{
		"svm-binary": bin.x, "svm-ovo-probability": multi.x, "bkasvm-local": multi.x,
		"krr-exact": reg.x, "krr-nystrom": reg.x, "falkon": reg.x,
		"svm-sparse-fit": xst, "krr-sparse-fit": xst, "bkasvm-sparse-fit": xst,
	}
}

// Files written by format version 2 (testdata/v2, saved by the build
// before sparse matrices were added) still load, and give the decision
// values recorded when they were written, to 1e-12 relative to the largest
// magnitude: the values were computed on the same machine type, but the
// kernel engine's vector code may differ by CPU in the last bits (the
// loaded coefficients themselves are exact). Saved again, they are version
// 3 files with the same payload bytes, which load to the same decision
// values bit for bit.
func TestLoadVersion2Files(t *testing.T) {
	inputs := v2Inputs(t)
	files, err := filepath.Glob("testdata/v2/*.lmk")
	if err != nil || len(files) != len(inputs) {
		t.Fatalf("%d files in testdata/v2, want %d (%v)", len(files), len(inputs), err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".lmk")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if v := binary.LittleEndian.Uint16(raw[8:]); v != 2 {
				t.Fatalf("file of version %d", v)
			}
			est, err := LoadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			x := inputs[name]
			got, err := est.(decider).DecisionFunction(x)
			if err != nil {
				t.Fatal(err)
			}
			want := readDecision(t, strings.TrimSuffix(f, ".lmk")+".decision")
			g := got.RawMatrix().Data
			if len(g) != len(want) {
				t.Fatalf("%d decision values, want %d", len(g), len(want))
			}
			var scale, worst float64
			for i := range want {
				scale = math.Max(scale, math.Abs(want[i]))
				worst = math.Max(worst, math.Abs(g[i]-want[i]))
			}
			if worst > 1e-12*scale {
				t.Fatalf("decision values differ from the recorded ones by %g (scale %g)", worst, scale)
			}
			var buf bytes.Buffer
			if err := Save(&buf, est); err != nil {
				t.Fatal(err)
			}
			if v := binary.LittleEndian.Uint16(buf.Bytes()[8:]); v != binfmt.Version {
				t.Fatalf("re-saved as version %d", v)
			}
			// Dense models are written as before: apart from the version
			// field and the checksum, the bytes are the version-2 file's.
			// (A model loaded from version 2 has dense support vectors, and
			// BKA-SVM's local decision functions, saved as positions among
			// the global support vectors when those are known, are re-saved
			// whole as in version 2. BKA-SVM's nested partition file has a
			// version and checksum of its own: only the length is compared;
			// the centroids of a sparse fit, dense in version 2, are written
			// as CSR since version 3, so that file must shrink.)
			re := buf.Bytes()
			same := len(re) == len(raw) && bytes.Equal(re[:8], raw[:8]) && bytes.Equal(re[10:len(re)-4], raw[10:len(raw)-4])
			switch {
			case name == "bkasvm-sparse-fit":
				same = len(re) < len(raw)
			case strings.HasPrefix(name, "bkasvm"):
				same = len(re) == len(raw)
			}
			if !same {
				t.Fatalf("re-saved file of %d bytes differs from the version-2 file of %d beyond version and checksum", len(re), len(raw))
			}
			again, err := Load(&buf)
			if err != nil {
				t.Fatal(err)
			}
			got2, err := again.(decider).DecisionFunction(x)
			if err != nil {
				t.Fatal(err)
			}
			if !sameBits(got2.RawMatrix().Data, g) {
				t.Fatal("the re-saved file predicts differently")
			}
		})
	}
}

func readDecision(t *testing.T, path string) []float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v []float64
	for _, line := range strings.Fields(string(b)) {
		f, err := strconv.ParseFloat(line, 64)
		if err != nil {
			t.Fatal(err)
		}
		v = append(v, f)
	}
	return v
}
