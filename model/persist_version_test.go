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
	"github.com/landmark-ml/landmark/internal/kernelbin"
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
			// Dense models are written as before, plus the fields of
			// version 4: an SVM's and a Falkon's version-2 payload is a
			// prefix of the re-saved one, followed by exactly the version-4
			// fields of the loaded configuration (2 bytes for SVM: memory
			// limit and CacheFloat32; 15 for Falkon: default sampler, center
			// λ, no center weights, given centers, warm start or validation
			// set, Probability off and no calibration). A KRR's backend
			// moves from its configuration to the end and gains a sampler
			// and given centers (2 bytes for Nyström, 0 for exact KRR),
			// followed by Probability and the calibration (2 bytes); the
			// bytes before the backend are unchanged. (A model
			// loaded from version 2 has dense support vectors, and BKA-SVM's
			// local decision functions, saved as positions among the global
			// support vectors when those are known, are re-saved whole as in
			// version 2. BKA-SVM's nested partition file has a version and
			// checksum of its own: only the length is compared, four bytes
			// more for the memory limit, Probability and (no) Platt
			// sigmoids; the centroids of a sparse fit, dense in
			// version 2, are written as CSR since version 3, so that file
			// must shrink.)
			re := buf.Bytes()
			_, p2, err := binfmt.Read(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			_, p4, err := binfmt.Read(bytes.NewReader(re))
			if err != nil {
				t.Fatal(err)
			}
			var same bool
			switch {
			case name == "bkasvm-sparse-fit":
				same = len(re) < len(raw)
			case strings.HasPrefix(name, "bkasvm"):
				same = len(re) == len(raw)+4
			case strings.HasPrefix(name, "svm"):
				// The version-4 fields (2 zero bytes), then version 9's
				// Nu and each task's r (0: 8 zero bytes each).
				extra := make([]byte, 2+8+8*len(est.(*SVM).Info().Tasks))
				same = bytes.Equal(p4[:len(p2)], p2) && bytes.Equal(p4[len(p2):], extra)
			case name == "falkon":
				var e binfmt.Enc
				if err := est.(*Falkon).encodeV4(&e); err != nil {
					t.Fatal(err)
				}
				// Then version 5's Float32Storage (false),
				// PrecondPrecision (empty), version 7's Factor
				// (auto), Plan.Factored (0) and Plan.Factoring (empty),
				// version 8's ClassWeights (no keys, no values) and
				// version 10's NeverCacheKnm (false): one zero byte each.
				same = len(e.Bytes()) == 15 && bytes.Equal(p4, append(append(bytes.Clone(p2), e.Bytes()...), 0, 0, 0, 0, 0, 0, 0, 0))
			case strings.HasPrefix(name, "krr"):
				// The version-4 fields (2 bytes; 4 with Nyström's backend)
				// and version 8's ClassWeights (no keys, no values: 2 zero
				// bytes).
				extra := 4
				if name == "krr-nystrom" {
					extra = 6
				}
				// The configuration up to the backend: kernel, λ, task,
				// seed, workers, memory limit and Cholesky options.
				var e binfmt.Enc
				k := est.(*KRR)
				if err := kernelbin.WriteKernel(&e, k.Kernel); err != nil {
					t.Fatal(err)
				}
				e.Float(k.Lambda)
				encTask(&e, k.Task)
				e.Uint(k.Seed)
				e.Int(k.Workers)
				e.Int64(k.MemoryLimit)
				encChol(&e, k.Cholesky)
				head := e.Bytes()
				same = len(p4) == len(p2)+extra && bytes.Equal(p4[:len(head)], head) && bytes.Equal(p2[:len(head)], head)
			}
			if !same {
				t.Fatalf("re-saved payload of %d bytes is not the version-2 payload of %d with the version-4 fields", len(p4), len(p2))
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
