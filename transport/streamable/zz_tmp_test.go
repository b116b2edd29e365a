package streamable

import "testing"

var tmpOut clientOutgoing

func BenchmarkTmpClassify(b *testing.B) {
	legacy := []byte(`{"jsonrpc":"2.0","id":12345,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello world"}}}`)
	s2026 := []byte(`{"jsonrpc":"2.0","id":12345,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcpbench","version":"1.0.0"}},"name":"echo","arguments":{"message":"hello world"}}}`)
	b.Run("legacy", func(b *testing.B) {
		for b.Loop() {
			tmpOut, _ = clientClassify(legacy)
		}
	})
	b.Run("2026", func(b *testing.B) {
		for b.Loop() {
			tmpOut, _ = clientClassify(s2026)
		}
	})
}
