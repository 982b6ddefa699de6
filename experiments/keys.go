package experiments

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/landmark-ml/landmark/kernel"
)

// yamlKeys lists the YAML keys of struct type t (its fields' yaml tags,
// inline fields left out).
func yamlKeys(t reflect.Type) []string {
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		tag := t.Field(i).Tag.Get("yaml")
		name, _, _ := strings.Cut(tag, ",")
		if tag == "" || name == "-" || strings.Contains(tag, "inline") {
			continue
		}
		keys = append(keys, name)
	}
	sort.Strings(keys)
	return keys
}

// The keys of each fixed level of a spec.
var (
	topKeys     = yamlKeys(reflect.TypeOf(Spec{}))
	datasetKeys = yamlKeys(reflect.TypeOf(DatasetSpec{}))
	cvKeys      = yamlKeys(reflect.TypeOf(CVSpec{}))
	kernelKeys  = yamlKeys(reflect.TypeOf(kernel.Spec{}))
	approxKeys  = yamlKeys(reflect.TypeOf(ApproximationSpec{}))
)

// homes lists the places in a spec where key is valid: "the top level",
// "dataset", "cv", "estimator.kernel", "estimator" (an option of the
// spec's estimator, or of any estimator when the type is unknown),
// "estimator.approx", "grid" and "approximation".
func (s *Spec) homes(key string) []string {
	var h []string
	if slices.Contains(topKeys, key) {
		h = append(h, "the top level")
	}
	for _, l := range []struct {
		name string
		keys []string
	}{{"dataset", datasetKeys}, {"cv", cvKeys}, {"estimator.kernel", kernelKeys}} {
		if slices.Contains(l.keys, key) {
			h = append(h, l.name)
		}
	}
	ents := Estimators()
	if e, ok := estimatorByName(s.Estimator.Type); ok {
		ents = []EstimatorEntry{e}
	}
	var est, apx, grid bool
	for _, e := range ents {
		if o, ok := e.option(key); ok {
			est = true
			grid = grid || o.Kind == KindFloat || o.Kind == KindInt
		}
		if _, ok := e.approxOption(key); ok || key == "type" {
			apx = true
		}
	}
	if key == "type" || key == "kernel" || key == "approx" || est {
		h = append(h, "estimator")
	}
	if apx {
		h = append(h, "estimator.approx")
	}
	if grid || slices.Contains(kernelParams, key) {
		h = append(h, "grid")
	}
	if slices.Contains(approxKeys, key) {
		h = append(h, "approximation")
	}
	return h
}

// unknownKey is the error for key at path (whose level accepts known):
// it lists known, says where else key is valid, and suggests a near name
// at this level or, failing that, at another.
func (s *Spec) unknownKey(key string, known []string, path ...string) error {
	var b strings.Builder
	level := joinPath(path[:len(path)-1])
	if level == "" {
		level = "the top level"
	}
	fmt.Fprintf(&b, "unknown key %q", key)
	if level == "estimator" || level == "estimator.approx" {
		fmt.Fprintf(&b, " for estimator %s", s.Estimator.Type)
	}
	var elsewhere []string
	for _, h := range s.homes(key) {
		if h == level || h == "approximation" && !s.approximationRun() || s.approximationRun() && strings.HasPrefix(h, "estimator") {
			continue
		}
		elsewhere = append(elsewhere, h)
	}
	switch {
	case len(elsewhere) > 0:
		fmt.Fprintf(&b, ": %s belongs in %s, not in %s", key, strings.Join(elsewhere, " or "), level)
	case DidYouMean(key, known) != "":
		b.WriteString(DidYouMean(key, known))
	default:
		b.WriteString(s.nearElsewhere(key))
	}
	if len(known) == 0 {
		fmt.Fprintf(&b, " (%s takes no keys)", level)
	} else {
		fmt.Fprintf(&b, " (valid keys of %s: %s)", level, strings.Join(known, ", "))
	}
	return s.errAt(b.String(), path...)
}

// approximationRun reports whether the spec is an approximation-only run.
func (s *Spec) approximationRun() bool {
	if s.Approximation != nil {
		return true
	}
	return s.root != nil && len(s.root.Content) > 0 && child(s.root.Content[0], "approximation") != nil
}

// nearElsewhere suggests a key of another level near key, as
// ` (did you mean cv.metric?)`, or "".
func (s *Spec) nearElsewhere(key string) string {
	var cands []string
	where := map[string]string{}
	add := func(level string, keys []string) {
		for _, k := range keys {
			if _, ok := where[k]; !ok {
				where[k] = level
				cands = append(cands, k)
			}
		}
	}
	add("", topKeys)
	add("dataset.", datasetKeys)
	add("cv.", cvKeys)
	add("estimator.kernel.", kernelKeys)
	if e, ok := estimatorByName(s.Estimator.Type); ok {
		add("estimator.", optionNames(e.Options))
		add("estimator.approx.", optionNames(e.ApproxOptions))
	}
	d := DidYouMean(key, cands)
	if d == "" {
		return ""
	}
	k := d[len(` (did you mean "`) : len(d)-len(`"?)`)]
	return fmt.Sprintf(" (did you mean %s%s?)", where[k], k)
}

// checkKeys walks the fixed levels of the parsed YAML (top, dataset, cv,
// the kernels, approximation) and reports the first unknown key with the
// valid keys of its level; the estimator's own options are checked by
// Validate against the estimator table.
func (s *Spec) checkKeys() error {
	if s.root == nil || len(s.root.Content) == 0 {
		return nil
	}
	top := s.root.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil
	}
	check := func(n *yaml.Node, known []string, path ...string) error {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		for j := 0; j+1 < len(n.Content); j += 2 {
			k := n.Content[j].Value
			if !slices.Contains(known, k) {
				return s.unknownKey(k, known, append(slices.Clone(path), k)...)
			}
		}
		return nil
	}
	if err := check(top, topKeys); err != nil {
		return err
	}
	for _, l := range []struct {
		path []string
		keys []string
	}{
		{[]string{"dataset"}, datasetKeys},
		{[]string{"cv"}, cvKeys},
		{[]string{"estimator", "kernel"}, kernelKeys},
		{[]string{"approximation"}, approxKeys},
		{[]string{"approximation", "kernel"}, kernelKeys},
		{[]string{"paper"}, paperKeys},
	} {
		if err := check(child(top, l.path...), l.keys, l.path...); err != nil {
			return err
		}
	}
	for _, l := range []struct {
		list string
		keys []string
	}{{"figures", paperFigureKeys}, {"claims", paperClaimKeys}} {
		items := child(top, "paper", l.list)
		if items == nil || items.Kind != yaml.SequenceNode {
			continue
		}
		for i, it := range items.Content {
			if err := check(it, l.keys, "paper", l.list, fmt.Sprintf("[%d]", i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// child returns the mapping value at path under n, or nil.
func child(n *yaml.Node, path ...string) *yaml.Node {
	for _, p := range path {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for j := 0; j+1 < len(n.Content); j += 2 {
			if n.Content[j].Value == p {
				next = n.Content[j+1]
			}
		}
		n = next
	}
	return n
}
