package host

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/mcpkit/mcpkit/llm"
)

// ToolSearch says whether the model gets every tool's definition in every
// request, or a small search surface instead.
type ToolSearch uint8

// The modes of tool search.
const (
	// ToolSearchOff offers every tool's full definition in every request.
	ToolSearchOff ToolSearch = iota
	// ToolSearchOn offers two tools instead — one that searches the tools by
	// name, description and parameter names, one that loads the full
	// definitions of the tools the model picked into the next requests —
	// plus the tools already loaded.
	ToolSearchOn
	// ToolSearchAuto is ToolSearchOn when the definitions of every tool
	// would cost more than Options.SearchThreshold tokens, else
	// ToolSearchOff.
	ToolSearchAuto
)

// ParseToolSearch reads "off", "on" or "auto".
func ParseToolSearch(s string) (ToolSearch, error) {
	switch s {
	case "off":
		return ToolSearchOff, nil
	case "on":
		return ToolSearchOn, nil
	case "auto":
		return ToolSearchAuto, nil
	}
	return 0, fmt.Errorf("host: tool search %q: want auto, on or off", s)
}

// DefaultSearchThreshold is the estimated size, in tokens, of all the tool
// definitions above which ToolSearchAuto turns search on. The search surface
// costs about 250 tokens and a search about two more model requests, each
// carrying the conversation; below about 3,000 tokens (one server the size
// of the demo's: 2,757) the savings per request do not pay for that, above
// it (two servers or more) they pay from the first turn.
const DefaultSearchThreshold = 3000

// The names of the search surface, and what each answer holds at most.
const (
	searchToolName     = "search_tools"
	loadToolName       = "load_tools"
	defaultSearchLimit = 8
	maxSearchLimit     = 25
	maxLoad            = 20
	maxQueryLen        = 500
	summaryLen         = 160
)

// EstimateTokens estimates what defs cost in a request without a tokenizer:
// their JSON's bytes over 4.8, the ratio of the demo server's 46 tools
// (13,184 bytes here, 2,757 tokens of o200k_base as llm/tokens counts them).
func EstimateTokens(defs []llm.Tool) int {
	n := 0
	for i := range defs {
		b, err := json.Marshal(&defs[i])
		if err == nil {
			n += len(b)
		}
	}
	return n * 10 / 48
}

// searchIndex is the lexical index of the tools a search looks at: for each
// tool, its terms with their weights (a word of the name weighs most, then a
// parameter name, then a word of the description), and each term's inverse
// document frequency.
type searchIndex struct {
	tools  []*Tool
	terms  [][]indexed // by tool
	search string      // the surface's names, distinct from every tool's
	load   string
}

// indexed is one term of a tool: the term, its stem, its weight in the tool
// and its inverse document frequency over all the tools.
type indexed struct {
	term, stem string
	weight     float64
	idf        float64
}

// Weights of a term by where it occurs in a tool.
const (
	weightName  = 3
	weightParam = 2
	weightDesc  = 1
)

func newSearchIndex(tools []*Tool) *searchIndex {
	x := &searchIndex{tools: tools, terms: make([][]indexed, len(tools))}
	df := map[string]int{}
	names := make(map[string]bool, len(tools))
	weights := make([]map[string]float64, len(tools))
	for i, t := range tools {
		names[t.Name] = true
		m := map[string]float64{}
		add := func(s string, w float64) {
			for _, term := range terms(s) {
				m[term] += w
			}
		}
		add(t.Name, weightName)
		add(t.MCP.Title, weightName)
		for _, p := range paramNames(t.MCP.InputSchema) {
			add(p, weightParam)
		}
		add(t.MCP.Description, weightDesc)
		weights[i] = m
		for term := range m {
			df[term]++
		}
	}
	n := float64(len(tools))
	for i, m := range weights {
		x.terms[i] = make([]indexed, 0, len(m))
		for term, w := range m {
			d := float64(df[term])
			x.terms[i] = append(x.terms[i], indexed{term: term, stem: stem(term), weight: w, idf: math.Log(1 + (n-d+0.5)/(d+0.5))})
		}
	}
	x.search, x.load = distinctName(searchToolName, names), distinctName(loadToolName, names)
	return x
}

// distinctName returns name, or name with underscores added, whichever no
// tool has.
func distinctName(name string, taken map[string]bool) string {
	for taken[name] {
		name += "_"
	}
	return name
}

// paramNames returns the top-level property names of a JSON Schema.
func paramNames(schema json.RawMessage) []string {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	out := make([]string, 0, len(s.Properties))
	for k := range s.Properties {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// terms splits s into lower-case words: at every non-letter-or-digit and
// at each lower-to-upper change (readFile → read, file). Words of one
// letter are dropped.
func terms(s string) []string {
	var out []string
	var w []rune
	flush := func() {
		if len(w) > 1 {
			out = append(out, string(w))
		}
		w = w[:0]
	}
	prevLower := false
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if unicode.IsUpper(r) && prevLower {
				flush()
			}
			prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
			w = append(w, unicode.ToLower(r))
		default:
			flush()
			prevLower = false
		}
	}
	flush()
	return out
}

// stem cuts a few English endings, so that "files", "listing" and "listed"
// meet "file" and "list".
func stem(t string) string {
	for _, suf := range []string{"ing", "ies", "es", "ed", "s"} {
		if len(t) > len(suf)+2 && strings.HasSuffix(t, suf) {
			if suf == "ies" {
				return t[:len(t)-3] + "y"
			}
			return t[:len(t)-len(suf)]
		}
	}
	return t
}

// score is a BM25-like score of tool i for the query's terms: each query
// term that is one of the tool's terms counts its weight, saturated, times
// the term's idf; a term that only shares a stem or a prefix (of at least
// four letters) with one counts half.
func (x *searchIndex) score(i int, query, stems []string) float64 {
	const k = 1.2
	s := 0.0
	for qi, q := range query {
		best := 0.0
		for j := range x.terms[i] {
			e := &x.terms[i][j]
			var f float64
			switch {
			case e.term == q:
				f = 1
			case e.stem == stems[qi]:
				f = 0.8
			case len(q) >= 4 && strings.HasPrefix(e.term, q), len(e.term) >= 4 && strings.HasPrefix(q, e.term):
				f = 0.5
			default:
				continue
			}
			if v := f * e.idf * e.weight * (k + 1) / (e.weight + k); v > best {
				best = v
			}
		}
		s += best
	}
	return s
}

// find returns the tools that match query best, at most limit of them.
func (x *searchIndex) find(query string, limit int) []*Tool {
	q := terms(clip(query, maxQueryLen))
	stems := make([]string, len(q))
	for i, t := range q {
		stems[i] = stem(t)
	}
	type hit struct {
		i int
		s float64
	}
	var hits []hit
	for i := range x.tools {
		if s := x.score(i, q, stems); s > 0 {
			hits = append(hits, hit{i, s})
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int {
		switch {
		case a.s > b.s:
			return -1
		case a.s < b.s:
			return 1
		}
		return 0
	})
	out := make([]*Tool, 0, min(limit, len(hits)))
	for _, h := range hits[:min(limit, len(hits))] {
		out = append(out, x.tools[h.i])
	}
	return out
}

// summary is the first line (or sentence) of a tool's description, clipped.
func summary(t *Tool) string {
	d := strings.TrimSpace(t.MCP.Description)
	if d == "" {
		d = t.MCP.Title
	}
	if i := strings.IndexByte(d, '\n'); i >= 0 {
		d = d[:i]
	}
	if i := strings.Index(d, ". "); i >= 0 {
		d = d[:i+1]
	}
	return clip(d, summaryLen)
}

// surface returns the definitions of the search and load tools.
func (x *searchIndex) surface() []llm.Tool {
	servers := map[string]int{}
	var order []string
	for _, t := range x.tools {
		if servers[t.Server] == 0 {
			order = append(order, t.Server)
		}
		servers[t.Server]++
	}
	from := ""
	if len(order) > 1 || (len(order) == 1 && order[0] != "") {
		parts := make([]string, len(order))
		for i, s := range order {
			parts[i] = fmt.Sprintf("%s (%d)", s, servers[s])
		}
		from = " from the servers " + strings.Join(parts, ", ")
	}
	return []llm.Tool{{
		Name: x.search,
		Description: fmt.Sprintf("Search the %d tools available%s. Their definitions are not loaded yet: "+
			"search by what you want to do, then load the tools you need with %s and call them. "+
			"Returns tool names with one-line descriptions, best match first.", len(x.tools), from, x.load),
		InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"Words describing the task, e.g. \"read file\""},"limit":{"type":"integer","description":"How many tools to return (default 8, at most 25)"}},"required":["query"]}`),
	}, {
		Name:        x.load,
		Description: "Load the full definitions of tools found with " + x.search + ", by name; they can be called from the next step on.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"names":{"type":"array","items":{"type":"string"},"description":"Tool names from the search results"}},"required":["names"]}`),
	}}
}

// run answers a call of the search surface; the second result is false when
// name is not one of its tools.
func (x *searchIndex) run(name string, args json.RawMessage, loaded map[string]bool) (string, bool, bool) {
	switch name {
	case x.search:
		var in struct {
			Query string `json:"query"`
			Limit int    `json:"limit"`
		}
		if err := json.Unmarshal(args, &in); err != nil || strings.TrimSpace(in.Query) == "" {
			return `give a "query": words describing what you want to do`, true, true
		}
		limit := in.Limit
		if limit <= 0 {
			limit = defaultSearchLimit
		}
		limit = min(limit, maxSearchLimit)
		found := x.find(in.Query, limit)
		if len(found) == 0 {
			return fmt.Sprintf("no tool matches %q; try other words", clip(in.Query, 100)), false, true
		}
		var b strings.Builder
		for _, t := range found {
			mark := ""
			if loaded[t.Name] {
				mark = " [loaded]"
			}
			fmt.Fprintf(&b, "%s%s: %s\n", t.Name, mark, summary(t))
		}
		fmt.Fprintf(&b, "Load the ones you need with %s, then call them.", x.load)
		return b.String(), false, true
	case x.load:
		var in struct {
			Names []string `json:"names"`
		}
		if err := json.Unmarshal(args, &in); err != nil || len(in.Names) == 0 {
			return `give "names": the tool names to load, from the search results`, true, true
		}
		if len(in.Names) > maxLoad {
			return fmt.Sprintf("load at most %d tools at once", maxLoad), true, true
		}
		var ok, unknown []string
		for _, n := range in.Names {
			if slices.ContainsFunc(x.tools, func(t *Tool) bool { return t.Name == n }) {
				loaded[n] = true
				ok = append(ok, n)
			} else {
				unknown = append(unknown, clip(n, 100))
			}
		}
		var b strings.Builder
		if len(ok) > 0 {
			fmt.Fprintf(&b, "Loaded %s: call them now.", strings.Join(ok, ", "))
		}
		if len(unknown) > 0 {
			fmt.Fprintf(&b, " Unknown: %s (use %s to find tool names).", strings.Join(unknown, ", "), x.search)
		}
		return strings.TrimSpace(b.String()), len(ok) == 0, true
	}
	return "", false, false
}
