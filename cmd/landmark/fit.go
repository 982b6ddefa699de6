package main

import (
	"context"
	"io"
)

func runFit(_ context.Context, _ []string, _, _ io.Writer) error { return notYet("fit") }
