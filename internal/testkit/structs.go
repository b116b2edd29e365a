package testkit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// StructsWithField returns, sorted, the struct types declared in the non-test
// Go files of dir whose fields include one named field (an embedded type
// counts by its type name): for tests that keep a list of types complete, such
// as every protocol result with a ResultType, or every one embedding CacheHint.
func StructsWithField(t testing.TB, dir, field string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return false
			}
			for _, fl := range st.Fields.List {
				if hasName(fl, field) {
					out = append(out, ts.Name.Name)
					break
				}
			}
			return false
		})
	}
	slices.Sort(out)
	return out
}

// hasName reports whether a struct field (or an embedded type) is named name.
func hasName(f *ast.Field, name string) bool {
	if len(f.Names) == 0 {
		typ := f.Type
		if star, ok := typ.(*ast.StarExpr); ok {
			typ = star.X
		}
		id, ok := typ.(*ast.Ident)
		return ok && id.Name == name
	}
	for _, n := range f.Names {
		if n.Name == name {
			return true
		}
	}
	return false
}
