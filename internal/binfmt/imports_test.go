package binfmt

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Package binfmt sits below every package of the module (approx, model and
// internal/kernelbin use it): it must import none of them, or the layering
// cmd → experiments → model → approx → kernel gets a back edge again
// (binfmt once imported kernel for kernels and sparse rows; that mapping is
// internal/kernelbin's).
func TestNoModuleImports(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range af.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if strings.HasPrefix(p, "github.com/landmark-ml/landmark") {
				t.Errorf("%s imports %s", f, p)
			}
		}
	}
}
