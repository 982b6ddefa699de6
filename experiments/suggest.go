package experiments

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// DidYouMean returns ` (did you mean "x"?)` when one of known is within a
// small edit distance of name (case-insensitive; at most 1 edit for names
// up to 4 letters, else at most a third of the letters), the nearest first,
// or when name is another tool's name for one of known (FALKON's penalty
// for lambda: otherNames), saying whose; else "". Error messages append it
// to an unknown name.
func DidYouMean(name string, known []string) string {
	if a, ok := otherNames[strings.ToLower(name)]; ok && slices.Contains(known, a.key) {
		return fmt.Sprintf(" (did you mean %q? %s)", a.key, a.whose)
	}
	best, bestD := "", -1
	n := strings.ToLower(name)
	for _, k := range known {
		d := editDistance(n, strings.ToLower(k))
		if bestD < 0 || d < bestD {
			best, bestD = k, d
		}
	}
	limit := max(1, len([]rune(n))/3)
	if best == "" || bestD > limit || bestD == 0 && best == name {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

// otherNames are FALKON's and scikit-learn's names (lower-cased) for
// settings that have another name here, with whose name it is; an edit
// distance would not find them.
var otherNames = map[string]struct{ key, whose string }{
	"penalty":      {"lambda", "FALKON's penalty is λ"},
	"n_components": {"m", "scikit-learn Nystroem's n_components are the landmarks"},
	"n-components": {"m", "scikit-learn Nystroem's n_components are the landmarks"},
	"folds":        {"cv", "the cross-validation folds"},
	"cv-folds":     {"cv", "the cross-validation folds"},
	"rbf":          {"gaussian", "scikit-learn's and LIBSVM's rbf kernel is exp(−γ‖x−y‖²)"},
	"poly":         {"polynomial", "scikit-learn's poly kernel"},
	"kernelridge":  {"krr", "scikit-learn's KernelRidge"},
	"kernel_ridge": {"krr", "scikit-learn's KernelRidge"},
	"svc":          {"svm", "scikit-learn's SVC (LIBSVM's C-SVC)"},
	"epsilon-svr":  {"svr", "LIBSVM's ε-SVR (svm-train -s 3)"},
	"epsilon_svr":  {"svr", "LIBSVM's ε-SVR (svm-train -s 3)"},
	"e-svr":        {"svr", "LIBSVM's ε-SVR (svm-train -s 3)"},
	"nusvr":        {"svr", "scikit-learn's NuSVR (LIBSVM's -s 4) is svr with nu"},
	"nu-svr":       {"svr", "LIBSVM's ν-SVR (svm-train -s 4) is svr with nu"},
	"nusvc":        {"svm", "scikit-learn's NuSVC (LIBSVM's -s 1) is svm with nu"},
	"nu-svc":       {"svm", "LIBSVM's ν-SVC (svm-train -s 1) is svm with nu"},
	"oneclasssvm":  {"one-class-svm", "scikit-learn's OneClassSVM (LIBSVM's -s 2)"},
	"one-class":    {"one-class-svm", "LIBSVM's one-class SVM (svm-train -s 2)"},
	"one_class":    {"one-class-svm", "LIBSVM's one-class SVM (svm-train -s 2)"},
	"oneclass":     {"one-class-svm", "LIBSVM's one-class SVM (svm-train -s 2)"},
	"nystroem":     {"uniform", "scikit-learn's Nystroem samples its landmarks uniformly"},
	"nystrom":      {"uniform", "Nyström on uniformly sampled landmarks"},
	"random_state": {"seed", "scikit-learn's random_state"},
	"random-state": {"seed", "scikit-learn's random_state"},
	"n_jobs":       {"workers", "scikit-learn's n_jobs"},
}

// editDistance is the optimal-string-alignment distance between a and b
// (in runes): insertions, deletions, substitutions and swaps of two
// neighbours ("rmes" → "rmse") each cost 1.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			c := 1
			if ra[i-1] == rb[j-1] {
				c = 0
			}
			d[i][j] = min(d[i-1][j-1]+c, d[i-1][j]+1, d[i][j-1]+1)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// typeErrorRE matches yaml.v3's "cannot unmarshal !!str `three` into int".
var typeErrorRE = regexp.MustCompile("cannot unmarshal !!(\\w+) (`[^`]*`|)\\s*into (\\S+)")

// explainTypeError rewrites one yaml.v3 type error in the words of a spec:
// `"three" is a string, want an integer`.
func explainTypeError(m string) string {
	sm := typeErrorRE.FindStringSubmatchIndex(m)
	if sm == nil {
		return m
	}
	kinds := map[string]string{"str": "a string", "int": "an integer", "float": "a number", "bool": "true or false",
		"seq": "a list", "map": "a mapping", "null": "empty", "timestamp": "a date"}
	got := kinds[m[sm[2]:sm[3]]]
	if got == "" {
		got = "a " + m[sm[2]:sm[3]]
	}
	if sm[4] < sm[5] {
		got = fmt.Sprintf("%q is %s", strings.Trim(m[sm[4]:sm[5]], "`"), got)
	} else {
		got = "the value is " + got
	}
	goType := m[sm[6]:sm[7]]
	want := "a " + goType
	switch {
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "uint"):
		want = "an integer"
		if strings.HasPrefix(goType, "uint") {
			want = "a non-negative integer"
		}
	case strings.HasPrefix(goType, "float"):
		want = "a number"
	case goType == "string":
		want = "a string"
	case goType == "bool", goType == "*bool":
		want = "true or false"
	case strings.HasPrefix(goType, "[]"):
		want = "a list"
	case strings.HasPrefix(goType, "map"), strings.HasPrefix(goType, "experiments."), strings.HasPrefix(goType, "kernel."), strings.HasPrefix(goType, "*experiments."):
		want = "a mapping"
	}
	return m[:sm[0]] + got + ", want " + want + m[sm[1]:]
}
