package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/textproto"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
)

// This file holds the Mcp-Param-{Name} headers: the x-mcp-header declarations
// of a tool's inputSchema (server/tools, "x-mcp-header"), the headers a
// client derives from a call's arguments, and the server's check of them
// (basic/transports/streamable-http, "Custom Headers from Tool Parameters").

// ParamHeader is one valid x-mcp-header declaration of a tool's inputSchema:
// the argument at Path is mirrored into the header Mcp-Param-{Name}.
type ParamHeader struct {
	// Name is the declared name, the part after "Mcp-Param-".
	Name string
	// Path is the chain of property names from the schema root to the
	// annotated property (one element for a top-level argument).
	Path []string
	// Type is the property's declared primitive type: "string", "integer"
	// or "boolean".
	Type string

	header string // the canonical header name
}

// Header returns the header name, Mcp-Param-{Name}, in the canonical form of
// net/http (as http.Header keys a received request's headers).
func (p ParamHeader) Header() string {
	if p.header != "" {
		return p.header
	}
	return textproto.CanonicalMIMEHeaderKey(ParamHeaderPrefix + p.Name)
}

// ParamHeaders returns the x-mcp-header declarations of a tool's inputSchema,
// in a stable order (by property path), or an error wrapping
// ErrInvalidParamHeader that describes the first declaration breaking the
// specification's rules:
//
//   - the name is a non-empty HTTP token (RFC 9110 tchar: letters, digits and
//     !#$%&'*+-.^_`|~), so no spaces, colons, control or non-ASCII characters;
//   - names are unique within the schema, compared case-insensitively;
//   - the property declares a primitive "type": "string", "integer" or
//     "boolean" ("number" is not allowed), optionally together with "null"
//     (a null argument is simply not mirrored);
//   - the property is statically reachable: the root reaches it through
//     "properties" members only. A declaration under items, prefixItems,
//     additionalProperties, patternProperties, allOf/anyOf/oneOf/not,
//     if/then/else, $defs (so behind a $ref) or any other subschema keyword,
//     or on the root itself, is invalid.
//
// A schema that is not a JSON object (or is empty) has no declarations.
func ParamHeaders(inputSchema json.RawMessage) ([]ParamHeader, error) {
	if len(bytes.TrimSpace(inputSchema)) == 0 {
		return nil, nil
	}
	var w schemaWalker
	if err := w.walk(inputSchema, nil, true, 0); err != nil {
		return nil, err
	}
	slices.SortFunc(w.out, func(a, b ParamHeader) int { return slices.Compare(a.Path, b.Path) })
	return w.out, nil
}

// schemaWalker collects declarations while walking a schema.
type schemaWalker struct {
	out []ParamHeader
}

// maxSchemaDepth bounds the nesting ParamHeaders walks through.
const maxSchemaDepth = 128

// Subschema keywords of JSON Schema (2020-12 and earlier drafts), by the shape
// of their value. Their subschemas are never statically reachable. "items" is
// in two lists: a schema in 2020-12, a schema or a list of them before.
var (
	schemaValued = []string{"additionalProperties", "unevaluatedProperties", "additionalItems", "unevaluatedItems",
		"contains", "propertyNames", "not", "if", "then", "else", "contentSchema", "items"}
	schemaListValued = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}
	schemaMapValued  = []string{"patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
)

// walk visits the schema in data at path; reachable says whether the root
// reaches it through "properties" members only.
func (w *schemaWalker) walk(data json.RawMessage, path []string, reachable bool, depth int) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || data[0] != '{' {
		return nil // a boolean schema, or not a schema: nothing to declare
	}
	if depth > maxSchemaDepth {
		return fmt.Errorf("%w: the schema is nested more than %d levels deep", ErrInvalidParamHeader, maxSchemaDepth)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return fmt.Errorf("%w: the schema is not valid JSON: %w", ErrInvalidParamHeader, err)
	}
	if props, ok := obj["properties"]; ok {
		var m map[string]json.RawMessage
		if json.Unmarshal(props, &m) == nil {
			for _, name := range sortedKeys(m) {
				if err := w.walk(m[name], append(slices.Clip(path), name), reachable, depth+1); err != nil {
					return err
				}
			}
		}
	}
	for _, kw := range schemaValued {
		if sub, ok := obj[kw]; ok {
			if err := w.walk(sub, nil, false, depth+1); err != nil {
				return err
			}
		}
	}
	for _, kw := range schemaListValued {
		var list []json.RawMessage
		if json.Unmarshal(obj[kw], &list) != nil {
			continue
		}
		for _, sub := range list {
			if err := w.walk(sub, nil, false, depth+1); err != nil {
				return err
			}
		}
	}
	for _, kw := range schemaMapValued {
		var m map[string]json.RawMessage
		if json.Unmarshal(obj[kw], &m) != nil {
			continue
		}
		for _, k := range sortedKeys(m) {
			if err := w.walk(m[k], nil, false, depth+1); err != nil {
				return err
			}
		}
	}
	raw, ok := obj[KeywordMCPHeader]
	if !ok {
		return nil
	}
	return w.declare(raw, obj["type"], path, reachable)
}

// declare checks one x-mcp-header declaration and records it.
func (w *schemaWalker) declare(raw, typ json.RawMessage, path []string, reachable bool) error {
	var name string
	if err := json.Unmarshal(raw, &name); err != nil {
		return fmt.Errorf("%w: the value %s is not a string", ErrInvalidParamHeader, raw)
	}
	where := "the root schema"
	if len(path) > 0 {
		where = "property " + strconv.Quote(strings.Join(path, "."))
	}
	switch {
	case !reachable:
		return fmt.Errorf("%w: %q is declared in a subschema that is not reached from the root through \"properties\" alone (it is under items, a composition, a condition, $defs or another subschema keyword)", ErrInvalidParamHeader, name)
	case len(path) == 0:
		return fmt.Errorf("%w: %q is declared on the root schema, not on a property", ErrInvalidParamHeader, name)
	case name == "":
		return fmt.Errorf("%w: empty name on %s", ErrInvalidParamHeader, where)
	case !isToken(name):
		return fmt.Errorf("%w: name %q on %s is not an HTTP token (letters, digits and !#$%%&'*+-.^_`|~ only)", ErrInvalidParamHeader, name, where)
	}
	for _, p := range w.out {
		if strings.EqualFold(p.Name, name) {
			return fmt.Errorf("%w: name %q on %s repeats %q of property %q (names are compared case-insensitively)",
				ErrInvalidParamHeader, name, where, p.Name, strings.Join(p.Path, "."))
		}
	}
	primitive, err := primitiveType(typ)
	if err != nil {
		return fmt.Errorf("%w: %q on %s: %w", ErrInvalidParamHeader, name, where, err)
	}
	w.out = append(w.out, ParamHeader{
		Name:   name,
		Path:   slices.Clone(path),
		Type:   primitive,
		header: textproto.CanonicalMIMEHeaderKey(ParamHeaderPrefix + name),
	})
	return nil
}

// primitiveType returns the one primitive type a property declares.
func primitiveType(typ json.RawMessage) (string, error) {
	if len(typ) == 0 {
		return "", errors.New(`the property declares no "type"; it must be "string", "integer" or "boolean"`)
	}
	var types []string
	var one string
	if json.Unmarshal(typ, &one) == nil {
		types = []string{one}
	} else if json.Unmarshal(typ, &types) != nil {
		return "", fmt.Errorf(`the property's "type" %s is neither a string nor a list of strings`, typ)
	}
	primitive := ""
	for _, t := range types {
		switch t {
		case "null":
		case "string", "integer", "boolean":
			if primitive != "" && primitive != t {
				return "", fmt.Errorf(`the property's "type" %s allows more than one primitive type`, typ)
			}
			primitive = t
		default:
			return "", fmt.Errorf(`the property's "type" %s is not a primitive type ("string", "integer" or "boolean"; "number" is not allowed)`, typ)
		}
	}
	if primitive == "" {
		return "", fmt.Errorf(`the property's "type" %s names no primitive type`, typ)
	}
	return primitive, nil
}

// isToken reports whether s is an HTTP token (RFC 9110, 1*tchar).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// SetParamHeaders adds to header (an http.Header) the Mcp-Param-{Name}
// header of every declaration whose argument is present in args and not null,
// with the value converted (a string as it is, an integer in decimal, a
// boolean as true or false) and encoded by EncodeHeaderValue. It fails when a
// mirrored argument is not a string, an integer within ±(2^53-1) or a
// boolean, or when args holds the argument under two names that differ only
// in case.
func SetParamHeaders(header map[string][]string, specs []ParamHeader, args json.RawMessage) error {
	for _, p := range specs {
		raw, found, err := argumentAt(args, p.Path)
		if err != nil {
			return fmt.Errorf("%s: %w", p.Header(), err)
		}
		if !found {
			continue
		}
		v, err := headerText(raw)
		if err != nil {
			return fmt.Errorf("%s: argument %q: %w", p.Header(), strings.Join(p.Path, "."), err)
		}
		header[p.Header()] = []string{EncodeHeaderValue(v)}
	}
	return nil
}

// CheckParamHeaders checks the Mcp-Param-{Name} headers of a tools/call
// request (header is the request's http.Header) against its arguments, as
// the specification's "Server Behavior for Custom Headers" requires: a
// declared argument that is present and not null must come with its header,
// once, whose decoded value equals the argument (integers are compared
// numerically, so 42 and 42.0 agree); a header must not be sent for an
// absent or null argument; a value with characters that needed Base64, or
// malformed Base64, is rejected. Headers no declaration names are ignored.
// Every error wraps ErrHeaderMismatch.
//
// It reads args in place: checking a call allocates nothing unless it fails
// (or a mirrored string or member name holds escape sequences).
func CheckParamHeaders(header map[string][]string, specs []ParamHeader, args json.RawMessage) error {
	for _, p := range specs {
		if err := p.check(header, args); err != nil {
			return err
		}
	}
	return nil
}

// check compares one declaration's header with its argument.
func (p ParamHeader) check(header map[string][]string, args json.RawMessage) error {
	name := p.Header()
	values, sent := lookupHeader(header, name)
	raw, found, err := argumentAt(args, p.Path)
	if err != nil {
		return fmt.Errorf("%w: %s: %w", ErrHeaderMismatch, name, err)
	}
	switch {
	case !found && !sent:
		return nil
	case !found:
		return fmt.Errorf("%w: %s header sent, but the argument %q is absent or null", ErrHeaderMismatch, name, strings.Join(p.Path, "."))
	case !sent:
		return fmt.Errorf("%w: %s header missing for the argument %q", ErrHeaderMismatch, name, strings.Join(p.Path, "."))
	case len(values) != 1:
		return fmt.Errorf("%w: %s header sent %d times", ErrHeaderMismatch, name, len(values))
	}
	got, err := decodeHeaderValue(values[0])
	if err != nil {
		return fmt.Errorf("%w: %s header: %w", ErrHeaderMismatch, name, err)
	}
	if !sameValue(got, raw) {
		return fmt.Errorf("%w: %s header value %s does not match body value %s", ErrHeaderMismatch, name, quoteValue(got), quoteValue(string(raw)))
	}
	return nil
}

// argumentAt returns the value at path in the arguments object args (as a
// sub-slice of it). A value that is absent, null, or under a member that is
// not an object is not found; absent arguments have no members. Like
// encoding/json decoding into a struct, a member whose name equals a path
// element up to case counts as that element; two such members are ambiguous
// and an error, since a tool could read one while the check reads the other.
func argumentAt(args json.RawMessage, path []string) (json.RawMessage, bool, error) {
	raw := args
	for i, step := range path {
		s := jsonscan.Scanner{Data: raw}
		s.SkipSpace()
		if s.Peek() != '{' {
			if i == 0 && s.Pos < len(raw) && !(s.Literal("null") == nil && isSpace(raw[s.Pos:])) {
				return nil, false, errors.New("the arguments are not a JSON object")
			}
			return nil, false, nil // absent arguments, or a member that is not an object
		}
		v, n, err := member(&s, step)
		if err != nil {
			return nil, false, fmt.Errorf("the arguments are not valid JSON: %w", err)
		}
		if n > 1 {
			return nil, false, fmt.Errorf("the arguments hold %q under %d names that differ only in case", strings.Join(path[:i+1], "."), n)
		}
		if n == 0 {
			return nil, false, nil
		}
		raw = v
	}
	if len(raw) == 0 || string(raw) == "null" {
		return nil, false, nil
	}
	return raw, true, nil
}

// member scans the object at s.Pos (its opening brace) and returns the value
// of the member named name up to case, and how many members bear that name.
func member(s *jsonscan.Scanner, name string) (json.RawMessage, int, error) {
	var val json.RawMessage
	n := 0
	err := eachMember(s, func(key []byte, escaped bool, v []byte) {
		if keyFolds(key, escaped, name) {
			val = v
			n++
		}
	})
	return val, n, err
}

// maxSafeInteger is the largest integer every JSON peer holds exactly
// (2^53-1, JavaScript's Number.MAX_SAFE_INTEGER).
const maxSafeInteger = 1<<53 - 1

// headerText converts an argument to the text its header carries.
func headerText(raw json.RawMessage) (string, error) {
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", err
		}
		return s, nil
	case 't', 'f':
		return string(raw), nil
	case '{', '[':
		return "", errors.New("objects and arrays cannot be mirrored into a header")
	}
	n, err := safeInteger(string(raw))
	if err != nil {
		return "", err
	}
	return strconv.FormatInt(n, 10), nil
}

// sameValue reports whether a decoded header value equals the argument raw.
func sameValue(header string, raw json.RawMessage) bool {
	switch raw[0] {
	case '"':
		if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
			return string(raw[1:len(raw)-1]) == header // no escapes: no copy
		}
		var s string
		return json.Unmarshal(raw, &s) == nil && s == header
	case 't', 'f':
		return string(raw) == header
	case '{', '[':
		return false
	}
	a, errA := safeInteger(string(raw))
	b, errB := safeInteger(header)
	return errA == nil && errB == nil && a == b
}

// safeInteger parses a JSON number that is an integer within ±(2^53-1),
// written in any JSON form ("42", "42.0", "4.2e1").
func safeInteger(s string) (int64, error) {
	if !isJSONNumber(s) {
		return 0, fmt.Errorf("%s is not a number", quoteValue(s))
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > maxSafeInteger {
		return 0, fmt.Errorf("%s is not an integer within ±(2^53-1)", quoteValue(s))
	}
	return int64(f), nil
}

// isJSONNumber reports whether s is a number in JSON's grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func isJSONNumber(s string) bool {
	i := 0
	digits := func() bool {
		start := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		return i > start
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	return i == len(s)
}
