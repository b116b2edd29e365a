package host_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/host"
	"github.com/mcpkit/mcpkit/internal/llmtest"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// Sampling with tools (2025-11-25): the server's tools (one with a name
// models refuse), its tool choice, and a conversation holding tool_use and
// tool_result blocks reach the model; the model's tool call comes back as a
// tool_use block under the server's own name.
func TestSamplingWithTools(t *testing.T) {
	modelName := llm.ModelToolNames([]string{"get.weather"})[0] // get_weather_<hash>
	srv := llmtest.NewOpenAI(t, "sk-test", llmtest.Reply{
		Body: llmtest.OpenAI("", llmtest.Call{ID: "call_9", Name: modelName, Args: `{"city":"Oslo"}`}),
		Check: func(t testing.TB, body map[string]any) {
			if body["tool_choice"] != "required" || body["max_tokens"] != 64.0 {
				t.Errorf("tool_choice %v, max_tokens %v", body["tool_choice"], body["max_tokens"])
			}
			llmtest.SameJSON(t, "messages", body["messages"], `[
			  {"role":"system","content":"Use tools."},
			  {"role":"user","content":"Weather in Paris, then Oslo?"},
			  {"role":"assistant","content":null,"tool_calls":[{"id":"tu_1","type":"function","function":{"name":"`+modelName+`","arguments":"{\"city\":\"Paris\"}"}}]},
			  {"role":"tool","tool_call_id":"tu_1","content":"18C"}]`)
		}})
	p := providers[0].client(srv)
	handler := host.SamplingHandler(p, "gpt-4o", nil)
	params := &protocol.CreateMessageParams{
		SystemPrompt: "Use tools.",
		MaxTokens:    64,
		Messages: []protocol.SamplingMessage{
			{Role: protocol.RoleUser, Content: protocol.SamplingContent{protocol.NewTextContent("Weather in Paris, then Oslo?")}},
			{Role: protocol.RoleAssistant, Content: protocol.SamplingContent{protocol.NewToolUseContent("tu_1", "get.weather", json.RawMessage(`{"city":"Paris"}`))}},
			{Role: protocol.RoleUser, Content: protocol.SamplingContent{protocol.NewToolResultContent("tu_1", []protocol.Content{protocol.NewTextContent("18C")}, false)}},
		},
		Tools:      []protocol.Tool{{Name: "get.weather", InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}}}`)}},
		ToolChoice: &protocol.ToolChoice{Mode: protocol.ToolChoiceRequired},
	}
	res, err := handler(t.Context(), nil, params)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 || res.Content[0].Type != protocol.ContentTypeToolUse || res.Content[0].Name != "get.weather" ||
		string(res.Content[0].Input) != `{"city":"Oslo"}` || res.StopReason != protocol.StopReasonToolUse || res.Model != llmtest.OpenAIModel {
		t.Errorf("result %+v", res)
	}
	tools := srv.Requests()[0].JSON["tools"].([]any)
	if name := tools[0].(map[string]any)["function"].(map[string]any)["name"]; name != modelName {
		t.Errorf("the tool reached the model as %v", name)
	}
}

// A refused sampling request never reaches the model; the server gets
// error -1.
func TestSamplingRefused(t *testing.T) {
	srv := llmtest.NewOpenAI(t, "sk-test")
	handler := host.SamplingHandler(providers[0].client(srv), "gpt-4o", &host.SamplingOptions{
		Approve: func(context.Context, *mcp.ClientSession, *protocol.CreateMessageParams) (bool, error) {
			return false, nil
		},
	})
	_, err := handler(t.Context(), nil, &protocol.CreateMessageParams{MaxTokens: 5,
		Messages: []protocol.SamplingMessage{{Role: protocol.RoleUser, Content: protocol.SamplingContent{protocol.NewTextContent("hi")}}}})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != host.CodeSamplingRefused || !strings.Contains(je.Message, "refused") {
		t.Fatalf("err %v", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests reached the model", n)
	}
}
