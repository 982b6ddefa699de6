package meka

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/landmark-ml/landmark/approx"
	"github.com/landmark-ml/landmark/approx/cluster"
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

// mekaMaps fits the MEKA maps the persistence tests save: PSD-fixed, and
// sketched k-means with thresholded links.
func mekaMaps(t testing.TB) map[string]approx.FeatureMap {
	t.Helper()
	ctx := context.Background()
	x := persistData(80, 3, 1)
	g := kernel.Gaussian{Gamma: 2}
	rng := rand.New(rand.NewPCG(5, 6))
	out := map[string]approx.FeatureMap{}
	var err error
	if out["meka-psd"], err = Fit(ctx, x, g, Options{Rank: 4, Clusters: 3, PSD: true}, rng); err != nil {
		t.Fatal(err)
	}
	if out["meka-sketch"], err = Fit(ctx, x, g, Options{Rank: 3, Clusters: 2, Epsilon: 1e-3, KMeans: cluster.KMeans{Sketch: 2}}, rng); err != nil {
		t.Fatal(err)
	}
	return out
}

// Reloaded maps transform bit-identically and re-save to the same bytes.
func TestSaveLoadMap(t *testing.T) {
	xt := persistData(30, 3, 2)
	for name, m := range mekaMaps(t) {
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
		if mk, ok := m.(*Map); ok {
			// The whole approximation, not only the feature map, survives.
			gm := got.(*Map)
			v := persistData(80, 2, 3)
			p, q := mat.NewDense(80, 2, nil), mat.NewDense(80, 2, nil)
			if err := mk.Mul(context.Background(), p, v); err != nil {
				t.Fatal(err)
			}
			if err := gm.Mul(context.Background(), q, v); err != nil {
				t.Fatal(err)
			}
			if !mat.Equal(p, q) || gm.Rank() != mk.Rank() || !slices.Equal(mustAssign(t, gm.Partition(), xt), mustAssign(t, mk.Partition(), xt)) {
				t.Errorf("%s: reloaded MEKA differs", name)
			}
			ws, wg := mk.Stats(), gm.Stats()
			if !slices.Equal(ws.Ranks, wg.Ranks) || ws.Linked != wg.Linked || ws.PSDFixed != wg.PSDFixed || ws.Bytes != wg.Bytes {
				t.Errorf("%s: stats %+v, want %+v", name, wg, ws)
			}
		}
	}
}

// Truncated and corrupted files, and files of another type, fail with
// ErrFormat.
func TestLoadMapRejectsDamage(t *testing.T) {
	for name, m := range mekaMaps(t) {
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
		if _, err := cluster.LoadPartition(bytes.NewReader(b)); !errors.Is(err, ErrFormat) {
			t.Errorf("%s read as a partition: err = %v", name, err)
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
		// KMeans, Partition, Progress and BasisSolver are fitting inputs, not saved.
		{Options{}, []string{"Rank", "Clusters", "Landmarks", "Rho", "Epsilon", "Strategy", "PSD", "KMeans", "Partition",
			"MaxBytes", "Workers", "Progress", "BasisSolver"}},
		{Stats{}, []string{"ClusterTime", "BasisTime", "LinkTime", "EigenTime", "Sizes", "Ranks", "RankDeficit", "Linked",
			"Thresholded", "Bytes", "Eigendecomposed", "MinEigenvalue", "NegativeEigenvalues", "PSDFixed"}},
		// labels, pos and members are derived from the partition; eigOnce,
		// eigErr and statsMu are synchronization state.
		{Map{}, []string{"kern", "n", "d", "opt", "part", "labels", "pos", "members", "z", "proj", "w", "off", "lm", "l",
			"eigOnce", "eigErr", "vals", "vecs", "feat", "statsMu", "stats"}},
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
