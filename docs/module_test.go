// Package docs holds mcpkit's design documents. Its tests keep them true: the
// import graph and the import rules of design.md are checked against the code, every
// file and qualified Go name design.md cites must exist, and every doc link ([Name],
// [pkg.Name]) in the module's doc comments must resolve.
package docs

import (
	"errors"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// modulePath is the module the documents describe.
const modulePath = "github.com/mcpkit/mcpkit"

// rootName is how design.md names the module's root package (import path
// modulePath): its package name.
const rootName = "mcpkit"

// pkg is one package of the module, as built for the current platform (the files
// and imports `go list` reports, tests excluded).
type pkg struct {
	rel     string   // the path below the module root ("mcp", "transport/stdio"); rootName for the root
	name    string   // the package name
	dir     string   // the directory
	imports []string // the module's packages it imports, as rel paths, sorted
	fset    *token.FileSet
	files   []*ast.File // parsed with comments
	decls   decls
}

// decls indexes a package's declarations, exported or not.
type decls struct {
	top     map[string]bool            // functions, types, variables and constants
	members map[string]map[string]bool // type name → its methods and fields
}

// module is the module's packages, loaded once.
type module struct {
	root   string
	pkgs   map[string]*pkg // by rel path
	byName map[string]*pkg // by package name, for names cited as pkg.Name (nil: ambiguous)
}

var (
	loadOnce  sync.Once
	loaded    *module
	loadError error
)

// loadModule parses every package of the module, skipping what `go list ./...`
// skips (testdata, directories starting with . or _, nested modules) and npm's
// node_modules.
func loadModule(t *testing.T) *module {
	t.Helper()
	loadOnce.Do(func() { loaded, loadError = readModule() })
	if loadError != nil {
		t.Fatalf("loading the module: %v", loadError)
	}
	return loaded
}

func readModule() (*module, error) {
	root, err := filepath.Abs("..")
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return nil, err
	}
	m := &module{root: root, pkgs: make(map[string]*pkg), byName: make(map[string]*pkg)}
	err = filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if dir != root {
			name := d.Name()
			if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				return filepath.SkipDir // another module (bench)
			}
		}
		p, err := readPackage(root, dir)
		if err != nil || p == nil {
			return err
		}
		m.pkgs[p.rel] = p
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, p := range m.pkgs {
		if p.name == "main" {
			continue
		}
		if _, dup := m.byName[p.name]; dup {
			m.byName[p.name] = nil
		} else {
			m.byName[p.name] = p
		}
	}
	return m, nil
}

// readPackage reads the package in dir, or returns nil when dir has no
// non-test Go files for this platform.
func readPackage(root, dir string) (*pkg, error) {
	bp, err := build.Default.ImportDir(dir, 0)
	if err != nil {
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			return nil, nil
		}
		return nil, err
	}
	if len(bp.GoFiles) == 0 {
		return nil, nil
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return nil, err
	}
	p := &pkg{rel: filepath.ToSlash(rel), name: bp.Name, dir: dir, fset: token.NewFileSet()}
	if p.rel == "." {
		p.rel = rootName
	}
	for _, imp := range bp.Imports {
		switch {
		case imp == modulePath:
			p.imports = append(p.imports, rootName)
		case strings.HasPrefix(imp, modulePath+"/"):
			p.imports = append(p.imports, strings.TrimPrefix(imp, modulePath+"/"))
		}
	}
	sort.Strings(p.imports)
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(p.fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		p.files = append(p.files, f)
	}
	p.decls = indexDecls(p.files)
	return p, nil
}

// importPath returns the import path of a package named by its rel path.
func importPath(rel string) string {
	if rel == rootName {
		return modulePath
	}
	return modulePath + "/" + rel
}

// indexDecls records every top-level name of files, and the methods and fields
// of every type.
func indexDecls(files []*ast.File) decls {
	d := decls{top: make(map[string]bool), members: make(map[string]map[string]bool)}
	member := func(typ, name string) {
		if d.members[typ] == nil {
			d.members[typ] = make(map[string]bool)
		}
		d.members[typ][name] = true
	}
	for _, f := range files {
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Recv == nil || len(decl.Recv.List) == 0 {
					d.top[decl.Name.Name] = true
					continue
				}
				member(receiverType(decl.Recv.List[0].Type), decl.Name.Name)
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						d.top[spec.Name.Name] = true
						for _, name := range fieldNames(spec.Type) {
							member(spec.Name.Name, name)
						}
					case *ast.ValueSpec:
						for _, n := range spec.Names {
							d.top[n.Name] = true
						}
					}
				}
			}
		}
	}
	return d
}

// receiverType returns the name of a method's receiver type: T for T, *T, T[P]
// and *T[P].
func receiverType(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// fieldNames returns the names of a struct's fields (embedded ones by their type
// name) and of an interface's methods.
func fieldNames(e ast.Expr) []string {
	var list *ast.FieldList
	switch x := e.(type) {
	case *ast.StructType:
		list = x.Fields
	case *ast.InterfaceType:
		list = x.Methods
	default:
		return nil
	}
	var names []string
	for _, f := range list.List {
		if len(f.Names) == 0 {
			if n := receiverType(f.Type); n != "" {
				names = append(names, n)
			} else if sel, ok := f.Type.(*ast.SelectorExpr); ok {
				names = append(names, sel.Sel.Name)
			}
			continue
		}
		for _, n := range f.Names {
			names = append(names, n.Name)
		}
	}
	return names
}

// sortedRels returns the rel paths of the module's packages, sorted.
func (m *module) sortedRels() []string {
	rels := make([]string, 0, len(m.pkgs))
	for rel := range m.pkgs {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	return rels
}
