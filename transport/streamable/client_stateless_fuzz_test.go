package streamable

import (
	"encoding/json"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
)

// FuzzClientStatelessHeader feeds request params to the derivation of the 2026-07-28
// request headers: it never panics, and whatever it returns is what a server's
// validation expects — Mcp-Method is the method, MCP-Protocol-Version the _meta
// version, and Mcp-Name decodes to the mirrored body field.
func FuzzClientStatelessHeader(f *testing.F) {
	for _, seed := range []struct{ method, params string }{
		{"tools/call", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"get weather"}`},
		{"resources/read", `{"uri":"file:///a b\n","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`},
		{"prompts/get", `{"name":"Grüße","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`},
		{"tasks/get", `{"taskId":"=?base64?x?=","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`},
		{"tools/list", `{"_meta":{"io.modelcontextprotocol/protocolVersion":7}}`},
		{"tools/call", `{"name":"x"}`},
		{"tools/call", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":null}`},
	} {
		f.Add(seed.method, []byte(seed.params))
	}
	f.Fuzz(func(t *testing.T, method string, params []byte) {
		if !json.Valid(params) {
			return
		}
		m := &jsonrpc.Message{ID: jsonrpc.Int64ID(1), Method: method, Params: params}
		h, ok := clientStatelessHeader(m.Method, m.Params)
		if !ok {
			return
		}
		// The server decodes params with encoding/json: members match up to
		// case, the last one wins, _meta keys match exactly.
		var p struct {
			Meta   map[string]json.RawMessage `json:"_meta"`
			Name   *string                    `json:"name"`
			URI    *string                    `json:"uri"`
			TaskID *string                    `json:"taskId"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			t.Fatalf("headers %v for params the server cannot decode: %s", h, params)
		}
		var version string
		_ = json.Unmarshal(p.Meta[protocol.MetaKeyProtocolVersion], &version)
		if h.Get(protocol.HeaderMethod) != method || h.Get(HeaderProtocolVersion) != version || version == "" {
			t.Fatalf("headers %v for method %q, params %s", h, method, params)
		}
		field, hasField := protocol.NameHeaderField(method)
		var want *string
		switch field {
		case "name":
			want = p.Name
		case "uri":
			want = p.URI
		case "taskId":
			want = p.TaskID
		}
		name, sent := h[protocol.HeaderName]
		switch {
		case sent && !hasField:
			t.Fatalf("Mcp-Name sent for %q", method)
		case sent != (want != nil):
			t.Fatalf("Mcp-Name %q sent: %v, but the body's %s is %v: %s", name, sent, field, want, params)
		case sent:
			got, err := protocol.DecodeHeaderValue(name[0])
			if err != nil || got != *want {
				t.Fatalf("Mcp-Name %q decodes to %q (%v), want %q", name[0], got, err, *want)
			}
		}
	})
}
