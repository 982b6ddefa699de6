package main

import (
	"bytes"
	"context"
	"errors"
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
		{"-data", "mnist"},
		{"-nosuchflag"},
	} {
		var out, errb bytes.Buffer
		err := runBenchSVM(context.Background(), args, &out, &errb)
		if !errors.Is(err, errUsage) {
			t.Errorf("%v: err = %v, want errUsage", args, err)
		}
	}
}
