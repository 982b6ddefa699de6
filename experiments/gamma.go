package experiments

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
	"gopkg.in/yaml.v3"
)

// The kernel-width rules a spec may give instead of a number (kernel:
// {gamma: scale}, landmark fit --gamma scale), as scikit-learn's SVC.
const (
	// GammaScale is γ = 1/(d·Var(X)), Var(X) the variance of all n·d
	// entries of the training X the fit sees (after the feature scaling).
	GammaScale = "scale"
	// GammaAuto is γ = 1/d.
	GammaAuto = "auto"
)

// GammaRules are the rules EstimatorSpec.GammaRule takes.
var GammaRules = []string{GammaScale, GammaAuto}

// ResolveGamma returns the γ that rule (GammaScale or GammaAuto) gives for
// the training rows x as the fit sees them (scaled), with Var(X) and d for
// the report. Var(X) is the population variance of the n·d entries, as
// numpy's X.var(): for sparse X (kernel.Sparse) it is computed from the
// non-zeros and the count of zeros, without densifying, and dense X goes
// through the same sums in the same order (zeros add nothing), so the two
// give the same bits. X whose entries are all equal (Var(X) = 0) has no
// scale: an error wrapping ErrSpec, where scikit-learn would take γ = 1.
func ResolveGamma(rule string, x mat.Matrix) (gamma, variance float64, d int, err error) {
	if x == nil {
		return 0, 0, 0, fmt.Errorf("%w: gamma %s: X is nil", ErrSpec, rule)
	}
	n, d := x.Dims()
	if n == 0 || d == 0 {
		return 0, 0, d, fmt.Errorf("%w: gamma %s: X is empty (%d×%d)", ErrSpec, rule, n, d)
	}
	switch rule {
	case GammaAuto:
		return 1 / float64(d), 0, d, nil
	case GammaScale:
	default:
		return 0, 0, d, fmt.Errorf("%w: gamma %q: want a number, %s or %s", ErrSpec, rule, GammaScale, GammaAuto)
	}
	variance = entriesVariance(x)
	if !(variance > 0) || math.IsInf(variance, 0) {
		return 0, variance, d, fmt.Errorf("%w: gamma scale: the variance of X's %d×%d entries is %g, so 1/(d·Var(X)) is not a width (give gamma a number)", ErrSpec, n, d, variance)
	}
	return 1 / (float64(d) * variance), variance, d, nil
}

// entriesVariance is the population variance of all the entries of x in
// two passes over the non-zeros: the mean μ = Σx/(nd), then
// (Σ(x−μ)² + zeros·μ²)/(nd), row by row in column order.
func entriesVariance(x mat.Matrix) float64 {
	n, d := x.Dims()
	total := float64(n) * float64(d)
	var sum, dev float64
	nnz := 0
	each := func(f func(v float64)) {
		switch m := x.(type) {
		case kernel.Sparse:
			_, _, values := m.CSR()
			for _, v := range values {
				if v != 0 {
					f(v)
				}
			}
		case *kernel.Dense32:
			for i := range n {
				for _, v := range m.RawRow(i) {
					if v != 0 {
						f(float64(v))
					}
				}
			}
		case *mat.Dense:
			for i := range n {
				for _, v := range m.RawRowView(i) {
					if v != 0 {
						f(v)
					}
				}
			}
		default:
			for i := range n {
				for j := range d {
					if v := m.At(i, j); v != 0 {
						f(v)
					}
				}
			}
		}
	}
	each(func(v float64) { sum += v; nnz++ })
	mu := sum / total
	each(func(v float64) { dev += (v - mu) * (v - mu) })
	zeros := total - float64(nnz)
	return (dev + zeros*mu*mu) / total
}

// resolveGamma sets cfg's kernel γ from the spec's gamma rule (none: cfg
// is left as it is) on the training rows x of the fit, and returns it.
func (r *runner) resolveGamma(cfg *Config, x mat.Matrix) (float64, error) {
	rule := r.s.Estimator.GammaRule
	if rule == "" {
		return cfg.Kernel.Gamma, nil
	}
	g, _, _, err := ResolveGamma(rule, x)
	if err != nil {
		return 0, r.s.errAt(strings.TrimPrefix(err.Error(), ErrSpec.Error()+": "), "estimator", "kernel", "gamma")
	}
	cfg.Kernel.Gamma = g
	return g, nil
}

// takeGammaRule finds a gamma rule (scale or auto) given as the estimator
// kernel's gamma in the YAML text data, and returns data with that value
// blanked to 0 (same lines and columns, so that the strict decoder's errors
// still name the right places) and the rule. A rule elsewhere — a grid
// axis, an approximation run's kernel — and a gamma that is a word other
// than a rule are errors at their line.
func (s *Spec) takeGammaRule(data []byte) ([]byte, string, error) {
	root := s.root.Content[0]
	for _, p := range [][]string{{"grid", "gamma"}, {"grid", "sigma"}} {
		if seq := child(root, p...); seq != nil && seq.Kind == yaml.SequenceNode {
			for i, v := range seq.Content {
				if v.Kind == yaml.ScalarNode && v.Tag == "!!str" && slices.Contains(GammaRules, v.Value) {
					return nil, "", &SpecError{Line: v.Line, Path: joinPath(append(p, "["+strconv.Itoa(i)+"]")),
						Msg: fmt.Sprintf("%s: grid values are numbers; give gamma: %s in the estimator's kernel block (kernel: {gamma: %s}), resolved on each fit's training rows", v.Value, v.Value, v.Value)}
				}
			}
		}
	}
	if v := child(root, "approximation", "kernel", "gamma"); v != nil && v.Kind == yaml.ScalarNode && v.Tag == "!!str" && slices.Contains(GammaRules, v.Value) {
		return nil, "", &SpecError{Line: v.Line, Path: "approximation.kernel.gamma", Msg: fmt.Sprintf("gamma %s is resolved on a fit's training rows; an approximation run takes a number", v.Value)}
	}
	v := child(root, "estimator", "kernel", "gamma")
	if v == nil || v.Kind != yaml.ScalarNode || v.Tag != "!!str" {
		return data, "", nil
	}
	if !slices.Contains(GammaRules, v.Value) {
		return nil, "", &SpecError{Line: v.Line, Path: "estimator.kernel.gamma",
			Msg: fmt.Sprintf("gamma %q: want a number > 0, scale (1/(d·Var(X)), scikit-learn's SVC default) or auto (1/d)%s", v.Value, DidYouMean(v.Value, GammaRules))}
	}
	// The value's text on its line: plain, or quoted (two more bytes).
	lines := bytes.SplitAfter(data, []byte("\n"))
	if v.Line < 1 || v.Line > len(lines) {
		return nil, "", &SpecError{Line: v.Line, Path: "estimator.kernel.gamma", Msg: "gamma: cannot locate the value"}
	}
	line := lines[v.Line-1]
	width := len(v.Value)
	if v.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0 {
		width += 2
	}
	at := -1
	col := 1
	for i := range string(line) { // the column counts characters
		if col == v.Column {
			at = i
			break
		}
		col++
	}
	if at < 0 || at+width > len(line) || !bytes.Contains(line[at:at+width], []byte(v.Value)) {
		return nil, "", &SpecError{Line: v.Line, Path: "estimator.kernel.gamma", Msg: "gamma: cannot locate the value"}
	}
	out := bytes.Clone(data)
	off := 0
	for _, l := range lines[:v.Line-1] {
		off += len(l)
	}
	blank := append([]byte("0"), bytes.Repeat([]byte(" "), width-1)...)
	copy(out[off+at:], blank)
	return out, v.Value, nil
}

// MarshalYAML writes the estimator block, with a gamma rule as the
// kernel's gamma (so that Decode reads it back).
func (e EstimatorSpec) MarshalYAML() (any, error) {
	type plain EstimatorSpec
	if e.GammaRule == "" {
		return plain(e), nil
	}
	var n yaml.Node
	if err := n.Encode(plain(e)); err != nil {
		return nil, err
	}
	if k := child(&n, "kernel"); k != nil && k.Kind == yaml.MappingNode {
		k.Content = append(k.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "gamma"},
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: e.GammaRule})
	}
	return &n, nil
}
