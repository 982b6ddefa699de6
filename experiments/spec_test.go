package experiments

import (
	"bytes"
	"errors"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const goodSpec = `name: sine
dataset:
  path: data.libsvm
  standardize: true
  test_fraction: 0.25
task: regression
estimator:
  type: krr
  kernel: {type: gaussian}
  approx: {type: exact}
  jitter: 1.0e-9
grid:
  lambda: [1.0e-6, 1.0e-3, 1]
  gamma: [0.1, 1]
cv: {folds: 3, metric: rmse}
repeats: 2
seed: 7
output: out/sine
`

func mustDecode(t *testing.T, text string) *Spec {
	t.Helper()
	s, err := Decode(strings.NewReader(text), ".")
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	return s
}

func TestSpecRoundTrip(t *testing.T) {
	s := mustDecode(t, goodSpec)
	var b bytes.Buffer
	if err := s.Encode(&b); err != nil {
		t.Fatal(err)
	}
	s2 := mustDecode(t, b.String())
	s.root, s2.root = nil, nil
	if !reflect.DeepEqual(s, s2) {
		t.Fatalf("round trip changed the spec:\n%+v\n%+v\nYAML:\n%s", s, s2, b.String())
	}
	if s.Hash() != s2.Hash() {
		t.Fatal("round trip changed the hash")
	}
	// The decoded values are the ones written.
	if s.Estimator.Options["jitter"] != 1e-9 || s.Seed != 7 || s.CV.Folds != 3 || !slices.Equal(s.Grid["lambda"], []float64{1e-6, 1e-3, 1}) {
		t.Fatalf("decoded values differ from the YAML: %+v", s)
	}
	var b2 bytes.Buffer
	if err := s2.Encode(&b2); err != nil {
		t.Fatal(err)
	}
	if b.String() != b2.String() {
		t.Fatalf("encode is not stable:\n%s\n%s", b.String(), b2.String())
	}
}

func TestSpecHashChanges(t *testing.T) {
	a := mustDecode(t, goodSpec)
	b := mustDecode(t, strings.Replace(goodSpec, "seed: 7", "seed: 8", 1))
	c := mustDecode(t, strings.Replace(goodSpec, "output: out/sine", "output: elsewhere", 1))
	if a.Hash() == b.Hash() {
		t.Error("different seeds, same hash")
	}
	if a.Hash() != c.Hash() {
		t.Error("the output folder changed the hash")
	}
	if a.Hash() == a.Smoke().Hash() {
		t.Error("smoke spec has the full spec's hash")
	}
}

// TestBadSpecs: every invalid spec fails with an error that names the problem
// and the line where it is.
func TestBadSpecs(t *testing.T) {
	cases := []struct {
		name, old, new string
		line           int
		want           string
	}{
		{"unknown top key", "seed: 7", "seed: 7\ncolour: red", 18, "colour"},
		{"unknown dataset key", "  standardize: true", "  standardise: true", 4, "standardise"},
		{"unknown estimator option", "  jitter: 1.0e-9", "  jiter: 1.0e-9", 11, `unknown key "jiter" for estimator krr (did you mean "jitter"?)`},
		{"wrong type seed", "seed: 7", "seed: seven", 17, "seven"},
		{"wrong type grid", "[1.0e-6, 1.0e-3, 1]", "[1.0e-6, big, 1]", 13, "big"},
		{"negative lambda", "[1.0e-6, 1.0e-3, 1]", "[1.0e-6, -1.0e-3, 1]", 13, "lambda = -0.001, want > 0"},
		{"zero lambda", "[1.0e-6, 1.0e-3, 1]", "[0, 1.0e-3, 1]", 13, "lambda = 0"},
		{"zero gamma", "gamma: [0.1, 1]", "gamma: [0.1, 0]", 14, "gamma = 0"},
		{"one fold", "folds: 3", "folds: 1", 15, "folds = 1, want at least 2"},
		{"unknown metric", "metric: rmse", "metric: rsme", 15, `unknown metric "rsme"`},
		{"metric for other task", "metric: rmse", "metric: accuracy", 15, "does not apply to regression"},
		{"unknown task", "task: regression", "task: clustering", 6, `unknown task "clustering"`},
		{"unknown estimator", "type: krr", "type: kr", 8, `unknown estimator "kr"`},
		{"unknown kernel", "type: gaussian", "type: gauss", 9, `unknown kernel "gauss"`},
		{"unknown approx", "type: exact", "type: nystrom-foo", 10, `does not take approx "nystrom-foo"`},
		{"lambda and alpha", "  gamma: [0.1, 1]", "  gamma: [0.1, 1]\n  alpha: [1, 2]", 15, "not both"},
		{"gamma and sigma", "  gamma: [0.1, 1]", "  gamma: [0.1, 1]\n  sigma: [1, 2]", 15, "gamma or sigma"},
		{"repeated value", "[1.0e-6, 1.0e-3, 1]", "[1.0e-6, 1.0e-6, 1]", 13, "repeated"},
		{"test_fraction too big", "test_fraction: 0.25", "test_fraction: 1.5", 5, "test_fraction = 1.5"},
		{"name and path", "  path: data.libsvm", "  path: data.libsvm\n  name: cadata", 4, "not both"},
		{"unknown grid axis", "  gamma: [0.1, 1]", "  gamma: [0.1, 1]\n  depth: [1, 2]", 15, `unknown grid parameter "depth"`},
		{"option both fixed and gridded", "  jitter: 1.0e-9", "  jitter: 1.0e-9\n  lambda: 0.1", 14, "both an estimator option and a grid axis"},
		{"missing lambda", "  lambda: [1.0e-6, 1.0e-3, 1]\n", "", 7, "needs lambda"},
		{"integer option not integer", "  jitter: 1.0e-9", "  workers: 1.5", 11, "want an integer"},
		{"bad format", "  standardize: true", "  format: arff", 4, `unknown format "arff"`},
		{"yaml syntax", "cv: {folds: 3, metric: rmse}", "cv: {folds: 3, metric: rmse", 14, "line"}, // yaml.v3 names the line before an unterminated flow mapping,
		{"negative repeats", "repeats: 2", "repeats: -1", 16, "repeats = -1"},
		{"negative subsample", "  standardize: true", "  subsample: -5", 4, "subsample = -5"},
		{"degree of gaussian", "type: gaussian}", "type: gaussian, degree: 2}", 9, "the gaussian kernel has no degree (degree: polynomial)"},
		{"coef0 grid of gaussian", "  gamma: [0.1, 1]", "  gamma: [0.1, 1]\n  coef0: [0, 1]", 15, "the gaussian kernel has no coef0 (coef0: polynomial and sigmoid)"},
		{"gamma of linear", "type: gaussian}", "type: linear}", 14, "the linear kernel has no gamma (gamma: gaussian, laplacian, polynomial and sigmoid)"},
		{"negative polynomial coef0 in grid", "type: gaussian}", "type: polynomial}", 15, "coef0 = -1, want ≥ 0"},
	}
	if len(cases) < 15 {
		t.Fatal("the issue asks for at least 15 bad specs")
	}
	lineRe := regexp.MustCompile(`line (\d+)`)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := strings.Replace(goodSpec, c.old, c.new, 1)
			if c.name == "negative polynomial coef0 in grid" {
				// Every value is checked, not only the first (a fit with c₀ = −1 would fail late).
				text = strings.Replace(text, "  gamma: [0.1, 1]", "  gamma: [0.1, 1]\n  coef0: [1, -1]", 1)
			}
			if text == goodSpec {
				t.Fatalf("test case does not change the spec")
			}
			_, err := Decode(strings.NewReader(text), ".")
			if err == nil {
				t.Fatalf("accepted:\n%s", text)
			}
			if !errors.Is(err, ErrSpec) {
				t.Errorf("error does not wrap ErrSpec: %v", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not mention %q", err, c.want)
			}
			m := lineRe.FindStringSubmatch(err.Error())
			if m == nil || m[1] != strconv.Itoa(c.line) {
				t.Errorf("error %q does not name line %d", err, c.line)
			}
		})
	}
}

func TestSmokeShrinks(t *testing.T) {
	s := mustDecode(t, goodSpec)
	sm := s.Smoke()
	if err := sm.Validate(); err != nil {
		t.Fatalf("smoke spec invalid: %v", err)
	}
	if n := len(sm.Grid.Points()); n > 2 || n < 1 {
		t.Errorf("smoke grid has %d points, want 1–2", n)
	}
	if sm.CV.Folds != 2 || sm.Dataset.Subsample != smokeTrain {
		t.Errorf("smoke settings not applied: %+v", sm)
	}
	// The original is untouched.
	if len(s.Grid.Points()) != 6 || s.CV.Folds != 3 {
		t.Error("Smoke modified its receiver")
	}
}

func TestTablesSorted(t *testing.T) {
	names := make([]string, len(estimators))
	for i, e := range estimators {
		names[i] = e.Name
		if !slices.IsSortedFunc(e.Options, func(a, b Option) int { return strings.Compare(a.Name, b.Name) }) {
			t.Errorf("options of %s not sorted", e.Name)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("estimator table not sorted: %v", names)
	}
	if !slices.IsSorted(MetricNames()) {
		t.Errorf("metric table not sorted: %v", MetricNames())
	}
}

func TestOptionNeedsBackend(t *testing.T) {
	spec := strings.Replace(goodSpec, "  jitter: 1.0e-9", "  m: 100", 1)
	_, err := Decode(strings.NewReader(spec), ".")
	if err == nil || !strings.Contains(err.Error(), "line 11: estimator.m: m does not apply to krr with approx exact") {
		t.Errorf("m with exact KRR: %v", err)
	}
	// Without an approx (the exact fit by default) the message names the
	// backends that take the option, uniform first: m is taken by every
	// sampler, with and without -qr, and rff; clusters only by meka.
	noApprox := strings.Replace(spec, "  approx: {type: exact}\n", "", 1)
	_, err = Decode(strings.NewReader(noApprox), ".")
	if err == nil || !strings.Contains(err.Error(), "m does not apply to krr without an approx (the exact fit); give an approx that takes it: uniform, bless, bless-qr, bless-r, bless-r-qr, clustered and ") {
		t.Errorf("m with KRR's default approx: %v", err)
	}
	_, err = Decode(strings.NewReader(strings.Replace(noApprox, "  m: 100", "  clusters: 3", 1)), ".")
	if err == nil || !strings.Contains(err.Error(), "clusters does not apply to krr without an approx (the exact fit); give an approx that takes it: meka") {
		t.Errorf("clusters with KRR's default approx: %v", err)
	}
	spec = strings.Replace(spec, "type: exact", "type: rls", 1)
	if _, err := Decode(strings.NewReader(spec), "."); err != nil {
		t.Errorf("m with Nyström KRR rejected: %v", err)
	}
}

// TestSigmoidSpec: the sigmoid kernel takes a negative c₀, in the kernel
// block and on a grid axis (Lin & Lin 2003's usual setting), and no degree.
func TestSigmoidSpec(t *testing.T) {
	for _, text := range []string{
		strings.Replace(goodSpec, "type: gaussian}", "type: sigmoid, coef0: -1}", 1),
		strings.Replace(strings.Replace(goodSpec, "type: gaussian}", "type: sigmoid}", 1), "  gamma: [0.1, 1]", "  gamma: [0.1, 1]\n  coef0: [-1, 0.5]", 1),
	} {
		if _, err := Decode(strings.NewReader(text), "."); err != nil {
			t.Errorf("%v\n%s", err, text)
		}
	}
}
