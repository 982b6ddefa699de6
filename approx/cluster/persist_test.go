package cluster

import (
	"bytes"
	"context"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

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

func TestSaveLoadPartition(t *testing.T) {
	x := persistData(100, 4, 7)
	xt := persistData(40, 4, 8)
	for _, km := range []KMeans{{K: 5}, {K: 4, Sketch: 2}} {
		p, err := km.Fit(context.Background(), x, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := SavePartition(&buf, p); err != nil {
			t.Fatal(err)
		}
		got, err := LoadPartition(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(mustAssign(t, got, xt), mustAssign(t, p, xt)) || !slices.Equal(got.Labels, p.Labels) || !mat.Equal(got.Centroids, p.Centroids) {
			t.Errorf("sketch %d: reloaded partition differs", km.Sketch)
		}
	}
}

// The persistence code must know every field of a Partition: when one is
// added this test fails; save and load it in persist.go (and extend
// TestSaveLoadPartition) or list it here as derived or unsaved.
func TestPersistCoversFields(t *testing.T) {
	typ := reflect.TypeOf(Partition{})
	known := []string{"Centroids", "Labels", "Objective", "sketch", "assignTo"}
	var have []string
	for i := 0; i < typ.NumField(); i++ {
		have = append(have, typ.Field(i).Name)
	}
	for _, f := range have {
		if !slices.Contains(known, f) {
			t.Errorf("%s.%s is not handled by persist.go", typ.Name(), f)
		}
	}
	for _, f := range known {
		if !slices.Contains(have, f) {
			t.Errorf("%s.%s no longer exists: update persist.go and this list", typ.Name(), f)
		}
	}
}
