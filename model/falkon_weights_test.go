package model_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// Falkon.CenterWeights that are not finite and positive are refused at Fit
// with ErrInput, whatever the preconditioner, and the error names the weight
// the user gave (index and value). Before 2026-11-27 the falkon and jacobi
// preconditioners accepted NaN or negative weights silently (they do not read
// them), and the bless one named the rescaled weight w·n/M (−16 for −1 with
// n = 80, M = 5), a number not in the user's input.
func TestFalkonCenterWeightsRefused(t *testing.T) {
	x, _, _, y, _ := badData()
	centers := mat.DenseCopyOf(x.Slice(0, 5, 0, 3))
	for _, bad := range []float64{-1, 0, math.NaN(), math.Inf(1)} {
		for _, pc := range []string{"", model.PrecondFalkon, model.PrecondBLESS, model.PrecondJacobi} {
			w := []float64{0.5, 0.5, bad, 0.5, 0.5}
			f := &model.Falkon{Kernel: kernel.Gaussian{Gamma: 1}, Lambda: 1e-3, Centers: centers,
				CenterWeights: w, Preconditioner: pc}
			err := f.Fit(context.Background(), x, y)
			if !errors.Is(err, model.ErrInput) {
				t.Errorf("weight %g, preconditioner %q: err = %v, want ErrInput", bad, pc, err)
				continue
			}
			if want := "center weight 2 is " + fmt.Sprintf("%g", bad); !strings.Contains(err.Error(), want) {
				t.Errorf("weight %g, preconditioner %q: err = %v, want it to contain %q", bad, pc, err, want)
			}
		}
	}
}
