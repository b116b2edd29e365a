package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"testing"
)

func TestParamHeadersValid(t *testing.T) {
	schema := `{
		"type": "object",
		"properties": {
			"region": {"type": "string", "x-mcp-header": "Region"},
			"priority": {"type": "integer", "x-mcp-header": "Priority"},
			"verbose": {"type": ["boolean", "null"], "x-mcp-header": "x_Verbose.v2"},
			"plain": {"type": "number"},
			"target": {"type": "object", "properties": {
				"zone": {"type": "string", "x-mcp-header": "Zone"}
			}},
			"x-mcp-header": {"type": "string"}
		},
		"default": {"x-mcp-header": "NotASchema"},
		"const": {"properties": {"a": {"x-mcp-header": "Data"}}}
	}`
	got, err := ParamHeaders(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	want := []ParamHeader{
		{Name: "Priority", Path: []string{"priority"}, Type: "integer", header: "Mcp-Param-Priority"},
		{Name: "Region", Path: []string{"region"}, Type: "string", header: "Mcp-Param-Region"},
		{Name: "Zone", Path: []string{"target", "zone"}, Type: "string", header: "Mcp-Param-Zone"},
		{Name: "x_Verbose.v2", Path: []string{"verbose"}, Type: "boolean", header: "Mcp-Param-X_verbose.v2"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ParamHeaders:\n got %+v\nwant %+v", got, want)
	}
	for _, p := range got {
		if h := http.CanonicalHeaderKey(ParamHeaderPrefix + p.Name); p.Header() != h {
			t.Errorf("Header() = %q, want net/http's canonical %q", p.Header(), h)
		}
	}
	for _, s := range []string{``, `true`, `{"type":"object"}`, `{"type":"object","properties":{"a":{"type":"string"}}}`} {
		if got, err := ParamHeaders(json.RawMessage(s)); err != nil || len(got) != 0 {
			t.Errorf("ParamHeaders(%s) = %v, %v; want none", s, got, err)
		}
	}
}

func TestParamHeadersInvalid(t *testing.T) {
	prop := func(p string) string { return `{"type":"object","properties":{"v":` + p + `}}` }
	for name, schema := range map[string]string{
		// The conformance suite's invalid tools.
		"empty":          prop(`{"type":"string","x-mcp-header":""}`),
		"object":         prop(`{"type":"object","x-mcp-header":"Data"}`),
		"array":          prop(`{"type":"array","items":{"type":"string"},"x-mcp-header":"Items"}`),
		"null":           prop(`{"type":"null","x-mcp-header":"Nil"}`),
		"same case":      `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"Region"}}}`,
		"different case": `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"MyField"},"b":{"type":"string","x-mcp-header":"myfield"}}}`,
		"space":          prop(`{"type":"string","x-mcp-header":"My Region"}`),
		"colon":          prop(`{"type":"string","x-mcp-header":"Region:Primary"}`),
		"non-ASCII":      prop(`{"type":"string","x-mcp-header":"Région"}`),
		"control":        prop(`{"type":"string","x-mcp-header":"Region\t1"}`),
		"CRLF":           prop(`{"type":"string","x-mcp-header":"A\r\nB"}`),
		// Further rules of the specification.
		"number":          prop(`{"type":"number","x-mcp-header":"N"}`),
		"no type":         prop(`{"enum":["a"],"x-mcp-header":"N"}`),
		"two primitives":  prop(`{"type":["string","integer"],"x-mcp-header":"N"}`),
		"not a string":    prop(`{"type":"string","x-mcp-header":5}`),
		"on the root":     `{"type":"object","x-mcp-header":"Root"}`,
		"under items":     `{"type":"object","properties":{"l":{"type":"array","items":{"type":"string","x-mcp-header":"I"}}}}`,
		"under anyOf":     `{"type":"object","anyOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`,
		"under $defs":     `{"type":"object","properties":{"a":{"$ref":"#/$defs/a"}},"$defs":{"a":{"type":"string","x-mcp-header":"A"}}}`,
		"under if":        `{"type":"object","if":{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}}`,
		"under addProps":  `{"type":"object","additionalProperties":{"type":"string","x-mcp-header":"A"}}`,
		"under patternPr": `{"type":"object","patternProperties":{"^a":{"type":"string","x-mcp-header":"A"}}}`,
		"nested dup":      `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"},"o":{"type":"object","properties":{"b":{"type":"string","x-mcp-header":"a"}}}}}`,
		"bad JSON":        `{"type":`,
	} {
		got, err := ParamHeaders(json.RawMessage(schema))
		if !errors.Is(err, ErrInvalidParamHeader) {
			t.Errorf("%s: ParamHeaders = %v, %v; want an error wrapping ErrInvalidParamHeader", name, got, err)
		}
	}
}

// specs returns the declarations of a schema for a test.
func specs(t testing.TB, schema string) []ParamHeader {
	t.Helper()
	s, err := ParamHeaders(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const headerTestSchema = `{"type":"object","properties":{
	"region": {"type":"string","x-mcp-header":"Region"},
	"priority": {"type":"integer","x-mcp-header":"Priority"},
	"debug": {"type":"boolean","x-mcp-header":"Debug"},
	"target": {"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}},
	"query": {"type":"string"}
}}`

func TestSetParamHeaders(t *testing.T) {
	sp := specs(t, headerTestSchema)
	h := http.Header{}
	args := `{"region":"Hello, 世界","priority":4.2e1,"debug":false,"target":{"zone":"a b"},"query":"SELECT 1"}`
	if err := SetParamHeaders(h, sp, json.RawMessage(args)); err != nil {
		t.Fatal(err)
	}
	want := http.Header{
		"Mcp-Param-Region":   {"=?base64?SGVsbG8sIOS4lueVjA==?="},
		"Mcp-Param-Priority": {"42"},
		"Mcp-Param-Debug":    {"false"},
		"Mcp-Param-Zone":     {"a b"},
	}
	if !reflect.DeepEqual(h, want) {
		t.Fatalf("headers %v, want %v", h, want)
	}
	// What SetParamHeaders writes, CheckParamHeaders accepts.
	if err := CheckParamHeaders(h, sp, json.RawMessage(args)); err != nil {
		t.Fatalf("CheckParamHeaders of the headers SetParamHeaders wrote: %v", err)
	}
	// Null and absent arguments are not mirrored.
	h = http.Header{}
	if err := SetParamHeaders(h, sp, json.RawMessage(`{"region":null,"target":{}}`)); err != nil || len(h) != 0 {
		t.Fatalf("null/absent arguments: %v, %v; want no headers", h, err)
	}
	for _, bad := range []string{`{"priority":1.5}`, `{"priority":9007199254740992}`, `{"region":{"a":1}}`, `{"region":"a","REGION":"b"}`, `[1]`} {
		if err := SetParamHeaders(http.Header{}, sp, json.RawMessage(bad)); err == nil {
			t.Errorf("SetParamHeaders(%s) succeeded", bad)
		}
	}
}

func TestCheckParamHeaders(t *testing.T) {
	sp := specs(t, headerTestSchema)
	type hdr = map[string][]string
	for _, tc := range []struct {
		name   string
		header hdr
		args   string
		ok     bool
	}{
		{"all match", hdr{"Mcp-Param-Region": {"us-west1"}, "Mcp-Param-Priority": {"7"}, "Mcp-Param-Debug": {"true"}, "Mcp-Param-Zone": {"z"}},
			`{"region":"us-west1","priority":7,"debug":true,"target":{"zone":"z"}}`, true},
		{"nothing declared present", hdr{}, `{"query":"x"}`, true},
		{"no arguments", hdr{}, ``, true},
		{"null is absent", hdr{}, `{"region":null}`, true},
		{"base64 decoded", hdr{"Mcp-Param-Region": {"=?base64?SGVsbG8=?="}}, `{"region":"Hello"}`, true},
		{"literal base64 text", hdr{"Mcp-Param-Region": {"SGVsbG8="}}, `{"region":"SGVsbG8="}`, true},
		{"escaped body string", hdr{"Mcp-Param-Region": {"a\"b"}}, `{"region":"a\u0022b"}`, true},
		{"empty value", hdr{"Mcp-Param-Region": {""}}, `{"region":""}`, true},
		{"integer numerically", hdr{"Mcp-Param-Priority": {"42.0"}}, `{"priority":42}`, true},
		{"integer exponent", hdr{"Mcp-Param-Priority": {"42"}}, `{"priority":4.2e1}`, true},
		{"header name case", hdr{"mcp-param-region": {"x"}}, `{"region":"x"}`, true},
		{"unknown Mcp-Param ignored", hdr{"Mcp-Param-Other": {"x"}}, `{}`, true},
		{"body key case", hdr{"Mcp-Param-Region": {"x"}}, `{"REGION":"x"}`, true},

		{"missing header", hdr{}, `{"region":"x"}`, false},
		{"missing nested header", hdr{}, `{"target":{"zone":"z"}}`, false},
		{"mismatch", hdr{"Mcp-Param-Region": {"foo"}}, `{"region":"bar"}`, false},
		{"value case matters", hdr{"Mcp-Param-Region": {"X"}}, `{"region":"x"}`, false},
		{"header for absent argument", hdr{"Mcp-Param-Region": {"x"}}, `{}`, false},
		{"header for null argument", hdr{"Mcp-Param-Region": {"x"}}, `{"region":null}`, false},
		{"sent twice", hdr{"Mcp-Param-Region": {"x", "x"}}, `{"region":"x"}`, false},
		{"bad padding", hdr{"Mcp-Param-Region": {"=?base64?SGVsbG8?="}}, `{"region":"Hello"}`, false},
		{"bad alphabet", hdr{"Mcp-Param-Region": {"=?base64?SGVs!!!bG8=?="}}, `{"region":"Hello"}`, false},
		{"non-ASCII plain", hdr{"Mcp-Param-Region": {"é"}}, `{"region":"é"}`, false},
		{"integer differs", hdr{"Mcp-Param-Priority": {"43"}}, `{"priority":42}`, false},
		{"integer not a number", hdr{"Mcp-Param-Priority": {"0x2A"}}, `{"priority":42}`, false},
		{"integer beyond 2^53", hdr{"Mcp-Param-Priority": {"9007199254740993"}}, `{"priority":9007199254740993}`, false},
		{"boolean case", hdr{"Mcp-Param-Debug": {"True"}}, `{"debug":true}`, false},
		{"string vs number", hdr{"Mcp-Param-Region": {"1"}}, `{"region":1.5}`, false},
		{"object argument", hdr{"Mcp-Param-Region": {"{}"}}, `{"region":{}}`, false},
		{"ambiguous body keys", hdr{"Mcp-Param-Region": {"a"}}, `{"region":"a","Region":"b"}`, false},
		{"arguments not an object", hdr{}, `[]`, false},
	} {
		err := CheckParamHeaders(tc.header, sp, json.RawMessage(tc.args))
		if tc.ok && err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
		if !tc.ok && !errors.Is(err, ErrHeaderMismatch) {
			t.Errorf("%s: err %v, want one wrapping ErrHeaderMismatch", tc.name, err)
		}
	}
}

func TestCheckParamHeadersMessage(t *testing.T) {
	err := CheckParamHeaders(http.Header{"Mcp-Param-Region": {"foo"}}, specs(t, headerTestSchema), json.RawMessage(`{"region":"bar"}`))
	want := `header mismatch: Mcp-Param-Region header value "foo" does not match body value "\"bar\""`
	if err == nil || err.Error() != want {
		t.Fatalf("error %q, want %q", err, want)
	}
}

func BenchmarkCheckParamHeaders(b *testing.B) {
	sp := specs(b, headerTestSchema)
	h := http.Header{"Mcp-Param-Region": {"us-west1"}, "Mcp-Param-Priority": {"7"}}
	args := json.RawMessage(`{"region":"us-west1","priority":7,"query":"SELECT * FROM users"}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := CheckParamHeaders(h, sp, args); err != nil {
			b.Fatal(err)
		}
	}
}

func ExampleParamHeaders() {
	schema := json.RawMessage(`{
		"type": "object",
		"properties": {
			"region": {"type": "string", "x-mcp-header": "Region"},
			"query": {"type": "string"}
		}
	}`)
	specs, err := ParamHeaders(schema)
	if err != nil {
		fmt.Println("invalid tool:", err)
		return
	}
	h := http.Header{}
	if err := SetParamHeaders(h, specs, json.RawMessage(`{"region":"Zürich","query":"SELECT 1"}`)); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(specs[0].Header()+":", h.Get(specs[0].Header()))
	fmt.Println(CheckParamHeaders(h, specs, json.RawMessage(`{"region":"Zürich"}`)))
	fmt.Println(CheckParamHeaders(h, specs, json.RawMessage(`{"region":"Bern"}`)))
	// Output:
	// Mcp-Param-Region: =?base64?WsO8cmljaA==?=
	// <nil>
	// header mismatch: Mcp-Param-Region header value "Zürich" does not match body value "\"Bern\""
}

// FuzzParamHeadersRoundTrip checks, for arbitrary arguments, that the headers
// SetParamHeaders derives are accepted by CheckParamHeaders, and that
// changing one of them is not.
func FuzzParamHeadersRoundTrip(f *testing.F) {
	for _, s := range []string{`{"region":"us-west1","priority":7,"debug":true,"target":{"zone":"z"}}`,
		`{"region":"Hello, 世界"}`, `{"region":"=?base64?x?="}`, `{"priority":-0.0e1}`, `{"target":null}`,
		`{"Region":"a"}`, `{"re\u0067ion":"b"}`, `{}`, `null`, ``, `{"region":"\ud800"}`} {
		f.Add(s)
	}
	sp := specs(f, headerTestSchema)
	f.Fuzz(func(t *testing.T, args string) {
		h := http.Header{}
		if SetParamHeaders(h, sp, json.RawMessage(args)) != nil {
			return
		}
		if err := CheckParamHeaders(h, sp, json.RawMessage(args)); err != nil {
			t.Fatalf("headers %v derived from %s are rejected: %v", h, args, err)
		}
		for k, v := range h {
			h[k] = []string{v[0] + "x"}
			if CheckParamHeaders(h, sp, json.RawMessage(args)) == nil {
				t.Fatalf("a changed %s header %q is accepted for %s", k, h[k][0], args)
			}
			h[k] = v
		}
	})
}
