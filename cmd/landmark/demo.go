package main

import (
	"context"
	"io"
)

func runDemo(_ context.Context, _ []string, _, _ io.Writer) error { return notYet("demo") }
