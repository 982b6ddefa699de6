package apidoc

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportedHaveDocs parses every non-test file of the public packages
// (internal/, main packages and testdata are left out) and reports exported
// functions, methods on exported types, types, constants and variables
// without a doc comment. A constant or variable in a documented group, or
// with a trailing line comment, counts as documented.
func TestExportedHaveDocs(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			n := d.Name()
			if p != root && (n == "internal" || n == "testdata" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" {
			return nil
		}
		files++
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Doc == nil && decl.Name.IsExported() && exportedRecv(decl) {
					t.Errorf("%s: func %s has no doc comment", fset.Position(decl.Pos()), decl.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range decl.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() && s.Doc == nil && decl.Doc == nil {
							t.Errorf("%s: type %s has no doc comment", fset.Position(s.Pos()), s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() && s.Doc == nil && decl.Doc == nil && s.Comment == nil {
								t.Errorf("%s: %s has no doc comment", fset.Position(n.Pos()), n.Name)
							}
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The module has well over 100 public files; a walk that found few means
	// the root is wrong and the test checks nothing.
	if files < 100 {
		t.Fatalf("checked %d files, want the whole module", files)
	}
}

// exportedRecv reports whether a function is a plain function or a method on
// an exported type (methods of unexported types do not show in go doc).
func exportedRecv(d *ast.FuncDecl) bool {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return true
	}
	t := d.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	id, ok := t.(*ast.Ident)
	return ok && id.IsExported()
}
