package protocol

import (
	"encoding/json"
	"testing"
)

// FuzzContent decodes arbitrary JSON as a content block; whatever decodes and
// re-encodes must decode again to the same encoding.
func FuzzContent(f *testing.F) {
	for _, c := range roundTripContentCases() {
		data, err := json.Marshal(c)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"type":"text"}`))
	f.Add([]byte(`{"type":"resource","resource":{"uri":"x","blob":"AAAA","text":"t"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Content
		if json.Unmarshal(data, &c) != nil {
			return
		}
		out, err := json.Marshal(c)
		if err != nil {
			return // unknown type or invalid raw input: rejected, not mis-encoded
		}
		var again Content
		if err := json.Unmarshal(out, &again); err != nil {
			t.Fatalf("re-decode of %s: %v", out, err)
		}
		out2, err := json.Marshal(again)
		if err != nil || string(out2) != string(out) {
			t.Fatalf("unstable: %s vs %s (%v)", out, out2, err)
		}
	})
}

// FuzzMeta decodes arbitrary JSON as params carrying _meta and checks the
// typed keys survive a round trip.
func FuzzMeta(f *testing.F) {
	f.Add([]byte(`{"_meta":{"progressToken":1},"name":"x"}`))
	f.Add([]byte(`{"_meta":{"progressToken":"a","io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"io.modelcontextprotocol/logLevel":"info"},"name":"x"}`))
	f.Add([]byte(`{"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"n","version":"v"},"io.modelcontextprotocol/subscriptionId":5},"name":"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var p CallToolParams
		if json.Unmarshal(data, &p) != nil {
			return
		}
		tok, hasTok := p.Meta.ProgressToken()
		out, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		var again CallToolParams
		if err := json.Unmarshal(out, &again); err != nil {
			t.Fatalf("re-decode of %s: %v", out, err)
		}
		tok2, hasTok2 := again.Meta.ProgressToken()
		if hasTok != hasTok2 || tok != tok2 {
			t.Fatalf("progress token %v/%v became %v/%v", tok, hasTok, tok2, hasTok2)
		}
		if p.Meta.ProtocolVersion() != again.Meta.ProtocolVersion() {
			t.Fatal("protocol version changed")
		}
	})
}

// FuzzDecodeID checks DecodeID accepts exactly strings and integers.
func FuzzDecodeID(f *testing.F) {
	for _, s := range []string{`1`, `"a"`, `-9223372036854775808`, `1.5`, `null`, `1e2`, `"\u0041"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		id, err := DecodeID(data)
		if err != nil {
			return
		}
		switch id.(type) {
		case string, int64:
		default:
			t.Fatalf("DecodeID(%s) = %T", data, id)
		}
		out, err := json.Marshal(id)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeID(out)
		if err != nil || back != id {
			t.Fatalf("%v re-decoded as %v (%v)", id, back, err)
		}
	})
}

// FuzzSamplingContent checks the object-or-array content decoder.
func FuzzSamplingContent(f *testing.F) {
	f.Add([]byte(`{"type":"text","text":"x"}`))
	f.Add([]byte(`[{"type":"tool_use","id":"1","name":"f","input":{}},{"type":"text","text":"y"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var c SamplingContent
		if json.Unmarshal(data, &c) != nil {
			return
		}
		out, err := json.Marshal(c)
		if err != nil {
			return
		}
		var again SamplingContent
		if err := json.Unmarshal(out, &again); err != nil || len(again) != len(c) {
			t.Fatalf("%s re-decoded to %d blocks (%v), want %d", out, len(again), err, len(c))
		}
	})
}
