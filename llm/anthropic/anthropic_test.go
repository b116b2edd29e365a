package anthropic_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/llmtest"
	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/llm/anthropic"
)

func client(srv *llmtest.Server) *anthropic.Client {
	return anthropic.New(anthropic.Options{BaseURL: srv.BaseURL(), APIKey: "sk-ant-test", MaxRetries: -1})
}

func hello() *llm.Request {
	return &llm.Request{Model: "claude-sonnet-4-5", Messages: []llm.Message{llm.UserText("hello")}}
}

func TestStreamParallelToolUse(t *testing.T) {
	srv := llmtest.NewAnthropic(t, "sk-ant-test", llmtest.Reply{Body: llmtest.Fixture(t, "parallel_tool_use.sse")})
	evs, res, err := llmtest.Collect(t, client(srv), hello())
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
	// Input tokens count the cached ones too.
	llmtest.CheckToolCalls(t, res, want, "claude-sonnet-4-5-20250929", llm.Usage{InputTokens: 3069, OutputTokens: 131, CacheReadTokens: 2048})
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
	srv := llmtest.NewAnthropic(t, "sk-ant-test", llmtest.Reply{Body: llmtest.Fixture(t, "text.sse")})
	_, res, err := llmtest.Collect(t, client(srv), hello())
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
		{name: "overloaded inside the stream", reply: llmtest.Reply{Body: llmtest.Fixture(t, "overloaded.sse")}, typ: "overloaded_error", msg: "Overloaded"},
		{name: "HTTP 400", reply: llmtest.Reply{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"tools.0.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level"},"request_id":"req_011CZpnkmpwNvTGPtRWhYXMV"}`},
			status: 400, typ: "invalid_request_error", msg: "tools.0.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level"},
		{name: "cut before message_stop", reply: llmtest.Reply{Body: strings.Split(llmtest.Fixture(t, "text.sse"), "event: message_delta")[0]}, cut: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewAnthropic(t, "sk-ant-test", c.reply)
			_, _, err := llmtest.Collect(t, client(srv), hello())
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
		llmtest.Reply{Body: llmtest.Fixture(t, "text.sse")})
	p := anthropic.New(anthropic.Options{BaseURL: srv.BaseURL() + "/v1", APIKey: "sk-ant-test"})
	_, res, err := llmtest.Collect(t, p, hello())
	if err != nil || res.Message.Text() == "" || len(srv.Requests()) != 2 {
		t.Fatalf("err %v, %d requests", err, len(srv.Requests()))
	}
}

// A conversation with text, tool calls (empty and malformed arguments
// among them) and rich tool results becomes the Messages API's blocks; a
// user text after the tool results comes after them in the same message.
func TestRequestMessages(t *testing.T) {
	srv := llmtest.NewAnthropic(t, "sk-ant-test", llmtest.Reply{Body: llmtest.Anthropic("ok")})
	req := llmtest.Conversation()
	req.ToolChoice = llm.ToolChoiceRequired
	// A user's text before the results, and the last result in a message of
	// its own: the text moves after the results, the messages merge.
	results := req.Messages[2].Parts
	req.Messages[2].Parts = append([]llm.Part{{Type: llm.PartText, Text: "and hurry"}}, results[:2]...)
	req.Messages = append(req.Messages, llm.Message{Role: llm.RoleUser, Parts: results[2:]})
	if _, err := llm.Generate(t.Context(), client(srv), req, nil); err != nil {
		t.Fatal(err)
	}
	body := srv.Requests()[0].JSON
	want := `[
	  {"role":"user","content":[{"type":"text","text":"Weather in Paris?"}]},
	  {"role":"assistant","content":[
	    {"type":"text","text":"Checking."},
	    {"type":"tool_use","id":"call_1","name":"get_weather","input":{"location":"Paris"}},
	    {"type":"tool_use","id":"call_2","name":"render","input":{}},
	    {"type":"tool_use","id":"call_3","name":"get_time","input":{}}]},
	  {"role":"user","content":[
	    {"type":"tool_result","tool_use_id":"call_1","content":[
	      {"type":"text","text":"18C"},
	      {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw=="}},
	      {"type":"text","text":"[audio: audio/wav, 4 bytes, not shown to the model]"},
	      {"type":"text","text":"Resource link: file:///forecast.csv (name \"forecast\"), text/csv, 2048 bytes: next 7 days"},
	      {"type":"text","text":"Resource file:///notes.txt (text/plain):\nhello notes"},
	      {"type":"document","title":"file:///docs/report.pdf","source":{"type":"base64","media_type":"application/pdf","data":"JVBERg=="}},
	      {"type":"text","text":"[document file:///blob.bin: application/octet-stream, 3 bytes, not shown to the model]"},
	      {"type":"text","text":"{\"temp\":18}"}]},
	    {"type":"tool_result","tool_use_id":"call_2","content":[{"type":"text","text":"boom"}],"is_error":true},
	    {"type":"tool_result","tool_use_id":"call_3","content":[{"type":"text","text":"the arguments are not valid JSON"}],"is_error":true},
	    {"type":"text","text":"and hurry"}]}
	]`
	llmtest.SameJSON(t, "messages", body["messages"], want)
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
	// ToolJSON, what llm/tokens counts, is the request's element byte for byte.
	var raw struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(srv.Requests()[0].Body, &raw); err != nil {
		t.Fatal(err)
	}
	one, err := anthropic.ToolJSON(&llm.Tool{Name: "create_event", Description: "Creates an event.", InputSchema: []byte(llmtest.RichSchema)})
	if err != nil || string(one) != string(raw.Tools[0]) {
		t.Errorf("ToolJSON:\n got %s, %v\nwant %s", one, err, raw.Tools[0])
	}
}

// A tool_use whose input comes whole in content_block_start (no
// input_json_delta) keeps that input; one with no input at all has none.
func TestStreamToolUseInputAtStart(t *testing.T) {
	body := `event: message_start
data: {"type":"message_start","message":{"model":"claude-haiku-4-5","id":"msg_1","type":"message","role":"assistant","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_a","name":"echo","input":{"message":"whole"}}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_b","name":"list","input":{}}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":30}}

event: message_stop
data: {"type":"message_stop"}

`
	srv := llmtest.NewAnthropic(t, "sk-ant-test", llmtest.Reply{Body: body})
	_, res, err := llmtest.Collect(t, client(srv), hello())
	if err != nil {
		t.Fatal(err)
	}
	llmtest.CheckToolCalls(t, res, []llm.ToolCall{{ID: "toolu_a", Name: "echo", Arguments: `{"message":"whole"}`}, {ID: "toolu_b", Name: "list"}},
		"claude-haiku-4-5", llm.Usage{InputTokens: 10, OutputTokens: 30})
}

// A base URL with a query keeps it, with or without /v1.
func TestBaseURLWithQuery(t *testing.T) {
	for _, base := range []string{"?key=X", "/v1?key=X", "/v1/?key=X"} {
		srv := llmtest.NewAnthropic(t, "sk-ant-test", llmtest.Reply{Body: llmtest.Fixture(t, "parallel_tool_use.sse")})
		p := anthropic.New(anthropic.Options{BaseURL: srv.URL + base, APIKey: "sk-ant-test", MaxRetries: -1})
		if _, _, err := llmtest.Collect(t, p, hello()); err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		if r := srv.Requests()[0]; r.Path != "/v1/messages" || r.Query != "key=X" {
			t.Errorf("%s: POST %s?%s", base, r.Path, r.Query)
		}
	}
}
