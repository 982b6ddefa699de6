package cluster

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/landmark-ml/landmark/approx/internal/points"
	"github.com/landmark-ml/landmark/approx/internal/synth"
	"github.com/landmark-ml/landmark/internal/check"
	"gonum.org/v1/gonum/mat"
)

// kmObjective is the k-means objective computed directly.
func kmObjective(x, c *mat.Dense, lab []int) float64 {
	f := 0.0
	for i, l := range lab {
		f += kmSqDist(x.RawRowView(i), c.RawRowView(l))
	}
	return f
}

func TestKMeansObjectiveNonIncreasing(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		x, _ := synth.Dense(rng, 300, 4, 6)
		// K larger than the number of blobs so Lloyd has work to do; Tol tiny
		// so all iterations run.
		p, err := KMeans{K: 15, Tol: 1e-12, MaxIter: 50}.Fit(context.Background(), x, rng)
		if err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(p.Objective); i++ {
			// Lloyd never increases the objective in exact arithmetic; the
			// distances come from ‖x‖²+‖c‖²−2x·c, so allow rounding of 1e-12
			// relative.
			if p.Objective[i] > p.Objective[i-1]*(1+1e-12) {
				t.Fatalf("seed %d: objective rose at %d: %v", seed, i, p.Objective)
			}
		}
		// The last recorded objective is the objective of Labels and Centroids
		// (all points clustered, n < Subsample).
		last := p.Objective[len(p.Objective)-1]
		if got := kmObjective(x, p.Centroids, p.Labels); math.Abs(got-last) > 1e-9*last {
			t.Fatalf("seed %d: objective %g, recomputed %g", seed, last, got)
		}
	}
}

func TestKMeansRecoversBlobs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	x, truth := synth.Dense(rng, 400, 5, 4)
	p, err := KMeans{K: 4}.Fit(context.Background(), x, rng)
	if err != nil {
		t.Fatal(err)
	}
	// Blobs 10σ apart: k-means++ plus Lloyd finds them; each found cluster
	// must be exactly one true blob (co-membership agrees).
	m := map[int]int{}
	for i, l := range p.Labels {
		if j, ok := m[l]; ok && j != truth[i] {
			t.Fatalf("cluster %d mixes blobs %d and %d", l, j, truth[i])
		}
		m[l] = truth[i]
	}
	if len(m) != 4 {
		t.Fatalf("found %d clusters, want 4", len(m))
	}
}

func TestKMeansDeterministic(t *testing.T) {
	x, _ := synth.Dense(rand.New(rand.NewPCG(5, 5)), 2000, 8, 10)
	for _, km := range []KMeans{{K: 12}, {K: 12, Subsample: 500}, {K: 12, Subsample: 700, Sketch: 3}} {
		fit := func(procs int) *Partition {
			old := runtime.GOMAXPROCS(procs)
			defer runtime.GOMAXPROCS(old)
			p, err := km.Fit(context.Background(), x, rand.New(rand.NewPCG(11, 12)))
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		a, b := fit(1), fit(4)
		if !slices.Equal(a.Labels, b.Labels) || !mat.Equal(a.Centroids, b.Centroids) || !slices.Equal(a.Objective, b.Objective) {
			t.Fatalf("%+v: results differ between GOMAXPROCS 1 and 4", km)
		}
		c, err := km.Fit(context.Background(), x, rand.New(rand.NewPCG(99, 12)))
		if err != nil {
			t.Fatal(err)
		}
		if mat.Equal(a.Centroids, c.Centroids) {
			t.Fatalf("%+v: different seeds gave identical centroids", km)
		}
	}
}

func TestKMeansAssignMatchesLabels(t *testing.T) {
	x, _ := synth.Dense(rand.New(rand.NewPCG(8, 1)), 1500, 6, 5)
	for _, km := range []KMeans{{K: 9}, {K: 9, Subsample: 300}, {K: 9, Sketch: 2}, {K: 9, Sketch: 4, Subsample: 400}} {
		p, err := km.Fit(context.Background(), x, rand.New(rand.NewPCG(2, 2)))
		if err != nil {
			t.Fatal(err)
		}
		if got := mustAssign(t, p, x); !slices.Equal(got, p.Labels) {
			t.Fatalf("%+v: Assign differs from Labels", km)
		}
		// Rows in other positions (other blocks, a short last block) get the
		// same clusters: 300 training rows in reversed order.
		sub := make([]int, 300)
		for i := range sub {
			sub[i] = 1499 - 5*i
		}
		for i, l := range mustAssign(t, p, points.Gather(x, sub)) {
			if l != p.Labels[sub[i]] {
				t.Fatalf("%+v: Assign on a subset: row %d got %d, label %d", km, sub[i], l, p.Labels[sub[i]])
			}
		}
		// Members lists every row once, ascending, and no cluster is empty.
		seen := 0
		for j, mem := range p.Members() {
			if len(mem) == 0 {
				t.Fatalf("%+v: cluster %d empty", km, j)
			}
			if !slices.IsSorted(mem) {
				t.Fatalf("%+v: members not ascending", km)
			}
			for _, i := range mem {
				if p.Labels[i] != j {
					t.Fatalf("%+v: row %d listed in %d, labelled %d", km, i, j, p.Labels[i])
				}
			}
			seen += len(mem)
		}
		if seen != 1500 {
			t.Fatalf("%+v: members cover %d rows", km, seen)
		}
		if km.Sketch > 0 {
			// Centroids are the original-space means of the partition.
			want := mat.NewDense(9, 6, nil)
			kmMeans(want, x, p.Labels)
			if !mat.EqualApprox(want, p.Centroids, 1e-12) {
				t.Fatalf("%+v: centroids are not the partition means", km)
			}
		} else {
			// Nearest-centroid labels: brute force agrees.
			for i := 0; i < 1500; i++ {
				l := p.Labels[i]
				dl := kmSqDist(x.RawRowView(i), p.Centroids.RawRowView(l))
				for j := 0; j < 9; j++ {
					// 1e-9 relative: the search uses ‖x‖²+‖c‖²−2x·c.
					if kmSqDist(x.RawRowView(i), p.Centroids.RawRowView(j)) < dl*(1-1e-9) {
						t.Fatalf("%+v: row %d labelled %d but %d is nearer", km, i, l, j)
					}
				}
			}
		}
	}
}

func TestKMeansReseedsEmptyCluster(t *testing.T) {
	// Four points on a line; centroids placed so that cluster 2 gets nothing.
	x := mat.NewDense(4, 1, []float64{0, 1, 10, 11})
	c := mat.NewDense(3, 1, []float64{0.5, 10.5, 100})
	lab := make([]int, 4)
	dist := make([]float64, 4)
	if err := kmNearest(context.Background(), lab, dist, x, nil, c); err != nil {
		t.Fatal(err)
	}
	counts := []int{2, 2, 0}
	if !kmReseed(x, c, lab, dist, counts) {
		t.Fatal("reseed failed")
	}
	// All four points are 0.5 from their centroid; the farthest with the
	// lowest row is row 0, which moves to cluster 2.
	if lab[0] != 2 || c.At(2, 0) != 0 || counts[2] != 1 || counts[0] != 1 {
		t.Fatalf("labels %v centroids %v counts %v", lab, mat.Formatted(c.T()), counts)
	}
}

func TestKMeansDuplicatePoints(t *testing.T) {
	// Only two distinct rows but K = 3: no panic, no infinite loop.
	x := mat.NewDense(6, 2, []float64{1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2})
	p, err := KMeans{K: 3}.Fit(context.Background(), x, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if p.Objective[len(p.Objective)-1] != 0 {
		t.Fatalf("objective %v, want 0", p.Objective)
	}
}

func TestKMeansErrors(t *testing.T) {
	x := mat.NewDense(5, 2, []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	nan := mat.DenseCopyOf(x)
	nan.Set(2, 1, math.NaN())
	rng := rand.New(rand.NewPCG(1, 1))
	ctx := context.Background()
	cases := []struct {
		name string
		km   KMeans
		x    *mat.Dense
		rng  *rand.Rand
	}{
		{"K zero", KMeans{}, x, rng},
		{"K > n", KMeans{K: 6}, x, rng},
		{"negative iter", KMeans{K: 2, MaxIter: -1}, x, rng},
		{"negative tol", KMeans{K: 2, Tol: -1}, x, rng},
		{"NaN tol", KMeans{K: 2, Tol: math.NaN()}, x, rng},
		{"negative sketch", KMeans{K: 2, Sketch: -2}, x, rng},
		{"subsample < K", KMeans{K: 3, Subsample: 2}, x, rng},
		{"NaN data", KMeans{K: 2}, nan, rng},
		{"nil data", KMeans{K: 2}, nil, rng},
		{"nil rng", KMeans{K: 2}, x, nil},
	}
	for _, c := range cases {
		if _, err := c.km.Fit(ctx, c.x, c.rng); !errors.Is(err, check.ErrInput) {
			t.Errorf("%s: err = %v, want ErrInput", c.name, err)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	big, _ := synth.Dense(rng, 3000, 3, 3)
	if _, err := (KMeans{K: 3}).Fit(cctx, big, rng); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

// kmSqDist is ‖a − b‖², computed directly.
func kmSqDist(a, b []float64) float64 {
	s := 0.0
	for i, v := range a {
		e := v - b[i]
		s += e * e
	}
	return s
}

// mustAssign is Partition.Assign for inputs the test knows are valid.
func mustAssign(t *testing.T, p *Partition, x *mat.Dense) []int {
	t.Helper()
	lab, err := p.Assign(x)
	if err != nil {
		t.Fatal(err)
	}
	return lab
}

// TestPartitionByHand: a Partition built from Centroids and Labels alone (as
// a caller hands one to MEKA or BKA) validates against its data and assigns
// each new row to the nearest centroid, checked here against squared
// distances computed directly; Validate refuses centroids of the wrong
// width, a wrong label count and a label out of range, with ErrInput.
func TestPartitionByHand(t *testing.T) {
	cent := mat.NewDense(3, 2, []float64{0, 0, 10, 0, 0, 10})
	p := &Partition{Centroids: cent, Labels: []int{0, 1, 2, 2}}
	if err := p.Validate(4, 2); err != nil {
		t.Fatalf("valid partition: %v", err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	x := mat.NewDense(50, 2, nil)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = 12*rng.Float64() - 1
	}
	got := mustAssign(t, p, x)
	for i := 0; i < 50; i++ {
		best, bd := -1, math.Inf(1)
		for c := 0; c < 3; c++ {
			if d := kmSqDist(x.RawRowView(i), cent.RawRowView(c)); d < bd {
				best, bd = c, d
			}
		}
		if got[i] != best {
			t.Fatalf("row %d assigned to %d, nearest centroid is %d", i, got[i], best)
		}
	}
	if m := p.Members(); !slices.Equal(m[2], []int{2, 3}) {
		t.Errorf("members of cluster 2: %v, want [2 3]", m[2])
	}
	for name, c := range map[string]struct {
		p    *Partition
		n, d int
	}{
		"no centroids":   {&Partition{Labels: []int{0}}, 1, 2},
		"width":          {p, 4, 3},
		"label count":    {p, 5, 2},
		"label range":    {&Partition{Centroids: cent, Labels: []int{0, 3}}, 2, 2},
		"negative label": {&Partition{Centroids: cent, Labels: []int{-1, 0}}, 2, 2},
	} {
		if err := c.p.Validate(c.n, c.d); !errors.Is(err, check.ErrInput) {
			t.Errorf("%s: %v, want ErrInput", name, err)
		}
	}
}
