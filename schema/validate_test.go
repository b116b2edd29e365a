package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

const draft07 = `"$schema":"http://json-schema.org/draft-07/schema#",`

type echoInput struct {
	Message string `json:"message"`
	Count   int    `json:"count,omitempty" jsonschema:"minimum=1,maximum=5"`
	Mode    string `json:"mode,omitempty" jsonschema:"enum=fast|slow"`
	Address *struct {
		City string `json:"city"`
	} `json:"address,omitempty"`
	Items []struct {
		Name string `json:"name"`
	} `json:"items,omitempty"`
}

func mustCompile(t testing.TB, schema string, opts *CompileOptions) *Validator {
	t.Helper()
	v, err := Compile(json.RawMessage(schema), opts)
	if err != nil {
		t.Fatalf("Compile(%s): %v", schema, err)
	}
	return v
}

func TestValidate(t *testing.T) {
	echo, err := For[echoInput](nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name     string
		schema   string
		instance string
		want     string // "" means valid
	}{
		{"valid", string(echo), `{"message":"hi","count":2,"mode":"fast","items":[{"name":"a"}]}`, ""},
		{"missing required", string(echo), `{}`, `arguments: missing property "message"`},
		{"wrong type", string(echo), `{"message":"hi","count":"2"}`, `/count: got string, want integer`},
		{"not an integer", string(echo), `{"message":"hi","count":2.5}`, `/count: got number, want integer`},
		{"integer written as float", string(echo), `{"message":"hi","count":2.0}`, ""},
		{"below minimum", string(echo), `{"message":"hi","count":0}`, `/count: got 0, want at least 1`},
		{"above maximum", string(echo), `{"message":"hi","count":6}`, `/count: got 6, want at most 5`},
		{"enum", string(echo), `{"message":"hi","mode":"medium"}`, `/mode: got "medium", want one of "fast", "slow"`},
		{"nested path", string(echo), `{"message":"hi","address":{"city":7}}`, `/address/city: got number, want string`},
		{"null for pointer", string(echo), `{"message":"hi","address":null}`, ""},
		{"nested missing", string(echo), `{"message":"hi","items":[{"name":"a"},{}]}`, `/items/1: missing property "name"`},
		{"additional property", string(echo), `{"message":"hi","mesage":"typo"}`, `arguments: unexpected property "mesage"`},
		{"every violation, sorted", string(echo), `{"count":"x","zz":1,"aa":2,"mode":1}`,
			`arguments: missing property "message"; arguments: unexpected property "aa"; ` +
				`arguments: unexpected property "zz"; /count: got string, want integer; /mode: got number, want string`},
		{"not an object", string(echo), `[1]`, `arguments: got array, want object`},
		{"malformed JSON", string(echo), `{"message":`, `arguments: not valid JSON`},
		{"empty instance", string(echo), ``, `arguments: not valid JSON`},
		{"trailing data", string(echo), `{"message":"a"} {}`, `arguments: not valid JSON`},
		{"huge exponent", string(echo), `{"message":"hi","count":1e1000001}`,
			`/count: number 1e1000001 is out of range, want an exponent within ±1000`},
		{"huge exponent anywhere", `{}`, `{"a":[0,{"b~":-2.5E-99999}]}`,
			`/a/1/b~0: number -2.5E-99999 is out of range`},
		{"largest exponent accepted", `{}`, `[1e1000,1e-1000]`, ""},
		{"pointer escaping", `{"properties":{"a/b~c":{"type":"string"}}}`, `{"a/b~c":1}`, `/a~1b~0c: got number, want string`},
		{"nullable merged", `{"properties":{"x":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`, `{"x":1}`,
			`/x: got number, want string or null`},
		{"alternatives listed", `{"anyOf":[{"required":["a"]},{"required":["b"]}]}`, `{}`,
			`arguments: matches none of the alternatives (missing property "a"; missing property "b")`},
		{"string length", `{"type":"string","minLength":3}`, `"ab"`, `arguments: got 2 characters, want at least 3`},
		{"pattern", `{"type":"string","pattern":"^[a-z]+$"}`, `"AB"`, `arguments: got "AB", want a string matching ^[a-z]+$`},
		{"false property", `{"properties":{"x":false}}`, `{"x":1}`, `/x: no value is allowed here`},
		{"long value shortened", `{"const":"a"}`, `"` + strings.Repeat("x", 100) + `"`,
			`arguments: got "` + strings.Repeat("x", 59) + `…, want "a"`},

		// 2020-12 is the default draft: prefixItems applies, format only annotates.
		{"2020-12 default: prefixItems", `{"type":"array","prefixItems":[{"type":"integer"}]}`, `["x"]`,
			`/0: got string, want integer`},
		{"2020-12 default: format annotates", `{"type":"string","format":"date-time"}`, `"yesterday"`, ""},
		{"2020-12 declared", `{"$schema":"https://json-schema.org/draft/2020-12/schema","minItems":2}`, `[1]`,
			`arguments: got 1 items, want at least 2`},
		// draft-07 when declared: items may be a tuple, prefixItems means nothing, format asserts.
		{"draft-07: tuple items", `{` + draft07 + `"type":"array","items":[{"type":"integer"}]}`, `["x"]`,
			`/0: got string, want integer`},
		{"draft-07: prefixItems ignored", `{` + draft07 + `"type":"array","prefixItems":[{"type":"integer"}]}`, `["x"]`, ""},
		{"draft-07: format asserts", `{` + draft07 + `"type":"string","format":"date-time"}`, `"yesterday"`,
			`arguments: got "yesterday", want a valid date-time`},
		{"draft-07 without fragment", `{"$schema":"http://json-schema.org/draft-07/schema","required":["a"]}`, `{}`,
			`arguments: missing property "a"`},
		{"2019-09", `{"$schema":"https://json-schema.org/draft/2019-09/schema","dependentRequired":{"a":["b"]}}`,
			`{"a":1}`, `arguments: property "a" requires "b"`},
		{"draft-06", `{"$schema":"http://json-schema.org/draft-06/schema#","exclusiveMaximum":5}`, `5`,
			`arguments: got 5, want less than 5`},
		{"draft-04 boolean exclusiveMaximum", `{"$schema":"http://json-schema.org/draft-04/schema#","maximum":5,"exclusiveMaximum":true}`,
			`5`, `arguments: got 5, want less than 5`},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := mustCompile(t, c.schema, nil)
			err := v.Validate(json.RawMessage(c.instance))
			if c.want == "" {
				if err != nil {
					t.Fatalf("Validate(%s) = %v, want nil", c.instance, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate(%s) = nil, want %q", c.instance, c.want)
			}
			if !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("Validate(%s) =\n  %v\nwant prefix\n  %s", c.instance, err, c.want)
			}
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Violations) == 0 {
				t.Errorf("error %T does not unwrap to a *ValidationError with violations", err)
			}
		})
	}
}

func TestValidationErrorDetails(t *testing.T) {
	echo, _ := For[echoInput](nil)
	v := mustCompile(t, string(echo), &CompileOptions{Name: "structuredContent"})
	err := v.Validate(json.RawMessage(`{"count":"2","address":{"city":1}}`))
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("got %T, want *ValidationError", err)
	}
	want := []Violation{
		{"", `missing property "message"`},
		{"/address/city", "got number, want string"},
		{"/count", "got string, want integer"},
	}
	if fmt.Sprint(ve.Violations) != fmt.Sprint(want) {
		t.Errorf("violations = %q\nwant %q", ve.Violations, want)
	}
	if !strings.HasPrefix(err.Error(), "structuredContent: ") {
		t.Errorf("Name not used for the root: %v", err)
	}

	// Error spells out at most maxListed violations.
	many := &ValidationError{Name: "arguments"}
	for i := range 15 {
		many.Violations = append(many.Violations, Violation{fmt.Sprintf("/%d", i), "bad"})
	}
	if got := many.Error(); !strings.HasSuffix(got, "/9: bad; and 5 more") {
		t.Errorf("long error = %q", got)
	}
}

func TestCompileErrors(t *testing.T) {
	for _, c := range []struct {
		schema, want string
	}{
		{`{"type":12}`, `schema: invalid schema: /type: `},
		{`{"type":"strin"}`, `/type: `},
		{`{"properties":{"a":{"minLength":-1}}}`, `/properties/a/minLength: `},
		{`{` + draft07 + `"type":12}`, `/type: `},
		{`{"type":`, `schema: invalid schema: not valid JSON`},
		{`{"$schema":"https://example.com/my-dialect"}`, `/$schema: unsupported draft "https://example.com/my-dialect"`},
		{`{"$schema":7}`, `/$schema: want a string`},
		{`{"$ref":"#/$defs/missing"}`, `json-pointer in "#/$defs/missing" not found`},
		{`{"$ref":"https://example.com/schema.json"}`, `external references are not supported`},
		{`{"$ref":"/etc/passwd"}`, `external references are not supported`},
		{`{"pattern":"(("}`, `/pattern: `},
		{`{"properties":{"a":{"maximum":1e1000001}}}`, `/properties/a/maximum: number 1e1000001 is out of range`},
		{`{"multipleOf":1e-1001}`, `/multipleOf: number 1e-1001 is out of range`},
	} {
		_, err := Compile(json.RawMessage(c.schema), nil)
		if err == nil {
			t.Errorf("Compile(%s) succeeded, want %q", c.schema, c.want)
			continue
		}
		var se *SchemaError
		if !errors.As(err, &se) {
			t.Errorf("Compile(%s) error is %T, want *SchemaError", c.schema, err)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("Compile(%s) = %v\nwant it to contain %q", c.schema, err, c.want)
		}
		if strings.Contains(err.Error(), resourceURL) {
			t.Errorf("error leaks the internal resource name: %v", err)
		}
	}
}

func TestCompileCache(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"cache-test":{"type":"string"}}}`)
	a := mustCompile(t, string(schema), nil)
	b := mustCompile(t, string(schema), nil)
	if a != b {
		t.Error("the same schema and options compiled twice")
	}
	c := mustCompile(t, string(schema), &CompileOptions{Name: "other"})
	if c == a {
		t.Error("different options share a Validator")
	}
	// The cache is bounded.
	for i := range maxCachedValidators + 10 {
		mustCompile(t, fmt.Sprintf(`{"maxLength":%d}`, i), nil)
	}
	compiled.mu.Lock()
	n := len(compiled.m)
	compiled.mu.Unlock()
	if n > maxCachedValidators {
		t.Errorf("cache holds %d validators, limit %d", n, maxCachedValidators)
	}
}

// TestValidateConcurrent shares one Validator between many goroutines, on
// both the fast path and the library path; run it with -race.
func TestValidateConcurrent(t *testing.T) {
	echo, _ := For[echoInput](nil)
	v := mustCompile(t, string(echo), nil)
	// A schema the fast path does not handle, so the library runs on every call.
	slow := mustCompile(t, `{"type":"object","properties":{"message":{"type":"string"}},"required":["message"],"not":{"required":["x"]}}`, nil)
	if v.fast == nil || slow.fast != nil {
		t.Fatalf("fast path presence: echo %v, slow %v", v.fast != nil, slow.fast != nil)
	}
	good := json.RawMessage(`{"message":"hi","count":3}`)
	bad := json.RawMessage(`{"count":"3"}`)
	var wg sync.WaitGroup
	for g := range 32 {
		wg.Go(func() {
			for i := range 100 {
				val := v
				if (g+i)%3 == 0 {
					val = slow
				}
				if err := val.Validate(good); err != nil {
					t.Errorf("valid instance rejected: %v", err)
					return
				}
				err := val.Validate(bad)
				var ve *ValidationError
				if !errors.As(err, &ve) || ve.Violations[0].Message != `missing property "message"` {
					t.Errorf("invalid instance: got %v", err)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestValidateAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts are measured in full runs")
	}
	echo, _ := For[echoInput](nil)
	v := mustCompile(t, string(echo), nil)
	args := json.RawMessage(`{"message":"hello","count":3,"mode":"slow","address":{"city":"Paris"},"items":[{"name":"a"}]}`)
	if n := testing.AllocsPerRun(100, func() {
		if v.Validate(args) != nil {
			t.Fatal("rejected")
		}
	}); n != 0 {
		t.Errorf("Validate of a valid instance allocates %v times, want 0", n)
	}
}

func TestApplyDefaults(t *testing.T) {
	type input struct {
		Query string `json:"query"`
		Limit int    `json:"limit,omitempty" jsonschema:"default=10"`
		Sort  string `json:"sort,omitempty" jsonschema:"default=relevance"`
		Deep  struct {
			X int `json:"x,omitempty" jsonschema:"default=1"`
		} `json:"deep,omitzero"`
	}
	s, err := For[input](nil)
	if err != nil {
		t.Fatal(err)
	}
	v := mustCompile(t, string(s), nil)
	for _, c := range []struct{ in, want string }{
		{`{"query":"q"}`, `{"query":"q","limit":10,"sort":"relevance"}`},
		{` { } `, ` { "limit":10,"sort":"relevance"}`},
		{`{"query":"q","sort":"date"}`, `{"query":"q","sort":"date","limit":10}`},
		{`{"\u006cimit":5,"deep":{}}`, `{"\u006cimit":5,"deep":{},"sort":"relevance"}`},
		{`{"limit":5,"sort":"date"}`, `{"limit":5,"sort":"date"}`},
		{`[1]`, `[1]`},
		{`{"query":`, `{"query":`},
		{`{"query":"q"} x`, `{"query":"q"} x`},
	} {
		got := v.ApplyDefaults(json.RawMessage(c.in))
		if string(got) != c.want {
			t.Errorf("ApplyDefaults(%s) = %s, want %s", c.in, got, c.want)
		}
	}
	var decoded input
	if err := json.Unmarshal(v.ApplyDefaults(json.RawMessage(`{"query":"q"}`)), &decoded); err != nil {
		t.Fatal(err)
	}
	if decoded.Limit != 10 || decoded.Sort != "relevance" {
		t.Errorf("decoded %+v, want the defaults", decoded)
	}
	complete := json.RawMessage(`{"query":"q","limit":1,"sort":"s"}`)
	if n := testing.AllocsPerRun(100, func() { v.ApplyDefaults(complete) }); n != 0 {
		t.Errorf("ApplyDefaults with nothing missing allocates %v times", n)
	}
	none := mustCompile(t, `{"type":"object"}`, nil)
	if got := none.ApplyDefaults(json.RawMessage(`{}`)); string(got) != `{}` {
		t.Errorf("no defaults: got %s", got)
	}
}

func TestApplyDefaultsMany(t *testing.T) {
	// More than 64 defaults exercises the slice-backed bookkeeping.
	var props []string
	for i := range 70 {
		props = append(props, fmt.Sprintf(`"p%02d":{"default":%d}`, i, i))
	}
	v := mustCompile(t, `{"properties":{`+strings.Join(props, ",")+`}}`, nil)
	got := v.ApplyDefaults(json.RawMessage(`{"p00":"x","p69":"y"}`))
	var m map[string]any
	if err := json.Unmarshal(got, &m); err != nil {
		t.Fatalf("result is not JSON: %v: %s", err, got)
	}
	if len(m) != 70 || m["p00"] != "x" || m["p69"] != "y" || m["p33"] != 33.0 {
		t.Errorf("got %d properties: %s", len(m), got)
	}
}

// FuzzApplyDefaults checks that ApplyDefaults never breaks a JSON object: the
// result is JSON, keeps every given member, and has every default.
func FuzzApplyDefaults(f *testing.F) {
	v := mustCompile(f, `{"properties":{"a":{"default":1},"b":{"default":"x"},"c":{"type":"string"}}}`, nil)
	for _, s := range []string{`{}`, `{"a":2}`, `{"c":"y"}`, ` { "b" : null } `, `{"\u0061":3}`, `[]`, `{"a":`, `null`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, instance []byte) {
		got := v.ApplyDefaults(instance)
		var in map[string]any
		if json.Unmarshal(instance, &in) != nil || in == nil {
			if !bytes.Equal(got, instance) {
				t.Fatalf("non-object %q changed to %q", instance, got)
			}
			return
		}
		var out map[string]any
		if err := json.Unmarshal(got, &out); err != nil {
			t.Fatalf("ApplyDefaults(%q) = %q, not JSON: %v", instance, got, err)
		}
		for k, want := range in {
			if fmt.Sprint(out[k]) != fmt.Sprint(want) {
				t.Fatalf("member %q changed from %v to %v", k, want, out[k])
			}
		}
		if _, ok := out["a"]; !ok {
			t.Fatalf("default a missing in %q", got)
		}
		if _, ok := out["b"]; !ok {
			t.Fatalf("default b missing in %q", got)
		}
	})
}

// FuzzCompile feeds arbitrary schemas (a gateway compiles those of remote
// servers) to Compile and Validate: neither may panic, and their errors must
// be the documented types.
func FuzzCompile(f *testing.F) {
	for _, s := range fastSchemas {
		f.Add([]byte(s))
	}
	for _, s := range []string{`{"type":12}`, `{"$ref":"#"}`, `{"multipleOf":1e-300}`, `{"$defs":{"a":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`,
		`{"$dynamicRef":"#x"}`, `{"if":{"minimum":3},"then":{"multipleOf":2},"else":false}`} {
		f.Add([]byte(s))
	}
	instances := []json.RawMessage{json.RawMessage(`{"a":[1,"x",null,{"b":2.5e10}]}`), json.RawMessage(`3`), json.RawMessage(`"s"`)}
	f.Fuzz(func(t *testing.T, schema []byte) {
		v, err := Compile(schema, nil)
		if err != nil {
			var se *SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("Compile error %T is not a *SchemaError: %v", err, err)
			}
			return
		}
		for _, inst := range instances {
			if err := v.Validate(inst); err != nil {
				var ve *ValidationError
				if !errors.As(err, &ve) || len(ve.Violations) == 0 {
					t.Fatalf("Validate error %T without violations: %v", err, err)
				}
			}
		}
	})
}
