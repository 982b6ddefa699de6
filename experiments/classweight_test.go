package experiments

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
	"github.com/landmark-ml/landmark/kernel"
	"github.com/landmark-ml/landmark/model"
)

// TestClassWeight: class_weight gives the SVMs' ClassWeights: LABEL:W
// pairs as LIBSVM's -wLABEL W, and balanced as scikit-learn computes it
// on the fit's own labels (n/(k·n_c)); the fits equal model.SVM and
// model.BKASVM fitted with those weights directly, bit for bit, and the
// weights change the model (a fit without them differs). Text labels are
// named by their names. Malformed values are spec errors; a label the
// data lacks is an error at fit time; krr has no class_weight.
func TestClassWeight(t *testing.T) {
	heart, err := datasets.Load("heart_scale")
	if err != nil {
		t.Fatal(err)
	}
	const spec = "name: w\ndataset: {name: heart_scale}\ntask: binary\nestimator: {type: EST, kernel: {type: gaussian, gamma: 0.077}, c: 1, WEIGHT}\nseed: 2\n"
	fit := func(est, weight string) *FitResult {
		t.Helper()
		res, err := Fit(context.Background(), mustDecode(t, strings.NewReplacer("EST", est, "WEIGHT", weight).Replace(spec)))
		if err != nil {
			t.Fatalf("%s %s: %v", est, weight, err)
		}
		return res
	}
	balanced, err := model.BalancedClassWeights(heart.Y)
	if err != nil {
		t.Fatal(err)
	}
	g := kernel.Gaussian{Gamma: 0.077}
	for _, c := range []struct {
		est, weight, plain string // plain: the same fit without weights
		want               map[float64]float64
	}{
		{"svm", "class_weight: '1:3,-1:0.5'", "tol: 0", map[float64]float64{1: 3, -1: 0.5}},
		{"svm", "class_weight: balanced", "tol: 0", balanced},
		{"bka-svm", "class_weight: '1:3', clusters: 4", "clusters: 4", map[float64]float64{1: 3}},
	} {
		res := fit(c.est, c.weight)
		var direct model.Estimator
		switch e := res.Estimator.(type) {
		case *model.SVM:
			direct = &model.SVM{Kernel: g, C: 1, ClassWeights: c.want, Seed: e.Seed}
		case *model.BKASVM:
			direct = &model.BKASVM{Kernel: g, C: 1, ClassWeights: c.want, Clusters: 4, Seed: e.Seed}
		}
		if err := direct.Fit(context.Background(), heart.X, heart.Y); err != nil {
			t.Fatal(err)
		}
		got, err := res.Estimator.Predict(heart.X)
		if err != nil {
			t.Fatal(err)
		}
		want, err := direct.Predict(heart.X)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s %s: predictions differ from the direct fit with %v", c.est, c.weight, c.want)
		}
		plain, err := fit(c.est, c.plain).Estimator.Predict(heart.X)
		if err != nil {
			t.Fatal(err)
		}
		if reflect.DeepEqual(got, plain) {
			t.Errorf("%s %s: the weights changed no prediction", c.est, c.weight)
		}
	}
	for _, c := range []struct{ weight, want string }{
		{"class_weight: '1:0'", `the weight of "1" is "0", want a finite number > 0`},
		{"class_weight: heavy", `"heavy": want balanced or LABEL:WEIGHT pairs`},
		{"class_weight: '1:2,1:3'", `label "1" empty or given twice`},
	} {
		_, err := Decode(strings.NewReader(strings.NewReplacer("EST", "svm", "WEIGHT", c.weight).Replace(spec)), ".")
		if !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a spec error with %q", c.weight, err, c.want)
		}
	}
	_, err = Fit(context.Background(), mustDecode(t, strings.NewReplacer("EST", "svm", "WEIGHT", "class_weight: '7:2'").Replace(spec)))
	if !errors.Is(err, model.ErrInput) || !strings.Contains(err.Error(), "class weight for label 7, which is not in y") {
		t.Errorf("a weight for label 7: %v", err)
	}
	// krr and falkon take class_weight since 2026-11-28
	// (TestRidgeClassWeightSpec); svr, a regression, does not.
	if _, err := Decode(strings.NewReader(strings.NewReplacer("EST", "svr", "WEIGHT", "class_weight: balanced", "binary", "regression").Replace(spec)), "."); !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), `unknown key "class_weight" for estimator svr`) {
		t.Errorf("svr class_weight: %v", err)
	}

	// Text labels: M is class 1 of {B, M}.
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("a,b,diagnosis\n")
	for i := range 40 {
		label := "B"
		if i%3 == 0 {
			label = "M"
		}
		fmt.Fprintf(&b, "%g,%g,%s\n", float64(i%7)/7, float64(i%3)/3, label)
	}
	if err := os.WriteFile(filepath.Join(dir, "bc.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(spec, "{name: heart_scale}", "{path: bc.csv}", 1)
	res, err := Fit(context.Background(), decodeIn(t, strings.NewReplacer("EST", "svm", "WEIGHT", "class_weight: 'M:4'").Replace(text), dir))
	if err != nil {
		t.Fatal(err)
	}
	if w := res.Estimator.(*model.SVM).ClassWeights; !reflect.DeepEqual(w, map[float64]float64{1: 4}) {
		t.Errorf("text labels, M:4: ClassWeights %v, want {1: 4} (M is class 1)", w)
	}
	_, err = Fit(context.Background(), decodeIn(t, strings.NewReplacer("EST", "svm", "WEIGHT", "class_weight: 'X:4'").Replace(text), dir))
	if !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), `class_weight names "X", not one of the classes {"B", "M"}`) {
		t.Errorf("text labels, X:4: %v", err)
	}
}
