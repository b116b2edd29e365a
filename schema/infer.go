package schema

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"sync"
	"time"
)

// InferOptions adjusts schema inference. The zero value (or a nil pointer)
// gives the defaults described in the package documentation. InferOptions is
// comparable: results are cached per (type, options) pair.
type InferOptions struct {
	// DeclareSchema adds "$schema": "https://json-schema.org/draft/2020-12/schema"
	// to the root. MCP does not need it: a schema without "$schema" is 2020-12.
	DeclareSchema bool
	// AllowAdditionalProperties leaves out the "additionalProperties": false
	// that struct schemas carry by default, so unknown properties pass
	// validation (and are then ignored by encoding/json).
	AllowAdditionalProperties bool
	// AllowNonObject accepts types whose schema is not an object, such as int
	// or []string. MCP requires object schemas for both inputSchema and
	// outputSchema, so tool registration leaves it false.
	AllowNonObject bool
}

// ErrNotObject is returned (wrapped) by For and ForType when the type's schema
// is not a JSON object schema ("type": "object") and AllowNonObject is false.
// A typed tool API can test for it with errors.Is to decide that an output
// type cannot be described by an MCP outputSchema.
var ErrNotObject = errors.New("schema is not an object schema")

// Provider is implemented by types that describe their own JSON
// representation, typically because they have a custom MarshalJSON. Inference
// calls JSONSchema on the type's zero value (or on a pointer to it, if the
// method has a pointer receiver) and uses the result as the type's schema;
// struct tags on a field of such a type are merged into it.
type Provider interface {
	// JSONSchema returns a JSON Schema object, for example
	// {"type":"string","pattern":"^[A-Z]{3}$"}.
	JSONSchema() json.RawMessage
}

// For returns the JSON Schema of T, inferred as described in the package
// documentation. Unless opts.AllowNonObject is set, T must yield an object
// schema (a struct, a map with string-like keys, or a pointer to one);
// otherwise the error wraps ErrNotObject. Results are cached per type and
// options; each call returns a fresh copy the caller may modify.
func For[T any](opts *InferOptions) (json.RawMessage, error) {
	return ForType(reflect.TypeFor[T](), opts)
}

// ForType is For with the type given as a reflect.Type.
func ForType(t reflect.Type, opts *InferOptions) (json.RawMessage, error) {
	if t == nil {
		return nil, errors.New("schema: nil type")
	}
	var o InferOptions
	if opts != nil {
		o = *opts
	}
	key := cacheKey{t, o}
	if r, ok := inferCache.Load(key); ok {
		return r.(*inferResult).get()
	}
	s, err := infer(t, o)
	r := &inferResult{schema: s, err: err}
	actual, _ := inferCache.LoadOrStore(key, r)
	return actual.(*inferResult).get()
}

// IsObjectSchema reports whether schema's root declares "type": "object", as
// MCP requires of a tool's inputSchema and outputSchema.
func IsObjectSchema(schema json.RawMessage) bool {
	var root struct {
		Type json.RawMessage `json:"type"`
	}
	if json.Unmarshal(schema, &root) != nil {
		return false
	}
	var typ string
	return json.Unmarshal(root.Type, &typ) == nil && typ == "object"
}

type cacheKey struct {
	t    reflect.Type
	opts InferOptions
}

type inferResult struct {
	schema json.RawMessage
	err    error
}

func (r *inferResult) get() (json.RawMessage, error) {
	if r.err != nil {
		return nil, r.err
	}
	return append(json.RawMessage(nil), r.schema...), nil
}

// inferCache maps cacheKey to *inferResult. Types are finite in a program, so
// it needs no eviction.
var inferCache sync.Map

func infer(t reflect.Type, o InferOptions) (json.RawMessage, error) {
	g := &inferrer{
		opts:      o,
		recursive: recursiveTypes(t),
		defNames:  map[reflect.Type]string{},
		usedNames: map[string]bool{},
	}
	root := t
	for i := 0; root.Kind() == reflect.Pointer && i < 8; i++ { // bounded: type P *P exists
		root = root.Elem()
	}
	g.root = root
	n, err := g.schemaOf(root, true)
	if err != nil {
		return nil, fmt.Errorf("schema: %v: %w", t, err)
	}
	if !o.AllowNonObject && !n.isObject() {
		return nil, fmt.Errorf("schema: %v: tool schemas must describe a JSON object (a struct or a map), got %s: %w",
			t, n.describe(), ErrNotObject)
	}
	// Generate the bodies of recursive types referenced through $defs; a body
	// may reference further types, so the list can grow while we iterate.
	for i := 0; i < len(g.defs); i++ {
		body, err := g.schemaOf(g.defs[i].t, true)
		if err != nil {
			return nil, fmt.Errorf("schema: %v: %w", t, err)
		}
		g.defs[i].n = body
	}
	n.defs = g.defs
	if o.DeclareSchema {
		n.schemaURI = draft2020URI
	}
	return n.marshal(), nil
}

const draft2020URI = "https://json-schema.org/draft/2020-12/schema"

// inferrer holds the state of one inference.
type inferrer struct {
	opts      InferOptions
	root      reflect.Type
	recursive map[reflect.Type]bool
	defs      []def
	defNames  map[reflect.Type]string
	usedNames map[string]bool
}

var (
	timeType           = reflect.TypeFor[time.Time]()
	rawMessageType     = reflect.TypeFor[json.RawMessage]()
	providerType       = reflect.TypeFor[Provider]()
	jsonMarshalerType  = reflect.TypeFor[json.Marshaler]()
	jsonUnmarshalType  = reflect.TypeFor[json.Unmarshaler]()
	textMarshalerType  = reflect.TypeFor[encoding.TextMarshaler]()
	textUnmarshalsType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// implements reports whether t or *t implements iface.
func implements(t, iface reflect.Type) bool {
	return t.Implements(iface) || (t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(iface))
}

// special reports whether t has a schema of its own that does not follow
// from its kind (a Provider, time.Time, or a type with custom JSON or text
// encoding).
func special(t reflect.Type) bool {
	return t == timeType || t == rawMessageType || implements(t, providerType) ||
		implements(t, jsonMarshalerType) || implements(t, jsonUnmarshalType) ||
		implements(t, textMarshalerType) || implements(t, textUnmarshalsType)
}

// schemaOf returns the schema of t. A recursive type becomes a $ref unless
// inline is set (for the root and for the bodies in $defs).
func (g *inferrer) schemaOf(t reflect.Type, inline bool) (*node, error) {
	if g.recursive[t] && !inline {
		return &node{ref: g.refTo(t)}, nil
	}
	switch {
	case implements(t, providerType):
		return providedSchema(t)
	case t == timeType:
		return &node{types: []string{"string"}, format: "date-time"}, nil
	case t == rawMessageType:
		return &node{}, nil
	case implements(t, jsonMarshalerType) || implements(t, jsonUnmarshalType):
		// Custom JSON encoding: the Go structure says nothing of the wire form.
		return &node{}, nil
	case implements(t, textMarshalerType) || implements(t, textUnmarshalsType):
		return &node{types: []string{"string"}}, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return &node{types: []string{"boolean"}}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &node{types: []string{"integer"}}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return &node{types: []string{"integer"}, minimum: "0"}, nil
	case reflect.Float32, reflect.Float64:
		return &node{types: []string{"number"}}, nil
	case reflect.String:
		return &node{types: []string{"string"}}, nil
	case reflect.Interface:
		return &node{}, nil
	case reflect.Pointer:
		if g.recursive[t.Elem()] {
			ref, err := g.schemaOf(t.Elem(), false)
			if err != nil {
				return nil, err
			}
			return &node{anyOf: []*node{ref, {types: []string{"null"}}}}, nil
		}
		n, err := g.schemaOf(t.Elem(), false)
		if err != nil {
			return nil, err
		}
		n.makeNullable()
		return n, nil
	case reflect.Slice, reflect.Array:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 && !special(t.Elem()) {
			return &node{types: []string{"string"}, contentEncoding: "base64"}, nil
		}
		items, err := g.schemaOf(t.Elem(), false)
		if err != nil {
			return nil, err
		}
		n := &node{types: []string{"array"}, items: items}
		if t.Kind() == reflect.Array {
			n.minItems = strconv.Itoa(t.Len())
			n.maxItems = n.minItems
		}
		return n, nil
	case reflect.Map:
		if !validMapKey(t.Key()) {
			return nil, fmt.Errorf("unsupported map key type %v (JSON object keys are strings)", t.Key())
		}
		vals, err := g.schemaOf(t.Elem(), false)
		if err != nil {
			return nil, err
		}
		n := &node{types: []string{"object"}}
		if !vals.isEmpty() {
			n.additional = vals
		}
		return n, nil
	case reflect.Struct:
		return g.structSchema(t)
	}
	return nil, fmt.Errorf("unsupported type %v (kind %v has no JSON encoding)", t, t.Kind())
}

// validMapKey reports whether encoding/json can encode maps with keys of type k.
func validMapKey(k reflect.Type) bool {
	switch k.Kind() {
	case reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return implements(k, textMarshalerType)
}

// refTo returns the $ref for recursive struct type t, registering a $defs
// entry for it the first time.
func (g *inferrer) refTo(t reflect.Type) string {
	if t == g.root {
		return "#"
	}
	name, ok := g.defNames[t]
	if !ok {
		base := defName(t)
		name = base
		for i := 2; g.usedNames[name]; i++ {
			name = fmt.Sprintf("%s%d", base, i)
		}
		g.usedNames[name] = true
		g.defNames[t] = name
		g.defs = append(g.defs, def{name: name, t: t})
	}
	return "#/$defs/" + name
}

// defName turns a type name into a $defs key: letters, digits, '_', '-' and
// '.' are kept; anything else (generic brackets, package paths) becomes '_'.
func defName(t reflect.Type) string {
	b := []byte(t.Name())
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "T"
	}
	return string(b)
}

// structSchema returns the object schema of struct type t.
func (g *inferrer) structSchema(t reflect.Type) (*node, error) {
	fields := structFields(t)
	n := &node{types: []string{"object"}, properties: make([]property, 0, len(fields))}
	for i := range fields {
		f := &fields[i]
		fs, err := g.fieldSchema(f)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.goName, err)
		}
		n.properties = append(n.properties, property{name: f.name, n: fs})
		if f.required {
			n.required = append(n.required, f.name)
		}
	}
	if !g.opts.AllowAdditionalProperties {
		n.closed = true
	}
	return n, nil
}

// fieldSchema returns the schema of one struct field, with its tags applied.
func (g *inferrer) fieldSchema(f *field) (*node, error) {
	t := f.typ
	pointer := false
	if t.Kind() == reflect.Pointer {
		pointer = true
		t = t.Elem()
	}
	var n *node
	var err error
	if pointer && g.recursive[t] {
		n, err = g.schemaOf(f.typ, false)
	} else {
		n, err = g.schemaOf(t, false)
	}
	if err != nil {
		return nil, err
	}
	if f.quoted {
		// `json:",string"` encodes numbers and booleans inside a JSON string.
		switch t.Kind() {
		case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
			reflect.Float32, reflect.Float64:
			n = &node{types: []string{"string"}}
		}
	}
	if err := applyTags(n, f); err != nil {
		return nil, err
	}
	if pointer && !g.recursive[t] {
		n.makeNullable()
	}
	return n, nil
}

// providedSchema calls the Provider method of t on a zero value.
func providedSchema(t reflect.Type) (n *node, err error) {
	defer func() {
		if r := recover(); r != nil {
			n, err = nil, fmt.Errorf("%v.JSONSchema panicked: %v", t, r)
		}
	}()
	var p Provider
	if t.Implements(providerType) {
		p = reflect.Zero(t).Interface().(Provider)
	} else {
		p = reflect.New(t).Interface().(Provider)
	}
	raw := p.JSONSchema()
	n, err = rawNode(raw)
	if err != nil {
		return nil, fmt.Errorf("%v.JSONSchema: %w", t, err)
	}
	return n, nil
}

// recursiveTypes returns the types reachable from t that can reach
// themselves (type Tree struct{ Kids []Tree }, type List []List); only they
// need $ref.
func recursiveTypes(t reflect.Type) map[reflect.Type]bool {
	var all []reflect.Type
	seen := map[reflect.Type]bool{}
	var collect func(reflect.Type)
	collect = func(t reflect.Type) {
		if seen[t] {
			return
		}
		seen[t] = true
		if t.Name() != "" {
			all = append(all, t) // only named types can recur
		}
		for _, c := range childTypes(t) {
			collect(c)
		}
	}
	collect(t)
	rec := map[reflect.Type]bool{}
	for _, s := range all {
		if reaches(s, s) {
			rec[s] = true
		}
	}
	return rec
}

// reaches reports whether target is reachable from the children of from.
func reaches(from, target reflect.Type) bool {
	seen := map[reflect.Type]bool{}
	stack := append([]reflect.Type(nil), childTypes(from)...)
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if t == target {
			return true
		}
		if seen[t] {
			continue
		}
		seen[t] = true
		stack = append(stack, childTypes(t)...)
	}
	return false
}

// childTypes lists the types whose schemas the schema of t contains.
func childTypes(t reflect.Type) []reflect.Type {
	if special(t) {
		return nil
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return []reflect.Type{t.Elem()}
	case reflect.Struct:
		var out []reflect.Type
		for i := 0; i < t.NumField(); i++ {
			out = append(out, t.Field(i).Type)
		}
		return out
	}
	return nil
}
