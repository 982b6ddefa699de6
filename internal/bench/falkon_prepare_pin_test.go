package bench

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/internal/pin"
	"github.com/landmark-ml/landmark/model"
)

// TestFalkonBenchPreparePinned prepares cadata (a seeded 80/20 split,
// standardized, regression targets scaled) and ijcnn1 (the official split,
// padded to one width, labels to ±1) and compares the arrays written and
// meta.json with what the code gave before falkonBenchPrepare was split
// into pieces (commit 7d2b573), pinned to catch a reordered step (see
// package pin for the tolerance).
func TestFalkonBenchPreparePinned(t *testing.T) {
	cases := []struct {
		name        string
		task        model.Task
		standardize bool
		want        []float64
		wantDigest  string
		wantMeta    string
	}{
		{"cadata", model.Regression, true, []float64{-82.05115508740039, 2.5463936698443663, 0.9425161326194487, 77.24555829283445, 2.5339133678339487, 7.187889976179349, -10.695913768930918, 2.5035011471048363, -0.22260991208470227, 1.64964211e+08, 358500, 375000}, "aa83baf6782839a2", `{"ntrain":500,"ntest":200,"d":8,"ymean":202076.416,"ysd":100069.29067706519,"task":"regression"}`},
		{"ijcnn1", model.Classification, false, []float64{890.3971659999949, 0, -0.015522, 403.082119, 0, -0.065922, -1786, -1, -1, -756, -1, -1}, "6b292865c00934ce", `{"ntrain":500,"ntest":200,"d":22,"ymean":0,"ysd":1,"task":"classification"}`},
	}
	for i, c := range cases {
		if _, ok := datasets.SharedPath(map[string]string{"cadata": "cadata.libsvm.gz", "ijcnn1": "ijcnn1.train.libsvm.gz"}[c.name]); !ok {
			t.Logf("%s not in the shared datasets", c.name)
			continue
		}
		if c.name == "ijcnn1" && testing.Short() {
			continue
		}
		dir := t.TempDir()
		meta, err := falkonBenchPrepare(t.Context(), c.name, uint64(i)+7, 500, 200, dir, c.task, c.standardize)
		if err != nil {
			t.Fatal(err)
		}
		mb, err := os.ReadFile(filepath.Join(dir, "meta.json"))
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := json.Marshal(meta); string(mb) != string(want) || string(mb) != c.wantMeta {
			t.Errorf("%s: meta.json %s, returned %s, recorded %s", c.name, mb, want, c.wantMeta)
		}
		var all [][]float64
		var got []float64
		for _, f := range []struct {
			file string
			n    int
		}{{"xtr.f64", meta.NTrain * meta.D}, {"xte.f64", meta.NTest * meta.D}, {"ytr.f64", meta.NTrain}, {"yte.f64", meta.NTest}} {
			v, err := falkonBenchRead(filepath.Join(dir, f.file), f.n)
			if err != nil {
				t.Fatal(err)
			}
			var s float64
			for j, x := range v {
				s += x * float64(j%7+1)
			}
			got = append(got, s, v[0], v[len(v)-1])
			all = append(all, v)
		}
		pin.Floats(t, c.name, pin.Tol, got, c.want, c.wantDigest, all...)
	}
}
