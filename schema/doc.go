// Package schema provides the JSON Schemas of MCP tools: it infers a tool's
// inputSchema and outputSchema from Go types, and validates the arguments of
// every tools/call against the input schema before the handler runs.
//
// # Inference
//
// For and ForType build a flat, self-contained JSON Schema (draft 2020-12)
// such as
//
//	{"type":"object","properties":{"message":{"type":"string"}},"required":["message"],"additionalProperties":false}
//
// without "$schema" or "$id" (InferOptions.DeclareSchema adds "$schema") and
// without "$ref": nested structs are written inline. Only recursive types use
// references: the root type refers to itself as "#", other recursive types
// (type Tree struct{ Kids []Tree }, type List []List) live under "$defs", and
// a pointer to one becomes {"anyOf":[{"$ref":...},{"type":"null"}]}. Properties appear in struct field order, so the output
// is deterministic; results are cached per type and options.
//
// The rules, which follow encoding/json:
//
//   - Property names come from json tags; `json:"-"` and unexported fields
//     are skipped; untagged fields use the Go name. Embedded structs are
//     flattened, with encoding/json's rules for name conflicts (shallowest
//     wins, then the tagged field; otherwise all are hidden).
//   - A property is required unless its field has omitempty or omitzero, is
//     a pointer, or was promoted through an embedded pointer. The
//     jsonschema tag's "required" and "optional" flags override the rule.
//   - A pointer field accepts null as well: "type" gains "null" (and an enum
//     gains null). Slices and maps do not, although nil ones encode as null:
//     give output fields omitempty or non-nil values.
//   - Structs are closed: "additionalProperties": false, so that a
//     misspelt property is reported rather than silently dropped. Set
//     InferOptions.AllowAdditionalProperties to leave it out.
//   - bool → boolean; signed integers → integer; unsigned integers →
//     integer with "minimum": 0; floats → number; string → string;
//     time.Time → string with "format": "date-time"; []byte → string with
//     "contentEncoding": "base64"; slices → array with "items"; arrays →
//     array with "items", "minItems" and "maxItems" equal to the length;
//     maps with string or integer keys → object with "additionalProperties"
//     (the value schema, left out when it is unconstrained).
//   - json.RawMessage, interfaces (including any), and types with their own
//     MarshalJSON or UnmarshalJSON → {} (no constraint). Types implementing
//     encoding.TextMarshaler or TextUnmarshaler → string. The `json:",string"`
//     option turns numbers and booleans into strings.
//   - A type implementing Provider supplies its own schema.
//   - Channels, functions and complex numbers are errors.
//
// For requires the result to be an object schema, as MCP requires of
// inputSchema and outputSchema; otherwise (For[int], For[[]string], For[any])
// the error wraps ErrNotObject. InferOptions.AllowNonObject lifts the rule.
// IsObjectSchema checks a hand-written schema.
//
// # Struct tags
//
// A `description:"..."` tag gives the property's description verbatim. The
// `jsonschema:"..."` tag holds comma-separated items, key=value or a flag:
//
//	title=Text                 "title"
//	description=Text           "description" (instead of the description tag)
//	enum=a|b|c                 "enum"
//	default=x                  "default"
//	examples=a|b               "examples"
//	minimum=1, maximum=10      numeric bounds; also exclusiveMinimum,
//	                           exclusiveMaximum and multipleOf
//	minLength=1, maxLength=80  string length in characters
//	pattern=^[a-z]+$           a regular expression (Go syntax, checked)
//	format=email               "format"
//	minItems=1, maxItems=5     array length
//	required, optional         override the required rule
//	deprecated                 "deprecated": true
//
// A tag none of whose items is a flag or key=value (a key being letters and
// digits) is taken whole, verbatim, as the description: the form
// github.com/modelcontextprotocol/go-sdk uses, so its structs keep working:
//
//	Query string `json:"query" jsonschema:"What to look for, in plain words."`
//
// A description that must sit with other keywords is written description=...
// (with `\,` for its commas). A description one of whose comma-separated
// parts is a flag word ("required") or begins with word= is read as
// keywords (and mostly refused: "optional, in seconds" is an error that
// points to description=...).
//
// Values are read according to the property's type: text for strings, a
// number for integers and numbers (checked), true or false for booleans,
// JSON for anything else ("null" is null except for strings). On an array
// property, the scalar keywords (enum, the numeric bounds, minLength,
// maxLength, pattern, format) apply to its items. A backslash escapes the
// next character, so `\,` is a comma and `\|` a bar inside a value; in a Go
// struct tag write it as `jsonschema:"pattern=^a{1\\,3}$"`. Unknown keys,
// malformed values and keywords that do not fit the type are errors. For
// example:
//
//	type SearchInput struct {
//		Query string   `json:"query" jsonschema:"What to look for."`
//		Limit int      `json:"limit,omitempty" jsonschema:"minimum=1,maximum=100,default=10"`
//		Sort  string   `json:"sort,omitempty" jsonschema:"enum=relevance|date"`
//		Tags  []string `json:"tags,omitempty" jsonschema:"pattern=^[a-z]+$,maxItems=5"`
//	}
//
// # Validation
//
// Compile checks a schema and returns a Validator; Validator.Validate checks
// a JSON value and returns a *ValidationError listing every violation with
// its JSON Pointer, in words a model can act on:
//
//	arguments: missing property "message"; /count: got string, want integer
//
// Validation is done by github.com/santhosh-tekuri/jsonschema/v6, which
// implements drafts 4, 6, 7, 2019-09 and 2020-12. The draft follows "$schema"
// and is 2020-12 when it is absent, as MCP specifies. The common shapes of
// tool schemas are also checked by a fast path that reads the raw bytes
// without allocating; it only ever confirms validity, and the library decides
// every other case, so results are the library's.
//
// Numbers with an exponent beyond ±1000 (1e99999) are refused in instances
// and schemas alike: no Go type holds them, and the library's exact
// arithmetic on them costs milliseconds per number (and panics beyond
// 1e1000000), so they would let a small request buy much CPU.
//
// Compile caches validators by schema text and options, so registering the
// same tool on many servers compiles its schema once.
//
// Validator.ApplyDefaults fills in the defaults of missing top-level
// properties before the arguments are decoded.
package schema
