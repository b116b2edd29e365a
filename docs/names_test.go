package docs

import (
	"go/doc"
	"go/doc/comment"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// inlineCode returns the inline code spans of a Markdown text, outside fenced blocks.
func inlineCode(md string) []string {
	var spans []string
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range codeSpan.FindAllStringSubmatch(line, -1) {
			spans = append(spans, m[1])
		}
	}
	return spans
}

var (
	// goFile is a file path: transport/streamable/server_post.go.
	goFile = regexp.MustCompile(`^[\w./-]+\.(go|md|json|sh)$`)
	// qualified is a Go name qualified by its package: mcp.Server,
	// streamable.Handler.ServeHTTP, (*rpcconn.Conn).Receive, mcp.AddTool().
	qualified = regexp.MustCompile(`^\(?\*?([a-z][a-z0-9]*)\.([A-Za-z_]\w*)\)?(?:\.([A-Za-z_]\w*))?(?:\(\))?$`)
)

// TestDesignNamesExist checks that every file design.md names exists and that every
// Go name it cites as pkg.Name or pkg.Type.Member, for a package of the module, is
// declared there (unexported names included: the document points into the code).
// Names of other packages (http.Handler, context.Context) are not checked.
func TestDesignNamesExist(t *testing.T) {
	m := loadModule(t)
	checked := 0
	for _, span := range inlineCode(readDesign(t)) {
		switch {
		case goFile.MatchString(span):
			checked++
			if _, err := os.Stat(filepath.Join(m.root, span)); err != nil {
				t.Errorf("design.md names %s, which does not exist", span)
			}
		case qualified.MatchString(span):
			sm := qualified.FindStringSubmatch(span)
			p, known := m.byName[sm[1]]
			if !known {
				continue // not a package of the module
			}
			checked++
			if p == nil {
				t.Errorf("design.md cites %s: more than one package is called %s", span, sm[1])
				continue
			}
			if !p.decls.top[sm[2]] {
				t.Errorf("design.md cites %s: package %s declares no %s", span, p.rel, sm[2])
			} else if sm[3] != "" && !p.decls.members[sm[2]][sm[3]] {
				t.Errorf("design.md cites %s: %s.%s has no method or field %s", span, p.rel, sm[2], sm[3])
			}
		}
	}
	t.Logf("%d files and names of design.md checked", checked)
	if checked < 50 {
		t.Errorf("only %d names of design.md were checked; is the document there?", checked)
	}
}

// bracketed finds what may read like a doc link in plain text: [Name], [pkg.Name],
// [Type.Method], [*Type]. unresolvedLinks drops the look-alikes.
var bracketed = regexp.MustCompile(`\[(\*?[A-Za-z_]\w*(?:\.[A-Za-z_]\w*){0,2})\]`)

// unresolvedLinks returns the would-be doc links in a run of plain text, leaving
// out an instantiation (For[int]: a word character or bracket before it) and a
// character class ([eE][+-]: a bracket, parenthesis or word character after it).
func unresolvedLinks(text string) []string {
	var out []string
	for _, loc := range bracketed.FindAllStringSubmatchIndex(text, -1) {
		start, end := loc[0], loc[1]
		if start > 0 && isWordOrBracket(text[start-1]) {
			continue
		}
		if end < len(text) && (isWordOrBracket(text[end]) || text[end] == '(') {
			continue
		}
		out = append(out, text[loc[2]:loc[3]])
	}
	return out
}

func isWordOrBracket(c byte) bool {
	return c == '_' || c == '[' || c == ']' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// TestDocLinksResolve checks every doc comment of the module (packages, and their
// top-level declarations: the comments go doc and pkg.go.dev render) for doc links
// that do not resolve: a [Name] that is not declared, or a [pkg.Name] whose package
// the file does not import, renders as plain text. A link into another package of
// the module must name something exported there.
func TestDocLinksResolve(t *testing.T) {
	m := loadModule(t)
	links := 0
	for _, rel := range m.sortedRels() {
		p := m.pkgs[rel]
		if p.name == "main" {
			continue
		}
		dp, err := doc.NewFromFiles(p.fset, p.files, importPath(rel), doc.PreserveAST)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		parser := dp.Parser()
		check := func(where, text string) {
			for _, block := range parser.Parse(text).Content {
				walkText(block, func(x comment.Text) {
					switch x := x.(type) {
					case comment.Plain:
						for _, name := range unresolvedLinks(string(x)) {
							t.Errorf("%s: the doc comment of %s has [%s], which is not a doc link (nothing of that name, or its package is not imported there)", rel, where, name)
						}
					case *comment.DocLink:
						links++
						if target := linkTarget(m, x.ImportPath); target != nil && !exported(target, x.Recv, x.Name) {
							t.Errorf("%s: the doc comment of %s links to %s, which %s does not export", rel, where, linkName(x), target.rel)
						}
					}
				})
			}
		}
		check("the package", dp.Doc)
		for _, v := range append(append([]*doc.Value(nil), dp.Consts...), dp.Vars...) {
			check(strings.Join(v.Names, ", "), v.Doc)
		}
		for _, f := range dp.Funcs {
			check(f.Name, f.Doc)
		}
		for _, typ := range dp.Types {
			check(typ.Name, typ.Doc)
			for _, v := range append(append([]*doc.Value(nil), typ.Consts...), typ.Vars...) {
				check(strings.Join(v.Names, ", "), v.Doc)
			}
			for _, f := range append(append([]*doc.Func(nil), typ.Funcs...), typ.Methods...) {
				check(typ.Name+"."+f.Name, f.Doc)
			}
		}
	}
	t.Logf("%d doc links resolve", links)
}

// walkText calls fn for every run of text in block.
func walkText(block comment.Block, fn func(comment.Text)) {
	var texts func([]comment.Text)
	texts = func(ts []comment.Text) {
		for _, x := range ts {
			fn(x)
			switch x := x.(type) {
			case *comment.Link:
				texts(x.Text)
			case *comment.DocLink:
				texts(x.Text)
			}
		}
	}
	switch b := block.(type) {
	case *comment.Paragraph:
		texts(b.Text)
	case *comment.Heading:
		texts(b.Text)
	case *comment.List:
		for _, item := range b.Items {
			for _, c := range item.Content {
				walkText(c, fn)
			}
		}
	}
}

// linkTarget returns the package of the module a doc link points into, or nil for a
// link outside the module (the standard library).
func linkTarget(m *module, path string) *pkg {
	switch {
	case path == modulePath:
		return m.pkgs[rootName]
	case strings.HasPrefix(path, modulePath+"/"):
		if p := m.pkgs[strings.TrimPrefix(path, modulePath+"/")]; p != nil {
			return p
		}
		return &pkg{rel: strings.TrimPrefix(path, modulePath+"/")} // no such package: nothing exported
	}
	return nil
}

// exported reports whether p exports name (a method of recv, when recv is set), or
// is itself the link's target (a link to the package: no name).
func exported(p *pkg, recv, name string) bool {
	if name == "" {
		return p.files != nil
	}
	if !isExported(name) || recv != "" && !isExported(recv) {
		return false
	}
	if recv != "" {
		return p.decls.members[recv][name]
	}
	return p.decls.top[name]
}

func isExported(name string) bool { return name != "" && name[0] >= 'A' && name[0] <= 'Z' }

func linkName(l *comment.DocLink) string {
	s := l.ImportPath
	if l.Recv != "" {
		s += "." + l.Recv
	}
	if l.Name != "" {
		s += "." + l.Name
	}
	return s
}

func TestUnresolvedLinks(t *testing.T) {
	cases := map[string][]string{
		"see [Server] and [mcp.Client.Connect].": {"Server", "mcp.Client.Connect"},
		"a [*Conn], [A] [B]":                     {"*Conn", "A", "B"},
		"For[int] and m[key] and x[0]":           nil, // instantiations and indexing
		"-?(0|[1-9][0-9]*)([eE][+-]?[0-9]+)?":    nil, // character classes
		"[text](https://example.com)":            nil, // Markdown, not a doc link
		"[]byte and [][]string":                  nil,
	}
	for text, want := range cases {
		got := unresolvedLinks(text)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("unresolvedLinks(%q) = %q, want %q", text, got, want)
		}
	}
}
