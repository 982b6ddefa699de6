package approx

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// Landmarks is what a Sampler returns: M points, the rows of X they came from
// when they are data points, and optional weights.
type Landmarks struct {
	// Points holds the M landmarks, one per row (M×d). Always set. It is a
	// *mat.Dense, except for samplers that return data rows of a sparse X
	// (kernel.Sparse, such as datasets.CSR): then it is a *kernel.CSRRows
	// holding copies of those rows, so that M landmarks cost their
	// non-zeros, not M·d — unless at least a quarter of their entries are
	// non-zero (kernel.PreferDenseCenters), where the dense form is both
	// faster on the kernel engine and at most 2.7 times larger. Consumers
	// pass it to kernel.NewOp, which takes either form.
	Points mat.Matrix
	// Indices are the rows of X the landmarks were taken from, or nil when the
	// landmarks are not data points (k-means centroids).
	Indices []int
	// Weights, when non-nil, holds one positive weight per landmark: BLESS's
	// diagonal A_h, or the inverse sampling probabilities of leverage-score
	// sampling. Nil means uniform.
	Weights []float64
	// Lambda is, for BLESS and BLESS-R, the λ_h of the path step the
	// landmarks and Weights come from (K + λ_h nI): the λ at which the
	// weighted sample approximates the kernel, which FALKON-BLESS's
	// preconditioner (Rudi et al. 2018, eq. 15) uses. 0 for other samplers.
	Lambda float64
}

// Sampler picks landmarks for Nyström-type approximations.
//
// m is the number of landmarks wanted; samplers that derive their size from a
// regularization λ (BLESS, leverage scores with a fixed λ) document how they
// treat m. All randomness comes from rng. A nil ctx is an error wrapping
// ErrInput, as for the estimators of package model.
type Sampler interface {
	Sample(ctx context.Context, x mat.Matrix, k kernel.Kernel, m int, rng *rand.Rand) (*Landmarks, error)
}

// FeatureMap is a fitted low-rank map φ with K(x, y) ≈ φ(x)·φ(y).
type FeatureMap interface {
	// Dim is the number of features r.
	Dim() int
	// Transform writes φ(x_i) into row i of dst (n×r).
	Transform(ctx context.Context, dst *mat.Dense, x mat.Matrix) error
}

// transformArgs refuses the nil context and nil dst a FeatureMap's Transform
// would otherwise panic on.
func transformArgs(ctx context.Context, dst *mat.Dense) error {
	if err := check.Context(ctx); err != nil {
		return err
	}
	if dst == nil {
		return fmt.Errorf("%w: nil dst", check.ErrInput)
	}
	return nil
}
