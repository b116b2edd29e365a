package docs

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated import graph in design.md from the code")

// The generated parts of design.md sit between these markers.
const (
	graphBegin = "<!-- import-graph:begin (generated: go test ./docs -update) -->"
	graphEnd   = "<!-- import-graph:end -->"
	rulesBegin = "<!-- import-rules:begin -->"
	rulesEnd   = "<!-- import-rules:end -->"
)

func readDesign(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("design.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// between returns the text of doc between the begin and end markers, and where it starts.
func between(t *testing.T, doc, begin, end string) (string, int) {
	t.Helper()
	i := strings.Index(doc, begin)
	j := strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("design.md has no %q … %q section", begin, end)
	}
	start := i + len(begin)
	return doc[start:j], start
}

// depths returns each package's layer: 0 for a package that imports nothing of the
// module, else one more than the deepest package it imports.
func depths(m *module) map[string]int {
	d := make(map[string]int, len(m.pkgs))
	var depth func(rel string) int
	depth = func(rel string) int {
		if v, ok := d[rel]; ok {
			return v
		}
		d[rel] = 0 // Go forbids import cycles: this is never read before it is set
		max := -1
		if p := m.pkgs[rel]; p != nil {
			for _, imp := range p.imports {
				max = maxInt(max, depth(imp))
			}
		}
		d[rel] = max + 1
		return d[rel]
	}
	for rel := range m.pkgs {
		depth(rel)
	}
	return d
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// graphText renders the module's import graph as design.md shows it: one line per
// package, lowest layer first, with the module's packages it imports directly.
func graphText(m *module) string {
	d := depths(m)
	rels := m.sortedRels()
	sort.SliceStable(rels, func(i, j int) bool { return d[rels[i]] < d[rels[j]] })
	width := 0
	for _, rel := range rels {
		width = maxInt(width, len(rel))
	}
	var b strings.Builder
	b.WriteString("\n```\n")
	for _, rel := range rels {
		line := fmt.Sprintf("%d  %-*s", d[rel], width, rel)
		if imps := m.pkgs[rel].imports; len(imps) > 0 {
			line += "  → " + strings.Join(imps, " ")
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	b.WriteString("```\n")
	return b.String()
}

// TestImportGraph checks that the import graph in design.md is the code's (the
// direct imports `go list -f '{{.ImportPath}}: {{.Imports}}' ./...` reports,
// within the module). Run `go test ./docs -update` to regenerate it.
func TestImportGraph(t *testing.T) {
	m := loadModule(t)
	doc := readDesign(t)
	got, start := between(t, doc, graphBegin, graphEnd)
	want := graphText(m)
	if got == want {
		return
	}
	if *update {
		doc = doc[:start] + want + doc[start+len(got):]
		if err := os.WriteFile("design.md", []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("design.md: import graph regenerated")
		return
	}
	t.Errorf("the import graph in design.md is out of date; run `go test ./docs -update` (and check the rules), or write:\n%s", want)
}

// rule is one row of design.md's import rules: the packages it covers and the
// module packages they may import.
type rule struct {
	line    int
	covers  []string // patterns
	allowed []string // patterns; anyPublic adds every package outside internal/
	public  bool
}

// anyPublicPhrase in a rule's second column allows every package of the module that
// is not under internal/.
const anyPublicPhrase = "any public package"

var codeSpan = regexp.MustCompile("`([^`]+)`")

func parseRules(t *testing.T, doc string) []rule {
	t.Helper()
	text, _ := between(t, doc, rulesBegin, rulesEnd)
	var rules []rule
	for i, line := range strings.Split(text, "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		if len(cells) < 2 || !strings.Contains(cells[0], "`") {
			continue // the header, the separator, blank lines
		}
		r := rule{line: i, public: strings.Contains(cells[1], anyPublicPhrase)}
		for _, m := range codeSpan.FindAllStringSubmatch(cells[0], -1) {
			r.covers = append(r.covers, m[1])
		}
		for _, m := range codeSpan.FindAllStringSubmatch(cells[1], -1) {
			r.allowed = append(r.allowed, m[1])
		}
		rules = append(rules, r)
	}
	if len(rules) == 0 {
		t.Fatal("design.md: no import rules")
	}
	return rules
}

// match reports how specifically pattern matches rel: 0 for no match, more for a
// closer one. "p" matches p exactly; "p/..." matches p and the packages below it.
func match(pattern, rel string) int {
	if pattern == rel {
		return 1 << 20
	}
	if prefix, ok := strings.CutSuffix(pattern, "/..."); ok && (rel == prefix || strings.HasPrefix(rel, prefix+"/")) {
		return len(prefix) + 1
	}
	return 0
}

// ruleFor returns the rule that covers rel most specifically, or nil.
func ruleFor(rules []rule, rel string) *rule {
	var best *rule
	bestScore := 0
	for i := range rules {
		for _, c := range rules[i].covers {
			if s := match(c, rel); s > bestScore {
				best, bestScore = &rules[i], s
			}
		}
	}
	return best
}

func (r *rule) allows(imp string) bool {
	if r.public && imp != "internal" && !strings.HasPrefix(imp, "internal/") {
		return true
	}
	for _, a := range r.allowed {
		if match(a, imp) > 0 {
			return true
		}
	}
	return false
}

// TestImportRules checks every package's imports against the rules of design.md:
// each package is covered by a rule (a new package needs a decision there), and
// imports only what its rule allows. The rules also cover packages that do not
// exist yet, so that they apply from the first commit of each.
func TestImportRules(t *testing.T) {
	m := loadModule(t)
	rules := parseRules(t, readDesign(t))
	for _, rel := range m.sortedRels() {
		r := ruleFor(rules, rel)
		if r == nil {
			t.Errorf("%s: no import rule in design.md covers it", rel)
			continue
		}
		for _, imp := range m.pkgs[rel].imports {
			if !r.allows(imp) {
				t.Errorf("%s imports %s, which its rule in design.md (%s) does not allow", rel, imp, strings.Join(r.covers, ", "))
			}
		}
	}
}

// TestRulesNameRealOrPlannedPackages keeps the rules honest the other way: a
// pattern that names an existing directory must name a package (or a tree of them).
func TestRulesNameRealOrPlannedPackages(t *testing.T) {
	m := loadModule(t)
	for _, r := range parseRules(t, readDesign(t)) {
		for _, p := range append(append([]string(nil), r.covers...), r.allowed...) {
			dir := strings.TrimSuffix(p, "/...")
			if dir == rootName {
				continue
			}
			if _, err := os.Stat(filepath.Join(m.root, dir)); err == nil && m.pkgs[dir] == nil && !strings.HasSuffix(p, "/...") {
				t.Errorf("design.md rule names %s, a directory without a package (use %s/... for a tree)", p, dir)
			}
		}
	}
}

func TestRuleMatching(t *testing.T) {
	rules := []rule{
		{covers: []string{"transport/..."}, allowed: []string{"transport", "sse"}},
		{covers: []string{"transport"}, allowed: []string{"jsonrpc"}},
		{covers: []string{"cmd/..."}, public: true},
	}
	for rel, want := range map[string]int{"transport": 1, "transport/stdio": 0, "cmd/mcpkit": 2} {
		if got := ruleFor(rules, rel); got != &rules[want] {
			t.Errorf("ruleFor(%s) = %+v, want rule %d", rel, got, want)
		}
	}
	if ruleFor(rules, "transports") != nil || ruleFor(rules, "mcp") != nil {
		t.Error("a rule matched a package it does not name")
	}
	if !rules[0].allows("sse") || rules[0].allows("mcp") || rules[0].allows("ssex") {
		t.Error("transport/... allows the wrong packages")
	}
	if !rules[2].allows("mcp") || !rules[2].allows("transport/stdio") || rules[2].allows("internal/rpcconn") {
		t.Error("any public package: wrong answer for mcp, transport/stdio or internal/rpcconn")
	}
}
