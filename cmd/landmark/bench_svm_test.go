package main

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/landmark-ml/landmark/datasets"
)

func TestBenchSVMSmoke(t *testing.T) {
	if _, ok := datasets.SharedPath("ijcnn1.train.libsvm.gz"); !ok {
		t.Skip("ijcnn1 not in the shared datasets")
	}
	var out, errb bytes.Buffer
	err := runBenchSVM(context.Background(), []string{"-train", "600", "-test", "600", "-methods", "bka,exact", "-clusters", "2,3"}, &out, &errb)
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	s := out.String()
	for _, want := range []string{"| bka c=2, local |", "| bka c=3, global (eq. 9) | (same fit) |", "| model.SVM exact |", "600 train / 600 test"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
}

func TestBenchSVMUsage(t *testing.T) {
	for _, args := range [][]string{
		{"-c", "0"},
		{"-clusters", "4,x"},
		{"-methods", "svmlight", "-train", "10", "-test", "10"},
		{"-data", "nosuch"},
		{"-format", "csr"},
		{"-data", "text", "-nnz", "30", "-dim", "20"},
		{"-nosuchflag"},
	} {
		var out, errb bytes.Buffer
		err := runBenchSVM(context.Background(), args, &out, &errb)
		if !errors.Is(err, errUsage) {
			t.Errorf("%v: err = %v, want errUsage", args, err)
		}
	}
}

// TestBenchSVMSparseText runs the sparse mode on a small synthetic text set
// beside svm-train (when installed) and checks the closing comparison line.
func TestBenchSVMSparseText(t *testing.T) {
	var out, errb bytes.Buffer
	err := runBenchSVM(context.Background(), []string{"-data", "text", "-format", "sparse", "-train", "300", "-test", "100",
		"-dim", "2000", "-nnz", "20", "-c", "1", "-gamma", "1", "-methods", "exact,libsvm"}, &out, &errb)
	if err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	s := out.String()
	for _, want := range []string{"300 train / 100 test, d = 2000, sparse X (density 0.0100)", "| model.SVM exact |"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	if _, err := exec.LookPath("svm-train"); err == nil && !strings.Contains(s, "model.SVM (sparse X) vs svm-train: dual objective") {
		t.Errorf("no comparison line:\n%s", s)
	}
}
