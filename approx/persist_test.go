package approx

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/internal/binfmt"
	"github.com/landmark-ml/landmark/kernel"
	"gonum.org/v1/gonum/mat"
)

// persistData draws n points in [−1, 1]^d from a fixed seed.
func persistData(n, d int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 99))
	x := mat.NewDense(n, d, nil)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = 2*rng.Float64() - 1
	}
	return x
}

func persistMaps(t testing.TB) map[string]FeatureMap {
	t.Helper()
	ctx := context.Background()
	x := persistData(80, 3, 1)
	g := kernel.Gaussian{Gamma: 2}
	rng := rand.New(rand.NewPCG(5, 6))
	lm, err := Uniform{}.Sample(ctx, x, g, 15, rng)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]FeatureMap{}
	if out["nystrom"], err = (Nystrom{Engine: kernel.Options{BlockRows: 5}}).Fit(ctx, x, g, lm); err != nil {
		t.Fatal(err)
	}
	if out["nystrom-qr"], err = (Nystrom{Rank: 6, QR: true}).Fit(ctx, x, kernel.Laplacian{Gamma: 1}, lm); err != nil {
		t.Fatal(err)
	}
	if out["rff"], err = (RFF{Features: 20}).Fit(g, 3, rng); err != nil {
		t.Fatal(err)
	}
	return out
}

// Reloaded maps transform bit-identically and re-save to the same bytes.
func TestSaveLoadMap(t *testing.T) {
	xt := persistData(30, 3, 2)
	for name, m := range persistMaps(t) {
		var buf bytes.Buffer
		if err := SaveMap(&buf, m); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		saved := bytes.Clone(buf.Bytes())
		got, err := LoadMap(&buf)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got.Dim() != m.Dim() {
			t.Fatalf("%s: Dim %d, want %d", name, got.Dim(), m.Dim())
		}
		a := mat.NewDense(30, m.Dim(), nil)
		b := mat.NewDense(30, m.Dim(), nil)
		if err := m.Transform(context.Background(), a, xt); err != nil {
			t.Fatal(err)
		}
		if err := got.Transform(context.Background(), b, xt); err != nil {
			t.Fatal(err)
		}
		for i, v := range a.RawMatrix().Data {
			if math.Float64bits(v) != math.Float64bits(b.RawMatrix().Data[i]) {
				t.Fatalf("%s: transform differs after reload at %d", name, i)
			}
		}
		again, err := MarshalMap(got)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, saved) {
			t.Errorf("%s: re-saved bytes differ", name)
		}
	}
}

// Truncated and corrupted files, and files of another type, fail with
// ErrFormat.
func TestLoadMapRejectsDamage(t *testing.T) {
	for name, m := range persistMaps(t) {
		b, err := MarshalMap(m)
		if err != nil {
			t.Fatal(err)
		}
		step := max(1, len(b)/800)
		for n := 0; n < len(b); n += step {
			if _, err := LoadMap(bytes.NewReader(b[:n])); !errors.Is(err, ErrFormat) {
				t.Fatalf("%s cut at %d: err = %v", name, n, err)
			}
		}
		for i := 0; i < len(b); i += step {
			bad := bytes.Clone(b)
			bad[i] ^= 0x10
			if _, err := LoadMap(bytes.NewReader(bad)); !errors.Is(err, ErrFormat) {
				t.Fatalf("%s flip at %d: err = %v", name, i, err)
			}
		}
	}
	if err := SaveMap(&bytes.Buffer{}, otherMap{}); err == nil {
		t.Error("foreign map saved")
	}
}

type otherMap struct{}

func (otherMap) Dim() int                                                { return 1 }
func (otherMap) Transform(context.Context, *mat.Dense, mat.Matrix) error { return nil }

// The persistence code must know every field of the saved types: when one
// is added this test fails; save and load it in persist.go (and extend
// TestSaveLoadMap) or list it here as derived or unsaved.
func TestPersistCoversFields(t *testing.T) {
	for _, c := range []struct {
		v     any
		known []string
	}{
		{NystromMap{}, []string{"Kernel", "Landmarks", "T", "Values", "Dropped", "engine", "qr"}},
		{RFFMap{}, []string{"Omega", "Offset"}},
	} {
		typ := reflect.TypeOf(c.v)
		var have []string
		for i := 0; i < typ.NumField(); i++ {
			have = append(have, typ.Field(i).Name)
		}
		for _, f := range have {
			if !slices.Contains(c.known, f) {
				t.Errorf("%s.%s is not handled by persist.go", typ.Name(), f)
			}
		}
		for _, f := range c.known {
			if !slices.Contains(have, f) {
				t.Errorf("%s.%s no longer exists: update persist.go and this list", typ.Name(), f)
			}
		}
	}
}

// A saved MEKA is not this package's to decode: LoadMap says where to read
// it (meka.LoadMap), wrapping ErrFormat.
func TestLoadMapNamesMEKA(t *testing.T) {
	var b bytes.Buffer
	if err := binfmt.Write(&b, tagMEKA, nil); err != nil {
		t.Fatal(err)
	}
	_, err := LoadMap(&b)
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "meka.LoadMap") {
		t.Fatalf("LoadMap of a MEKA file: %v, want ErrFormat naming meka.LoadMap", err)
	}
}
