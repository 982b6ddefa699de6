package kernel

import (
	"fmt"
	"sort"
)

// Spec describes a kernel by name and parameters, the form used by YAML
// experiment files, command-line flags and saved models.
type Spec struct {
	// Type is one of Names(): gaussian, laplacian, linear, polynomial,
	// precomputed, sigmoid.
	Type string `yaml:"type" json:"type"`
	// Gamma is γ for gaussian, laplacian, polynomial and sigmoid.
	Gamma float64 `yaml:"gamma,omitempty" json:"gamma,omitempty"`
	// Sigma is the Gaussian bandwidth σ, an alternative to Gamma (γ = 1/(2σ²)).
	// Setting both is an error.
	Sigma float64 `yaml:"sigma,omitempty" json:"sigma,omitempty"`
	// Degree is the polynomial degree (default 3, as scikit-learn and LIBSVM).
	Degree int `yaml:"degree,omitempty" json:"degree,omitempty"`
	// Coef0 is the offset c₀ of polynomial (≥ 0) and sigmoid (any finite
	// number); default 0.
	Coef0 float64 `yaml:"coef0,omitempty" json:"coef0,omitempty"`
}

// constructors is the one name→constructor table for kernels.
var constructors = map[string]func(Spec) (Kernel, error){
	"gaussian": func(s Spec) (Kernel, error) {
		if s.Sigma != 0 && s.Gamma != 0 {
			return nil, fmt.Errorf("%w: gaussian: set gamma or sigma, not both", ErrParam)
		}
		if s.Sigma != 0 {
			if err := positive("gaussian", "sigma", s.Sigma); err != nil {
				return nil, err
			}
			return GaussianSigma(s.Sigma), nil
		}
		return Gaussian{Gamma: s.Gamma}, nil
	},
	"laplacian": func(s Spec) (Kernel, error) { return Laplacian{Gamma: s.Gamma}, nil },
	"linear":    func(Spec) (Kernel, error) { return Linear{}, nil },
	"polynomial": func(s Spec) (Kernel, error) {
		deg := s.Degree
		if deg == 0 {
			deg = 3
		}
		return Polynomial{Degree: deg, Gamma: s.Gamma, Coef0: s.Coef0}, nil
	},
	"sigmoid":     func(s Spec) (Kernel, error) { return Sigmoid{Gamma: s.Gamma, Coef0: s.Coef0}, nil },
	"precomputed": func(Spec) (Kernel, error) { return Precomputed{}, nil },
}

// Names returns the kernel names New accepts, sorted.
func Names() []string {
	names := make([]string, 0, len(constructors))
	for n := range constructors {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// New builds and validates the kernel a Spec describes.
func New(s Spec) (Kernel, error) {
	c, ok := constructors[s.Type]
	if !ok {
		return nil, fmt.Errorf("%w: unknown kernel %q (known: %v)", ErrParam, s.Type, Names())
	}
	if s.Type != "gaussian" && s.Sigma != 0 {
		return nil, fmt.Errorf("%w: sigma applies to the gaussian kernel only, not %s", ErrParam, s.Type)
	}
	if (s.Type == "linear" || s.Type == "precomputed") && s.Gamma != 0 {
		return nil, fmt.Errorf("%w: gamma does not apply to the %s kernel", ErrParam, s.Type)
	}
	if s.Type != "polynomial" && s.Degree != 0 {
		return nil, fmt.Errorf("%w: degree applies to the polynomial kernel only, not %s", ErrParam, s.Type)
	}
	if s.Type != "polynomial" && s.Type != "sigmoid" && s.Coef0 != 0 {
		return nil, fmt.Errorf("%w: coef0 applies to the polynomial and sigmoid kernels only, not %s", ErrParam, s.Type)
	}
	k, err := c(s)
	if err != nil {
		return nil, err
	}
	if err := k.Validate(); err != nil {
		return nil, err
	}
	return k, nil
}

// SpecOf returns the Spec of one of this package's kernels; ok is false for
// kernels defined elsewhere.
func SpecOf(k Kernel) (s Spec, ok bool) {
	switch k := k.(type) {
	case Gaussian:
		return Spec{Type: "gaussian", Gamma: k.Gamma}, true
	case Laplacian:
		return Spec{Type: "laplacian", Gamma: k.Gamma}, true
	case Linear:
		return Spec{Type: "linear"}, true
	case Polynomial:
		return Spec{Type: "polynomial", Gamma: k.Gamma, Degree: k.Degree, Coef0: k.Coef0}, true
	case Sigmoid:
		return Spec{Type: "sigmoid", Gamma: k.Gamma, Coef0: k.Coef0}, true
	case Precomputed:
		return Spec{Type: "precomputed"}, true
	}
	return Spec{}, false
}
