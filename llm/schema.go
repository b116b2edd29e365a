package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// SchemaOptions say what a provider accepts in a tool's input schema.
type SchemaOptions struct {
	// InlineRefs replaces every local $ref ("#/$defs/X", "#/definitions/X",
	// any "#/..." pointer) with a copy of what it points to, keeping the
	// $ref's sibling keywords (a description, say) over the copy's. A
	// recursive reference cannot be inlined: it stays, with the definitions
	// it needs. Without InlineRefs, $ref and $defs are sent as they are.
	InlineRefs bool
}

// MapSchema turns an MCP tool's input schema into one both OpenAI and
// Anthropic accept, dropping nothing they can use: types, enums and consts,
// nested objects, arrays and their items, required lists, descriptions,
// formats, bounds, defaults and nested anyOf/oneOf/allOf are kept as they
// are, in their order. What changes is the root, which both providers want a
// plain object schema:
//   - a missing or empty schema becomes {"type":"object","properties":{}}, a
//     root without "type" gets "type":"object", and one without
//     "properties" gets an empty one (OpenAI rejects an object schema
//     without properties);
//   - a root $ref is replaced by what it points to; "$schema" is dropped;
//   - the combinators both providers refuse at the root are folded in: allOf
//     branches' properties and required lists are merged into the root;
//     anyOf/oneOf branches' properties are added to the root's, the
//     properties every branch requires become required, and the
//     alternatives are spelled out at the end of the description; root
//     "not", "enum" and "const" are moved to the description too. The server
//     still validates the arguments against its own schema.
//
// opts.InlineRefs inlines local references for providers that cannot follow
// them.
//
// The schema comes from a peer, so the work is bounded: an input nesting
// deeper than 10,000 levels is an error, and inlining stops at a budget of
// about twice the input's size plus 20,000 nodes (strings counted by their
// length) or 64 nested references. A schema whose references expand past
// that (a chain of definitions each referring twice to the next doubles at
// every step) is mapped as if InlineRefs were off: its $ref and $defs are
// kept as the server wrote them, so the result stays the size of the input.
func MapSchema(schema []byte, opts SchemaOptions) (json.RawMessage, error) {
	var root object
	var size int
	if len(strings.TrimSpace(string(schema))) > 0 {
		tree, n, err := parseTree(schema)
		if errors.Is(err, errTooDeep) {
			return nil, fmt.Errorf("llm: the input schema %w", err)
		}
		if err != nil {
			return nil, fmt.Errorf("llm: the input schema is not valid JSON: %w", err)
		}
		size = n
		switch t := tree.(type) {
		case object:
			root = t
		case nil:
		case bool:
			if !t {
				return nil, errors.New("llm: the input schema is false: no arguments are valid")
			}
		default:
			return nil, fmt.Errorf("llm: the input schema is a JSON %s, not an object", jsonTypeName(tree))
		}
	}
	limit := 2*size + inlineAllowance
	out, ok := mapTree(root, opts.InlineRefs, limit)
	if !ok && opts.InlineRefs {
		// The references expand past the budget: keep them.
		out, _ = mapTree(root, false, limit)
	}
	return appendTree(nil, out)
}

// Bounds of the mapping of a schema (see MapSchema).
const (
	inlineAllowance = 20_000 // work units beyond twice the input's size
	maxRefNesting   = 64     // references expanded inside one another
)

// mapTree maps root (left unchanged) within limit work units. ok is false if
// the budget ran out; the result is still a valid schema, references past
// the budget kept as they are.
func mapTree(root object, inline bool, limit int) (out object, ok bool) {
	m := &mapper{root: clone(root).(object), inline: inline, limit: limit, refs: map[string]resolved{}}
	out = m.root
	if m.inline {
		out = m.walk(out, []string{"#"}).(object)
		if m.kept {
			// A recursive reference stayed: keep the definitions, with their own
			// references inlined where they can be.
			for _, key := range []string{"$defs", "definitions"} {
				v, _ := m.root.get(key)
				defs, ok := v.(object)
				if !ok {
					continue
				}
				walked := make(object, len(defs))
				for i, d := range defs {
					walked[i] = member{d.key, m.walk(d.val, []string{"#", "#/" + key + "/" + d.key})}
				}
				out.set(key, walked)
			}
		} else {
			out.del("$defs")
			out.del("definitions")
		}
	} else if ref, ok := out.get("$ref"); ok {
		if s, isStr := ref.(string); isStr {
			out = m.mergeRef(out, s, nil)
		}
	}
	out.del("$schema")
	m.foldRoot(&out)
	return out, !m.over
}

// mapper holds the original root (for resolving references) during a mapping.
type mapper struct {
	root   object
	inline bool
	kept   bool // a reference could not be inlined (recursion)
	// work counts what the mapping has done (nodes visited or copied,
	// members scanned); past limit, over is set and no reference is expanded
	// any more.
	work, limit int
	over        bool
	refs        map[string]resolved // resolve's answers
}

// resolved is what a reference points to.
type resolved struct {
	v  any
	ok bool
}

// spend adds n work units; it reports whether the budget still holds.
func (m *mapper) spend(n int) bool {
	m.work += n
	if m.work > m.limit {
		m.over = true
	}
	return !m.over
}

// resolve returns what the local reference ref points to in the original root.
func (m *mapper) resolve(ref string) (any, bool) {
	if r, ok := m.refs[ref]; ok {
		return r.v, r.ok
	}
	v, ok := m.lookup(ref)
	m.refs[ref] = resolved{v, ok}
	return v, ok
}

// lookup follows the JSON pointer of ref, counting the members it scans.
func (m *mapper) lookup(ref string) (any, bool) {
	m.spend(1 + len(ref)/32)
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, false
	}
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	var cur any = m.root
	if frag == "" {
		return cur, true
	}
	if !strings.HasPrefix(frag, "/") {
		return nil, false // an anchor name: not supported
	}
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case object:
			m.spend(len(c))
			v, ok := c.get(tok)
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// mergeRef returns node with its $ref replaced by a copy of the target (with
// its references walked when inlining), node's other keywords taking
// precedence. stack holds the references being expanded, to stop recursion.
// Past the budget, node is returned as it is.
func (m *mapper) mergeRef(node object, ref string, stack []string) object {
	if m.over {
		return node
	}
	if len(stack) > maxRefNesting {
		m.over = true
		return node
	}
	target, ok := m.resolve(ref)
	if !ok || slices.Contains(stack, ref) {
		if ok {
			m.kept = true
		}
		return node
	}
	var out object
	switch t := target.(type) {
	case object:
		if m.inline {
			// walk copies what it visits (the values of data keywords, never
			// changed, are shared); past the budget it returns t itself, so
			// the members below are set on a copy.
			out = slices.Clone(m.walk(t, append(stack[:len(stack):len(stack)], ref)).(object))
		} else if c, ok := m.clone(t); ok {
			out = c.(object)
		} else {
			return node
		}
		if ref != "#" {
			out.del("$defs")
			out.del("definitions")
		}
	case bool:
		out = object{}
	default:
		return node
	}
	for _, mem := range node {
		if mem.key != "$ref" {
			out.set(mem.key, mem.val)
		}
	}
	return out
}

// walk inlines the local references in v. Values of keywords that hold data,
// not schemas (enum, const, default, examples), are left alone.
// Past the budget, what is left is returned as it is.
func (m *mapper) walk(v any, stack []string) any {
	if !m.spend(cost(v)) {
		return v
	}
	switch t := v.(type) {
	case object:
		if ref, ok := t.get("$ref"); ok {
			if s, isStr := ref.(string); isStr {
				return m.mergeRef(t, s, stack) // the copy is walked by mergeRef
			}
		}
		out := make(object, 0, len(t))
		for _, mem := range t {
			m.spend(len(mem.key) / 64)
			switch mem.key {
			case "enum", "const", "default", "examples", "$defs", "definitions":
				out = append(out, mem)
			default:
				out = append(out, member{mem.key, m.walk(mem.val, stack)})
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = m.walk(e, stack)
		}
		return out
	}
	return v
}

// cost is what visiting or copying v costs: one unit, and one per 64 bytes
// of a string or number.
func cost(v any) int {
	switch t := v.(type) {
	case string:
		return 1 + len(t)/64
	case json.Number:
		return 1 + len(t)/64
	}
	return 1
}

// clone copies v deeply, within the budget.
func (m *mapper) clone(v any) (any, bool) {
	if !m.spend(cost(v)) {
		return nil, false
	}
	switch t := v.(type) {
	case object:
		c := make(object, len(t))
		for i, mem := range t {
			m.spend(len(mem.key) / 64)
			val, ok := m.clone(mem.val)
			if !ok {
				return nil, false
			}
			c[i] = member{mem.key, val}
		}
		return c, true
	case []any:
		c := make([]any, len(t))
		for i, e := range t {
			val, ok := m.clone(e)
			if !ok {
				return nil, false
			}
			c[i] = val
		}
		return c, true
	}
	return v, true
}

// foldRoot makes the root a plain object schema (see MapSchema).
func (m *mapper) foldRoot(root *object) {
	var notes []string
	if all, ok := root.get("allOf"); ok {
		branches := m.branches(all)
		mergeProperties(root, branches)
		var req []string
		for _, b := range branches {
			req = append(req, requiredOf(b)...)
		}
		if len(req) > 0 {
			root.set("required", toAny(union(requiredOf(*root), req)))
		}
		root.del("allOf")
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		v, ok := root.get(kw)
		if !ok {
			continue
		}
		branches := m.branches(v)
		mergeProperties(root, branches)
		var common []string
		for i, b := range branches {
			if i == 0 {
				common = requiredOf(b)
			} else {
				common = intersect(common, requiredOf(b))
			}
		}
		if len(common) > 0 {
			root.set("required", toAny(union(requiredOf(*root), common)))
		}
		word := "one or more"
		if kw == "oneOf" {
			word = "exactly one"
		}
		summaries := make([]string, len(branches))
		for i, b := range branches {
			summaries[i] = fmt.Sprintf("(%d) %s", i+1, summarize(b))
		}
		notes = append(notes, fmt.Sprintf("The arguments must match %s of: %s.", word, strings.Join(summaries, "; ")))
		root.del(kw)
	}
	for _, kw := range []string{"not", "enum", "const"} {
		if v, ok := root.get(kw); ok {
			b, _ := appendTree(nil, v)
			notes = append(notes, fmt.Sprintf("Constraint on the arguments (%s): %s.", kw, b))
			root.del(kw)
		}
	}
	if len(notes) > 0 {
		desc, _ := root.get("description")
		s, _ := desc.(string)
		if s != "" {
			s += "\n\n"
		}
		root.set("description", s+strings.Join(notes, " "))
	}
	switch t, _ := root.get("type"); t := t.(type) {
	case string:
		if t != "object" {
			root.set("type", "object")
		}
	default: // missing, or a list of types
		root.set("type", "object")
	}
	if p, ok := root.get("properties"); !ok || p == nil {
		root.set("properties", object{})
	}
	// "type" first, as every provider's examples write it.
	if i := slices.IndexFunc(*root, func(mem member) bool { return mem.key == "type" }); i > 0 {
		t := (*root)[i]
		copy((*root)[1:i+1], (*root)[:i])
		(*root)[0] = t
	}
}

// branches returns the object schemas of a combinator's list, references
// resolved.
func (m *mapper) branches(v any) []object {
	list, _ := v.([]any)
	out := make([]object, 0, len(list))
	for _, e := range list {
		b, ok := e.(object)
		if !ok {
			continue
		}
		if ref, ok := b.get("$ref"); ok {
			if s, isStr := ref.(string); isStr {
				save := m.inline
				m.inline = true
				if merged := m.mergeRef(b, s, nil); !m.over {
					b = merged // else the budget ran out: the reference stays
				}
				m.inline = save
			}
		}
		out = append(out, b)
	}
	return out
}

// mergeProperties adds the branches' properties that root does not have, in
// their order (in time linear in their number: the lists come from a peer).
func mergeProperties(root *object, branches []object) {
	rp, _ := root.get("properties")
	rprops, _ := rp.(object)
	var have map[string]bool
	added := false
	for _, b := range branches {
		bp, _ := b.get("properties")
		bprops, _ := bp.(object)
		for _, mem := range bprops {
			if have == nil {
				have = make(map[string]bool, len(rprops))
				for _, r := range rprops {
					have[r.key] = true
				}
			}
			if !have[mem.key] {
				have[mem.key] = true
				rprops = append(rprops, mem)
				added = true
			}
		}
	}
	if added {
		root.set("properties", rprops)
	}
}

// summarize describes a branch of anyOf/oneOf in a few words.
func summarize(b object) string {
	var parts []string
	for _, key := range []string{"title", "description"} {
		if v, ok := b.get(key); ok {
			if s, isStr := v.(string); isStr && s != "" {
				parts = append(parts, s)
			}
		}
	}
	if req := requiredOf(b); len(req) > 0 {
		parts = append(parts, "required: "+strings.Join(req, ", "))
	}
	if p, ok := b.get("properties"); ok {
		if props, isObj := p.(object); isObj && len(props) > 0 {
			names := make([]string, len(props))
			for i, mem := range props {
				names[i] = mem.key
			}
			parts = append(parts, "properties: "+strings.Join(names, ", "))
		}
	}
	if len(parts) == 0 {
		enc, _ := appendTree(nil, b)
		return string(enc)
	}
	return strings.Join(parts, "; ")
}

func requiredOf(o object) []string {
	v, _ := o.get("required")
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// union returns a's strings then b's that a lacks, each once.
func union(a, b []string) []string {
	seen := make(map[string]bool, len(a)+len(b))
	out := make([]string, 0, len(a)+len(b))
	for _, list := range [][]string{a, b} {
		for _, s := range list {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// intersect returns a's strings that b holds.
func intersect(a, b []string) []string {
	in := make(map[string]bool, len(b))
	for _, s := range b {
		in[s] = true
	}
	var out []string
	for _, s := range a {
		if in[s] {
			out = append(out, s)
		}
	}
	return out
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func jsonTypeName(v any) string {
	switch v.(type) {
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number:
		return "number"
	}
	return "value"
}
