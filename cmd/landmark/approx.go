package main

import (
	"context"
	"io"
)

func runApprox(_ context.Context, _ []string, _, _ io.Writer) error { return notYet("approx") }
