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
