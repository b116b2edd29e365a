package protocol

import (
	"encoding/json"
	"reflect"
	"testing"
)

// metaBoth decodes data with Meta.UnmarshalJSON and with the general path (a
// map of raw values, each through decodeMetaValue) and fails unless they agree.
// It decodes data twice, so that the second decode may take the entries kept
// by the first (keepMeta), and both must agree with the general path.
func metaBoth(t *testing.T, data []byte) {
	t.Helper()
	var fast, again Meta
	fastErr := json.Unmarshal(data, &fast)
	if againErr := json.Unmarshal(data, &again); (againErr == nil) != (fastErr == nil) || !reflect.DeepEqual(fast, again) {
		t.Fatalf("%q: decoded again %#v (%v), first %#v (%v)", data, again, againErr, fast, fastErr)
	}
	var raw map[string]json.RawMessage
	slowErr := json.Unmarshal(data, &raw)
	var slow Meta
	if slowErr == nil && raw != nil {
		slow = make(Meta, len(raw))
		for k, v := range raw {
			val, err := decodeMetaValue(k, v)
			if err != nil {
				slowErr = err
				break
			}
			slow[k] = val
		}
	}
	if (fastErr == nil) != (slowErr == nil) {
		t.Fatalf("%q: fast error %v, general error %v", data, fastErr, slowErr)
	}
	if fastErr == nil && !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%q:\nfast    %#v\ngeneral %#v", data, fast, slow)
	}
}

var metaSeeds = []string{
	`{"progressToken":1}`, `{"progressToken":"abc"}`, `{}`, ` { } `, `null`,
	`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}`,
	`{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01","x":[1,{"y":null}]}`,
	`{"progressToken":1.5}`, `{"progressToken":true}`, `{"a":1,"a":2}`, `{"\u0061":1}`, `{"k\xff":1}`,
	`{"io.modelcontextprotocol/related-task":{"taskId":"t"}}`, `[]`, `{"a":}`, `{"a":1,}`,
	`{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/logLevel":"warning"}`,
	`{"io.modelcontextprotocol/protocolVersion":"1999-01-01","io.modelcontextprotocol/logLevel":"loud"}`,
	`{"io.modelcontextprotocol/protocolVersion":"2026-07-\u0032\u0038","io.modelcontextprotocol/logLevel":null}`,
	`{"io.modelcontextprotocol/protocolVersion":null,"io.modelcontextprotocol/clientCapabilities":null}`,
	`{"io.modelcontextprotocol/clientCapabilities":{ },"io.modelcontextprotocol/clientInfo":null}`,
	`{"io.modelcontextprotocol/clientInfo":{"name":"a","title":"T","version":"1","description":"d","websiteUrl":"u","x":[1]}}`,
	`{"io.modelcontextprotocol/clientInfo":{"name":"a","name":"b","version":null,"icons":null}}`,
	`{"io.modelcontextprotocol/clientInfo":{"NAME":"a","Version":"1"}}`,
	`{"io.modelcontextprotocol/clientInfo":{"name":"\u00e9","icons":[{"src":"x"}]}}`,
	`{"io.modelcontextprotocol/clientInfo":{"name":1}}`, `{"io.modelcontextprotocol/clientInfo":[]}`,
	`{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"2","n\u0061me":"x"}}`,
	`{"progressToken":"tok","io.modelcontextprotocol/subscriptionId":"sub"}`,
	`{"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true},"sampling":{"tools":{},"context":{"x":1}},"elicitation":{"form":{},"url":{}}}}`,
	`{"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true},"roots":{"x":0},"sampling":null,"elicitation":{"form":{}},"elicitation":{"url":{},"form":null}}}`,
	`{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{},"x":null},"experimental":{"a":{}},"extensions":{"y":{}}}}`,
	`{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"e":{"k":1}},"experimental":null}}`,
	`{"io.modelcontextprotocol/clientCapabilities":{"tasks":{"list":{}},"Roots":{},"sampling":{"Tools":{}}}}`,
	`{"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":1},"sampling":true,"elicitation":[]}}`,
	`{"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":null},"elicitation":{"form":true}}}`,
	`{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"\u0065":{}},"other":[1,2]}}`,
	`{"io.modelcontextprotocol/clientCapabilities":{"extensions":{},"experimental":{ }}}`,
	`{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}},"roots":{},"sampling":{"tools":{}},"elicitation":{"form":{},"url":{}}},"io.modelcontextprotocol/clientInfo":{"name":"mcpkit-gateway","version":"0"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`,
}

// TestMetaKeptEnvelope checks that a _meta of envelope keys only is kept and
// decoded again into a map of its own with the same shared values, and that
// one with any other key is never kept.
func TestMetaKeptEnvelope(t *testing.T) {
	envelope := []byte(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"kept","version":"1"},"io.modelcontextprotocol/logLevel":"info"}`)
	var first, second Meta
	if err := first.UnmarshalJSON(envelope); err != nil {
		t.Fatal(err)
	}
	if _, ok := sharedMetas.Load()[string(envelope)]; !ok {
		t.Fatal("the envelope was not kept")
	}
	first["added"] = true // the caller's map is its own
	if err := second.UnmarshalJSON(envelope); err != nil {
		t.Fatal(err)
	}
	if len(second) != 3 || second["added"] != nil {
		t.Fatalf("decoded again: %#v", second)
	}
	if first[MetaKeyClientInfo] != second[MetaKeyClientInfo] || second[MetaKeyLogLevel] != LevelInfo || second[MetaKeyProtocolVersion] != Version20260728 {
		t.Fatalf("decoded again: %#v, first %#v", second, first)
	}
	for _, other := range []string{
		`{"progressToken":"p1","io.modelcontextprotocol/protocolVersion":"2026-07-28"}`,
		`{"io.modelcontextprotocol/protocolVersion":"2026-07-28","traceparent":"00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01"}`,
		`{}`,
	} {
		var m Meta
		if err := m.UnmarshalJSON([]byte(other)); err != nil {
			t.Fatal(err)
		}
		if _, ok := sharedMetas.Load()[other]; ok {
			t.Errorf("%s was kept", other)
		}
	}
}

func TestMetaDecodeMatchesGeneralPath(t *testing.T) {
	for _, s := range metaSeeds {
		metaBoth(t, []byte(s))
	}
}

func FuzzMetaDecode(f *testing.F) {
	for _, s := range metaSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { metaBoth(t, data) })
}

func BenchmarkMetaDecodeProgressToken(b *testing.B) {
	data := []byte(`{"progressToken":1}`)
	b.ReportAllocs()
	for b.Loop() {
		var m Meta
		if err := m.UnmarshalJSON(data); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMetaNotKeptAllocatesOnlyTheMap: a _meta that is not kept (a progress
// token's) costs the map it decodes into and nothing for being looked at.
func TestMetaNotKeptAllocatesOnlyTheMap(t *testing.T) {
	data := []byte(`{"progressToken":1}`)
	if n := testing.AllocsPerRun(100, func() {
		var m Meta
		_ = m.UnmarshalJSON(data)
	}); n > 2 {
		t.Errorf("%.0f allocations to decode %s, want the map's 2", n, data)
	}
}
