package main

import (
	"context"
	"io"
)

func runRun(_ context.Context, _ []string, _, _ io.Writer) error { return notYet("run") }
