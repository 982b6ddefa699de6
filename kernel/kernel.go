package kernel

import (
	"fmt"
	"math"

	"github.com/landmark-ml/landmark/internal/check"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// ErrParam is returned (wrapped) by Validate when a kernel parameter is out of
// range. It wraps model.ErrInput (check.ErrInput): a bad parameter is bad input.
var ErrParam = check.Sentinel("kernel: invalid parameter", check.ErrInput)

// Kernel is a positive-definite kernel function k(x, y) on R^d.
//
// Eval, Block and Diag panic on dimension mismatch, as gonum does: shapes
// are the caller's responsibility, values are checked by Validate.
type Kernel interface {
	// Eval returns k(x, y).
	Eval(x, y []float64) float64
	// Block writes K(A, B) into dst, which must be rows(A)×rows(B).
	Block(dst, a, b *mat.Dense)
	// Diag writes k(a_i, a_i) into dst, which must have rows(A) elements.
	Diag(dst []float64, a *mat.Dense)
	// ShiftInvariant reports whether k(x, y) depends on x − y only.
	// MEKA and BKA rely on this to relate cluster structure to kernel blocks.
	ShiftInvariant() bool
	// Validate reports an error wrapping ErrParam when a parameter is out of range.
	Validate() error
	// String names the kernel and its parameters, e.g. "gaussian(gamma=0.125)".
	String() string
}

// dotForm is implemented by kernels that are a function of x·y, ‖x‖² and ‖y‖².
// The block engine computes X·Cᵀ with a matrix product and then calls fromDots
// on each row: row[j] holds x·c_j on entry and k(x, c_j) on return.
type dotForm interface {
	Kernel
	fromDots(row []float64, xx float64, cc []float64)
	// needsNorms reports whether fromDots reads xx and cc.
	needsNorms() bool
}

// Gaussian is the radial basis function kernel k(x, y) = exp(−γ‖x − y‖²).
//
// With a bandwidth σ, γ = 1/(2σ²); see GaussianSigma. This is scikit-learn's
// rbf_kernel(gamma=γ) and FALKON's GaussianKernel(sigma=σ).
type Gaussian struct {
	// Gamma is γ > 0.
	Gamma float64
}

// GaussianSigma returns the Gaussian kernel with bandwidth σ, that is γ = 1/(2σ²).
func GaussianSigma(sigma float64) Gaussian { return Gaussian{Gamma: 1 / (2 * sigma * sigma)} }

// Sigma returns the bandwidth σ = 1/√(2γ).
func (g Gaussian) Sigma() float64 { return 1 / math.Sqrt(2*g.Gamma) }

// Eval returns exp(−γ‖x − y‖²).
func (g Gaussian) Eval(x, y []float64) float64 { return math.Exp(-g.Gamma * sqDist(x, y)) }

// Block writes K(A, B) into dst.
func (g Gaussian) Block(dst, a, b *mat.Dense) { dotBlock(g, dst, a, b) }

// Diag writes ones into dst.
func (g Gaussian) Diag(dst []float64, a *mat.Dense) { fill(dst, a, 1) }

// ShiftInvariant returns true.
func (Gaussian) ShiftInvariant() bool { return true }

// Validate checks γ > 0 and finite.
func (g Gaussian) Validate() error { return positive("gaussian", "gamma", g.Gamma) }

// String describes the kernel and its γ, as "gaussian(gamma=0.5)".
func (g Gaussian) String() string { return fmt.Sprintf("gaussian(gamma=%g)", g.Gamma) }

func (Gaussian) needsNorms() bool { return true }

func (g Gaussian) fromDots(row []float64, xx float64, cc []float64) {
	gaussRow(row, cc, xx, -g.Gamma)
}

// Laplacian is the L1 Laplacian kernel k(x, y) = exp(−γ‖x − y‖₁), as in
// scikit-learn's laplacian_kernel.
type Laplacian struct {
	// Gamma is γ > 0.
	Gamma float64
}

// Eval returns exp(−γ‖x − y‖₁).
func (l Laplacian) Eval(x, y []float64) float64 {
	sameLen(x, y)
	y = y[:len(x)]
	var s float64
	for i, v := range x {
		s += math.Abs(v - y[i])
	}
	return math.Exp(-l.Gamma * s)
}

// Block writes K(A, B) into dst. With AVX2 or AVX-512 (see Accel) it packs
// A and B and sums the distances in register tiles (l1.go); the sums have
// the bits of Eval's either way, the exponential differs by a few ulps.
func (l Laplacian) Block(dst, a, b *mat.Dense) {
	checkBlock(dst, a, b)
	ra, rb, rd := a.RawMatrix(), b.RawMatrix(), dst.RawMatrix()
	if useAccel != accelPortable && ra.Rows > 0 && rb.Rows > 0 {
		l1DenseBlock(-l.Gamma, dst, a, b)
		return
	}
	d := ra.Cols
	for i := 0; i < ra.Rows; i++ {
		x := ra.Data[i*ra.Stride : i*ra.Stride+d]
		out := rd.Data[i*rd.Stride : i*rd.Stride+rd.Cols]
		j := 0
		// Four columns at a time: four independent sums (the loop is bound
		// by the latency of the additions, not by loads), each still taken
		// over the features in order, so every entry has the bits of the
		// one-column loop below.
		for ; j+4 <= len(out); j += 4 {
			y0 := rb.Data[j*rb.Stride:][:d]
			y1 := rb.Data[(j+1)*rb.Stride:][:d]
			y2 := rb.Data[(j+2)*rb.Stride:][:d]
			y3 := rb.Data[(j+3)*rb.Stride:][:d]
			var s0, s1, s2, s3 float64
			for k, v := range x {
				s0 += math.Abs(v - y0[k])
				s1 += math.Abs(v - y1[k])
				s2 += math.Abs(v - y2[k])
				s3 += math.Abs(v - y3[k])
			}
			out[j] = expNeg(-l.Gamma * s0)
			out[j+1] = expNeg(-l.Gamma * s1)
			out[j+2] = expNeg(-l.Gamma * s2)
			out[j+3] = expNeg(-l.Gamma * s3)
		}
		for ; j < len(out); j++ {
			y := rb.Data[j*rb.Stride:][:d]
			var s float64
			for k, v := range x {
				s += math.Abs(v - y[k])
			}
			out[j] = expNeg(-l.Gamma * s)
		}
	}
}

// Diag writes ones into dst.
func (l Laplacian) Diag(dst []float64, a *mat.Dense) { fill(dst, a, 1) }

// ShiftInvariant returns true.
func (Laplacian) ShiftInvariant() bool { return true }

// Validate checks γ > 0 and finite.
func (l Laplacian) Validate() error { return positive("laplacian", "gamma", l.Gamma) }

// String describes the kernel and its γ, as "laplacian(gamma=0.5)".
func (l Laplacian) String() string { return fmt.Sprintf("laplacian(gamma=%g)", l.Gamma) }

// Polynomial is k(x, y) = (γ x·y + c₀)^degree, as in scikit-learn's
// polynomial_kernel and LIBSVM's -t 1.
type Polynomial struct {
	// Degree is a positive integer.
	Degree int
	// Gamma scales the inner product; it must be positive.
	Gamma float64
	// Coef0 is c₀ ≥ 0 (non-negative so that the kernel stays positive definite).
	Coef0 float64
}

// Eval returns (γ x·y + c₀)^degree.
func (p Polynomial) Eval(x, y []float64) float64 { return ipow(p.Gamma*dot(x, y)+p.Coef0, p.Degree) }

// Block writes K(A, B) into dst.
func (p Polynomial) Block(dst, a, b *mat.Dense) { dotBlock(p, dst, a, b) }

// Diag writes (γ‖a_i‖² + c₀)^degree into dst.
func (p Polynomial) Diag(dst []float64, a *mat.Dense) {
	norms(dst, a)
	for i, v := range dst {
		dst[i] = ipow(p.Gamma*v+p.Coef0, p.Degree)
	}
}

// ShiftInvariant returns false.
func (Polynomial) ShiftInvariant() bool { return false }

// Validate checks degree ≥ 1, γ > 0 and c₀ ≥ 0.
func (p Polynomial) Validate() error {
	if p.Degree < 1 {
		return fmt.Errorf("%w: polynomial degree %d, want ≥ 1", ErrParam, p.Degree)
	}
	if err := positive("polynomial", "gamma", p.Gamma); err != nil {
		return err
	}
	if !(p.Coef0 >= 0) || math.IsInf(p.Coef0, 0) {
		return fmt.Errorf("%w: polynomial coef0 %g, want finite and ≥ 0", ErrParam, p.Coef0)
	}
	return nil
}

// String describes the kernel and its parameters, as
// "polynomial(degree=3, gamma=1, coef0=0)".
func (p Polynomial) String() string {
	return fmt.Sprintf("polynomial(degree=%d, gamma=%g, coef0=%g)", p.Degree, p.Gamma, p.Coef0)
}

func (Polynomial) needsNorms() bool { return false }

func (p Polynomial) fromDots(row []float64, _ float64, _ []float64) {
	for j, v := range row {
		row[j] = ipow(p.Gamma*v+p.Coef0, p.Degree)
	}
}

// Sigmoid is k(x, y) = tanh(γ x·y + c₀), LIBSVM's -t 3 and scikit-learn's
// sigmoid_kernel (the "multilayer perceptron" kernel). It is not positive
// definite in general: for every γ > 0 some c₀ and points make its kernel
// matrix indefinite (Lin & Lin 2003, "A study on sigmoid kernels for SVM and
// the training of non-PSD kernels by SMO-type methods", Sect. 3; they
// suggest γ small and c₀ < 0). The SVMs' dual solvers take it as LIBSVM
// does (a pair with K_ii + K_jj − 2K_ij ≤ 0 gets the curvature τ = 10⁻¹²,
// Chang & Lin 2011, Sect. 4.1.1); a factorization that needs a positive
// definite matrix (exact KRR, FALKON's preconditioner, the Nyström
// approximations) meets it as any indefinite kernel, with jitter or an
// error that says so.
type Sigmoid struct {
	// Gamma scales the inner product; it must be positive.
	Gamma float64
	// Coef0 is c₀, any finite number (LIBSVM's -r, default 0).
	Coef0 float64
}

// Eval returns tanh(γ x·y + c₀).
func (s Sigmoid) Eval(x, y []float64) float64 { return math.Tanh(s.Gamma*dot(x, y) + s.Coef0) }

// Block writes K(A, B) into dst.
func (s Sigmoid) Block(dst, a, b *mat.Dense) { dotBlock(s, dst, a, b) }

// Diag writes tanh(γ‖a_i‖² + c₀) into dst.
func (s Sigmoid) Diag(dst []float64, a *mat.Dense) {
	norms(dst, a)
	for i, v := range dst {
		dst[i] = math.Tanh(s.Gamma*v + s.Coef0)
	}
}

// ShiftInvariant returns false.
func (Sigmoid) ShiftInvariant() bool { return false }

// Validate checks γ > 0 and c₀ finite.
func (s Sigmoid) Validate() error {
	if err := positive("sigmoid", "gamma", s.Gamma); err != nil {
		return err
	}
	if math.IsNaN(s.Coef0) || math.IsInf(s.Coef0, 0) {
		return fmt.Errorf("%w: sigmoid coef0 %g, want finite", ErrParam, s.Coef0)
	}
	return nil
}

// String describes the kernel and its parameters, as
// "sigmoid(gamma=0.1, coef0=-1)".
func (s Sigmoid) String() string { return fmt.Sprintf("sigmoid(gamma=%g, coef0=%g)", s.Gamma, s.Coef0) }

func (Sigmoid) needsNorms() bool { return false }

func (s Sigmoid) fromDots(row []float64, _ float64, _ []float64) {
	for j, v := range row {
		row[j] = math.Tanh(s.Gamma*v + s.Coef0)
	}
}

// Linear is the inner product k(x, y) = x·y.
type Linear struct{}

// Eval returns x·y.
func (Linear) Eval(x, y []float64) float64 { return dot(x, y) }

// Block writes A·Bᵀ into dst.
func (l Linear) Block(dst, a, b *mat.Dense) { dotBlock(l, dst, a, b) }

// Diag writes ‖a_i‖² into dst.
func (Linear) Diag(dst []float64, a *mat.Dense) { norms(dst, a) }

// ShiftInvariant returns false.
func (Linear) ShiftInvariant() bool { return false }

// Validate returns nil: the linear kernel has no parameters.
func (Linear) Validate() error { return nil }

// String returns "linear".
func (Linear) String() string { return "linear" }

func (Linear) needsNorms() bool { return false }

func (Linear) fromDots([]float64, float64, []float64) {}

var (
	_ dotForm = Gaussian{}
	_ dotForm = Polynomial{}
	_ dotForm = Sigmoid{}
	_ dotForm = Linear{}
	_ Kernel  = Laplacian{}
)

// dotBlock computes dst = A·Bᵀ and maps each entry through the kernel.
func dotBlock(k dotForm, dst, a, b *mat.Dense) {
	checkBlock(dst, a, b)
	ra, rb, rd := a.RawMatrix(), b.RawMatrix(), dst.RawMatrix()
	if ra.Rows == 0 || rb.Rows == 0 {
		return
	}
	gemmABt(rd, ra, rb)
	var xn, cn []float64
	if k.needsNorms() {
		xn = make([]float64, ra.Rows)
		cn = make([]float64, rb.Rows)
		norms(xn, a)
		norms(cn, b)
	}
	for i := 0; i < ra.Rows; i++ {
		var xx float64
		if xn != nil {
			xx = xn[i]
		}
		k.fromDots(rd.Data[i*rd.Stride:i*rd.Stride+rd.Cols], xx, cn)
	}
}

// gemmABt sets c = a·bᵀ.
func gemmABt(c, a, b blas64.General) {
	if a.Cols == 0 {
		for i := 0; i < c.Rows; i++ {
			clear(c.Data[i*c.Stride : i*c.Stride+c.Cols])
		}
		return
	}
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, a, b, 0, c)
}

func checkBlock(dst, a, b *mat.Dense) {
	ra, ca := a.Dims()
	rb, cb := b.Dims()
	rd, cd := dst.Dims()
	if ca != cb {
		panic(fmt.Sprintf("kernel: dimension mismatch: A has %d columns, B has %d", ca, cb))
	}
	if rd != ra || cd != rb {
		panic(fmt.Sprintf("kernel: dst is %d×%d, want %d×%d", rd, cd, ra, rb))
	}
}

// norms writes the squared Euclidean norm of each row of a into dst.
func norms(dst []float64, a *mat.Dense) {
	ra := a.RawMatrix()
	if len(dst) != ra.Rows {
		panic(fmt.Sprintf("kernel: dst has %d elements, want %d", len(dst), ra.Rows))
	}
	for i := range dst {
		dst[i] = dot(ra.Data[i*ra.Stride:i*ra.Stride+ra.Cols], ra.Data[i*ra.Stride:i*ra.Stride+ra.Cols])
	}
}

func fill(dst []float64, a *mat.Dense, v float64) {
	if r, _ := a.Dims(); len(dst) != r {
		panic(fmt.Sprintf("kernel: dst has %d elements, want %d", len(dst), r))
	}
	for i := range dst {
		dst[i] = v
	}
}

func dot(x, y []float64) float64 {
	sameLen(x, y)
	y = y[:len(x)]
	var s float64
	for i, v := range x {
		s += v * y[i]
	}
	return s
}

func sqDist(x, y []float64) float64 {
	sameLen(x, y)
	y = y[:len(x)]
	var s float64
	for i, v := range x {
		d := v - y[i]
		s += d * d
	}
	return s
}

// sameLen panics, as gonum's floats package does, when Eval is given vectors
// of different lengths: reading len(x) values of a longer y would silently
// ignore its tail.
func sameLen(x, y []float64) {
	if len(x) != len(y) {
		panic(fmt.Sprintf("kernel: Eval on vectors of lengths %d and %d", len(x), len(y)))
	}
}

func ipow(x float64, n int) float64 {
	r := 1.0
	for n > 0 {
		if n&1 == 1 {
			r *= x
		}
		x *= x
		n >>= 1
	}
	return r
}

func positive(kern, name string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return fmt.Errorf("%w: %s %s %g, want finite and > 0", ErrParam, kern, name, v)
	}
	return nil
}
