package anthropic_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/llmtest"
	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/llm/anthropic"
	"github.com/mcpkit/mcpkit/protocol"
)

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func client(srv *llmtest.Server) *anthropic.Client {
	return anthropic.New(anthropic.Options{BaseURL: srv.BaseURL(), APIKey: "sk-ant-test", MaxRetries: -1})
}

func collect(t *testing.T, p llm.Provider, req *llm.Request) ([]llm.Event, *llm.Response, error) {
	t.Helper()
	var evs []llm.Event
	res, err := llm.Generate(t.Context(), p, req, func(ev llm.Event) { evs = append(evs, ev) })
	return evs, res, err
}

func hello() *llm.Request {
	return &llm.Request{Model: "claude-sonnet-4-5", Messages: []llm.Message{llm.UserText("hello")}}
}

func TestStreamParallelToolUse(t *testing.T) {
	srv := llmtest.NewAnthropic(t, "sk-ant-test", llmtest.Reply{Body: fixture(t, "parallel_tool_use.sse")})
	evs, res, err := collect(t, client(srv), hello())
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Message.Text(); got != "I'll check the weather and the time in Paris at once." {
		t.Errorf("text %q", got)
	}
	want := []llm.ToolCall{
		{ID: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", Name: "get_weather", Arguments: `{"location": "Paris, France", "unit": "celsius"}`},
		{ID: "toolu_01RxS6Fu2Kj9WmQ4Bh7Ec3Vn", Name: "get_time", Arguments: `{"tz": "Europe/Paris"}`},
	}
	calls := res.Message.ToolCalls()
	if len(calls) != 2 || *calls[0] != want[0] || *calls[1] != want[1] {
		t.Fatalf("calls %+v", calls)
	}
	if res.StopReason != llm.StopToolUse || res.Model != "claude-sonnet-4-5-20250929" {
		t.Errorf("stop %q model %q", res.StopReason, res.Model)
	}
	// Input tokens count the cached ones too.
	if res.Usage != (llm.Usage{InputTokens: 3069, OutputTokens: 131, CacheReadTokens: 2048}) {
		t.Errorf("usage %+v", res.Usage)
	}
	var kinds []string
	for _, ev := range evs {
		switch ev.Type {
		case llm.EventStart:
			kinds = append(kinds, "start")
		case llm.EventToolCallStart:
			kinds = append(kinds, "call"+ev.Name)
		case llm.EventToolCallEnd:
			kinds = append(kinds, "end")
		case llm.EventStop:
			kinds = append(kinds, "stop")
		}
	}
	if w := []string{"start", "callget_weather", "end", "callget_time", "end", "stop"}; !slices.Equal(kinds, w) {
		t.Errorf("events %v, want %v", kinds, w)
	}
	req := srv.Requests()[0]
	if req.JSON["stream"] != true || req.JSON["max_tokens"] != float64(anthropic.DefaultMaxTokens) {
		t.Errorf("request %s", req.Body)
	}
}

func TestStreamText(t *testing.T) {
	srv := llmtest.NewAnthropic(t, "sk-ant-test", llmtest.Reply{Body: fixture(t, "text.sse")})
	_, res, err := collect(t, client(srv), hello())
	if err != nil {
		t.Fatal(err)
	}
	if res.Message.Text() != "It's 18°C in Paris, and the local time is 14:05." || res.StopReason != llm.StopEndTurn ||
		res.Usage.InputTokens != 1410 || res.Usage.OutputTokens != 21 {
		t.Errorf("response %+v", res)
	}
}

func TestStreamErrors(t *testing.T) {
	cases := []struct {
		name     string
		reply    llmtest.Reply
		status   int
		typ, msg string
		cut      bool
	}{
		{name: "overloaded inside the stream", reply: llmtest.Reply{Body: fixture(t, "overloaded.sse")}, typ: "overloaded_error", msg: "Overloaded"},
		{name: "HTTP 400", reply: llmtest.Reply{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"tools.0.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level"},"request_id":"req_011CZpnkmpwNvTGPtRWhYXMV"}`},
			status: 400, typ: "invalid_request_error", msg: "tools.0.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level"},
		{name: "cut before message_stop", reply: llmtest.Reply{Body: strings.Split(fixture(t, "text.sse"), "event: message_delta")[0]}, cut: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewAnthropic(t, "sk-ant-test", c.reply)
			_, _, err := collect(t, client(srv), hello())
			if c.cut {
				if !errors.Is(err, llm.ErrIncomplete) {
					t.Fatalf("err %v, want ErrIncomplete", err)
				}
				return
			}
			var ae *llm.APIError
			if !errors.As(err, &ae) || ae.StatusCode != c.status || ae.Type != c.typ || ae.Message != c.msg {
				t.Fatalf("err %#v", err)
			}
		})
	}
}

// 529 (overloaded) is retried.
func TestStreamRetriesWhenOverloaded(t *testing.T) {
	srv := llmtest.NewAnthropic(t, "sk-ant-test",
		llmtest.Reply{Status: 529, Header: map[string]string{"Retry-After": "0"}, Body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`},
		llmtest.Reply{Body: fixture(t, "text.sse")})
	p := anthropic.New(anthropic.Options{BaseURL: srv.BaseURL() + "/v1", APIKey: "sk-ant-test"})
	_, res, err := collect(t, p, hello())
	if err != nil || res.Message.Text() == "" || len(srv.Requests()) != 2 {
		t.Fatalf("err %v, %d requests", err, len(srv.Requests()))
	}
}

func richResult() *protocol.CallToolResult {
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

// A conversation with text, tool calls (empty and malformed arguments
// among them) and rich tool results becomes the Messages API's blocks; a
// user text after the tool results comes after them in the same message.
func TestRequestMessages(t *testing.T) {
	srv := llmtest.NewAnthropic(t, "sk-ant-test", llmtest.Reply{Body: llmtest.Anthropic("ok")})
	req := &llm.Request{
		Model:  "claude-sonnet-4-5",
		System: "Be brief.",
		Messages: []llm.Message{
			llm.UserText("Weather in Paris?"),
			{Role: llm.RoleAssistant, Parts: []llm.Part{
				{Type: llm.PartText, Text: "Checking."},
				{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "toolu_1", Name: "get_weather", Arguments: `{"location":"Paris"}`}},
				{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "toolu_2", Name: "render"}},
				{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: "toolu_3", Name: "get_time", Arguments: `{"x":`}},
			}},
			{Role: llm.RoleUser, Parts: []llm.Part{
				{Type: llm.PartText, Text: "and hurry"},
				{Type: llm.PartToolResult, ToolResult: llm.ToolResultFromMCP("toolu_1", "get_weather", richResult())},
				{Type: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "toolu_2", IsError: true, Content: []llm.Part{{Type: llm.PartText, Text: "boom"}}}},
			}},
			{Role: llm.RoleUser, Parts: []llm.Part{
				{Type: llm.PartToolResult, ToolResult: &llm.ToolResult{CallID: "toolu_3", IsError: true, Content: []llm.Part{{Type: llm.PartText, Text: "bad JSON"}}}},
			}},
		},
		Tools:      []llm.Tool{{Name: "create_event", Description: "Creates an event.", InputSchema: []byte(llmtest.RichSchema)}},
		ToolChoice: llm.ToolChoiceRequired,
		MaxTokens:  300,
	}
	if _, err := llm.Generate(t.Context(), client(srv), req, nil); err != nil {
		t.Fatal(err)
	}
	body := srv.Requests()[0].JSON
	want := `[
	  {"role":"user","content":[{"type":"text","text":"Weather in Paris?"}]},
	  {"role":"assistant","content":[
	    {"type":"text","text":"Checking."},
	    {"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"location":"Paris"}},
	    {"type":"tool_use","id":"toolu_2","name":"render","input":{}},
	    {"type":"tool_use","id":"toolu_3","name":"get_time","input":{}}]},
	  {"role":"user","content":[
	    {"type":"tool_result","tool_use_id":"toolu_1","content":[
	      {"type":"text","text":"18C"},
	      {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw=="}},
	      {"type":"text","text":"[audio: audio/wav, 4 bytes, not shown to the model]"},
	      {"type":"text","text":"Resource link: file:///forecast.csv (name \"forecast\"), text/csv, 2048 bytes: next 7 days"},
	      {"type":"text","text":"Resource file:///notes.txt (text/plain):\nhello notes"},
	      {"type":"document","title":"file:///docs/report.pdf","source":{"type":"base64","media_type":"application/pdf","data":"JVBERg=="}},
	      {"type":"text","text":"[document file:///blob.bin: application/octet-stream, 3 bytes, not shown to the model]"},
	      {"type":"text","text":"{\"temp\":18}"}]},
	    {"type":"tool_result","tool_use_id":"toolu_2","content":[{"type":"text","text":"boom"}],"is_error":true},
	    {"type":"tool_result","tool_use_id":"toolu_3","content":[{"type":"text","text":"bad JSON"}],"is_error":true},
	    {"type":"text","text":"and hurry"}]}
	]`
	var wantMsgs any
	if err := json.Unmarshal([]byte(want), &wantMsgs); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(body["messages"], wantMsgs) {
		got, _ := json.MarshalIndent(body["messages"], "", "  ")
		t.Errorf("messages:\n%s", got)
	}
	if body["system"] != "Be brief." || body["max_tokens"] != 300.0 || !reflect.DeepEqual(body["tool_choice"], map[string]any{"type": "any"}) {
		t.Errorf("system %v, max_tokens %v, tool_choice %v", body["system"], body["max_tokens"], body["tool_choice"])
	}
}

// The tool's schema reaches the Messages API whole and in order, $ref and
// $defs kept (the API follows them); only the root anyOf, which the API
// refuses, is folded into the description, and $schema dropped.
func TestToolSchemaMapping(t *testing.T) {
	srv := llmtest.NewAnthropic(t, "sk-ant-test", llmtest.Reply{Body: llmtest.Anthropic("ok")})
	req := hello()
	req.Tools = []llm.Tool{{Name: "create_event", Description: "Creates an event.", InputSchema: []byte(llmtest.RichSchema)}}
	if _, err := llm.Generate(t.Context(), client(srv), req, nil); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Tools) != 1 || body.Tools[0].Name != "create_event" || body.Tools[0].Description != "Creates an event." {
		t.Fatalf("tools %+v", body.Tools)
	}
	person := `{"type":"object","description":"A person","properties":{"name":{"type":"string"},"email":{"type":"string","format":"email"}},"required":["email"]}`
	node := `{"type":"object","properties":{"id":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}}}`
	want := `{"type":"object",
	  "description":"The event to create.\n\nThe arguments must match one or more of: (1) required: attendees; (2) required: organizer.",
	  "properties":{
	    "title":{"type":"string","description":"Event title","minLength":1,"maxLength":200},
	    "priority":{"type":"string","enum":["low","normal","high"],"default":"normal"},
	    "attendees":{"type":"array","description":"People invited","items":{"$ref":"#/$defs/person"},"minItems":1,"uniqueItems":true},
	    "organizer":{"$ref":"#/$defs/person","description":"Who organizes it"},
	    "when":{"type":"object","properties":{"start":{"type":"string","format":"date-time"},"durationMinutes":{"type":"integer","minimum":5,"maximum":480}},"required":["start"],"additionalProperties":false},
	    "location":{"anyOf":[{"type":"string"},{"type":"object","properties":{"lat":{"type":"number"},"lon":{"type":"number"}},"required":["lat","lon"]}]},
	    "reminder":{"type":["integer","null"],"description":"Minutes before"},
	    "tags":{"type":"array","items":{"type":"string","pattern":"^[a-z]+$"}},
	    "kind":{"const":"meeting"},
	    "parent":{"$ref":"#/$defs/node"}},
	  "required":["title","when"],
	  "additionalProperties":false,
	  "$defs":{"person":` + person + `,"node":` + node + `}}`
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(want)); err != nil {
		t.Fatal(err)
	}
	if got := string(body.Tools[0].InputSchema); got != compact.String() {
		t.Errorf("input_schema:\n got %s\nwant %s", got, compact.String())
	}
}
