package approx

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/internal/check"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// levDenseRows is a RowApproximator backed by a dense n×n matrix.
type levDenseRows struct{ a *mat.Dense }

func (d levDenseRows) Rows(_ context.Context, dst *mat.Dense, idx []int) error {
	for t, i := range idx {
		dst.SetRow(t, d.a.RawRowView(i))
	}
	return nil
}

// Lanczos must agree with a full eigendecomposition on indefinite symmetric
// matrices, including ones whose largest |eigenvalue| is negative. 1e-9
// relative: Lanczos with full reorthogonalization converges to round-off.
func TestSymNorm2MatchesEigen(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial, n := range []int{1, 2, 7, 60, 200} {
		g := levRandMatrix(n, n, rng)
		var a mat.Dense
		a.Add(g, g.T())
		if trial%2 == 1 {
			a.Scale(-1, &a) // the dominant eigenvalue becomes negative half the time
		}
		want := levSymNorm(&a)
		got, err := SymNorm2(levCtx, &a, rng)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-want) > 1e-9*want {
			t.Errorf("n=%d: Lanczos %v, eigen %v", n, got, want)
		}
	}
	if _, err := SymNorm2(levCtx, mat.NewDense(2, 3, nil), rng); !errors.Is(err, check.ErrInput) {
		t.Errorf("non-square: %v", err)
	}
}

// With every row sampled, the MEKA-protocol Frobenius error is the exact
// ‖K − K̃‖_F/‖K‖_F; and the spectral error on the whole set is ‖K − K̃‖₂.
func TestErrorMeasuresExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := levRandMatrix(150, 4, rng)
	k := kernel.Gaussian{Gamma: 0.3}
	kk := levDenseKernel(k, x)
	idx := points.Sample(150, 20, rng)
	approx := levNystrom(kk, idx)
	var diff mat.Dense
	diff.Sub(kk, approx)
	wantF := mat.Norm(&diff, 2) / mat.Norm(kk, 2) // Frobenius norms
	gotF, err := RelFrobeniusError(levCtx, x, k, levDenseRows{approx}, 150, rng)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(gotF-wantF) > 1e-12*wantF {
		t.Errorf("Frobenius %v, want %v", gotF, wantF)
	}
	sp, err := SpectralError(levCtx, x, k, levDenseRows{approx}, 1000, rng)
	if err != nil {
		t.Fatal(err)
	}
	if wantS := levSymNorm(&diff); math.Abs(sp.Error-wantS) > 1e-9*wantS || sp.Points != 150 {
		t.Errorf("spectral %+v, want error %v on 150 points", sp, wantS)
	}
	if wantK := levSymNorm(kk); math.Abs(sp.Norm-wantK) > 1e-9*wantK {
		t.Errorf("‖K‖₂ = %v, want %v", sp.Norm, wantK)
	}
	// A sampled subset: the error of a principal submatrix is at most the
	// whole (Cauchy interlacing), and K itself has zero error.
	sub, err := SpectralError(levCtx, x, k, levDenseRows{approx}, 60, rng)
	if err != nil {
		t.Fatal(err)
	}
	if sub.Points != 60 || sub.Error > sp.Error*(1+1e-9) {
		t.Errorf("subset spectral %+v, whole %v", sub, sp.Error)
	}
	zero, err := RelFrobeniusError(levCtx, x, k, levDenseRows{kk}, 40, rng)
	if err != nil || zero > 1e-14 {
		t.Errorf("K against itself: %v, %v", zero, err)
	}
}

// FeatureRows of a map with φ(x) = the rows of a matrix gives φφᵀ.
type levFixedMap struct{ phi *mat.Dense }

func (f levFixedMap) Dim() int { _, c := f.phi.Dims(); return c }
func (f levFixedMap) Transform(_ context.Context, dst *mat.Dense, _ mat.Matrix) error {
	dst.Copy(f.phi)
	return nil
}

func TestFeatureRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	phi := levRandMatrix(30, 4, rng)
	x := levRandMatrix(30, 2, rng)
	fr, err := NewFeatureRows(levCtx, levFixedMap{phi}, x)
	if err != nil {
		t.Fatal(err)
	}
	idx := []int{4, 0, 29}
	dst := mat.NewDense(3, 30, nil)
	if err := fr.Rows(levCtx, dst, idx); err != nil {
		t.Fatal(err)
	}
	for a, i := range idx {
		for j := 0; j < 30; j++ {
			want := mat.Dot(phi.RowView(i), phi.RowView(j))
			if math.Abs(dst.At(a, j)-want) > 1e-12 {
				t.Fatalf("K̃[%d,%d] = %v, want %v", i, j, dst.At(a, j), want)
			}
		}
	}
	if err := fr.Rows(levCtx, mat.NewDense(1, 30, nil), []int{30}); !errors.Is(err, check.ErrInput) {
		t.Errorf("out-of-range row: %v", err)
	}
}

// Percentiles follow numpy's linear interpolation: for ratios 1…101 (one per
// point), P5 = 6 and P95 = 96 exactly, the mean 51.
func TestScoreAccuracy(t *testing.T) {
	exact := make([]float64, 102)
	approx := make([]float64, 102)
	for i := range 101 {
		exact[i] = 0.5
		approx[i] = 0.5 * float64(i+1)
	}
	exact[101], approx[101] = 0, 3 // skipped
	r, err := ScoreAccuracy(approx, exact)
	if err != nil {
		t.Fatal(err)
	}
	if r.Mean != 51 || r.P5 != 6 || r.P95 != 96 || r.Min != 1 || r.Max != 101 || r.Skipped != 1 {
		t.Errorf("got %+v", r)
	}
	if _, err := ScoreAccuracy([]float64{1}, []float64{1, 2}); !errors.Is(err, check.ErrInput) {
		t.Errorf("length mismatch: %v", err)
	}
	if _, err := ScoreAccuracy([]float64{math.NaN()}, []float64{1}); !errors.Is(err, check.ErrInput) {
		t.Errorf("NaN: %v", err)
	}
}

func TestQualityBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	x := levRandMatrix(10, 2, rng)
	k := kernel.Gaussian{Gamma: 1}
	a := levDenseRows{levDenseKernel(k, x)}
	if _, err := RelFrobeniusError(levCtx, x, k, nil, 5, rng); !errors.Is(err, check.ErrInput) {
		t.Errorf("nil approximation: %v", err)
	}
	if _, err := RelFrobeniusError(levCtx, x, k, a, -1, rng); !errors.Is(err, check.ErrInput) {
		t.Errorf("rows < 0: %v", err)
	}
	if _, err := SpectralError(levCtx, x, nil, a, 5, rng); !errors.Is(err, check.ErrInput) {
		t.Errorf("nil kernel: %v", err)
	}
	if _, err := SpectralError(levCtx, x, kernel.Gaussian{Gamma: 0}, a, 5, rng); !errors.Is(err, kernel.ErrParam) {
		t.Errorf("bad kernel: %v", err)
	}
	ctx, cancel := context.WithCancel(levCtx)
	cancel()
	if _, err := SpectralError(ctx, x, k, a, 5, rng); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
