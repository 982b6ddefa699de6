package main

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
)

// TestApproxMEKAAndBKA runs "landmark approx --method meka|bka" on 1,500
// pendigits points scaled to [−1, 1] with a large γ, where the kernel is
// close to block-diagonal, and checks that MEKA's error is below uniform
// Nyström's at equal memory (n·k + (ck)² floats: k = 8, c = 6 → 8 + 48²/1500
// ≈ 9 landmarks) and that the text output reports memory and stage times.
func TestApproxMEKAAndBKA(t *testing.T) {
	common := []string{"--data", "pendigits", "--n", "1500", "--scale", "minmax", "--gamma", "2", "--spectral-n", "0", "--sample-rows", "300"}
	meka := approxTSV(t, append(common, "--method", "meka", "--m", "48", "--clusters", "6")...)
	uni := approxTSV(t, append(common, "--method", "uniform", "--m", strconv.Itoa(8+48*48/1500))...)
	me, ue := num(t, meka["rel_frob"]), num(t, uni["rel_frob"])
	t.Logf("pendigits n=1500 γ=2: MEKA (k=8, c=6) %.4f, uniform Nyström (m=9) %.4f", me, ue)
	if !(me < ue) {
		t.Errorf("MEKA error %g not below uniform Nyström's %g at equal memory", me, ue)
	}
	bka := approxTSV(t, append(common, "--method", "bka", "--clusters", "6")...)
	if be := num(t, bka["rel_frob"]); !(be > 0 && be < 1) {
		t.Errorf("BKA relative error %g, want in (0, 1)", be)
	}
	var out, errb bytes.Buffer
	if err := runApprox(context.Background(), append(common, "--method", "meka", "--m", "48", "--clusters", "6"), &out, &errb); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"T_C=", "T_W=", "T_L=", "bytes"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, out.String())
		}
	}
}
