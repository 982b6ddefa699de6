package main

import (
	"context"
	"io"
)

func runBench(_ context.Context, _ []string, _, _ io.Writer) error { return notYet("bench") }
