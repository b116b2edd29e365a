package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// gatewayMeta is the _meta mcpkit's gateway sends with every 2026-07-28
// request it forwards (as in mcp's BenchmarkHandleToolCall/stateless-gateway).
const gatewayMeta = `{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}},"roots":{},"sampling":{"tools":{}},"elicitation":{"form":{},"url":{}}},"io.modelcontextprotocol/clientInfo":{"name":"mcpkit-gateway","version":"0"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`

// BenchmarkString measures String on its own: the short keys and values of an
// MCP request (4 to 41 bytes, each followed by more JSON, as in a message),
// and a long text (270 bytes) without and with escape sequences.
func BenchmarkString(b *testing.B) {
	var doc []byte
	var starts []int
	for _, k := range []string{"jsonrpc", "2.0", "method", "tools/call", "params", "name", "echo", "arguments",
		"message", "hello world", "_meta", "io.modelcontextprotocol/protocolVersion", "2026-07-28", "version"} {
		starts = append(starts, len(doc))
		doc = append(append(append(doc, '"'), k...), `":1,`...)
	}
	b.Run("short", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			for _, p := range starts {
				s := Scanner{Data: doc, Pos: p}
				if _, _, err := s.String(); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	text := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 6)
	for _, c := range []struct{ name, raw string }{
		{"long", text},
		{"long-escaped", strings.ReplaceAll(strings.ReplaceAll(text, "lazy", `\"lazy\"`), ". ", `.\n`)},
	} {
		data := []byte(`"` + c.raw + `"}`)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				s := Scanner{Data: data}
				if raw, _, err := s.String(); err != nil || len(raw) != len(c.raw) {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSkipValueMeta measures SkipValue on the gateway's _meta object,
// compact and indented (where SkipSpace has runs of white space to skip).
func BenchmarkSkipValueMeta(b *testing.B) {
	var indented bytes.Buffer
	if err := json.Indent(&indented, []byte(gatewayMeta), "", "  "); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		data []byte
	}{{"compact", []byte(gatewayMeta)}, {"indented", indented.Bytes()}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.data)))
			for b.Loop() {
				s := Scanner{Data: c.data}
				if err := s.SkipValue(0); err != nil || s.Pos != len(c.data) {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkValid compares Valid with encoding/json.Valid on a tool call's
// arguments.
func BenchmarkValid(b *testing.B) {
	args := []byte(`{"message":"hello world from the benchmark","count":12,"nested":{"a":[1,2,3],"b":true,"c":null}}`)
	b.Run("jsonscan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !Valid(args) {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if !json.Valid(args) {
				b.Fatal("invalid")
			}
		}
	})
}
