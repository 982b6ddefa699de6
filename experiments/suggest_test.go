package experiments

import "testing"

func TestDidYouMean(t *testing.T) {
	known := []string{"krr", "falkon", "svm", "bka-svm"}
	for _, c := range []struct{ in, want string }{
		{"falcon", ` (did you mean "falkon"?)`}, // one substitution
		{"KRR", ` (did you mean "krr"?)`},       // case only
		{"smv", ` (did you mean "svm"?)`},       // one swap of neighbours
		{"krr", ""},                             // exact: nothing to suggest
		{"logistic", ""},                        // nothing near
		{"bkasvm", ` (did you mean "bka-svm"?)`},
		{"", ""},
	} {
		if got := DidYouMean(c.in, known); got != c.want {
			t.Errorf("DidYouMean(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// Other tools' names, which no edit distance finds, when the name
	// they stand for is known; not otherwise.
	keys := []string{"lambda", "m", "kernel"}
	for _, c := range []struct{ in, want string }{
		{"penalty", ` (did you mean "lambda"? FALKON's penalty is λ)`},
		{"N_Components", ` (did you mean "m"? scikit-learn Nystroem's n_components are the landmarks)`},
		{"folds", ""}, // no cv among keys
	} {
		if got := DidYouMean(c.in, keys); got != c.want {
			t.Errorf("DidYouMean(%q, %q) = %q, want %q", c.in, keys, got, c.want)
		}
	}
	if got := DidYouMean("RBF", []string{"gaussian", "laplacian"}); got != ` (did you mean "gaussian"? scikit-learn's and LIBSVM's rbf kernel is exp(−γ‖x−y‖²))` {
		t.Errorf("DidYouMean(RBF) = %q", got)
	}
	if d := editDistance("kitten", "sitting"); d != 3 {
		t.Errorf("editDistance(kitten, sitting) = %d, want 3 (the textbook example)", d)
	}
}
