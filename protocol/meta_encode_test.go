package protocol

import (
	"bytes"
	"encoding/json"
	"testing"
)

// Meta's MarshalJSON writes what encoding/json writes for the same map.
func TestMetaMarshalJSONMatchesEncodingJSON(t *testing.T) {
	metas := []Meta{
		{},
		{"progressToken": "t-1"},
		{
			MetaKeyProtocolVersion:    "2026-07-28",
			MetaKeyClientCapabilities: &ClientCapabilities{Roots: &RootsCapability{ListChanged: true}},
			MetaKeyClientInfo:         json.RawMessage(`{"name":"c", "version":"1"}`),
			MetaKeyLogLevel:           LoggingLevel("debug"),
			"z<&>\u2028":              "a\"b\\c\n<script>&\xff",
			"n":                       nil,
			"t":                       true,
			"f":                       false,
			"num":                     1.5,
			"int":                     int64(-3),
			"nested":                  map[string]any{"b": 1, "a": []any{"x", nil}},
			"rawnull":                 json.RawMessage(nil),
		},
	}
	for _, m := range metas {
		want, err := json.Marshal(map[string]any(m))
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("json.Marshal(Meta)\n got %s\nwant %s", got, want)
		}
		// As a field, under omitempty, and nil.
		type holder struct {
			Meta Meta `json:"_meta,omitempty"`
		}
		if got, _ := json.Marshal(holder{Meta: m}); len(m) > 0 && !bytes.Contains(got, want) {
			t.Errorf("in a struct: %s", got)
		}
	}
	if got, _ := json.Marshal(Meta(nil)); string(got) != "null" {
		t.Errorf("nil Meta = %s", got)
	}
	if _, err := json.Marshal(Meta{"bad": json.RawMessage(`{`)}); err == nil {
		t.Error("invalid raw JSON was accepted")
	}
	if _, err := json.Marshal(Meta{"ch": make(chan int)}); err == nil {
		t.Error("an unencodable value was accepted")
	}
}

// FuzzMetaMarshalJSON compares Meta's encoder with encoding/json on string
// keys and values (escaping, invalid UTF-8, sorting).
func FuzzMetaMarshalJSON(f *testing.F) {
	f.Add("k", "v", "k2", "<&>\u2028")
	f.Add("", "\xff\xfe", "a\"", "\x00\x1f")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		m := Meta{k1: v1, k2: v2, "b": true}
		want, err := json.Marshal(map[string]any(m))
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(m)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("got %s (%v), want %s", got, err, want)
		}
	})
}

func BenchmarkMetaMarshalJSON(b *testing.B) {
	m := Meta{
		MetaKeyProtocolVersion:    "2026-07-28",
		MetaKeyClientCapabilities: json.RawMessage(`{"roots":{"listChanged":true}}`),
		MetaKeyClientInfo:         json.RawMessage(`{"name":"c","version":"1"}`),
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(m); err != nil {
			b.Fatal(err)
		}
	}
}
