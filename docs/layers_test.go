package docs

import (
	"regexp"
	"strings"
	"testing"
)

// The layer diagram of design.md sits between these markers.
const (
	layersBegin = "<!-- layers:begin -->"
	layersEnd   = "<!-- layers:end -->"
)

// testSupport matches the packages the diagram leaves out: test support.
var testSupport = regexp.MustCompile(`(^|/)(\w*test|testkit|wirecheck)(/|$)`)

// diagramLines parses the layer diagram: for each line, top first, the
// package patterns it lists. A line's patterns come before its first run of
// three or more spaces (the rest describes the line); they are separated by
// two spaces, and "p/{a,b}" stands for p/a and p/b. Lines in parentheses
// (what is coming) are skipped.
func diagramLines(t *testing.T, doc string) [][]string {
	t.Helper()
	text, _ := between(t, doc, layersBegin, layersEnd)
	var lines [][]string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "```") || strings.HasPrefix(line, "(") {
			continue
		}
		names, _, _ := strings.Cut(line, "   ")
		var patterns []string
		for _, f := range strings.Fields(names) {
			prefix, alts, ok := strings.Cut(f, "{")
			if !ok {
				patterns = append(patterns, f)
				continue
			}
			for _, a := range strings.Split(strings.TrimSuffix(alts, "}"), ",") {
				patterns = append(patterns, prefix+a)
			}
		}
		lines = append(lines, patterns)
	}
	if len(lines) == 0 {
		t.Fatal("design.md: the layer diagram is empty")
	}
	return lines
}

// diagramRow returns the line of the diagram (0 at the bottom) that lists
// rel, or -1. The most specific pattern wins, as in the import rules.
func diagramRow(lines [][]string, rel string) int {
	row, best := -1, 0
	for i, patterns := range lines {
		for _, p := range patterns {
			if s := match(p, rel); s > best {
				row, best = len(lines)-1-i, s
			}
		}
	}
	return row
}

// TestLayerDiagram checks the layer diagram of design.md against the code:
// every package but test support is on a line, and imports only packages on
// lower lines.
func TestLayerDiagram(t *testing.T) {
	m := loadModule(t)
	lines := diagramLines(t, readDesign(t))
	for _, rel := range m.sortedRels() {
		if testSupport.MatchString(rel) {
			continue
		}
		row := diagramRow(lines, rel)
		if row < 0 {
			t.Errorf("%s is on no line of design.md's layer diagram", rel)
			continue
		}
		for _, imp := range m.pkgs[rel].imports {
			if r := diagramRow(lines, imp); r >= row {
				t.Errorf("%s imports %s, which design.md's layer diagram does not put below it", rel, imp)
			}
		}
	}
}

func TestDiagramParsing(t *testing.T) {
	doc := layersBegin + "\n```\ncmd/...  examples/...   programs\n(coming: x/)\nmcp   Server\ntransport/{stdio,memory}  jsonrpc\n```\n" + layersEnd
	lines := diagramLines(t, doc)
	for rel, want := range map[string]int{"cmd/mcpkit": 2, "mcp": 1, "transport/memory": 0, "jsonrpc": 0, "x": -1, "transport": -1, "programs": -1} {
		if got := diagramRow(lines, rel); got != want {
			t.Errorf("row of %s = %d, want %d (lines %q)", rel, got, want, lines)
		}
	}
	for _, rel := range []string{"internal/testkit", "internal/testkit/mcptest", "internal/wirecheck", "auth/authtest", "store/storetest", "taskstore/storetest"} {
		if !testSupport.MatchString(rel) {
			t.Errorf("%s is not taken for test support", rel)
		}
	}
	if testSupport.MatchString("stress") || testSupport.MatchString("store") {
		t.Error("a package that is not test support is taken for it")
	}
}
