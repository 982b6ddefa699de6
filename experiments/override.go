package experiments

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Override is one value given beside a spec (on the command line) that
// replaces the spec's own: a kernel parameter (gamma, sigma, degree,
// coef0; gamma may be the rule GammaScale or GammaAuto, a string; degree
// and coef0 go to the kernel even with Option set), an estimator option
// (lambda, alpha, c, m, or any option with Option set), the seed (Value
// uint64) or the task (Value string).
type Override struct {
	Name  string
	Value any
	// Option makes Name a plain estimator option (landmark fit --set KEY=VALUE):
	// it replaces the option and a grid axis of that name, nothing else
	// (but degree and coef0, which only a kernel has).
	Option bool
}

// overridePairs are the parameters that exclude each other: setting one
// drops the other from the spec.
var overridePairs = map[string]string{"gamma": "sigma", "sigma": "gamma", "lambda": "alpha", "alpha": "lambda"}

// ApplyOverrides sets each override in s, in order: a grid axis of its name
// becomes the single value, and gamma drops the spec's sigma (lambda its
// alpha) and the reverse. It checks s again and returns one line per change
// saying what the spec had, e.g. "override: gamma 5 (spec: 0.5)" or
// "override: lambda 0.001 (spec: grid [1e-06, 1e-05])".
func ApplyOverrides(s *Spec, ovs []Override) ([]string, error) {
	if s.Estimator.Options == nil {
		s.Estimator.Options = map[string]any{}
	}
	var lines []string
	for _, o := range ovs {
		switch {
		case o.Name == "seed" && !o.Option:
			v, ok := o.Value.(uint64)
			if !ok {
				return nil, fmt.Errorf("%w: override seed %v: want an unsigned integer", ErrSpec, o.Value)
			}
			lines = append(lines, fmt.Sprintf("override: seed %d (spec: %d)", v, s.Seed))
			s.Seed = v
		case o.Name == "task" && !o.Option:
			lines = append(lines, fmt.Sprintf("override: task %v (spec: %s)", o.Value, s.Task))
			s.Task = fmt.Sprint(o.Value)
		default:
			lines = append(lines, s.override(o))
		}
	}
	return lines, s.Validate()
}

// override applies one parameter override and describes it.
func (s *Spec) override(o Override) string {
	other, otherOld := "", ""
	if !o.Option {
		if other = overridePairs[o.Name]; other != "" {
			otherOld = s.dropParam(other)
		}
	}
	old := s.dropParam(o.Name)
	k := &s.Estimator.Kernel
	f, isFloat := o.Value.(float64)
	rule, isRule := o.Value.(string)
	switch {
	case o.Name == "gamma" && isFloat && !o.Option:
		k.Gamma = f
	case o.Name == "gamma" && isRule && !o.Option:
		s.Estimator.GammaRule = rule // checked by Validate
	case o.Name == "sigma" && isFloat && !o.Option:
		k.Sigma = f
	case o.Name == "degree" && isFloat && f == math.Trunc(f):
		k.Degree = int(f) // also from --set: the kernel's, not an option
	case o.Name == "coef0" && isFloat:
		k.Coef0 = f
	default:
		s.Estimator.Options[o.Name] = o.Value
	}
	msg := fmt.Sprintf("override: %s %v", o.Name, o.Value)
	switch {
	case old != "" && otherOld != "":
		msg += fmt.Sprintf(" (spec: %s %s, %s %s)", o.Name, old, other, otherOld)
	case old != "":
		msg += fmt.Sprintf(" (spec: %s)", old)
	case otherOld != "":
		msg += fmt.Sprintf(" (spec: %s %s)", other, otherOld)
	default:
		msg += " (spec: not set)"
	}
	return msg
}

// paramValue describes the spec's value of a parameter: its grid axis, the
// kernel field or the estimator option ("" when not set).
func (s *Spec) paramValue(name string) string {
	if v, ok := s.Grid[name]; ok {
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = strconv.FormatFloat(x, 'g', -1, 64)
		}
		return "grid [" + strings.Join(parts, ", ") + "]"
	}
	k := s.Estimator.Kernel
	switch {
	case name == "gamma" && s.Estimator.GammaRule != "":
		return s.Estimator.GammaRule
	case name == "gamma" && k.Gamma != 0:
		return strconv.FormatFloat(k.Gamma, 'g', -1, 64)
	case name == "sigma" && k.Sigma != 0:
		return strconv.FormatFloat(k.Sigma, 'g', -1, 64)
	case name == "degree" && k.Degree != 0:
		return strconv.Itoa(k.Degree)
	case name == "coef0" && k.Coef0 != 0:
		return strconv.FormatFloat(k.Coef0, 'g', -1, 64)
	case name != "gamma" && name != "sigma" && name != "degree" && name != "coef0":
		if v, ok := s.Estimator.Options[name]; ok {
			return fmt.Sprint(v)
		}
	}
	return ""
}

// dropParam removes a parameter from the grid, kernel and options and
// returns what it was.
func (s *Spec) dropParam(name string) string {
	old := s.paramValue(name)
	delete(s.Grid, name)
	delete(s.Estimator.Options, name)
	switch name {
	case "gamma":
		s.Estimator.Kernel.Gamma = 0
		s.Estimator.GammaRule = ""
	case "sigma":
		s.Estimator.Kernel.Sigma = 0
	case "degree":
		s.Estimator.Kernel.Degree = 0
	case "coef0":
		s.Estimator.Kernel.Coef0 = 0
	}
	return old
}
