package experiments

import (
	"errors"
	"strings"
	"testing"
)

// TestBadInputYAML is the YAML half of the bad-input table: each spec is a
// valid one with one mistake, and the error must wrap ErrSpec, name the line
// and contain the text that teaches the fix (valid keys of the level, where
// a misplaced key belongs, the near name, the allowed range).
func TestBadInputYAML(t *testing.T) {
	const base = `name: x
dataset: {name: cadata}
task: regression
estimator:
  type: krr
  kernel: {type: gaussian, gamma: 1}
  lambda: 0.001
cv: {folds: 3, metric: rmse}
seed: 1
`
	cases := []struct {
		name, from, to string
		line           int
		want           []string
	}{
		{"approx option on the estimator's level", "  lambda: 0.001", "  lambda: 0.001\n  approx: {type: meka, clusters: 5}", 8,
			[]string{`unknown key "clusters" for estimator krr: clusters belongs in estimator or grid, not in estimator.approx`, "valid keys of estimator.approx: type"}},
		{"cv key in the estimator", "  lambda: 0.001", "  lambda: 0.001\n  folds: 3", 8, []string{"folds belongs in cv, not in estimator", "valid keys of estimator: approx, kernel, type"}},
		{"misspelt estimator key", "  lambda: 0.001", "  lambda: 0.001\n  kernle: 3", 8, []string{`(did you mean "kernel"?)`}},
		{"key of another level misspelt", "  lambda: 0.001", "  lambda: 0.001\n  mtric: rmse", 8, []string{"(did you mean cv.metric?)"}},
		{"unknown top-level key", "seed: 1", "seed: 1\nfolds: 3", 10, []string{"folds belongs in cv, not in the top level", "valid keys of the top level: approximation, cv, dataset"}},
		{"misspelt top-level key", "seed: 1", "sed: 1", 9, []string{`unknown key "sed" (did you mean "seed"?)`}},
		{"unknown dataset key", "{name: cadata}", "{name: cadata, stratify: true}", 2, []string{`unknown key "stratify"`, "valid keys of dataset: delim, drop, format, header, name, path"}},
		{"estimator key in dataset", "{name: cadata}", "{name: cadata, lambda: 1}", 2, []string{"lambda belongs in estimator or grid, not in dataset"}},
		{"unknown cv key", "{folds: 3, metric: rmse}", "{folds: 3, metric: rmse, shuffle: true}", 8, []string{`unknown key "shuffle"`, "valid keys of cv: folds, metric, stratified"}},
		{"unknown kernel key", "{type: gaussian, gamma: 1}", "{type: gaussian, gama: 1}", 6, []string{`unknown key "gama" (did you mean "gamma"?)`, "valid keys of estimator.kernel: coef0, degree, gamma, sigma, type"}},
		{"misspelt estimator", "type: krr", "type: kr", 5, []string{`unknown estimator "kr" (did you mean "krr"?)`, "known: bka-svm, falkon, krr, one-class-svm, svm, svr"}},
		{"misspelt kernel", "type: gaussian", "type: gausian", 6, []string{`unknown kernel "gausian" (did you mean "gaussian"?)`}},
		{"misspelt metric", "metric: rmse", "metric: rmes", 8, []string{`unknown metric "rmes" (did you mean "rmse"?)`}},
		{"metric of another task", "metric: rmse", "metric: accuracy", 8, []string{"metric accuracy does not apply to regression"}},
		{"misspelt task", "task: regression", "task: regresion", 3, []string{`unknown task "regresion" (did you mean "regression"?)`}},
		{"misspelt dataset", "{name: cadata}", "{name: cadat}", 2, []string{`no bundled dataset "cadat" (did you mean "cadata"?)`}},
		{"misspelt approx", "  lambda: 0.001", "  lambda: 0.001\n  approx: {type: nystrm}", 8, []string{`does not take approx "nystrm"`, "it takes:"}},
		{"lambda zero", "lambda: 0.001", "lambda: 0", 7, []string{"lambda = 0, want > 0"}},
		{"lambda negative", "lambda: 0.001", "lambda: -1", 7, []string{"lambda = -1, want > 0"}},
		{"lambda not a number", "lambda: 0.001", "lambda: small", 7, []string{"lambda", "number"}},
		{"seed wrong type", "seed: 1", "seed: [1]", 0, []string{"line 9", "is a list, want a non-negative integer"}},
		{"dataset wrong type", "{name: cadata}", "cadata", 0, []string{"line 2", `"cadata" is a string, want a mapping`}},
		{"folds one", "folds: 3", "folds: 1", 8, []string{"folds = 1, want at least 2"}},
		{"folds wrong type", "folds: 3", "folds: three", 0, []string{"line 8", `"three" is a string, want an integer`}},
		{"test_fraction one", "{name: cadata}", "{name: cadata, test_fraction: 1}", 2, []string{"test_fraction = 1, want 0 ≤ f < 1"}},
		{"negative gamma", "gamma: 1}", "gamma: -1}", 6, []string{"gamma"}},
		{"gamma and sigma", "gamma: 1}", "gamma: 1, sigma: 2}", 6, []string{"set gamma or sigma, not both"}},
		{"grid misspelt", "seed: 1", "seed: 1\ngrid: {lamda: [1, 2]}", 10, []string{`unknown grid parameter "lamda"`, `(did you mean "lambda"?)`}},
		{"grid repeated value", "  lambda: 0.001\ncv:", "grid: {lambda: [1, 1]}\ncv:", 7, []string{"value 1 repeated"}},
		{"grid and option", "seed: 1", "seed: 1\ngrid: {lambda: [1, 2]}", 10, []string{"lambda is both an estimator option and a grid axis"}},
		{"missing name", "name: x", "name: ''", 1, []string{"missing name"}},
		{"name leaving results", "name: x", "name: ../../x", 1, []string{`name "../../x" is not a plain name`, "must not leave"}},
		{"name dot-dot", "name: x", "name: ..", 1, []string{"is not a plain name"}},
		{"output absolute", "seed: 1", "seed: 1\noutput: /tmp/x", 10, []string{`output "/tmp/x" leaves the working directory`, "Options.Out"}},
		{"output escaping", "seed: 1", "seed: 1\noutput: results/../../x", 10, []string{"leaves the working directory"}},
		{"bad header", "{name: cadata}", "{name: cadata, header: maybe}", 2, []string{`header "maybe": want auto, yes or no`}},
		{"bad delim", "{name: cadata}", "{name: cadata, delim: ';;'}", 2, []string{`delim ";;": want one character`}},
		{"header on libsvm", "{name: cadata}", "{path: a.libsvm, format: libsvm, header: yes}", 2, []string{"header and delim describe CSV files"}},
		{"metric for another task", "task: regression", "task: binary", 8, []string{"metric rmse does not apply to binary"}},
		{"syntax error", "seed: 1", "seed: [1", 0, []string{"line"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(base, c.from) {
				t.Fatalf("base spec lacks %q", c.from)
			}
			src := strings.Replace(base, c.from, c.to, 1)
			_, err := Decode(strings.NewReader(src), ".")
			if err == nil {
				t.Fatalf("accepted:\n%s", src)
			}
			if !errors.Is(err, ErrSpec) {
				t.Errorf("error does not wrap ErrSpec: %v", err)
			}
			var se *SpecError
			if c.line > 0 && (!errors.As(err, &se) || se.Line != c.line) {
				t.Errorf("want line %d: %v", c.line, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
	t.Logf("%d bad specs", len(cases))
}
