package rpcconn

import (
	"encoding/json"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

type envTestParams struct {
	Meta map[string]any  `json:"_meta,omitempty"`
	Name string          `json:"name,omitempty"`
	Args json.RawMessage `json:"arguments,omitempty"`
}

// TestEnveloped checks that params with an envelope are, in the request and
// through MarshalJSON, byte for byte what encoding/json makes of the same params
// with the envelope's _meta in them — the params' own members present or not —
// and that params that are not an object are refused.
func TestEnveloped(t *testing.T) {
	meta := map[string]any{"io.modelcontextprotocol/clientInfo": map[string]any{"name": "c<&>"}, "v": "2026-07-28"}
	members, _ := json.Marshal(meta)
	members = append([]byte(`"_meta":`), members...)
	e := encoders.Get().(*requestEncoder)
	defer putEncoder(e)
	for _, p := range []envTestParams{{}, {Name: "echo"}, {Name: "echo", Args: json.RawMessage(`{"a": [1, 2]}`)}} {
		withMeta := p
		withMeta.Meta = meta
		wantParams, _ := json.Marshal(withMeta)
		want := jsonrpc.AppendRequest(nil, jsonrpc.Int64ID(7), "tools/call", wantParams)
		env := &Enveloped{Params: &p, Members: members}
		got, err := e.request(jsonrpc.Int64ID(7), "tools/call", env)
		if err != nil || string(got) != string(want) {
			t.Errorf("%+v: request %s (%v), want %s", p, got, err, want)
		}
		if m, err := json.Marshal(env); err != nil || string(m) != string(wantParams) {
			t.Errorf("%+v: MarshalJSON %s (%v), want %s", p, m, err, wantParams)
		}
	}
	for _, p := range []any{nil, "x", []int{1}} {
		if got, err := e.request(jsonrpc.Int64ID(1), "m", &Enveloped{Params: p, Members: members}); err == nil {
			t.Errorf("%#v: no error, got %s", p, got)
		}
		if got, err := json.Marshal(&Enveloped{Params: p, Members: members}); err == nil {
			t.Errorf("%#v: MarshalJSON gave no error, got %s", p, got)
		}
	}
	// Without members, the params alone.
	got, err := e.request(jsonrpc.Int64ID(1), "m", &Enveloped{Params: &envTestParams{Name: "x"}})
	if want := `{"jsonrpc":"2.0","id":1,"method":"m","params":{"name":"x"}}`; err != nil || string(got) != want {
		t.Errorf("no members: %s (%v), want %s", got, err, want)
	}
}

// BenchmarkRequestEnvelope encodes a stateless tools/call request whose _meta is
// the session's envelope: built as a map on every request and encoded by
// encoding/json (map), or encoded once and copied in (enveloped).
func BenchmarkRequestEnvelope(b *testing.B) {
	type caps struct {
		Roots *struct {
			ListChanged bool `json:"listChanged"`
		} `json:"roots,omitempty"`
		Sampling map[string]any `json:"sampling,omitempty"`
	}
	type info struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	c := &caps{Sampling: map[string]any{}}
	in := &info{Name: "gateway", Version: "1.0.0"}
	envelope := func() map[string]any {
		return map[string]any{
			"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
			"io.modelcontextprotocol/clientCapabilities": c,
			"io.modelcontextprotocol/clientInfo":         in,
		}
	}
	args := json.RawMessage(`{"message":"hello"}`)
	b.Run("map", func(b *testing.B) {
		e := encoders.Get().(*requestEncoder)
		b.ReportAllocs()
		for b.Loop() {
			p := envTestParams{Meta: envelope(), Name: "echo", Args: args}
			if _, err := e.request(jsonrpc.Int64ID(1), "tools/call", &p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("enveloped", func(b *testing.B) {
		e := encoders.Get().(*requestEncoder)
		meta, _ := json.Marshal(envelope())
		members := append([]byte(`"_meta":`), meta...)
		b.ReportAllocs()
		for b.Loop() {
			p := envTestParams{Name: "echo", Args: args}
			if _, err := e.request(jsonrpc.Int64ID(1), "tools/call", &Enveloped{Params: &p, Members: members}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
