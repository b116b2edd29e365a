package otelmcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

var testFields = []metaField{
	{"traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"},
	{"baggage", "k=v"},
}

func TestInjectMeta(t *testing.T) {
	const tp = `"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"`
	const bg = `"baggage":"k=v"`
	tests := []struct {
		name, in, want string
	}{
		{"absent", ``, `{"_meta":{` + tp + `,` + bg + `}}`},
		{"null", ` null `, `{"_meta":{` + tp + `,` + bg + `}}`},
		{"empty object", `{}`, `{"_meta":{` + tp + `,` + bg + `}}`},
		{"empty object with space", ` { } `, ` {"_meta":{` + tp + `,` + bg + `} } `},
		{"no meta", `{"name":"echo","arguments":{"a":[1,2]}}`,
			`{"_meta":{` + tp + `,` + bg + `},"name":"echo","arguments":{"a":[1,2]}}`},
		{"meta null", `{"name":"x","_meta":null}`, `{"name":"x","_meta":{` + tp + `,` + bg + `}}`},
		{"meta empty", `{"_meta":{},"name":"x"}`, `{"_meta":{` + tp + `,` + bg + `},"name":"x"}`},
		{"meta kept byte for byte", `{"_meta":{"progressToken": 7,"io.modelcontextprotocol/clientInfo":{"name":"c"}}}`,
			`{"_meta":{"progressToken": 7,"io.modelcontextprotocol/clientInfo":{"name":"c"},` + tp + `,` + bg + `}}`},
		{"old trace context replaced", `{"_meta":{"traceparent":"old","a":1,"traceparent":"older","tracestate":"s"}}`,
			`{"_meta":{"a":1,"tracestate":"s",` + tp + `,` + bg + `}}`},
		{"escaped keys recognised", `{"_met\u0061":{"tr\u0061ceparent":"old","b":2}}`,
			`{"_met\u0061":{"b":2,` + tp + `,` + bg + `}}`},
		{"last duplicate meta edited", `{"_meta":{"a":1},"_meta":{"b":2}}`,
			`{"_meta":{"a":1},"_meta":{"b":2,` + tp + `,` + bg + `}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := []byte(tt.in)
			orig := bytes.Clone(in)
			got, err := injectMeta(in, testFields)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if !json.Valid(got) {
				t.Errorf("invalid JSON: %s", got)
			}
			if !bytes.Equal(in, orig) {
				t.Errorf("input modified: %s", in)
			}
		})
	}
}

func TestInjectMetaRefuses(t *testing.T) {
	tests := []struct {
		in   string
		want error
	}{
		{`[1,2]`, errParamsNotObject},
		{`"s"`, errParamsNotObject},
		{`{"_meta":"x"}`, errMetaNotObject},
		{`{"_meta":[1]}`, errMetaNotObject},
		{`{"a":1`, errInvalidParams},
		{`{"a":1}x`, errInvalidParams},
		{`{"a":1}{}`, errInvalidParams},
		{`{"_meta":{"a":}}`, errInvalidParams},
		{`nul`, errInvalidParams},
		{`null x`, errInvalidParams},
	}
	for _, tt := range tests {
		got, err := injectMeta([]byte(tt.in), testFields)
		if !errors.Is(err, tt.want) {
			t.Errorf("%s: error %v, want %v", tt.in, err, tt.want)
		}
		if string(got) != tt.in {
			t.Errorf("%s: params changed to %s", tt.in, got)
		}
	}
}

func TestInjectMetaNoFields(t *testing.T) {
	in := []byte(`not even JSON`)
	got, err := injectMeta(in, nil)
	if err != nil || !bytes.Equal(got, in) {
		t.Errorf("got %s, %v; want the input untouched", got, err)
	}
}

func TestInjectMetaEscapesValues(t *testing.T) {
	got, err := injectMeta(nil, []metaField{{"k\"ey", "va\\l<ue>\n"}})
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Meta map[string]string `json:"_meta"`
	}
	if err := json.Unmarshal(got, &p); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	if p.Meta["k\"ey"] != "va\\l<ue>\n" {
		t.Errorf("round trip gave %q", p.Meta)
	}
}

func TestInspectParams(t *testing.T) {
	p := []byte(`{"name":"ech\u006f","uri":"file:///a","_meta":{"traceparent":"tp","n":1,"tracestate":"a\"b"},"x":[{}]}`)
	info := inspectParams(p, true, true)
	if info.name != "echo" || info.uri != "file:///a" {
		t.Errorf("name %q uri %q", info.name, info.uri)
	}
	r := &metaReader{obj: info.meta}
	if got := r.Get("traceparent"); got != "tp" {
		t.Errorf("traceparent %q", got)
	}
	if got := r.Get("tracestate"); got != `a"b` {
		t.Errorf("tracestate %q", got)
	}
	if got := r.Get("n"); got != "" {
		t.Errorf("a number read as %q, want nothing", got)
	}
	if got := r.Get("missing"); got != "" {
		t.Errorf("missing key read as %q", got)
	}
	if got, want := r.Keys(), []string{"traceparent", "tracestate"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Keys() = %q, want %q", got, want)
	}

	info = inspectParams(p, false, false)
	if info.name != "" || info.uri != "" || info.meta == nil {
		t.Errorf("unwanted members read: %+v", info)
	}
	for _, bad := range []string{``, `null`, `[]`, `{"_meta":"x"}`, `{"_meta":{"a":1}`, `{"_meta":null}`} {
		if info := inspectParams([]byte(bad), true, true); info.meta != nil {
			t.Errorf("%s: meta %s, want none", bad, info.meta)
		}
	}
}

func TestMetaWriter(t *testing.T) {
	var w metaWriter
	w.Set("a", "1")
	w.Set("b", "2")
	w.Set("a", "3")
	if w.Get("a") != "3" || w.Get("b") != "2" || w.Get("c") != "" {
		t.Errorf("fields %v", w.fields)
	}
	if got := w.Keys(); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("Keys() = %q", got)
	}
}

func TestRawToolError(t *testing.T) {
	tests := map[string]bool{
		`{"content":[],"isError":true}`:          true,
		` {"isError" : true} `:                   true,
		`{"isError":false}`:                      false,
		`{"content":[{"isError":true}]}`:         false,
		`{"isError":true,"isError":false}`:       false,
		`{"is\u0045rror":true}`:                  true,
		`{"isError":true`:                        false,
		`[{"isError":true}]`:                     false,
		``:                                       false,
		`{"structuredContent":{"isError":true}}`: false,
	}
	for in, want := range tests {
		if got := rawToolError([]byte(in)); got != want {
			t.Errorf("rawToolError(%s) = %v, want %v", in, got, want)
		}
	}
}

// FuzzInjectMeta checks injectMeta's promises on arbitrary params: the result is
// valid JSON, every top-level key and every _meta key of the input survives (with
// its value, unless injectMeta sets that key), and the injected values read back.
// When injectMeta refuses, the params are returned untouched.
func FuzzInjectMeta(f *testing.F) {
	seeds := []string{
		``, `null`, `{}`, `[]`, `"x"`, `1`, `{"a":1}`,
		`{"name":"echo","arguments":{"x":"y"},"_meta":{"progressToken":"t1"}}`,
		`{"_meta":null}`, `{"_meta":{}}`, `{"_meta":"s"}`, `{"_meta":{"traceparent":"old","io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`,
		`{"_meta":{"a":1},"_meta":{"b":2}}`, `{"_met\u0061":{"baggage":1}}`, ` { "a" : [ 1 , { } ] } `,
		`{"a":1`, `{"a":1}}`, `{"_meta":{"a":}}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s), "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "k=v")
	}
	f.Fuzz(func(t *testing.T, params []byte, traceparent, baggage string) {
		fields := []metaField{{"traceparent", traceparent}, {"baggage", baggage}}
		orig := bytes.Clone(params)
		out, err := injectMeta(params, fields)
		if !bytes.Equal(params, orig) {
			t.Fatalf("input modified")
		}
		if err != nil {
			if !bytes.Equal(out, params) {
				t.Fatalf("refused (%v) but changed params: %s", err, out)
			}
			trimmed := bytes.TrimSpace(params)
			valid := json.Valid(params)
			if valid && (len(trimmed) > 0 && trimmed[0] == '{') && !errors.Is(err, errMetaNotObject) {
				t.Fatalf("valid object refused: %v", err)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("invalid output %q from %q", out, params)
		}
		var after map[string]json.RawMessage
		if err := json.Unmarshal(out, &after); err != nil {
			t.Fatalf("output is not an object: %v: %s", err, out)
		}
		var before map[string]json.RawMessage
		if trimmed := bytes.TrimSpace(params); len(trimmed) > 0 && string(trimmed) != "null" {
			if err := json.Unmarshal(params, &before); err != nil {
				t.Fatalf("accepted params encoding/json cannot decode: %v: %q", err, params)
			}
		}
		for k, v := range before {
			got, ok := after[k]
			if !ok {
				t.Fatalf("key %q dropped: %s", k, out)
			}
			if k != metaKey && !bytes.Equal(got, v) {
				t.Fatalf("value of %q changed from %s to %s", k, v, got)
			}
		}
		var meta map[string]json.RawMessage
		if err := json.Unmarshal(after[metaKey], &meta); err != nil || meta == nil {
			t.Fatalf("_meta is not an object: %s", out)
		}
		var oldMeta map[string]json.RawMessage
		_ = json.Unmarshal(before[metaKey], &oldMeta) // null or absent leaves it nil
		for k, v := range oldMeta {
			got, ok := meta[k]
			if !ok {
				t.Fatalf("_meta key %q dropped: %s", k, out)
			}
			if k != "traceparent" && k != "baggage" && !bytes.Equal(got, v) {
				t.Fatalf("_meta value of %q changed from %s to %s", k, v, got)
			}
		}
		for _, fl := range fields {
			var got string
			if err := json.Unmarshal(meta[fl.key], &got); err != nil {
				t.Fatalf("%s not a string in %s", fl.key, out)
			}
			// encoding/json's view of the value (invalid UTF-8 becomes U+FFFD).
			enc, _ := json.Marshal(fl.value)
			var want string
			_ = json.Unmarshal(enc, &want)
			if got != want {
				t.Fatalf("%s = %q, want %q", fl.key, got, want)
			}
		}
	})
}

func BenchmarkInjectMeta(b *testing.B) {
	params := []byte(`{"name":"echo","arguments":{"text":"hello"},"_meta":{"progressToken":3}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := injectMeta(params, testFields); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExtractMeta(b *testing.B) {
	params := []byte(`{"name":"echo","arguments":{"text":"hello"},"_meta":{"progressToken":3,` +
		`"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","baggage":"k=v"}}`)
	b.ReportAllocs()
	for b.Loop() {
		info := inspectParams(params, true, false)
		r := metaReader{obj: info.meta}
		if r.Get("traceparent") == "" || r.Get("tracestate") != "" || r.Get("baggage") == "" {
			b.Fatal("meta not read")
		}
	}
}
