package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadInputCLI is the command-line half of the bad-input table: malformed
// data files, bad flags, misspelt names and damaged model files. Each case
// asserts the exit code (2 usage, 1 other) and the substring of the error
// that teaches the fix: the file and line, the valid choices, the near name.
// A panic fails the test.
func TestBadInputCLI(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := filepath.Join(dir, "good.model")
	var so, se bytes.Buffer
	if code := dispatch(context.Background(), []string{"fit", "--dataset", "cadata", "--subsample", "300", "--estimator", "falkon",
		"--sigma", "2", "--lambda", "1e-6", "--m", "20", "--save", good, "--progress", "never"}, &so, &se); code != 0 {
		t.Fatalf("fit of the reference model: exit %d: %s", code, se.String())
	}
	model, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	flipped := bytes.Clone(model)
	flipped[len(flipped)/2] ^= 0xff
	csv8 := write("eight.csv", "a,b,c,d,e,f,g,h,y\n1,2,3,4,5,6,7,8,9\n")
	csv1 := write("one.csv", "a,b,y\n1,2,3\n")
	fitFlags := func(extra ...string) []string {
		return append([]string{"fit", "--dataset", "cadata", "--subsample", "300", "--estimator", "falkon", "--sigma", "2", "--lambda", "1", "--m", "20", "--progress", "never"}, extra...)
	}
	cases := []struct {
		name string
		args []string
		code int
		want []string
	}{
		// Malformed data files: the file, the line and what is wrong.
		{"libsvm label", []string{"data", "info", write("label.libsvm", "1 1:0.5\nx 1:1\n")}, 1, []string{"label.libsvm: line 2", `label "x" is not a number`}},
		{"libsvm index 0", []string{"data", "info", write("zero.libsvm", "1 1:0.5\n1 0:1\n")}, 1, []string{"zero.libsvm: line 2", "want an integer ≥ 1"}},
		{"libsvm order", []string{"data", "info", write("order.libsvm", "1 2:0.5 1:1\n")}, 1, []string{"order.libsvm: line 1", "indices must ascend"}},
		{"libsvm value", []string{"data", "info", write("value.libsvm", "1 1:abc\n")}, 1, []string{"value.libsvm: line 1", `value "abc" is not a number`}},
		{"libsvm nan", []string{"data", "info", write("nan.libsvm", "1 1:nan\n")}, 1, []string{"nan.libsvm: line 1", "not finite"}},
		{"libsvm no colon", []string{"data", "info", write("colon.libsvm", "1 1\n")}, 1, []string{"colon.libsvm: line 1", "is not index:value"}},
		{"libsvm empty", []string{"data", "info", write("empty.libsvm", "")}, 1, []string{"empty.libsvm", "no data rows"}},
		{"csv short row", []string{"data", "info", write("short.csv", "a,b,y\n1,2,3\n4,5\n")}, 1, []string{"short.csv: line 3", "2 fields, the first record has 3"}},
		{"csv value", []string{"data", "info", write("value.csv", "a,b,y\n1,2,3\n4,x,6\n")}, 1, []string{"value.csv: line 3", `column "b": value "x" is not a number`}},
		{"csv target", []string{"data", "info", csv1, "--target", "q"}, 1, []string{"one.csv: line 1", `no column named "q" (columns: a, b, y)`}},
		{"missing file", []string{"data", "info", filepath.Join(dir, "absent.libsvm")}, 1, []string{"absent.libsvm", "no such file"}},
		// Damaged model files.
		// model.Save's magic, then garbage: model.Load's refusal.
		{"model garbage", []string{"predict", "--model", write("garbage.model", "LANDMARKgarbage"), "--data", csv8}, 1, []string{"garbage.model", "invalid saved file"}},
		{"model neither", []string{"predict", "--model", write("neither.model", "garbage"), "--data", csv8}, 1, []string{"neither.model", "not a saved landmark fit"}},
		{"model truncated", []string{"predict", "--model", write("trunc.model", string(model[:40])), "--data", csv8}, 1, []string{"trunc.model", "truncated"}},
		{"model flipped byte", []string{"predict", "--model", write("flip.model", string(flipped)), "--data", csv8}, 1, []string{"flip.model", "checksum mismatch"}},
		{"model empty", []string{"predict", "--model", write("empty.model", ""), "--data", csv8}, 1, []string{"empty.model", "not a saved landmark fit"}},
		{"model width", []string{"predict", "--model", good, "--data", csv1}, 1, []string{"one.csv: line 1", `missing feature column(s) "x1"`, `"a", "b" are neither features nor the target "y"`}},
		// Bad flags and names on the command line.
		{"unknown command", []string{"rn"}, 2, []string{`unknown command "rn" (did you mean "run"?)`}},
		{"unknown flag", []string{"run", "--smok", "x.yaml"}, 2, []string{`unknown flag --smok (did you mean "--smoke"?)`}},
		{"unknown flag far", []string{"fit", "--zzzzzz"}, 2, []string{"unknown flag --zzzzzz (run with --help for the flags)"}},
		{"bench target", []string{"bench", "falcon"}, 2, []string{`unknown benchmark target "falcon" (did you mean "falkon"?)`}},
		{"data subcommand", []string{"data", "lst"}, 2, []string{`unknown data subcommand "lst" (did you mean "list"?)`}},
		{"progress value", []string{"run", "x.yaml", "--progress", "sometimes"}, 2, []string{"want auto, always or never"}},
		{"run no spec", []string{"run"}, 2, []string{"want one SPEC.yaml, got 0"}},
		{"fit memory unit", fitFlags("--memory", "lots"), 2, []string{`memory "lots"`, "4G, 512MiB"}},
		// Nothing is held beside falkon's rows (its plan counts them): the
		// estimator's limit is the cap itself.
		{"fit memory too small", fitFlags("--memory", "10"), 1, []string{"memory limit exceeded", "the limit is 10 bytes", "--memory sets the cap"}},
		// Refused while reading --data: the flag is named (it said
		// "spec: dataset path:").
		{"fit data over memory", []string{"fit", "--data", csv8, "--estimator", "krr", "--lambda", "1", "--gamma", "1", "--memory", "10"}, 1, []string{"spec: --data: ", "memory limit exceeded", "--memory sets the cap"}},
		{"fit lambda ≤ 0", fitFlags("--lambda", "-1"), 1, []string{"--lambda: lambda = -1, want > 0"}},
		{"fit M > n", fitFlags("--m", "5000"), 1, []string{"m = 5000 exceeds the 300 training rows"}},
		{"fit estimator", append(fitFlags(), "--estimator", "falcon"), 1, []string{`unknown estimator "falcon" (did you mean "falkon"?)`}},
		{"fit kernel", append(fitFlags(), "--kernel", "gausian"), 1, []string{`unknown kernel "gausian" (did you mean "gaussian"?)`}},
		{"fit dataset", append(fitFlags(), "--dataset", "cadat"), 1, []string{`no bundled dataset "cadat" (did you mean "cadata"?)`}},
		{"approx method", []string{"approx", "--data", "cadata", "--method", "nope"}, 2, []string{`unknown method "nope"`, "known:"}},
		{"approx m", []string{"approx", "--data", "cadata", "--m", "0"}, 2, []string{"--m = 0, want ≥ 1"}},
		{"predict no model", []string{"predict", "--data", csv1}, 2, []string{"--model"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var so, se bytes.Buffer
			code := dispatch(context.Background(), c.args, &so, &se)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, c.code, se.String())
			}
			for _, w := range c.want {
				if !strings.Contains(se.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, se.String())
				}
			}
		})
	}
	t.Logf("%d bad inputs", len(cases))
}

// TestFitFlagDataErrorNamesFlag: a malformed file given by --data is
// reported with the file's line and the flag, not with a line and key of
// the YAML spec fit builds from its flags (before, "spec: line 2:
// dataset.path:" named a document the user never wrote).
func TestFitFlagDataErrorNamesFlag(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "miss.csv")
	if err := os.WriteFile(p, []byte("a,b,y\n1,2,1\n3,,-1\n5,6,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var so, se bytes.Buffer
	code := dispatch(context.Background(), []string{"fit", "--data", p, "--gamma", "1", "--progress", "never"}, &so, &se)
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, se.String())
	}
	msg := se.String()
	for _, want := range []string{"--data: ", "miss.csv: line 3", `column "b"`} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not contain %q", msg, want)
		}
	}
	for _, bad := range []string{"spec: line", "dataset.path"} {
		if strings.Contains(msg, bad) {
			t.Errorf("error %q names the built spec (%q)", msg, bad)
		}
	}
}

// TestFitFlagValueErrorNamesFlag: a bad value of a data or estimator flag is
// reported against the flag, without a line of the built spec or the spec
// itself (before: "spec: line 7: estimator.type: … (in the spec built from
// the flags: …)", the whole YAML document on stderr).
func TestFitFlagValueErrorNamesFlag(t *testing.T) {
	cases := []struct{ flag, value, want string }{
		{"--estimator", "falcon", `--estimator: unknown estimator "falcon" (did you mean "falkon"?)`},
		{"--kernel", "gausian", `--kernel: unknown kernel "gausian"`},
		{"--dataset", "nope", `--dataset: no bundled dataset "nope"`},
		{"--lambda", "-1", "--lambda: lambda = -1, want > 0"},
		{"--test-fraction", "1", "--test-fraction: test_fraction = 1, want 0 ≤ f < 1"},
	}
	for _, c := range cases {
		args := []string{"fit", "--gamma", "1", "--progress", "never", c.flag, c.value}
		if c.flag != "--dataset" {
			args = append(args, "--dataset", "heart_scale")
		}
		var so, se bytes.Buffer
		if code := dispatch(context.Background(), args, &so, &se); code != 1 {
			t.Fatalf("%s %s: exit %d, want 1: %s", c.flag, c.value, code, se.String())
		}
		msg := se.String()
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s %s: error %q does not contain %q", c.flag, c.value, msg, c.want)
		}
		if strings.Contains(msg, "spec: line") || strings.Contains(msg, "built from the flags") {
			t.Errorf("%s %s: error %q names the built spec", c.flag, c.value, msg)
		}
	}
}

// TestFitFlagErrorNotGivenFlag: an error about a setting no flag gave (the
// task inferred from the labels, here of a 3-row subsample with one label)
// names the setting, not a flag the user did not type, and no line of the
// built spec.
func TestFitFlagErrorNotGivenFlag(t *testing.T) {
	var so, se bytes.Buffer
	code := dispatch(context.Background(), []string{"fit", "--dataset", "heart_scale", "--gamma", "1", "--subsample", "3", "--seed", "1", "--progress", "never"}, &so, &se)
	msg := se.String()
	if code != 1 || !strings.Contains(msg, "spec: task: task binary but the training data has 1 distinct labels") {
		t.Fatalf("exit %d, error %q: want 1 and the task error without a line", code, msg)
	}
	if strings.Contains(msg, "--task:") || strings.Contains(msg, "spec: line") {
		t.Errorf("error %q names --task (not given) or a line of the built spec", msg)
	}
}

// TestDataFileAsSpec: a data file given where a SPEC.yaml goes (svm-train's
// habit, "landmark fit heart.libsvm") is a usage error (exit 2) telling to
// use --data; before, it was decoded as YAML and reported as "line 1: … is
// a string, want a mapping" (exit 1); so is svm-train's TRAIN MODEL pair,
// with or without --data (it said "open heart.model: no such file"). A
// spec named .txt still runs. The content decides before the spec decoder
// reads the file (dataArg): a LIBSVM file named as the LIBSVM site names
// them (a9a), a gzip CSV without a data name and a saved model are refused
// as such; a spec without an extension, or opening with "---", runs.
func TestDataFileAsSpec(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "heart.libsvm")
	rows := []byte("# comment\n\n1 1:0.5 2:1\n-1 1:0.1\n1 2:0.3\n-1 1:2\n")
	if err := os.WriteFile(data, rows, 0o644); err != nil {
		t.Fatal(err)
	}
	a9a := filepath.Join(dir, "a9a")
	if err := os.WriteFile(a9a, rows, 0o644); err != nil {
		t.Fatal(err)
	}
	wine := filepath.Join(dir, "wine.data")
	if err := os.WriteFile(wine, gzipBytes([]byte("a,b,y\n1,2,0\n3,4,1\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(dir, "heart.fit")
	var so0, se0 bytes.Buffer
	if code := dispatch(context.Background(), []string{"fit", "--data", data, "--gamma", "1", "--save", saved, "--progress", "never"}, &so0, &se0); code != 0 {
		t.Fatalf("fit --save: exit %d: %s", code, se0.String())
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"fit", data, "--gamma", "1"}, "is a LIBSVM data file, not a SPEC.yaml: give it as --data " + data},
		{[]string{"run", data}, "is a LIBSVM data file, not a SPEC.yaml: landmark run takes a spec whose dataset.path names it"},
		{[]string{"fit", a9a}, a9a + " is a LIBSVM data file, not a SPEC.yaml: give it as --data " + a9a},
		{[]string{"run", wine}, wine + " is a CSV data file, not a SPEC.yaml"},
		{[]string{"fit", saved}, saved + " is not a SPEC.yaml: datasets: " + saved + ": invalid input: malformed data: this is a model saved by Landmark, not data: landmark model info"},
		// svm-train TRAIN MODEL: the model file after the data.
		{[]string{"fit", data, filepath.Join(dir, "heart.model"), "--gamma", "1"}, "fit takes its files as flags: svm-train's TRAIN MODEL are --data " + data + " --save " + filepath.Join(dir, "heart.model")},
		{[]string{"fit", "--data", data, filepath.Join(dir, "heart.model"), "--gamma", "1"}, "with --data or --dataset, fit takes no SPEC.yaml; it writes the model with --save " + filepath.Join(dir, "heart.model")},
	} {
		var so, se bytes.Buffer
		code := dispatch(context.Background(), c.args, &so, &se)
		if code != 2 || !strings.Contains(se.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, se.String(), c.want)
		}
	}
	yml := "name: t\ndataset: {name: heart_scale}\ntask: binary\nestimator: {type: krr, lambda: 0.01, kernel: {type: gaussian, gamma: 0.1}}\n"
	for name, text := range map[string]string{"spec.txt": yml, "spec": "# a spec\n---\n" + yml} {
		spec := filepath.Join(dir, name)
		if err := os.WriteFile(spec, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		var so, se bytes.Buffer
		if code := dispatch(context.Background(), []string{"fit", spec, "--progress", "never"}, &so, &se); code != 0 {
			t.Errorf("fit %s: exit %d: %s", name, code, se.String())
		}
	}

}

// gzipBytes returns b gzip-compressed.
func gzipBytes(b []byte) []byte {
	var out bytes.Buffer
	w := gzip.NewWriter(&out)
	w.Write(b)
	w.Close()
	return out.Bytes()
}
