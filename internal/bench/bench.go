package bench

import (
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/landmark-ml/landmark/experiments"
	"github.com/landmark-ml/landmark/internal/cmdline"
)

// errUsage marks a malformed command line (cmdline.ErrUsage: exit status 2).
var errUsage = cmdline.ErrUsage

// benchTarget is one thing "landmark bench" measures.
type benchTarget struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// benchTargets is the one table of benchmark targets; help lists it sorted.
// Each target lives in its own file NAME.go (its Python side in bench_NAME.py).
var benchTargets = []benchTarget{
	{"kernel", "fused Gaussian K(X,C)ᵀ(K(X,C)v) and X·Cᵀ vs scikit-learn/numpy", runBenchKernel},
	{"falkon", "Falkon vs scikit-learn Nystroem+Ridge on cadata, ijcnn1 or covtype (time, error, peak RSS)", runBenchFalkon},
	{"svm", "BKA-SVM and exact SVM vs LIBSVM svm-train on ijcnn1, covtype, mnist, synthetic text/news20 sets or a LIBSVM file pair", runBenchSVM},
	{"svr", "exact ε-SVR (model.SVR, float64 and float32 caches) vs LIBSVM svm-train -s 3 on cpusmall, cadata or a LIBSVM file pair", runBenchSVR},
	{"sparse", "Falkon vs FALKON (sparse tensors) and scikit-learn Nystroem+RidgeClassifier on a LIBSVM train/test pair (time, accuracy, peak RSS)", runBenchSparse},
	{"linalg", "potrf, lauum, trsm and the FALKON preconditioner build vs gonum LAPACK (M = 2,000 … 10,000)", runBenchLinalg},
}

func benchUsage(w io.Writer) {
	fmt.Fprintln(w, "Usage: landmark bench TARGET [flags]\n\nTargets:")
	ts := append([]benchTarget(nil), benchTargets...)
	sort.Slice(ts, func(i, j int) bool { return ts[i].name < ts[j].name })
	width := 0
	for _, t := range ts {
		width = max(width, len(t.name))
	}
	for _, t := range ts {
		fmt.Fprintf(w, "  %-*s  %s\n", width, t.name, t.summary)
	}
	fmt.Fprintln(w, "\nRun \"landmark bench TARGET --help\" for a target's flags.")
}

func Run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		benchUsage(stderr)
		return fmt.Errorf("%w: missing benchmark target", errUsage)
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		benchUsage(stdout)
		return nil
	}
	for _, t := range benchTargets {
		if t.name == args[0] {
			return t.run(ctx, args[1:], stdout, stderr)
		}
	}
	benchUsage(stderr)
	var names []string
	for _, t := range benchTargets {
		names = append(names, t.name)
	}
	return fmt.Errorf("%w: unknown benchmark target %q%s", errUsage, args[0], experiments.DidYouMean(args[0], names))
}
