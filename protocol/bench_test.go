package protocol

import (
	"encoding/json"
	"testing"
)

func BenchmarkMarshalCallToolResultText(b *testing.B) {
	r := NewToolResultText("The weather in Paris is 18°C and partly cloudy.")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendCallToolResultText(b *testing.B) {
	r := NewToolResultText("The weather in Paris is 18°C and partly cloudy.")
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = r.AppendJSON(buf[:0]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnmarshalCallToolParams(b *testing.B) {
	data := []byte(`{"_meta":{"progressToken":17},"name":"get_weather","arguments":{"location":"New York","units":"metric"}}`)
	b.ReportAllocs()
	for b.Loop() {
		var p CallToolParams
		if err := json.Unmarshal(data, &p); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnmarshalCallToolParamsStateless(b *testing.B) {
	data := []byte(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"ExampleClient","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{}},"name":"get_weather","arguments":{"location":"New York"}}`)
	b.ReportAllocs()
	for b.Loop() {
		var p CallToolParams
		if err := json.Unmarshal(data, &p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallToolParamsEnvelope decodes the params of a 2026-07-28
// tools/call as mcpkit's gateway sends them to a server, _meta first: the
// envelope it repeats on every request (decoded from bytes kept after the
// first, see keepMeta), then the name and the arguments.
func BenchmarkCallToolParamsEnvelope(b *testing.B) {
	data := []byte(`{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}},"roots":{},"sampling":{"tools":{}},"elicitation":{"form":{},"url":{}}},"io.modelcontextprotocol/clientInfo":{"name":"mcpkit-gateway","version":"0"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"echo","arguments":{"message":"w1-1"}}`)
	b.ReportAllocs()
	for b.Loop() {
		var p CallToolParams
		if err := p.UnmarshalJSON(data); err != nil || len(p.Meta) != 3 {
			b.Fatal(err, p.Meta)
		}
	}
}

func BenchmarkMarshalListToolsResult(b *testing.B) {
	tools := make([]Tool, 20)
	for i := range tools {
		tools[i] = sampleTool(Version20251125)
	}
	r := &ListToolsResult{Tools: tools}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(r); err != nil {
			b.Fatal(err)
		}
	}
}
