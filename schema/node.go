package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"
)

// node is an inferred schema under construction. Numeric keywords hold JSON
// number literals ("" when absent) so that values from tags are written
// exactly as given. marshal writes the keywords in a fixed order, which makes
// the output deterministic.
type node struct {
	schemaURI        string
	ref              string
	types            []string
	title            string
	description      string
	enum             []json.RawMessage
	def              json.RawMessage
	examples         []json.RawMessage
	format           string
	pattern          string
	contentEncoding  string
	minimum          string
	exclusiveMinimum string
	maximum          string
	exclusiveMaximum string
	multipleOf       string
	minLength        string
	maxLength        string
	minItems         string
	maxItems         string
	items            *node
	properties       []property // non-nil for struct schemas, even when empty
	required         []string
	closed           bool  // "additionalProperties": false
	additional       *node // "additionalProperties": schema
	anyOf            []*node
	deprecated       bool
	extra            []keyValue // other keywords, from a Provider
	defs             []def
}

type property struct {
	name string
	n    *node
}

type def struct {
	name string
	t    reflect.Type
	n    *node
}

type keyValue struct {
	key   string
	value json.RawMessage
}

// isObject reports whether n is exactly an object schema.
func (n *node) isObject() bool {
	return len(n.types) == 1 && n.types[0] == "object"
}

// isEmpty reports whether n has no keywords (it accepts any value).
func (n *node) isEmpty() bool {
	return len(n.marshal()) == 2
}

// describe names the kind of value n accepts, for error messages.
func (n *node) describe() string {
	switch {
	case len(n.types) > 0:
		return strings.Join(n.types, " or ")
	case n.ref != "":
		return "a reference"
	}
	return "any JSON value"
}

// makeNullable lets n also accept null, as a nil pointer encodes.
func (n *node) makeNullable() {
	if len(n.types) == 0 || containsString(n.types, "null") {
		return
	}
	n.types = append(n.types, "null")
	if n.enum != nil {
		n.enum = append(n.enum, json.RawMessage("null"))
	}
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// rawNode turns a schema supplied by a Provider into a node: "type" and
// "enum" are lifted into their fields (so pointers can make them nullable),
// everything else is kept in order.
func rawNode(raw json.RawMessage) (*node, error) {
	raw = bytes.TrimSpace(raw)
	if string(raw) == "true" || string(raw) == "{}" {
		return &node{}, nil
	}
	if len(raw) == 0 || raw[0] != '{' {
		return nil, fmt.Errorf("schema %q is not a JSON object", raw)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("invalid schema: %w", err)
	}
	n := &node{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("invalid schema: %w", err)
		}
		key := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, fmt.Errorf("invalid schema: %w", err)
		}
		switch key {
		case "type":
			var one string
			if json.Unmarshal(value, &one) == nil {
				n.types = []string{one}
				continue
			}
			if json.Unmarshal(value, &n.types) != nil {
				return nil, fmt.Errorf(`invalid schema: "type" must be a string or an array of strings`)
			}
			continue
		case "enum":
			if json.Unmarshal(value, &n.enum) != nil {
				return nil, errors.New(`invalid schema: "enum" must be an array`)
			}
			continue
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, value); err != nil {
			return nil, fmt.Errorf("invalid schema: %w", err)
		}
		n.extra = append(n.extra, keyValue{key, buf.Bytes()})
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("invalid schema: %w", err)
	}
	if dec.More() {
		return nil, errors.New("invalid schema: data after the object")
	}
	return n, nil
}

// marshal encodes n as compact JSON.
func (n *node) marshal() []byte {
	w := &writer{}
	n.write(w)
	return w.buf
}

// writer appends JSON object members, inserting commas.
type writer struct {
	buf   []byte
	first bool
	keys  []string // keys written in the current object (for Provider extras)
}

func (w *writer) key(k string) {
	if !w.first {
		w.buf = append(w.buf, ',')
	}
	w.first = false
	w.keys = append(w.keys, k)
	w.buf = appendString(w.buf, k)
	w.buf = append(w.buf, ':')
}

func (w *writer) str(k, v string) {
	if v != "" {
		w.key(k)
		w.buf = appendString(w.buf, v)
	}
}

func (w *writer) num(k, v string) {
	if v != "" {
		w.key(k)
		w.buf = append(w.buf, v...)
	}
}

func (w *writer) values(k string, vs []json.RawMessage) {
	if vs == nil {
		return
	}
	w.key(k)
	w.buf = append(w.buf, '[')
	for i, v := range vs {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.buf = append(w.buf, v...)
	}
	w.buf = append(w.buf, ']')
}

func (w *writer) child(k string, c *node) {
	w.key(k)
	c.write(w)
}

func (n *node) write(w *writer) {
	outerKeys := w.keys
	w.keys = nil
	w.buf = append(w.buf, '{')
	w.first = true
	w.str("$schema", n.schemaURI)
	w.str("$ref", n.ref)
	switch len(n.types) {
	case 0:
	case 1:
		w.str("type", n.types[0])
	default:
		w.key("type")
		w.buf = append(w.buf, '[')
		for i, t := range n.types {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			w.buf = appendString(w.buf, t)
		}
		w.buf = append(w.buf, ']')
	}
	w.str("title", n.title)
	w.str("description", n.description)
	w.values("enum", n.enum)
	if n.def != nil {
		w.key("default")
		w.buf = append(w.buf, n.def...)
	}
	w.values("examples", n.examples)
	w.str("format", n.format)
	w.str("pattern", n.pattern)
	w.str("contentEncoding", n.contentEncoding)
	w.num("minimum", n.minimum)
	w.num("exclusiveMinimum", n.exclusiveMinimum)
	w.num("maximum", n.maximum)
	w.num("exclusiveMaximum", n.exclusiveMaximum)
	w.num("multipleOf", n.multipleOf)
	w.num("minLength", n.minLength)
	w.num("maxLength", n.maxLength)
	w.num("minItems", n.minItems)
	w.num("maxItems", n.maxItems)
	if n.items != nil {
		w.child("items", n.items)
	}
	if n.properties != nil {
		w.key("properties")
		w.buf = append(w.buf, '{')
		for i, p := range n.properties {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			w.buf = appendString(w.buf, p.name)
			w.buf = append(w.buf, ':')
			p.n.write(w)
		}
		w.buf = append(w.buf, '}')
		w.first = false
	}
	if len(n.required) > 0 {
		w.key("required")
		w.buf = append(w.buf, '[')
		for i, r := range n.required {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			w.buf = appendString(w.buf, r)
		}
		w.buf = append(w.buf, ']')
	}
	if n.additional != nil {
		w.child("additionalProperties", n.additional)
	} else if n.closed {
		w.key("additionalProperties")
		w.buf = append(w.buf, "false"...)
	}
	if n.anyOf != nil {
		w.key("anyOf")
		w.buf = append(w.buf, '[')
		for i, c := range n.anyOf {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			c.write(w)
		}
		w.buf = append(w.buf, ']')
		w.first = false
	}
	if n.deprecated {
		w.key("deprecated")
		w.buf = append(w.buf, "true"...)
	}
	written := w.keys
	for _, kv := range n.extra {
		if containsString(written, kv.key) {
			continue // a struct tag overrides the Provider's keyword
		}
		w.key(kv.key)
		w.buf = append(w.buf, kv.value...)
	}
	if len(n.defs) > 0 {
		w.key("$defs")
		w.buf = append(w.buf, '{')
		for i, d := range n.defs {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			w.buf = appendString(w.buf, d.name)
			w.buf = append(w.buf, ':')
			d.n.write(w)
		}
		w.buf = append(w.buf, '}')
	}
	w.buf = append(w.buf, '}')
	w.first = false
	w.keys = outerKeys
}

// appendString appends s as a JSON string. Unlike encoding/json it leaves
// '<', '>' and '&' alone, so descriptions stay readable; invalid UTF-8
// becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}
