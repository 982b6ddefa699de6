package main

import (
	"context"
	"io"
)

func runPredict(_ context.Context, _ []string, _, _ io.Writer) error { return notYet("predict") }
