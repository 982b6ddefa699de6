package cmdline

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
)

// TestParseLIBSVMFlags: svm-train's -g, -t, -b, -v, -e, -p and -m, typed by a LIBSVM
// user, and FALKON's and scikit-learn's names (penalty, n_components), are
// named with this command's flag for them (-g is --gamma); before, -g got
// "did you mean --c" (one letter away). A command without the flag
// (here no --kernel) falls back to the closest name, and other unknown
// flags still get it. Every one is a usage error.
func TestParseLIBSVMFlags(t *testing.T) {
	fs := func() *flag.FlagSet {
		f := NewFlags("fit", "[flags]", io.Discard)
		f.Float64("c", 1, "")
		f.String("gamma", "", "")
		f.String("set", "", "")
		f.Float64("lambda", 0, "")
		f.Int("cv", 0, "")
		return f
	}
	// svm-predict's -b on a command with --output (predict).
	withOutput := NewFlags("predict", "[flags]", io.Discard)
	withOutput.String("output", "", "")
	if err := Parse(withOutput, []string{"-b", "1"}); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "LIBSVM's svm-predict -b is --output here (--output proba for -b 1") {
		t.Errorf("predict -b 1: %v", err)
	}
	if err := Parse(fs(), []string{"-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h alone: %v, want flag.ErrHelp", err)
	}
	for args, want := range map[string]string{
		"-v 5":           "unknown flag -v: LIBSVM's svm-train -v is --cv here (--cv 5 for -v 5",
		"-w1 5":          "unknown flag -w1: LIBSVM's svm-train -w1 W is --set class_weight=1:W here",
		"-e 0.01":        "unknown flag -e: LIBSVM's svm-train -e is --set here (--set tol=0.001 for -e 0.001)",
		"-w-1 2":         "unknown flag -w-1: LIBSVM's svm-train -w-1 W is --set class_weight=-1:W here",
		"--penalty 1e-6": `unknown flag --penalty (did you mean "--lambda"? FALKON's penalty is λ)`,
		"--folds 3":      `unknown flag --folds (did you mean "--cv"? the cross-validation folds)`,
		// No --m here: no suggestion.
		"--n_components 9": "unknown flag --n_components (run with --help for the flags)",
		"-g 0.5":           "unknown flag -g: LIBSVM's svm-train -g is --gamma here",
		"-b 1":             "unknown flag -b: LIBSVM's svm-train -b is --set here (--set probability=true for -b 1",
		"-t 2":             "unknown flag --t",
		"-p 0.5":           "unknown flag -p: LIBSVM's svm-train -p is --set here (--set epsilon=0.1 for -p 0.1, with --estimator svr)",
		"-m 500":           "unknown flag -m: LIBSVM's svm-train -m is --set here (--set cache_bytes=100M for -m 100)",
		"--gama 1":         `unknown flag --gama (did you mean "--gamma"?)`,
		// -h 0 would have printed the help.
		"-h 0":      "-h 0: LIBSVM's svm-train -h is --set here (--set no_shrinking=true for -h 0",
		"-c 2 -h 1": "-h 1: LIBSVM's svm-train -h is --set here",
	} {
		err := Parse(fs(), strings.Fields(args))
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", args, err, want)
		}
	}
}
