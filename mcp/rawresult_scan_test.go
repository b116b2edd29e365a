package mcp

import (
	"bytes"
	"testing"

	"github.com/mcpkit/mcpkit/protocol"
)

// mentionsToolUseOrResultByContains is what mentionsToolUseOrResult must
// answer.
func mentionsToolUseOrResultByContains(raw []byte) bool {
	return bytes.Contains(raw, []byte(protocol.ContentTypeToolUse)) || bytes.Contains(raw, []byte(protocol.ContentTypeToolResult))
}

// TestMentionsToolUseOrResult compares it with bytes.Contains on every text of
// up to four pieces that make, break or nearly make the two names, at the
// start, the end and the middle of the text.
func TestMentionsToolUseOrResult(t *testing.T) {
	pieces := []string{"tool", "_", "use", "result", "t", "x", "tool_", "_us", "resul", "oo", "_tool"}
	var walk func(b []byte, n int)
	walk = func(b []byte, n int) {
		if got, want := mentionsToolUseOrResult(b), mentionsToolUseOrResultByContains(b); got != want {
			t.Fatalf("mentionsToolUseOrResult(%q) = %v, want %v", b, got, want)
		}
		if n == 4 {
			return
		}
		for _, p := range pieces {
			walk(append(b[:len(b):len(b)], p...), n+1)
		}
	}
	walk(nil, 0)
	result := `{"content":[{"type":"text","text":"hello world"}],"structuredContent":{"tool":"_"},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench","version":"1"}}}`
	if mentionsToolUseOrResult([]byte(result)) {
		t.Errorf("found a sampling block's type in %s", result)
	}
	if !mentionsToolUseOrResult([]byte(result[:40] + `{"type":"tool_result"}` + result[40:])) {
		t.Error("missed a tool_result block")
	}
}

func FuzzMentionsToolUseOrResult(f *testing.F) {
	for _, s := range []string{"", "tool_use", "tool_result", "tool_", "_use", "xtool_usex", "tool__result", `{"type":"tool_resul"}`, "__tool_use"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if got, want := mentionsToolUseOrResult(raw), mentionsToolUseOrResultByContains(raw); got != want {
			t.Fatalf("mentionsToolUseOrResult(%q) = %v, want %v", raw, got, want)
		}
	})
}

// BenchmarkMentionsToolUseOrResult looks through an echo tool's result with
// the server's identity, as a gateway does for a 2025-06-18 client:
// mentionsToolUseOrResult against the two bytes.Contains it replaces.
func BenchmarkMentionsToolUseOrResult(b *testing.B) {
	raw := []byte(`{"content":[{"type":"text","text":"hello world"}],"structuredContent":{"text":"hello world"},"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench-mcpkit","title":"the benchmark's server","version":"1.0.0"}}}`)
	for _, c := range []struct {
		name string
		f    func([]byte) bool
	}{{"underscore", mentionsToolUseOrResult}, {"contains", mentionsToolUseOrResultByContains}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if c.f(raw) {
					b.Fatal("found")
				}
			}
		})
	}
}
