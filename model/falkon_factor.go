package model

import (
	"fmt"

	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// FactorMode says whether a Falkon fit evaluates its K_nM passes factored
// over the two-valued columns of X (kernel.Factored): for the Gaussian and
// Laplacian kernels, k(x, c) = k(x_D, c_D)·k(x_S, c_S) over the dense
// columns D and the two-valued ones S (one-hot indicators, binary flags),
// so that with the rows grouped by their S pattern every pass runs at
// dimension |D| instead of d. The results are the same up to rounding.
type FactorMode int

const (
	// FactorAuto (the zero value) factors when the data allow it and the
	// cost model predicts passes at least a quarter faster with groups of
	// 32 rows or more on average (kernel.Split.Pays).
	FactorAuto FactorMode = iota
	// FactorOff never factors.
	FactorOff
	// FactorOn factors whenever the data allow it (a separable kernel,
	// dense X with dense and two-valued columns, at most
	// kernel.DefaultMaxPatterns patterns, K_nM not cached), whatever the
	// cost model says.
	FactorOn
)

// String returns "auto", "off" or "on".
func (f FactorMode) String() string {
	switch f {
	case FactorAuto:
		return "auto"
	case FactorOff:
		return "off"
	case FactorOn:
		return "on"
	}
	return fmt.Sprintf("FactorMode(%d)", int(f))
}

// MarshalText writes the mode's name (String), as YAML and JSON carry it.
func (f FactorMode) MarshalText() ([]byte, error) {
	if err := f.validate(); err != nil {
		return nil, err
	}
	return []byte(f.String()), nil
}

// UnmarshalText reads "auto" (or empty), "off" or "on"; anything else is
// an ErrInput.
func (f *FactorMode) UnmarshalText(b []byte) error {
	switch string(b) {
	case "", "auto":
		*f = FactorAuto
	case "off":
		*f = FactorOff
	case "on":
		*f = FactorOn
	default:
		return fmt.Errorf("%w: factor %q, want auto, off or on", ErrInput, b)
	}
	return nil
}

// validate reports a mode that is none of the three.
func (f FactorMode) validate() error {
	if f < FactorAuto || f > FactorOn {
		return fmt.Errorf("%w: Factor = %d, want FactorAuto, FactorOff or FactorOn", ErrInput, int(f))
	}
	return nil
}

// factorSplit returns the split of x the fit's passes are factored over,
// or nil: Factor off, a kernel that does not factor over columns, sparse
// X, no dense and two-valued columns within the pattern cap, or (auto) a
// cost model that does not predict a quarter less time.
func (m *Falkon) factorSplit(cfg falkonConfig, x mat.Matrix) *kernel.Split {
	if m.Factor == FactorOff || !kernel.Separable(cfg.k) {
		return nil
	}
	s, ok := kernel.DetectSplit(x, 0)
	if !ok || m.Factor == FactorAuto && !s.Pays(cfg.passes.Float32) {
		return nil
	}
	return s
}

// planFactored replaces the engine's scratch of plan p by that of the
// factored passes over s (centers of shape cs, t outputs) and adds what
// the factored operator holds (X_D, the permutation, T, C_D).
func planFactored(p *FalkonPlan, cfg falkonConfig, x mat.Matrix, s *kernel.Split, cs centerShape, t int) {
	_, x32 := x.(*kernel.Dense32)
	engine := s.ScratchBytes(cfg.k, x32, cs.m, t, cfg.passes)
	p.Factored = s.Bytes(cfg.k, x32, cs.m)
	p.Factoring = s.String()
	p.Total += engine - p.Engine + p.Factored
	p.Engine = engine
}
