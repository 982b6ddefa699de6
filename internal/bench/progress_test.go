package bench

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
)

// TestBenchSVMProgressInLog: bench svm on a tiny synthetic sparse set prints
// one line per finished unit (each bka cluster count and the exact fit: 3)
// with the elapsed time and an ETA (0s after the last), and its table the
// same with or without progress; --progress never leaves stderr empty.
func TestBenchSVMProgressInLog(t *testing.T) {
	args := []string{"-data", "text", "-format", "sparse", "-train", "120", "-test", "40", "-dim", "300", "-nnz", "10",
		"-c", "1", "-gamma", "1", "-methods", "bka,exact", "-clusters", "2,3"}
	var so, se bytes.Buffer
	if err := runBenchSVM(context.Background(), append(args, "-progress", "always"), &so, &se); err != nil {
		t.Fatalf("%v\n%s", err, se.String())
	}
	lines := regexp.MustCompile(`(?m)^bench svm: \[(\d)/3\] (.+): done in \S+ \(elapsed \S+, ETA (\S+)\)$`).FindAllStringSubmatch(se.String(), -1)
	if len(lines) != 3 || lines[0][2] != "bka c=2" || lines[1][2] != "bka c=3" || lines[2][2] != "model.SVM exact" || lines[2][3] != "0s" ||
		strings.Count(se.String(), "\n") != 3 {
		t.Errorf("want 3 finished lines (bka c=2, bka c=3, model.SVM exact; ETA 0s last); stderr:\n%s", se.String())
	}
	// The table's heading and first column (the timings vary between runs).
	table := func(s string) string {
		return strings.Join(regexp.MustCompile(`(?m)^(# .*|\| [^|]*\|)`).FindAllString(s, -1), "\n")
	}
	withProgress := table(so.String())
	so.Reset()
	se.Reset()
	if err := runBenchSVM(context.Background(), append(args, "-progress", "never"), &so, &se); err != nil {
		t.Fatal(err)
	}
	if se.Len() != 0 {
		t.Errorf("--progress never: stderr %q", se.String())
	}
	if got := table(so.String()); got != withProgress {
		t.Errorf("stdout differs with progress:\n%s\nwithout:\n%s", withProgress, got)
	}
}

// TestBenchKernelProgressInLog: bench kernel prints one line per finished
// dimension with the elapsed time and an ETA (0s after the last);
// --progress never leaves stderr empty.
func TestBenchKernelProgressInLog(t *testing.T) {
	args := []string{"kernel", "--n", "200", "--m", "20", "--d", "3,10", "--repeats", "1", "--no-python", "--no-gemm"}
	var so, se bytes.Buffer
	if err := Run(context.Background(), append(args, "--progress", "always"), &so, &se); err != nil {
		t.Fatalf("%v\n%s", err, se.String())
	}
	lines := regexp.MustCompile(`(?m)^bench kernel: \[(\d)/2\] d = (\d+): done in \S+ \(elapsed \S+, ETA (\S+)\)$`).FindAllStringSubmatch(se.String(), -1)
	if len(lines) != 2 || lines[0][2] != "3" || lines[1][2] != "10" || lines[1][3] != "0s" || strings.Count(se.String(), "\n") != 2 {
		t.Errorf("want 2 finished lines (d = 3, d = 10; ETA 0s last); stderr:\n%s", se.String())
	}
	se.Reset()
	if err := Run(context.Background(), append(args, "--progress", "never"), &so, &se); err != nil || se.Len() != 0 {
		t.Errorf("--progress never: err %v, stderr %q", err, se.String())
	}
}
