package experiments

import (
	"fmt"
	"math"
	"slices"

	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// Kind is the type of an estimator option's value.
type Kind int

// The option kinds.
const (
	KindFloat Kind = iota
	KindInt
	KindBool
	KindString
)

// String names the kind as error messages do.
func (k Kind) String() string {
	return [...]string{"number", "integer", "boolean", "string"}[k]
}

// Option declares one option an estimator accepts in its YAML block.
type Option struct {
	// Name is the YAML key.
	Name string
	// Kind is the value's type.
	Kind Kind
	// Min is the smallest allowed value of a numeric option (checked when
	// HasMin or MinOpen is set).
	Min float64
	// MinOpen makes Min exclusive (value > Min).
	MinOpen bool
	// HasMin makes Min inclusive (value ≥ Min).
	HasMin bool
	// Max is the largest allowed value of a numeric option (inclusive;
	// checked when HasMax is set).
	Max float64
	// HasMax makes Max a bound (value ≤ Max).
	HasMax bool
	// Required makes the option mandatory (in the estimator block or the
	// grid; alpha stands in for lambda).
	Required bool
	// AtMostN bounds the value by the number of training rows of a fit
	// (sample sizes such as m and clusters).
	AtMostN bool
	// With, when set, reports whether the option applies with the given
	// approximation backend ("" for the default); setting an option that
	// does not apply is an error, never silently ignored.
	With func(approx string) bool
	// Bytes makes a numeric option a byte count that may also be written
	// as a string with a unit, such as "4G" or "512MiB" (ParseBytes).
	Bytes bool
	// Values lists the allowed strings of a string option (nil: any).
	Values []string
	// Parse, when set, checks a string option's value further (its
	// error says why).
	Parse func(string) error
	// Doc is a one-line description with units.
	Doc string
}

// check verifies that v (as decoded from YAML) fits the option.
func (o Option) check(v any) error {
	var f float64
	switch o.Kind {
	case KindBool:
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("%s: want a boolean, got %v", o.Name, v)
		}
		return nil
	case KindString:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("%s: want a string, got %v", o.Name, v)
		}
		if o.Values != nil && !slices.Contains(o.Values, s) {
			return fmt.Errorf("%s: %q is not one of %v", o.Name, s, o.Values)
		}
		if o.Parse != nil {
			if err := o.Parse(s); err != nil {
				return fmt.Errorf("%s: %w", o.Name, err)
			}
		}
		return nil
	}
	switch x := v.(type) {
	case int:
		f = float64(x)
	case float64:
		f = x
	case string:
		if !o.Bytes {
			return fmt.Errorf("%s: want a %s, got %v", o.Name, o.Kind, v)
		}
		b, err := ParseBytes(x)
		if err != nil {
			return fmt.Errorf("%s: %w", o.Name, err)
		}
		f = float64(b)
	default:
		return fmt.Errorf("%s: want a %s, got %v", o.Name, o.Kind, v)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("%s = %v, want a finite %s", o.Name, f, o.Kind)
	}
	if o.Kind == KindInt && f != math.Trunc(f) {
		return fmt.Errorf("%s = %v, want an integer", o.Name, f)
	}
	switch {
	case o.MinOpen && !(f > o.Min):
		return fmt.Errorf("%s = %v, want > %v", o.Name, f, o.Min)
	case o.HasMin && f < o.Min:
		return fmt.Errorf("%s = %v, want ≥ %v", o.Name, f, o.Min)
	case o.HasMax && f > o.Max:
		return fmt.Errorf("%s = %v, want ≤ %v", o.Name, f, o.Max)
	}
	return nil
}

// Config is what an estimator constructor receives for one fit: the spec's
// estimator block with one grid point's values filled in.
type Config struct {
	// Task is regression or classification.
	Task model.Task
	// Kernel is the kernel with grid values applied.
	Kernel kernel.Spec
	// Approx is the approximation backend ("" for the estimator's default).
	Approx string
	// ApproxOptions are the backend's options.
	ApproxOptions map[string]any
	// Options are the estimator's options with grid values applied; numbers
	// are float64. alpha has already been converted to lambda = alpha/N.
	Options map[string]any
	// N is the number of training rows of this fit.
	N int
	// Labels are this fit's training labels (classification; nil for the
	// constructors called before the rows are known), and ClassNames the
	// names of text labels (Labels are then their indices): class_weight
	// balanced is computed from them, and names a class by its label.
	Labels     []float64
	ClassNames []string
	// Seed seeds the estimator's own randomness.
	Seed uint64
	// Centers and CenterWeights, when set, are landmarks chosen by the
	// runner (a BLESS path shared across λ), to be used as given: rows of
	// the training set, CSR rows (*kernel.CSRRows) when it is sparse.
	Centers       mat.Matrix
	CenterWeights []float64
	// CenterLambda is the λ_h of the BLESS path step of Centers (0: none).
	CenterLambda float64
	// Progress, when non-nil, receives solver progress (CG iterations).
	Progress func(iter int, residual float64)
	// Setup, when non-nil, hears each step of FALKON's setup finish (step
	// the done-th of total: model.StepCenters, StepPreconditioner,
	// StepRHS).
	Setup func(step string, done, total int)
}

// Float returns a numeric option, or def when it is absent.
func (c Config) Float(name string, def float64) float64 {
	switch v := c.Options[name].(type) {
	case float64:
		return v
	case int:
		return float64(v)
	}
	return def
}

// Int returns an integer option, or def when it is absent.
func (c Config) Int(name string, def int) int {
	switch v := c.Options[name].(type) {
	case float64:
		return int(v)
	case int:
		return v
	}
	return def
}

// String returns a string option, or def when it is absent.
func (c Config) String(name, def string) string {
	if v, ok := c.Options[name].(string); ok {
		return v
	}
	return def
}

// Bool returns a boolean option, or def when it is absent.
func (c Config) Bool(name string, def bool) bool {
	if v, ok := c.Options[name].(bool); ok {
		return v
	}
	return def
}

// EstimatorEntry is one row of the estimator table.
type EstimatorEntry struct {
	// Name is the YAML estimator type.
	Name string
	// Summary is a one-line description for `landmark run --list`.
	Summary string
	// Tasks lists the spec tasks the estimator handles.
	Tasks []string
	// Approx lists the approximation backends it accepts (nil: none).
	Approx []string
	// Options are the estimator options the YAML block may set. lambda and
	// alpha are handled by the runner (alpha → lambda = alpha/n).
	Options []Option
	// ApproxOptions are the options the approx block may set.
	ApproxOptions []Option
	// New builds an unfitted estimator.
	New func(Config) (model.Estimator, error)
	// Check, when set, validates combinations of options the table cannot
	// express (it returns a SpecError naming the line).
	Check func(s *Spec) error
	// Warm, when set, makes next (built by New, unfitted) start from the
	// fitted prev, a fit of the same setting at a larger λ (FALKON's warm
	// start along a decreasing λ sequence). Used with warm_start: true.
	Warm func(next, prev model.Estimator) error
}

func (e EstimatorEntry) option(name string) (Option, bool) {
	if name == "alpha" && e.hasLambda() {
		return Option{Name: "alpha", Kind: KindFloat, MinOpen: true, Doc: "scikit-learn's alpha = λn"}, true
	}
	for _, o := range e.Options {
		if o.Name == name {
			return o, true
		}
	}
	return Option{}, false
}

func (e EstimatorEntry) approxOption(name string) (Option, bool) {
	for _, o := range e.ApproxOptions {
		if o.Name == name {
			return o, true
		}
	}
	return Option{}, false
}

func (e EstimatorEntry) hasLambda() bool {
	for _, o := range e.Options {
		if o.Name == "lambda" {
			return true
		}
	}
	return false
}

func optionNames(os []Option) []string {
	n := make([]string, len(os))
	for i, o := range os {
		n[i] = o.Name
	}
	return n
}

// estimatorByName looks a name up in the table.
func estimatorByName(name string) (EstimatorEntry, bool) {
	for _, e := range estimators {
		if e.Name == name {
			return e, true
		}
	}
	return EstimatorEntry{}, false
}

// EstimatorNames returns the estimator types a spec may name, sorted.
func EstimatorNames() []string {
	n := make([]string, len(estimators))
	for i, e := range estimators {
		n[i] = e.Name
	}
	slices.Sort(n)
	return n
}

// Estimators returns a copy of the estimator table, sorted by name.
func Estimators() []EstimatorEntry {
	c := slices.Clone(estimators)
	slices.SortFunc(c, func(a, b EstimatorEntry) int {
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
	return c
}

// NewEstimator builds the estimator a Config describes with the named table entry.
func NewEstimator(name string, c Config) (model.Estimator, error) {
	e, ok := estimatorByName(name)
	if !ok {
		return nil, fmt.Errorf("%w: unknown estimator %q (known: %v)", ErrSpec, name, EstimatorNames())
	}
	return e.New(c)
}
