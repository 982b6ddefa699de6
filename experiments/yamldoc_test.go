package experiments

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/landmark-ml/landmark/kernel"
)

// updateYAMLDoc rewrites the generated part of docs/yaml.md:
//
//	go test ./experiments -run TestYAMLReference -update-yaml-doc
var updateYAMLDoc = flag.Bool("update-yaml-doc", false, "rewrite the generated part of ../docs/yaml.md")

const (
	yamlDocPath  = "../docs/yaml.md"
	yamlDocBegin = "<!-- BEGIN GENERATED: go test ./experiments -run TestYAMLReference -update-yaml-doc -->"
	yamlDocEnd   = "<!-- END GENERATED -->"
)

// TestYAMLReference checks that docs/yaml.md's key reference is what the
// spec table generates: every key of every level (the yaml tags of Spec,
// DatasetSpec, kernel.Spec, CVSpec, ApproximationSpec and the paper block,
// with the fields' doc comments), every estimator's options and approx
// options (name, type, bounds, the backends they apply to, Doc), the
// backends, approximation methods, kernels and metrics. A key added,
// removed or re-documented in the code without regenerating the page fails
// here; -update-yaml-doc regenerates it.
func TestYAMLReference(t *testing.T) {
	want, err := yamlReference()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(yamlDocPath)
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	i, j := strings.Index(s, yamlDocBegin), strings.Index(s, yamlDocEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: markers %q … %q not found", yamlDocPath, yamlDocBegin, yamlDocEnd)
	}
	got := s[i+len(yamlDocBegin) : j]
	if got == want {
		return
	}
	if *updateYAMLDoc {
		s = s[:i+len(yamlDocBegin)] + want + s[j:]
		if err := os.WriteFile(yamlDocPath, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote %s", yamlDocPath)
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	for k := 0; k < min(len(gl), len(wl)); k++ {
		if gl[k] != wl[k] {
			t.Fatalf("%s is out of date with the spec table (regenerate: go test ./experiments -run TestYAMLReference -update-yaml-doc); first difference at generated line %d:\n doc:  %s\n code: %s", yamlDocPath, k+1, gl[k], wl[k])
		}
	}
	t.Fatalf("%s is out of date with the spec table (regenerate: go test ./experiments -run TestYAMLReference -update-yaml-doc): %d generated lines in the doc, %d from the code", yamlDocPath, len(gl), len(wl))
}

// TestYAMLReferenceKeysMatchDecoder checks the page's source of truth
// against the decoder's: the keys the generator reads from the struct
// tags in the source equal the keys checkKeys accepts at each level.
func TestYAMLReferenceKeysMatchDecoder(t *testing.T) {
	docs, err := fieldDocs()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []struct {
		typ  string
		keys []string
	}{
		{"Spec", topKeys}, {"DatasetSpec", datasetKeys}, {"CVSpec", cvKeys},
		{"kernel.Spec", kernelKeys}, {"ApproximationSpec", approxKeys},
		{"PaperSpec", paperKeys}, {"PaperFigure", paperFigureKeys}, {"PaperClaim", paperClaimKeys},
	} {
		var got []string
		for _, f := range docs[l.typ] {
			got = append(got, f.key)
		}
		slices.Sort(got)
		if !slices.Equal(got, l.keys) {
			t.Errorf("%s: source tags give %v, the decoder accepts %v", l.typ, got, l.keys)
		}
	}
}

// fieldDoc is one YAML key of a struct with its field's doc comment.
type fieldDoc struct {
	key, doc string
}

// fieldDocs parses this package's and package kernel's source and returns,
// for each struct type the spec decodes, its YAML keys in source order with
// the fields' doc comments joined into one line.
func fieldDocs() (map[string][]fieldDoc, error) {
	out := map[string][]fieldDoc{}
	wanted := map[string]map[string]bool{
		".":         {"Spec": true, "DatasetSpec": true, "CVSpec": true, "ApproximationSpec": true, "PaperSpec": true, "PaperFigure": true, "PaperClaim": true},
		"../kernel": {"Spec": true},
	}
	for dir, types := range wanted {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			return nil, err
		}
		fset := token.NewFileSet()
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
			if err != nil {
				return nil, err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				ts, ok := n.(*ast.TypeSpec)
				if !ok || !types[ts.Name.Name] {
					return true
				}
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					return true
				}
				typ := ts.Name.Name
				if dir != "." {
					typ = filepath.Base(dir) + "." + typ
				}
				for _, fl := range st.Fields.List {
					if fl.Tag == nil {
						continue
					}
					tag := reflect.StructTag(strings.Trim(fl.Tag.Value, "`")).Get("yaml")
					key, _, _ := strings.Cut(tag, ",")
					if tag == "" || key == "-" || strings.Contains(tag, "inline") {
						continue
					}
					doc := strings.Join(strings.Fields(fl.Doc.Text()), " ")
					out[typ] = append(out[typ], fieldDoc{key, doc})
				}
				return false
			})
		}
	}
	return out, nil
}

// yamlReference renders the generated part of docs/yaml.md.
func yamlReference() (string, error) {
	docs, err := fieldDocs()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	level := func(title, typ, intro string) {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n| key | meaning |\n|---|---|\n", title, intro)
		for _, f := range docs[typ] {
			fmt.Fprintf(&b, "| `%s` | %s |\n", f.key, cell(f.doc))
		}
	}
	level("Top level", "Spec", "The keys of the spec file itself.")
	level("dataset", "DatasetSpec", "Where the data comes from and how it is prepared (`dataset: {…}`).")

	fmt.Fprintf(&b, "\n## estimator\n\n`type` names the estimator; `kernel` and `approx` are blocks of their own (below); every other key is one of the estimator's options, listed here per estimator. Numeric options may instead be grid axes.\n")
	for _, e := range Estimators() {
		fmt.Fprintf(&b, "\n### `type: %s`\n\n%s\n\nTasks: %s.", e.Name, cell(e.Summary), strings.Join(e.Tasks, ", "))
		if len(e.Approx) > 0 {
			fmt.Fprintf(&b, " Backends (`approx: {type: …}`): %s.", strings.Join(e.Approx, ", "))
		}
		b.WriteString("\n\n| key | type | allowed | meaning |\n|---|---|---|---|\n")
		opts := slices.Clone(e.Options)
		if e.hasLambda() {
			a, _ := e.option("alpha")
			opts = append(opts, a)
		}
		slices.SortFunc(opts, func(x, y Option) int { return strings.Compare(x.Name, y.Name) })
		for _, o := range opts {
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", o.Name, o.Kind, cell(optionBounds(o, e.Approx)), cell(o.Doc))
		}
		if len(e.ApproxOptions) > 0 {
			fmt.Fprintf(&b, "\nIn its `approx` block, besides `type`:\n\n| key | type | allowed | meaning |\n|---|---|---|---|\n")
			for _, o := range e.ApproxOptions {
				fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", o.Name, o.Kind, cell(optionBounds(o, e.Approx)), cell(o.Doc))
			}
		}
	}

	level("estimator.kernel", "kernel.Spec", fmt.Sprintf("The kernel (`kernel: {type: gaussian, gamma: 0.5}`); types: %s. Its parameters may instead be grid axes. `gamma` may also be `scale`, 1/(d·Var(X)) with Var(X) the variance of all n·d entries of each fit's training rows after the feature scaling (sparse X: from its non-zeros), or `auto`, 1/d, as scikit-learn's SVC; the number used is printed, saved with a fit and recorded in a run's results (`info.gamma`, the folds' mean; `test.gamma`, the refit's). Rules are taken here only: grid values are numbers.", strings.Join(kernel.Names(), ", ")))
	fmt.Fprintf(&b, "\n## grid\n\nEach key is an axis, each value a list, or a range computed on reading: `c: {log2: [-5, 15, 2]}` is 2^-5, 2^-3, …, 2^15 (LIBSVM grid.py's `-log2c -5,15,2`: from begin towards end by step, end included when a step lands on it), `lambda: {logspace: [-9, -3, 7]}` is 10^-9, 10^-8, …, 10^-3 and `sigma: {linspace: [1, 4, 4]}` is 1, 2, 3, 4 (numpy's logspace and linspace: num values, both ends included; integral exponents give exact powers, 1e-9 where numpy gives 9.999999999999999e-10); at most 1,000 values a range. The run covers the cartesian product. Axes: `lambda` (λ, penalty λn) or `alpha` (scikit-learn's λn, converted with each fit's n), the kernel's %s, and any numeric option of the estimator or of its approx block (`m`, `c`, `clusters`, `rank`, `max_iter`, …).\n", "`"+strings.Join(kernelParams, "`, `")+"`")
	level("cv", "CVSpec", "Cross-validation (`cv: {folds: 5, metric: rmse}`).")
	fmt.Fprintf(&b, "\nMetrics (`cv.metric`):\n\n| metric | tasks | better | meaning |\n|---|---|---|---|\n")
	for _, m := range Metrics() {
		dir := "lower"
		if m.HigherBetter {
			dir = "higher"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", m.Name, strings.Join(m.Tasks, ", "), dir, cell(m.Doc))
	}
	level("approximation", "ApproximationSpec", "Instead of `estimator`: an approximation-only run, each method scored by ‖K − K̃‖ against m (no task, no cross-validation).")
	fmt.Fprintf(&b, "\nMethods (`approximation.methods`):\n\n| method | what it is |\n|---|---|\n")
	for _, m := range ApproximationNames() {
		fmt.Fprintf(&b, "| `%s` | %s |\n", m[0], cell(m[1]))
	}
	level("paper", "PaperSpec", "Optional: the reproduced paper's numbers and claims, printed beside the run's (not part of the spec hash; `--smoke` drops it).")
	level("paper.figures[]", "PaperFigure", "One number (or statement) of the paper beside the run's value.")
	level("paper.claims[]", "PaperClaim", "One comparison \"method A below method B\" of an approximation run, checked at every grid point.")
	b.WriteString("\n")
	return b.String(), nil
}

// optionBounds renders what values an option takes and, when it applies
// only with some backends, which.
func optionBounds(o Option, backends []string) string {
	var p []string
	switch {
	case o.Values != nil:
		p = append(p, strings.Join(o.Values, ", "))
	case o.MinOpen:
		p = append(p, fmt.Sprintf("> %g", o.Min))
	case o.HasMin:
		p = append(p, fmt.Sprintf("≥ %g", o.Min))
	}
	if o.AtMostN {
		p = append(p, "≤ training rows")
	}
	if o.Bytes {
		p = append(p, "bytes, or with a unit (4G, 512MiB)")
	}
	if o.Required {
		p = append(p, "required (here or in the grid)")
	}
	if o.With != nil {
		var with []string
		for _, a := range append([]string{""}, backends...) {
			if o.With(a) {
				if a == "" {
					a = "default"
				}
				with = append(with, a)
			}
		}
		p = append(p, "with "+strings.Join(with, ", "))
	}
	return strings.Join(p, "; ")
}

// TestDocLinks checks that every relative link of the user documentation
// (README.md, experiments/README.md, docs/*.md) names a file that exists and,
// for a link into a Markdown file, a heading that file has (GitHub's anchor
// rule: lower case, punctuation dropped, spaces to hyphens). Files move
// under the docs often; a dangling link fails here.
func TestDocLinks(t *testing.T) {
	files, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "../README.md", "README.md")
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			u := m[1]
			if strings.Contains(u, "://") || strings.HasPrefix(u, "mailto:") {
				continue
			}
			path, frag, _ := strings.Cut(u, "#")
			target := f
			if path != "" {
				target = filepath.Join(filepath.Dir(f), path)
			}
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s: link %q: %v", f, u, err)
				continue
			}
			if frag == "" || !strings.HasSuffix(target, ".md") {
				continue
			}
			if !slices.Contains(markdownAnchors(t, target), frag) {
				t.Errorf("%s: link %q: %s has no heading with anchor %q", f, u, target, frag)
			}
		}
	}
}

// markdownAnchors returns the GitHub anchors of the headings of a Markdown
// file (outside fenced code).
func markdownAnchors(t *testing.T, path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fence := false
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "```") {
			fence = !fence
		}
		h := strings.TrimLeft(l, "#")
		if fence || len(h) == len(l) || !strings.HasPrefix(h, " ") {
			continue
		}
		var a strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(h)) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				a.WriteRune(r)
			case r == ' ':
				a.WriteRune('-')
			}
		}
		out = append(out, a.String())
	}
	return out
}
