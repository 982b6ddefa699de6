package experiments

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
)

// markZeroBased rewrites the manifest at path as data shard --zero-based
// writes it (zero_based: true).
func markZeroBased(t *testing.T, path string) {
	t.Helper()
	m, err := ReadManifest(path)
	if err != nil {
		t.Fatal(err)
	}
	m.ZeroBased = true
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A fit of shards written from a 0-based LIBSVM file keeps the base
// (FitResult.ZeroBased, so that predict asks for a file's base) on each
// path: streamed (FitWith over the cap), ShardFit (the Beam fit's wrapper)
// saved with a nil spec and reloaded. Before, both gave false.
func TestShardFitZeroBased(t *testing.T) {
	man, _ := higgsSet(t, 3000)
	markZeroBased(t, man)
	s := shardSpecFor(t, man, "falkon", 2_000_000) // streamed, as TestFitManifestStreamed
	res, err := FitWith(context.Background(), s, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Storage != StorageStreamed || !res.ZeroBased {
		t.Fatalf("streamed fit: storage %s, ZeroBased %v; want streamed, true", res.Storage, res.ZeroBased)
	}
	m, err := ReadManifest(man)
	if err != nil {
		t.Fatal(err)
	}
	set, err := model.OpenShards(man)
	if err != nil {
		t.Fatal(err)
	}
	f := &model.Falkon{Kernel: kernel.GaussianSigma(3), Lambda: 1e-6, M: 20, MaxIter: 3, Seed: 2}
	if err := f.FitShardSet(context.Background(), set); err != nil {
		t.Fatal(err)
	}
	fit, err := ShardFit(f, m, false)
	if err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(t.TempDir(), "z.lmk")
	if err := fit.SaveFile(saved, nil); err != nil {
		t.Fatal(err)
	}
	back, err := LoadFitFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	if !fit.ZeroBased || !back.ZeroBased {
		t.Fatalf("ShardFit ZeroBased %v, after save and load %v; want true, true", fit.ZeroBased, back.ZeroBased)
	}
}
