package mcp

import (
	"bytes"
	"testing"

	"github.com/mcpkit/mcpkit/protocol"
)

// TestMentionsToolUseOrResult: a result with '_' elsewhere holds neither
// name, one with a tool_result or tool_use block does. (jsonscan.ContainsAround,
// which finds them, is checked against bytes.Contains in its own package.)
func TestMentionsToolUseOrResult(t *testing.T) {
	result := `{"content":[{"type":"text","text":"hello world"}],"structuredContent":{"tool":"_","tool_":"use"},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench","version":"1"}}}`
	if mentionsToolUseOrResult([]byte(result)) {
		t.Errorf("found a sampling block's type in %s", result)
	}
	for _, typ := range []string{protocol.ContentTypeToolResult, protocol.ContentTypeToolUse} {
		if withBlock := result[:40] + `{"type":"` + typ + `"}` + result[40:]; !mentionsToolUseOrResult([]byte(withBlock)) {
			t.Errorf("missed the %s block in %s", typ, withBlock)
		}
	}
}

// BenchmarkMentionsToolUseOrResult looks through an echo tool's result with
// the server's identity, as a gateway does for a 2025-06-18 client:
// mentionsToolUseOrResult against the two bytes.Contains it replaces.
func BenchmarkMentionsToolUseOrResult(b *testing.B) {
	raw := []byte(`{"content":[{"type":"text","text":"hello world"}],"structuredContent":{"text":"hello world"},"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench-mcpkit","title":"the benchmark's server","version":"1.0.0"}}}`)
	contains := func(raw []byte) bool {
		return bytes.Contains(raw, []byte(protocol.ContentTypeToolUse)) || bytes.Contains(raw, []byte(protocol.ContentTypeToolResult))
	}
	for _, c := range []struct {
		name string
		f    func([]byte) bool
	}{{"underscore", mentionsToolUseOrResult}, {"contains", contains}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if c.f(raw) {
					b.Fatal("found")
				}
			}
		})
	}
}
