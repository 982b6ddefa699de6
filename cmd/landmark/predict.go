package main

import (
	"context"
	"fmt"
	"io"
)

func runPredict(_ context.Context, args []string, _, stderr io.Writer) error {
	fs := newFlags("predict", "--model FILE --data FILE [--out FILE]", stderr)
	modelPath := fs.String("model", "", "model saved by landmark fit --save")
	data := fs.String("data", "", "data to predict (LIBSVM or CSV)")
	fs.String("out", "", "write predictions here (default stdout)")
	if _, err := parseInterleaved(fs, args); err != nil {
		return err
	}
	if *modelPath == "" || *data == "" {
		return fmt.Errorf("%w: need --model FILE and --data FILE", errUsage)
	}
	return errNoPersistence
}
