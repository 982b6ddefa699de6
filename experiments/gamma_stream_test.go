package experiments

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
	"gonum.org/v1/gonum/mat"
)

// A streamed falkon fit (shards over the memory cap) resolves gamma scale
// from the manifest's column statistics, Var(X) = mean_j Std_j² + the
// variance of the column means (exact decomposition), or, with scale:
// standardize, from the columns the standardization leaves with unit
// variance. It matches ResolveGamma on the rows read into memory (and
// standardized as the stream does) to 1e-12 relative: the sums run in
// another order over 3,000 × 28 values (≈ n·ε ≈ 7e-13 at worst). The
// model's kernel holds the number. Before, gamma scale was refused.
func TestStreamedGammaScale(t *testing.T) {
	man, _ := higgsSet(t, 3000)
	m, err := ReadManifest(man)
	if err != nil {
		t.Fatal(err)
	}
	x, _, err := readShards(context.Background(), man, m, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, scale := range []string{"", "standardize"} {
		src := strings.NewReplacer("PATH", man, "EST", "falkon", "MEM", "2000000").Replace(shardSpec)
		src = strings.Replace(src, "sigma: 3", "gamma: scale", 1)
		s := mustDecode(t, src)
		s.Dataset.Scale = scale
		res, err := FitWith(context.Background(), s, FitOptions{})
		if err != nil {
			t.Fatalf("scale %q: %v", scale, err)
		}
		z := mat.DenseCopyOf(x)
		if scale != "" {
			set := &model.ShardSet{Mean: m.Mean, Std: m.Std}
			for i := range m.N {
				set.Standardize(z.RawRowView(i))
			}
		}
		want, _, _, err := ResolveGamma(GammaScale, z)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("scale %q: streamed %v, rows %v, relative %.1e", scale, res.Gamma, want, math.Abs(res.Gamma-want)/want)
		if res.Storage != StorageStreamed || math.Abs(res.Gamma-want) > 1e-12*want {
			t.Fatalf("scale %q: storage %s, gamma %v; want streamed, %v (from the rows)", scale, res.Storage, res.Gamma, want)
		}
		if g := res.Estimator.(*model.Falkon).Kernel.(kernel.Gaussian).Gamma; g != res.Gamma {
			t.Fatalf("scale %q: the model's kernel has gamma %v, the fit reports %v", scale, g, res.Gamma)
		}
	}
}
