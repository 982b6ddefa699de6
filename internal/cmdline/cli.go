package cmdline

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/landmark-ml/landmark/experiments"
)

// ErrUsage marks errors caused by a malformed command line; the landmark
// command exits with status 2 on them.
var ErrUsage = errors.New("usage")

// NewFlags returns a flag set for "landmark NAME" that prints its usage
// (with synopsis) to stderr and returns errors instead of exiting.
func NewFlags(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("landmark "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: landmark %s %s\n\nFlags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// Parse parses args, wrapping failures in ErrUsage; an unknown flag is
// named with the closest known one, or with what it is here when it is one
// of LIBSVM's (svm-train -h 0, which would ask for the help, too).
// flag.ErrHelp is returned as is.
func Parse(fs *flag.FlagSet, args []string) error {
	for i, a := range args {
		if a == "--" {
			break
		}
		// svm-train's -h 0 (no shrinking) would print the help here.
		if (a == "-h" || a == "--h") && i+1 < len(args) && (args[i+1] == "0" || args[i+1] == "1") {
			if al, ok := libsvmFlag(fs, "h"); ok {
				return fmt.Errorf("%w: -h %s: LIBSVM's %s -h is --%s here%s; -h alone prints the help", ErrUsage, args[i+1], al.tool, al.flag, al.say)
			}
		}
	}
	err := fs.Parse(args)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		name = strings.TrimLeft(name, "-")
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if label, ok := strings.CutPrefix(name, "w"); ok && isNumber(label) && fs.Lookup("set") != nil {
			msg = fmt.Sprintf("unknown flag -%s: LIBSVM's svm-train -w%s W is --set class_weight=%s:W here (several: --set class_weight=1:5,-1:1; --set class_weight=balanced for scikit-learn's rule)", name, label, label)
		} else if a, ok := libsvmFlag(fs, name); ok {
			msg = fmt.Sprintf("unknown flag -%s: LIBSVM's %s -%s is --%s here%s", name, a.tool, name, a.flag, a.say)
		} else if d := experiments.DidYouMean(name, names); d != "" {
			msg = fmt.Sprintf("unknown flag --%s%s", name, strings.Replace(d, `"`, `"--`, 1))
		} else {
			msg = fmt.Sprintf("unknown flag --%s (run with --help for the flags)", name)
		}
	}
	return fmt.Errorf("%w: %s", ErrUsage, msg)
}

// isNumber reports whether s is a number (a LIBSVM label).
func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// libsvmAlias is what a LIBSVM tool's one-letter option is here: the
// flag, when the command has it, and how to say it.
type libsvmAlias struct{ tool, flag, say string }

// libsvmFlags are svm-train's and svm-predict's one-letter options that a
// LIBSVM user may type, each with the flags that do the same here, the
// first the command has wins (-b is --set on fit, --output on predict):
// "did you mean --c" for -g sent them astray.
var libsvmFlags = map[string][]libsvmAlias{
	"g": {{"svm-train", "gamma", " (γ of exp(−γ‖x−y‖²))"}},
	"t": {{"svm-train", "kernel", " (--kernel linear for -t 0, polynomial for -t 1, gaussian for -t 2, sigmoid for -t 3)"}},
	"d": {{"svm-train", "degree", " (the polynomial kernel's degree, --degree 3 for -d 3)"}},
	"r": {{"svm-train", "coef0", " (c₀ of the polynomial and sigmoid kernels, --coef0 1 for -r 1)"}},
	"b": {{"svm-train", "set", " (--set probability=true for -b 1: Platt scaling)"},
		{"svm-predict", "output", " (--output proba for -b 1, for a model fitted with --set probability=true)"}},
	"v": {{"svm-train", "cv", " (--cv 5 for -v 5: the setting's 5-fold cross-validated scores)"}},
	"s": {{"svm-train", "estimator", " (-s 0, C-SVC, is --estimator svm; -s 1, ν-SVC, is --estimator svm --set nu=…; -s 2, one-class, is --estimator one-class-svm; -s 3, ε-SVR, is --estimator svr; -s 4, ν-SVR, is --estimator svr --set nu=…)"}},
	"p": {{"svm-train", "set", " (--set epsilon=0.1 for -p 0.1, with --estimator svr)"}},
	"m": {{"svm-train", "set", " (--set cache_bytes=100M for -m 100)"}},
	"n": {{"svm-train", "set", " (--set nu=0.1 for -n 0.1: one-class-svm's ν, or ν-SVC with svm, ν-SVR with svr)"}},
	"e": {{"svm-train", "set", " (--set tol=0.001 for -e 0.001)"}},
	"h": {{"svm-train", "set", " (--set no_shrinking=true for -h 0; shrinking is on by default, as -h 1)"}},
	"q": {{"svm-train", "progress", " (--progress never for -q)"}},
	"W": {{"svm-train", "sample-weights", " (--sample-weights FILE for -W FILE of LIBSVM's instance-weight variant: one weight per line)"}},
}

// libsvmFlag returns the first of name's aliases whose flag fs has.
func libsvmFlag(fs *flag.FlagSet, name string) (libsvmAlias, bool) {
	for _, a := range libsvmFlags[name] {
		if fs.Lookup(a.flag) != nil {
			return a, true
		}
	}
	return libsvmAlias{}, false
}

// IsTerminal reports whether w is a character device (an interactive terminal).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
