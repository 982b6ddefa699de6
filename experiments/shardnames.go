package experiments

import (
	"fmt"
	"slices"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/datasets/shard"
)

// sourceNames are the names a fit keeps from its data source: a CSV
// read's (datasets.Dataset's Features, Target, Classes and Layout), or
// those a shard manifest keeps from its source file
// (shard.Manifest.Features, Target, ClassNames and Layout, decoded), so
// that a fit of the shards keeps what a fit of that file would.
type sourceNames struct {
	features   []string
	target     string
	classNames []string
	layout     *datasets.Layout
}

// namesOf decodes the names of the manifest m, read from path. A layout
// that does not give m's width is an error wrapping shard.ErrFormat.
func namesOf(path string, m *shard.Manifest) (sourceNames, error) {
	l, err := decodeLayout(m.Layout)
	if err != nil {
		return sourceNames{}, fmt.Errorf("%s: %w", path, err)
	}
	if l != nil {
		kept := l.Width - len(l.Dropped)
		if l.Target >= 0 {
			kept--
		}
		if kept != m.D {
			return sourceNames{}, fmt.Errorf("%s: %w: manifest layout keeps %d of its %d columns as features, the shards have %d", path, shard.ErrFormat, kept, l.Width, m.D)
		}
	}
	return sourceNames{features: m.Features, target: m.Target, classNames: m.ClassNames, layout: l}, nil
}

// keep sets the fit result's names from n: the features (implied x1…xd
// when unnamed), the target's name (DefaultTargetName when unnamed), the
// class names and the layout.
func (n sourceNames) keep(res *FitResult) {
	res.Features, res.ImpliedFeatures, res.ClassNames, res.Layout = n.features, n.features == nil, n.classNames, n.layout
	res.TargetName = n.target
	if res.TargetName == "" {
		res.TargetName = DefaultTargetName
	}
}

// relabel maps the targets of shards whose classes are named (names, from
// path) onto the class indices of train, a fit's class names, by name, in
// place. A name train lacks gets an index after train's, in the order of
// names, as datasets.ReadOptions.Classes reads a file; the classes so
// named are returned (train's, then those), for messages. Both nil: y
// stays and nil is returned. Names on one side only are an error: text
// labels and numbers cannot be compared.
func relabel(y []float64, train, names []string, path string) ([]string, error) {
	switch {
	case train == nil && names == nil:
		return nil, nil
	case train == nil:
		return nil, fmt.Errorf("%w: %s has text labels (%s), the model's were numbers: they cannot be compared", datasets.ErrInput, path, quoteClasses(names))
	case names == nil:
		return nil, fmt.Errorf("%w: %s has numeric labels, the model's were text (%s): they cannot be compared (landmark data shard keeps a CSV's text labels: shard the file with them)", datasets.ErrInput, path, quoteClasses(train))
	}
	all := slices.Clone(train)
	index := make(map[string]int, len(train)+len(names))
	for i, c := range train {
		index[c] = i
	}
	to := make([]float64, len(names))
	for i, c := range names {
		k, ok := index[c]
		if !ok {
			k = len(all)
			index[c] = k
			all = append(all, c)
		}
		to[i] = float64(k)
	}
	for i, v := range y {
		// Validate made the manifest's classes 0…k−1; a shard's targets
		// must be among them.
		k := int(v)
		if float64(k) != v || k < 0 || k >= len(to) {
			return nil, fmt.Errorf("%w: %s: target %g is not one of its %d class indices", shard.ErrFormat, path, v, len(to))
		}
		y[i] = to[k]
	}
	return all, nil
}
