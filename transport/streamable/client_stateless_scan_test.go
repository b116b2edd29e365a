package streamable

import (
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
)

// TestClientStatelessHeaderFindsTheVersionKey: the key is found among other
// '/' (in _meta keys, in arguments), and a legacy request whose params hold
// '/' is not taken for a 2026-07-28 one. (jsonscan.ContainsAround, which
// finds it, is checked against bytes.Contains in its own package.)
func TestClientStatelessHeaderFindsTheVersionKey(t *testing.T) {
	stateless := `{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"a/b","version":"1"},` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"echo","arguments":{"path":"/tmp/x"}}`
	h, ok := messageStatelessHeader(&jsonrpc.Message{ID: jsonrpc.Int64ID(1), Method: protocol.MethodToolsCall, Params: []byte(stateless)})
	if !ok || h.Get(HeaderProtocolVersion) != "2026-07-28" || h.Get(protocol.HeaderName) != "echo" {
		t.Errorf("headers %v, %v for %s", h, ok, stateless)
	}
	legacy := `{"_meta":{"progressToken":1},"name":"echo","arguments":{"path":"/tmp/io.modelcontextprotocol/protocolVersion"}}`
	if h, ok := messageStatelessHeader(&jsonrpc.Message{ID: jsonrpc.Int64ID(1), Method: protocol.MethodToolsCall, Params: []byte(legacy)}); ok {
		t.Errorf("headers %v for the legacy %s", h, legacy)
	}
}
