package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// CompileOptions adjusts Compile. A nil pointer means the defaults.
type CompileOptions struct {
	// Name labels the root of the instance in validation messages. The
	// default is "arguments", for a tool's input; a validator of a tool's
	// output might use "structuredContent".
	Name string
	// AssertFormat makes "format" a constraint in every draft. By default,
	// as the JSON Schema specifications say, it constrains only in draft-07
	// and earlier and is an annotation in 2019-09 and 2020-12.
	AssertFormat bool
}

// Validator checks JSON values against one compiled schema. It is immutable
// and safe for concurrent use.
type Validator struct {
	schema   *jsonschema.Schema
	fast     *fastNode // nil when the schema needs the full validator
	name     string
	defaults []keyValue // top-level property defaults, by name
}

// resourceURL names the schema inside the compiler. It never reaches the
// network or the file system (see rejectLoader) and is removed from messages.
const resourceURL = "mcpkit:///schema.json"

// rejectLoader refuses to load any external document, so that a schema
// cannot make the process read files or fetch URLs. Metaschemas of the
// supported drafts are built into the library and need no loading.
type rejectLoader struct{}

func (rejectLoader) Load(url string) (any, error) {
	return nil, errors.New("external references are not supported; put the referenced schema under $defs")
}

// Compile parses and checks schema. The draft is taken from "$schema":
// 2020-12 when it is absent; draft-07 ("http://json-schema.org/draft-07/schema#"),
// 2019-09, draft-06 and draft-04 when declared. $ref may point only inside
// the schema. Errors are *SchemaError.
func Compile(schema json.RawMessage, opts *CompileOptions) (*Validator, error) {
	var o CompileOptions
	if opts != nil {
		o = *opts
	}
	if o.Name == "" {
		o.Name = "arguments"
	}
	key := compileKey{schema: string(schema), opts: o}
	if v, ok := compiled.get(key); ok {
		return v, nil
	}
	v, err := compile(schema, o)
	if err != nil {
		return nil, err
	}
	compiled.put(key, v)
	return v, nil
}

// compile does Compile's work, without the cache.
func compile(schema json.RawMessage, o CompileOptions) (v *Validator, err error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, &SchemaError{Err: err, text: "not valid JSON: " + err.Error()}
	}
	if err := checkDraft(doc); err != nil {
		return nil, err
	}
	if path, lit, found := findHugeNumber(schema); found {
		return nil, &SchemaError{Violations: []Violation{{Path: path, Message: fmt.Sprintf(
			"number %s is out of range, want an exponent within ±%d", display(json.Number(lit)), maxExponent)}}}
	}
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, &SchemaError{Err: fmt.Errorf("%v", r), text: fmt.Sprintf("compiler failure: %v", r)}
		}
	}()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(rejectLoader{})
	if o.AssertFormat {
		c.AssertFormat()
	}
	if err := c.AddResource(resourceURL, doc); err != nil {
		return nil, schemaError(err)
	}
	sch, err := c.Compile(resourceURL)
	if err != nil {
		return nil, schemaError(err)
	}
	return &Validator{
		schema:   sch,
		fast:     compileFast(sch),
		name:     o.Name,
		defaults: topDefaults(sch),
	}, nil
}

// knownDrafts are the "$schema" values Compile accepts (with or without a
// trailing "#", over http or https).
var knownDrafts = []string{
	"json-schema.org/draft/2020-12/schema",
	"json-schema.org/draft/2019-09/schema",
	"json-schema.org/draft-07/schema",
	"json-schema.org/draft-06/schema",
	"json-schema.org/draft-04/schema",
	"json-schema.org/schema",
}

// checkDraft rejects an unknown "$schema" up front, with a clearer message
// than the library's failure to load it.
func checkDraft(doc any) error {
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil
	}
	raw, present := obj["$schema"]
	if !present {
		return nil
	}
	uri, ok := raw.(string)
	if !ok {
		return &SchemaError{Violations: []Violation{{Path: "/$schema", Message: "want a string"}}}
	}
	u := strings.TrimSuffix(uri, "#")
	if rest, ok := strings.CutPrefix(u, "https://"); ok {
		u = rest
	} else if rest, ok := strings.CutPrefix(u, "http://"); ok {
		u = rest
	}
	if !slices.Contains(knownDrafts, u) {
		return &SchemaError{Violations: []Violation{{Path: "/$schema", Message: fmt.Sprintf(
			"unsupported draft %q, want 2020-12, 2019-09, draft-07, draft-06 or draft-04", uri)}}}
	}
	return nil
}

func schemaError(err error) *SchemaError {
	var sve *jsonschema.SchemaValidationError
	if errors.As(err, &sve) {
		var ve *jsonschema.ValidationError
		if errors.As(sve.Err, &ve) {
			return &SchemaError{Violations: violationsOf(ve), Err: err}
		}
	}
	text := err.Error()
	text = strings.ReplaceAll(text, resourceURL+"#", "#")
	text = strings.ReplaceAll(text, resourceURL, "schema")
	return &SchemaError{Err: err, text: text}
}

// Validate checks instance, a JSON text, against the schema. It returns nil
// or a *ValidationError listing every violation (malformed JSON is reported
// as a violation of the whole instance). An absent value (empty instance) is
// malformed: a caller whose protocol treats absent arguments as {} should pass
// {}. Numbers whose exponent exceeds ±1000 (such as 1e99999) are refused,
// whatever the schema: they are far outside any Go number type's range, and
// evaluating them exactly would let a few bytes cost much CPU.
//
// Common tool schemas are checked directly on the bytes without allocating;
// the library's full validator runs for other schemas and to describe
// failures.
func (v *Validator) Validate(instance json.RawMessage) error {
	if v.fast != nil && fastValid(v.fast, instance) {
		return nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(instance))
	if err != nil {
		msg := "not valid JSON: " + err.Error()
		if len(bytes.TrimSpace(instance)) == 0 {
			msg = "not valid JSON: no value"
		}
		return &ValidationError{Name: v.name, Violations: []Violation{{Message: msg}}}
	}
	if path, lit, found := findHugeNumber(instance); found {
		return &ValidationError{Name: v.name, Violations: []Violation{{Path: path, Message: fmt.Sprintf(
			"number %s is out of range, want an exponent within ±%d", display(json.Number(lit)), maxExponent)}}}
	}
	err = v.libraryValidate(doc)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &ValidationError{Name: v.name, Violations: []Violation{{Message: err.Error()}}}
	}
	return &ValidationError{Name: v.name, Violations: violationsOf(ve)}
}

// libraryValidate runs the library's validator, turning a panic in it into an
// error: Validate sees untrusted input and must not crash the server.
func (v *Validator) libraryValidate(doc any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("could not be validated (validator failure: %v)", r)
		}
	}()
	return v.schema.Validate(doc)
}
