package main

import (
	"context"
	"io"
)

func runData(_ context.Context, _ []string, _, _ io.Writer) error { return notYet("data") }
