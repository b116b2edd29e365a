package llmtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/protocol"
)

// Fixture returns the file testdata/name of the test's package.
func Fixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Collect sends req to p and returns the events as they came and the
// assembled answer.
func Collect(t testing.TB, p llm.Provider, req *llm.Request) ([]llm.Event, *llm.Response, error) {
	t.Helper()
	var evs []llm.Event
	res, err := llm.Generate(t.Context(), p, req, func(ev llm.Event) { evs = append(evs, ev) })
	return evs, res, err
}

// RichToolResult is an MCP tool result with every kind of content: text, a
// PNG image, WAV audio, a resource link, an embedded text resource, an
// embedded PDF, an embedded binary of no known kind, and structured content.
func RichToolResult() *protocol.CallToolResult {
	size := int64(2048)
	return &protocol.CallToolResult{
		Content: []protocol.Content{
			protocol.NewTextContent("18C"),
			protocol.NewImageContent([]byte{0x89, 'P', 'N', 'G'}, "image/png"),
			protocol.NewAudioContent([]byte("RIFF"), "audio/wav"),
			protocol.NewResourceLink(&protocol.Resource{URI: "file:///forecast.csv", Name: "forecast", MimeType: "text/csv", Size: &size, Description: "next 7 days"}),
			protocol.NewEmbeddedResource(protocol.NewTextResourceContents("file:///notes.txt", "text/plain", "hello notes")),
			protocol.NewEmbeddedResource(protocol.NewBlobResourceContents("file:///docs/report.pdf", "application/pdf", []byte("%PDF"))),
			protocol.NewEmbeddedResource(protocol.NewBlobResourceContents("file:///blob.bin", "application/octet-stream", []byte{1, 2, 3})),
		},
		StructuredContent: map[string]any{"temp": 18},
	}
}

// Conversation is a request with a system prompt, a user's text, an
// assistant's text and three tool calls (one with empty and one with malformed
// arguments), their results (the first RichToolResult, the others errors),
// a tool with RichSchema, and a token bound.
func Conversation() *llm.Request {
	return &llm.Request{
		Model:  "gpt-4o",
		System: "Be brief.",
		Messages: []llm.Message{
			llm.UserText("Weather in Paris?"),
			{Role: llm.RoleAssistant, Parts: []llm.Part{
				{Type: llm.PartText, Text: "Checking."},
				{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "call_1", Name: "get_weather", Arguments: `{"location":"Paris"}`}},
				{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "call_2", Name: "render"}},
				{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "call_3", Name: "get_time", Arguments: `{"x":`}},
			}},
			{Role: llm.RoleUser, Parts: []llm.Part{
				{Type: llm.PartToolResult, ToolResult: llm.ToolResultFromMCP("call_1", "get_weather", RichToolResult())},
				{Type: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "call_2", Name: "render", IsError: true, Content: []llm.Part{{Type: llm.PartText, Text: "boom"}}}},
				{Type: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "call_3", Name: "get_time", IsError: true, Content: []llm.Part{{Type: llm.PartText, Text: "the arguments are not valid JSON"}}}},
			}},
		},
		Tools:     []llm.Tool{{Name: "create_event", Description: "Creates an event.", InputSchema: []byte(RichSchema)}},
		MaxTokens: 300,
	}
}

// SameJSON reports a test error unless got (a decoded JSON value) equals the
// JSON text want.
func SameJSON(t testing.TB, what string, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("the expected %s: %v", what, err)
	}
	if !reflect.DeepEqual(got, w) {
		enc, _ := json.MarshalIndent(got, "", "  ")
		t.Errorf("%s:\n%s", what, enc)
	}
}

// CheckToolCalls reports a test error unless res holds exactly the calls
// want, stopped for tool use, from model, with usage.
func CheckToolCalls(t testing.TB, res *llm.Response, want []llm.ToolCall, model string, usage llm.Usage) {
	t.Helper()
	calls := res.Message.ToolCalls()
	if len(calls) != len(want) {
		t.Fatalf("%d tool calls, want %d: %+v", len(calls), len(want), res.Message)
	}
	for i, c := range calls {
		if *c != want[i] {
			t.Errorf("call %d = %+v, want %+v", i, *c, want[i])
		}
	}
	if res.StopReason != llm.StopToolUse || res.Model != model {
		t.Errorf("stop %q model %q", res.StopReason, res.Model)
	}
	if res.Usage != usage {
		t.Errorf("usage %+v, want %+v", res.Usage, usage)
	}
}
