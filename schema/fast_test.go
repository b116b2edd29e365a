package schema

import (
	"bytes"
	"encoding/json"
	"math/big"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// fastSchemas are schemas within the fast path's subset (plus a few outside
// it), used to compare the fast path with the library.
var fastSchemas = []string{
	`{"type":"object","properties":{"message":{"type":"string"},"count":{"type":"integer","minimum":1,"maximum":5},` +
		`"mode":{"type":"string","enum":["fast","slow"]},"address":{"type":["object","null"],"properties":{"city":{"type":"string"}},` +
		`"required":["city"],"additionalProperties":false},"items":{"type":"array","items":{"type":"object",` +
		`"properties":{"name":{"type":"string"}},"required":["name"]}}},"required":["message"],"additionalProperties":false}`,
	`{"type":"integer","minimum":0.5,"maximum":1e2}`,
	`{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":0.3}`,
	`{"type":"number","minimum":0.1}`,
	`{"type":"integer","maximum":9007199254740993}`,
	`{"type":"string","minLength":2,"maxLength":3,"pattern":"^[a-zé]+$"}`,
	`{"enum":["a","é",true,null]}`,
	`{"type":["string","null","boolean"]}`,
	`{"type":"array","items":{"type":"integer"},"minItems":1,"maxItems":3}`,
	`{"type":"object","additionalProperties":{"type":"integer"},"required":["a","b"]}`,
	`{"properties":{"a":{"type":"string"}},"required":["a","c"],"additionalProperties":false}`,
	`{` + draft07 + `"type":"string","format":"email"}`,
	`{` + draft07 + `"format":"ipv4"}`,
	`{"$schema":"http://json-schema.org/draft-04/schema#","maximum":5,"exclusiveMaximum":true}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","items":{"type":"string"}}`,
	`true`,
	`false`,
	`{}`,
	`{"properties":{"a":false,"b":true}}`,
	`{"enum":[1,2]}`,
	`{"anyOf":[{"type":"string"},{"type":"integer"}]}`,
}

var fastInstances = []string{
	`null`, `true`, `false`, `0`, `-0`, `1`, `1.0`, `1e2`, `1E+2`, `10e-1`, `1.5`, `-1`, `2`, `5`, `5.0`, `6`, `100`, `101`,
	`0.5`, `0.3`, `0.1`, `0.1000000000000000000001`, `0.09999999999999999999`, `9007199254740992`, `9007199254740993`,
	`9007199254740994`, `1e400`, `-1e400`, `123456789012345678901234567890`, `1e1000`, `1e1001`, `1e-1001`,
	`1e1000001`, `[1,{"a":[2e99999]}]`, `{"message":"hi","count":1e1000001}`,
	`""`, `"a"`, `"ab"`, `"abc"`, `"abcd"`, `"é"`, `"éé"`, `"\u00e9\u00e9"`, `"a\"b"`, `"\ud800"`, `"x@y.z"`, "\"\xff\xfe\"",
	`"fast"`, `"f\u0061st"`, `"1.2.3.4"`, `"2024-01-01T00:00:00Z"`,
	`[]`, `[1]`, `[1,2,3]`, `[1,2,3,4]`, `[1,"x"]`, `["a","b"]`, `[[]]`,
	`{}`, `{"a":1}`, `{"a":"x","b":2}`, `{"a":1,"b":2}`, `{"a":"x","c":1}`, `{"a":"x","a":1}`, `{"a":1,"a":"x","c":0}`,
	`{"b":1}`, `{"\u0061":"x","c":1}`, `{"a":"x","c":1,"d":2}`,
	`{"message":"hi"}`, `{"message":"hi","count":3}`, `{"message":"hi","count":3.0}`, `{"message":"hi","count":0}`,
	`{"message":"hi","mode":"slow"}`, `{"message":"hi","mode":"medium"}`, `{"message":"hi","address":null}`,
	`{"message":"hi","address":{"city":"x"}}`, `{"message":"hi","address":{}}`, `{"message":"hi","items":[{"name":"a"},{"name":"b","x":1}]}`,
	`{"message":"hi","items":[{}]}`, `{"message":"hi","extra":1}`, `  {"message" : "hi" , "count" : 2 }  `,
	`{`, `[1,]`, `01`, `1.`, `-`, `"abc`, `tru`, `nul`, `{"a":1}x`, `{"a" 1}`, `{"a":1,}`, `[1 2]`, `"\x"`, "\"a\nb\"", ``,
}

// libraryValid reports the verdict Validate must reproduce: the library's,
// except that numbers with exponents beyond maxExponent are refused.
func libraryValid(v *Validator, instance []byte) (valid bool) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(instance))
	if err != nil {
		return false
	}
	if _, _, huge := findHugeNumber(instance); huge {
		return false
	}
	defer func() {
		if recover() != nil {
			valid = false
		}
	}()
	return v.schema.Validate(doc) == nil
}

// TestFastPathAgrees checks the fast path's one promise: when it says valid,
// the library agrees. It also checks that Validate follows the library.
func TestFastPathAgrees(t *testing.T) {
	confirmed := 0
	for _, schema := range fastSchemas {
		v := mustCompile(t, schema, nil)
		for _, inst := range fastInstances {
			lib := libraryValid(v, []byte(inst))
			if v.fast != nil && fastValid(v.fast, []byte(inst)) {
				confirmed++
				if !lib {
					t.Errorf("schema %s: fast path accepts %s, the library rejects it", schema, inst)
				}
			}
			if got := v.Validate([]byte(inst)) == nil; got != lib {
				t.Errorf("schema %s: Validate(%s) valid=%v, library says %v", schema, inst, got, lib)
			}
		}
	}
	if confirmed < 100 {
		t.Errorf("fast path confirmed only %d instances; it should handle the common cases", confirmed)
	}
}

// TestFastPathCoverage checks which schemas get a fast path, and that it
// confirms the valid instances of common tool schemas by itself.
func TestFastPathCoverage(t *testing.T) {
	for _, c := range []struct {
		schema string
		fast   bool
	}{
		{fastSchemas[0], true},
		{`{"type":"object"}`, true},
		{`{"enum":[1,2]}`, false},
		{`{"anyOf":[{"type":"string"}]}`, false},
		{`{"$ref":"#/$defs/a","$defs":{"a":{"type":"string"}}}`, false},
		{`{"type":"integer","multipleOf":2}`, false},
		{`{"type":"array","uniqueItems":true}`, false},
		{`{"patternProperties":{"^x":{"type":"string"}}}`, false},
	} {
		v := mustCompile(t, c.schema, nil)
		if (v.fast != nil) != c.fast {
			t.Errorf("schema %s: fast path %v, want %v", c.schema, v.fast != nil, c.fast)
		}
	}
	v := mustCompile(t, fastSchemas[0], nil)
	for _, inst := range []string{
		`{"message":"hi"}`,
		`{"message":"h\"i\n","count":5,"mode":"fast","address":{"city":"Paris"},"items":[{"name":"a","extra":[1,{"b":null}]}]}`,
		`{"message":"hi","count":1.0,"address":null,"items":[]}`,
	} {
		if !fastValid(v.fast, []byte(inst)) {
			t.Errorf("fast path does not confirm %s", inst)
		}
	}
}

// FuzzFastPathAgrees looks for an instance the fast path accepts and the
// library rejects, and for a Validate verdict that differs from the library.
func FuzzFastPathAgrees(f *testing.F) {
	for i, inst := range fastInstances {
		f.Add(uint8(i%len(fastSchemas)), []byte(inst))
	}
	validators := make([]*Validator, len(fastSchemas))
	for i, s := range fastSchemas {
		validators[i] = mustCompile(f, s, nil)
	}
	f.Fuzz(func(t *testing.T, which uint8, instance []byte) {
		v := validators[int(which)%len(validators)]
		lib := libraryValid(v, instance)
		if v.fast != nil && fastValid(v.fast, instance) && !lib {
			t.Fatalf("schema %s: fast path accepts %q, the library rejects it", fastSchemas[int(which)%len(validators)], instance)
		}
		if got := v.Validate(instance) == nil; got != lib {
			t.Fatalf("Validate(%q) valid=%v, library says %v", instance, got, lib)
		}
	})
}

// FuzzScanner checks the scanner's syntax check against encoding/json.
func FuzzScanner(f *testing.F) {
	for _, inst := range fastInstances {
		f.Add([]byte(inst))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.Count(data, []byte("["))+bytes.Count(data, []byte("{")) > maxScanDepth {
			t.Skip("nesting beyond the scanner's limit")
		}
		s := scanner{jsonscan.Scanner{Data: data}}
		s.SkipSpace()
		ok := s.skipValue(0)
		s.SkipSpace()
		ok = ok && s.Pos == len(data)
		if ok != json.Valid(data) {
			t.Fatalf("scanner says valid=%v, encoding/json says %v, for %q", ok, !ok, data)
		}
	})
}

func TestNumberIsInteger(t *testing.T) {
	for lit, want := range map[string]bool{
		"0": true, "-0": true, "1": true, "1.0": true, "1.50": false, "1e2": true, "1.5e1": true, "1.25e1": false,
		"10e-1": true, "100e-2": true, "100e-3": false, "0.0e-5": true, "0e999999999999": true, "5e-999999999999": false,
		"1e999999999999": true, "12.3400e2": true, "12.3401e2": false, "-7.000": true,
	} {
		if got := numberIsInteger([]byte(lit)); got != want {
			t.Errorf("numberIsInteger(%s) = %v, want %v", lit, got, want)
		}
	}
}

// FuzzNumberIsInteger compares numberIsInteger with exact rational arithmetic.
func FuzzNumberIsInteger(f *testing.F) {
	for _, s := range []string{"0", "1.0", "1.5", "1e3", "12.5e-1", "-0.000e7", "100e-2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, lit string) {
		if !validNumber([]byte(lit)) || len(lit) > 40 {
			t.Skip()
		}
		if e := strings.IndexAny(lit, "eE"); e >= 0 && len(strings.TrimLeft(lit[e+1:], "+-")) > 4 {
			t.Skip("exponent too large for big.Rat to handle quickly")
		}
		r, ok := new(big.Rat).SetString(lit)
		if !ok {
			t.Fatalf("big.Rat rejects %q", lit)
		}
		if got := numberIsInteger([]byte(lit)); got != r.IsInt() {
			t.Fatalf("numberIsInteger(%s) = %v, big.Rat says %v", lit, got, r.IsInt())
		}
	})
}

// TestFastPathKnowsEveryKeyword fails when the library's compiled Schema
// gains a field, because buildFast must then learn whether the new keyword
// is one it handles or one that sends the schema to the library.
func TestFastPathKnowsEveryKeyword(t *testing.T) {
	known := strings.Fields(`DraftVersion Location Bool ID Ref Anchor RecursiveRef RecursiveAnchor DynamicRef
		DynamicAnchor Types Enum Const Not AllOf AnyOf OneOf If Then Else Format MaxProperties MinProperties
		Required PropertyNames Properties PatternProperties AdditionalProperties Dependencies DependentRequired
		DependentSchemas UnevaluatedProperties MinItems MaxItems UniqueItems Contains MinContains MaxContains
		Items AdditionalItems PrefixItems Items2020 UnevaluatedItems MinLength MaxLength Pattern ContentEncoding
		ContentMediaType ContentSchema Maximum Minimum ExclusiveMaximum ExclusiveMinimum MultipleOf Extensions
		Title Description Default Comment ReadOnly WriteOnly Examples Deprecated`)
	st := reflect.TypeFor[jsonschema.Schema]()
	for i := range st.NumField() {
		f := st.Field(i)
		if f.IsExported() && !slices.Contains(known, f.Name) {
			t.Errorf("jsonschema.Schema has a new field %s: teach buildFast about it", f.Name)
		}
	}
}

// TestScannerDepthLimit pins the nesting limit of the fast path and of
// ApplyDefaults, maxScanDepth, which is tighter than the shared scanner's:
// nesting beyond it is left to the library (fast path) or left alone
// (defaults).
func TestScannerDepthLimit(t *testing.T) {
	v := mustCompile(t, `{"type":"object","properties":{"n":{"type":"integer","default":1}}}`, nil)
	if v.fast == nil {
		t.Fatal("fast path unavailable")
	}
	// The object is at depth 0, so the value of "a" is at depth 1 and its
	// innermost array at depth levels.
	deep := func(levels int) []byte {
		return []byte(`{"a":` + strings.Repeat("[", levels) + strings.Repeat("]", levels) + `}`)
	}
	for _, c := range []struct {
		levels int
		within bool
	}{{maxScanDepth, true}, {maxScanDepth + 1, false}} {
		in := deep(c.levels)
		if got := fastValid(v.fast, in); got != c.within {
			t.Errorf("fastValid with %d levels = %v, want %v", c.levels, got, c.within)
		}
		got := v.ApplyDefaults(in)
		if added := bytes.Contains(got, []byte(`"n":1`)); added != c.within {
			t.Errorf("ApplyDefaults with %d levels added the default: %v, want %v", c.levels, added, c.within)
		}
		if err := v.Validate(in); err != nil {
			t.Errorf("Validate with %d levels: %v", c.levels, err)
		}
	}
}
