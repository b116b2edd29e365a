package openai_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcpkit/mcpkit/internal/llmtest"
	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/llm/openai"
)

func TestRequestMessages(t *testing.T) {
	srv := llmtest.NewOpenAI(t, "k", llmtest.Reply{Body: llmtest.OpenAI("ok")})
	if _, err := llm.Generate(t.Context(), client(srv, "k"), llmtest.Conversation(), nil); err != nil {
		t.Fatal(err)
	}
	body := srv.Requests()[0].JSON
	want := `[
	  {"role":"system","content":"Be brief."},
	  {"role":"user","content":"Weather in Paris?"},
	  {"role":"assistant","content":"Checking.","tool_calls":[
	    {"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Paris\"}"}},
	    {"id":"call_2","type":"function","function":{"name":"render","arguments":"{}"}},
	    {"id":"call_3","type":"function","function":{"name":"get_time","arguments":"{\"x\":"}}]},
	  {"role":"tool","tool_call_id":"call_1","content":"18C\n[image attached in the next user message]\n[audio attached in the next user message]\nResource link: file:///forecast.csv (name \"forecast\"), text/csv, 2048 bytes: next 7 days\nResource file:///notes.txt (text/plain):\nhello notes\n[document attached in the next user message]\n[document file:///blob.bin: application/octet-stream, 3 bytes, not shown to the model]\n{\"temp\":18}"},
	  {"role":"tool","tool_call_id":"call_2","content":"Error: boom"},
	  {"role":"tool","tool_call_id":"call_3","content":"Error: the arguments are not valid JSON"},
	  {"role":"user","content":[
	    {"type":"text","text":"Attachments returned by tool call call_1 (get_weather):"},
	    {"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw=="}},
	    {"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}},
	    {"type":"file","file":{"filename":"report.pdf","file_data":"data:application/pdf;base64,JVBERg=="}}]}
	]`
	llmtest.SameJSON(t, "messages", body["messages"], want)
	// Not api.openai.com: max_tokens, as compatible servers read it.
	if body["max_tokens"] != 300.0 || body["max_completion_tokens"] != nil {
		t.Errorf("max tokens fields: %v / %v", body["max_tokens"], body["max_completion_tokens"])
	}
}

// The tool's schema reaches OpenAI whole, in its order: types, enums,
// consts, defaults, formats, bounds, nested objects, items, nullable types,
// nested anyOf, required lists; references inlined (a sibling description
// wins), the recursive one kept with its definitions; the root anyOf folded
// into the description; $schema dropped.
func TestToolSchemaMapping(t *testing.T) {
	srv := llmtest.NewOpenAI(t, "k", llmtest.Reply{Body: llmtest.OpenAI("ok")})
	if _, err := llm.Generate(t.Context(), client(srv, "k"), llmtest.Conversation(), nil); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Tools []struct {
			Type     string `json:"type"`
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Tools) != 1 || body.Tools[0].Type != "function" || body.Tools[0].Function.Name != "create_event" || body.Tools[0].Function.Description != "Creates an event." {
		t.Fatalf("tools %+v", body.Tools)
	}
	person := func(desc string) string {
		return `{"type":"object","description":"` + desc + `","properties":{"name":{"type":"string"},"email":{"type":"string","format":"email"}},"required":["email"]}`
	}
	node := `{"type":"object","properties":{"id":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}}}`
	want := `{"type":"object",
	  "description":"The event to create.\n\nThe arguments must match one or more of: (1) required: attendees; (2) required: organizer.",
	  "properties":{
	    "title":{"type":"string","description":"Event title","minLength":1,"maxLength":200},
	    "priority":{"type":"string","enum":["low","normal","high"],"default":"normal"},
	    "attendees":{"type":"array","description":"People invited","items":` + person("A person") + `,"minItems":1,"uniqueItems":true},
	    "organizer":` + person("Who organizes it") + `,
	    "when":{"type":"object","properties":{"start":{"type":"string","format":"date-time"},"durationMinutes":{"type":"integer","minimum":5,"maximum":480}},"required":["start"],"additionalProperties":false},
	    "location":{"anyOf":[{"type":"string"},{"type":"object","properties":{"lat":{"type":"number"},"lon":{"type":"number"}},"required":["lat","lon"]}]},
	    "reminder":{"type":["integer","null"],"description":"Minutes before"},
	    "tags":{"type":"array","items":{"type":"string","pattern":"^[a-z]+$"}},
	    "kind":{"const":"meeting"},
	    "parent":` + node + `},
	  "required":["title","when"],
	  "additionalProperties":false,
	  "$defs":{"person":` + person("A person") + `,"node":` + node + `}}`
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(want)); err != nil {
		t.Fatal(err)
	}
	if got := string(body.Tools[0].Function.Parameters); got != compact.String() {
		t.Errorf("parameters:\n got %s\nwant %s", got, compact.String())
	}
	// ToolJSON, what llm/tokens counts, is the request's element byte for byte.
	var raw struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Body, &raw); err != nil {
		t.Fatal(err)
	}
	one, err := openai.ToolJSON(&llm.Tool{Name: "create_event", Description: "Creates an event.", InputSchema: []byte(llmtest.RichSchema)})
	if err != nil || string(one) != string(raw.Tools[0]) {
		t.Errorf("ToolJSON:\n got %s, %v\nwant %s", one, err, raw.Tools[0])
	}
}

// api.openai.com gets max_completion_tokens, which its newer models require.
func TestMaxTokensFieldForOpenAI(t *testing.T) {
	srv := llmtest.NewOpenAI(t, "k", llmtest.Reply{Body: llmtest.OpenAI("ok")})
	p := openai.New(openai.Options{BaseURL: srv.BaseURL(), APIKey: "k", MaxTokensField: "max_completion_tokens"})
	if _, err := llm.Generate(t.Context(), p, &llm.Request{Model: "o3", MaxTokens: 50, Messages: []llm.Message{llm.UserText("x")}}, nil); err != nil {
		t.Fatal(err)
	}
	if body := srv.Requests()[0].JSON; body["max_completion_tokens"] != 50.0 || body["max_tokens"] != nil {
		t.Errorf("body %v", body)
	}
}

// With NoMedia, a tool result's image is described in the tool message and
// no user message follows.
func TestNoMedia(t *testing.T) {
	srv := llmtest.NewOpenAI(t, "", llmtest.Reply{Body: llmtest.OpenAI("ok")})
	p := openai.New(openai.Options{BaseURL: srv.BaseURL(), NoMedia: true})
	req := &llm.Request{Model: "m", Messages: []llm.Message{
		llm.UserText("x"),
		{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "c", Name: "shot", Arguments: "{}"}}}},
		{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "c", Content: []llm.Part{{Type: llm.PartImage, MimeType: "image/png", Data: []byte("abc")}}}}}},
	}}
	if _, err := llm.Generate(t.Context(), p, req, nil); err != nil {
		t.Fatal(err)
	}
	msgs := llmtest.Messages(srv.Requests()[0].JSON)
	if len(msgs) != 3 || msgs[2]["role"] != "tool" || msgs[2]["content"] != "[image: image/png, 3 bytes, not shown to the model]" {
		t.Errorf("messages %v", msgs)
	}
}

// A base URL with a query (a proxy's key, an API version) keeps it: the
// endpoint's path goes before it, not into it.
func TestBaseURLWithQuery(t *testing.T) {
	for _, base := range []string{"/v1?key=X", "/v1/?key=X", "/v1?key=X#frag"} {
		srv := llmtest.NewOpenAI(t, "", llmtest.Reply{Body: llmtest.OpenAI("ok")})
		p := openai.New(openai.Options{BaseURL: srv.URL + base, MaxRetries: -1})
		if _, err := llm.Generate(t.Context(), p, &llm.Request{Model: "m", Messages: []llm.Message{llm.UserText("x")}}, nil); err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		if r := srv.Requests()[0]; r.Path != "/v1/chat/completions" || r.Query != "key=X" {
			t.Errorf("%s: POST %s?%s", base, r.Path, r.Query)
		}
	}
}
