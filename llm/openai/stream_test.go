package openai_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/llmtest"
	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/llm/openai"
)

func client(srv *llmtest.Server, key string) *openai.Client {
	return openai.New(openai.Options{BaseURL: srv.BaseURL(), APIKey: key, MaxRetries: -1})
}

func TestStreamParallelToolCalls(t *testing.T) {
	srv := llmtest.NewOpenAI(t, "sk-test", llmtest.Reply{Body: llmtest.Fixture(t, "parallel_tool_calls.sse")})
	evs, res, err := llmtest.Collect(t, client(srv, "sk-test"), &llm.Request{Model: "gpt-4o", Messages: []llm.Message{llm.UserText("weather and time in Paris?")}})
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.ToolCall{
		{ID: "call_8Rk2VwQn5mTy3LpXc0Hb7Jd1", Name: "get_weather", Arguments: `{"location": "Paris, France", "unit": "celsius"}`},
		{ID: "call_Zt4Nq0Gm6Xs9Wb2Kd5Yr1Lc8", Name: "get_time", Arguments: `{"tz": "Europe/Paris"}`},
	}
	llmtest.CheckToolCalls(t, res, want, "gpt-4o-2024-08-06", llm.Usage{InputTokens: 214, OutputTokens: 52, CacheReadTokens: 128})
	// The first call ends when the second starts; the second at the end;
	// usage and stop come last.
	var kinds []string
	for _, ev := range evs {
		switch ev.Type {
		case llm.EventToolCallStart:
			kinds = append(kinds, "start"+ev.Name)
		case llm.EventToolCallEnd:
			kinds = append(kinds, "end"+string(rune('0'+ev.Index)))
		case llm.EventUsage:
			kinds = append(kinds, "usage")
		case llm.EventStop:
			kinds = append(kinds, "stop")
		}
	}
	if w := []string{"startget_weather", "end0", "startget_time", "end1", "usage", "stop"}; !slices.Equal(kinds, w) {
		t.Errorf("events %v, want %v", kinds, w)
	}
	// What was sent: a streaming request asking for usage.
	body := srv.Requests()[0].JSON
	if body["stream"] != true || body["stream_options"].(map[string]any)["include_usage"] != true || body["model"] != "gpt-4o" {
		t.Errorf("request %v", body)
	}
}

func TestStreamText(t *testing.T) {
	srv := llmtest.NewOpenAI(t, "", llmtest.Reply{Body: llmtest.Fixture(t, "text.sse")})
	evs, res, err := llmtest.Collect(t, client(srv, ""), &llm.Request{Model: "gpt-4o", Messages: []llm.Message{llm.UserText("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Message.Text(); got != "It’s 18°C in Paris." {
		t.Errorf("text %q", got)
	}
	deltas := 0
	for _, ev := range evs {
		if ev.Type == llm.EventTextDelta {
			deltas++
		}
	}
	if deltas != 6 || res.StopReason != llm.StopEndTurn || res.Usage.InputTokens != 301 || res.Usage.OutputTokens != 9 {
		t.Errorf("%d deltas, stop %q, usage %+v", deltas, res.StopReason, res.Usage)
	}
	if h := srv.Requests()[0].Header.Get("Authorization"); h != "" {
		t.Errorf("no key configured, yet Authorization %q was sent", h)
	}
}

// Ollama's compatible endpoint numbers every call 0, sends each whole, and
// finishes with "stop" after tool calls.
func TestStreamOllamaToolCalls(t *testing.T) {
	srv := llmtest.NewOpenAI(t, "", llmtest.Reply{Body: llmtest.Fixture(t, "ollama_tool_calls.sse")})
	_, res, err := llmtest.Collect(t, client(srv, ""), &llm.Request{Model: "qwen3:8b", Messages: []llm.Message{llm.UserText("hi")}})
	if err != nil {
		t.Fatal(err)
	}
	calls := res.Message.ToolCalls()
	if len(calls) != 2 || calls[0].Name != "echo" || calls[0].Arguments != `{"message":"hi"}` ||
		calls[1].Name != "add" || calls[1].Arguments != `{"a":2,"b":3}` || calls[1].ID != "call_x5t1kw9a" {
		t.Fatalf("calls %+v %+v", calls[0], calls[len(calls)-1])
	}
	if res.StopReason != llm.StopToolUse || res.Usage.InputTokens != 190 {
		t.Errorf("stop %q usage %+v", res.StopReason, res.Usage)
	}
}

// The generated fixtures cut arguments every few bytes, inside keys and
// escapes; the assembled arguments are exact.
func TestStreamFragmentedArguments(t *testing.T) {
	args := `{"message":"a \"quoted\" word, é and \\ too","n":12.5}`
	srv := llmtest.NewOpenAI(t, "k", llmtest.Reply{Body: llmtest.OpenAI("Calling.", llmtest.Call{Name: "echo", Args: args})})
	_, res, err := llmtest.Collect(t, client(srv, "k"), &llm.Request{Model: "m", Messages: []llm.Message{llm.UserText("x")}})
	if err != nil {
		t.Fatal(err)
	}
	if calls := res.Message.ToolCalls(); len(calls) != 1 || calls[0].Arguments != args {
		t.Fatalf("calls %+v", calls)
	}
	if res.Message.Text() != "Calling." || res.Message.Parts[0].Type != llm.PartText {
		t.Errorf("message %+v", res.Message)
	}
}

func TestStreamErrors(t *testing.T) {
	cases := []struct {
		name  string
		reply llmtest.Reply
		check func(t *testing.T, err error)
	}{
		{"HTTP 401", llmtest.Reply{Status: 401, Body: `{"error":{"message":"Incorrect API key provided: sk-bad. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`},
			func(t *testing.T, err error) {
				var ae *llm.APIError
				if !errors.As(err, &ae) || ae.StatusCode != 401 || ae.Type != "invalid_request_error, invalid_api_key" || !strings.HasPrefix(ae.Message, "Incorrect API key") {
					t.Errorf("err %#v", err)
				}
			}},
		{"Ollama error", llmtest.Reply{Status: 404, Body: `{"error":"model \"llama9\" not found, try pulling it first"}`},
			func(t *testing.T, err error) {
				var ae *llm.APIError
				if !errors.As(err, &ae) || ae.StatusCode != 404 || ae.Message != `model "llama9" not found, try pulling it first` {
					t.Errorf("err %#v", err)
				}
			}},
		{"error inside the stream", llmtest.Reply{Body: "data: {\"error\":{\"message\":\"The server had an error while processing your request. Sorry about that!\",\"type\":\"server_error\",\"param\":null,\"code\":null}}\n\n"},
			func(t *testing.T, err error) {
				var ae *llm.APIError
				if !errors.As(err, &ae) || ae.StatusCode != 0 || ae.Type != "server_error" {
					t.Errorf("err %#v", err)
				}
			}},
		{"cut before finish_reason", llmtest.Reply{Body: strings.SplitAfter(llmtest.Fixture(t, "text.sse"), "\n\n")[3]},
			func(t *testing.T, err error) {
				if !errors.Is(err, llm.ErrIncomplete) {
					t.Errorf("err %v, want ErrIncomplete", err)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewOpenAI(t, "sk-bad", c.reply)
			_, _, err := llmtest.Collect(t, client(srv, "sk-bad"), &llm.Request{Model: "m", Messages: []llm.Message{llm.UserText("x")}})
			if err == nil {
				t.Fatal("no error")
			}
			c.check(t, err)
		})
	}
}

// A 429 with Retry-After is sent again; the second answer is used.
func TestStreamRetriesWhenRateLimited(t *testing.T) {
	srv := llmtest.NewOpenAI(t, "k",
		llmtest.Reply{Status: 429, Header: map[string]string{"Retry-After": "0"}, Body: `{"error":{"message":"Rate limit reached for gpt-4o","type":"requests","param":null,"code":"rate_limit_exceeded"}}`},
		llmtest.Reply{Body: llmtest.Fixture(t, "text.sse")})
	p := openai.New(openai.Options{BaseURL: srv.BaseURL(), APIKey: "k"})
	_, res, err := llmtest.Collect(t, p, &llm.Request{Model: "m", Messages: []llm.Message{llm.UserText("x")}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Message.Text() == "" || len(srv.Requests()) != 2 {
		t.Errorf("text %q after %d requests", res.Message.Text(), len(srv.Requests()))
	}
}

// Quirks of compatible servers: a call's name after its first fragment, a
// call without an index, no usage, and no [DONE] after the finish_reason.
func TestStreamCompatibleQuirks(t *testing.T) {
	body := `data: {"id":"x","object":"chat.completion.chunk","model":"local","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"c1","type":"function","function":{"arguments":"{\"a\""}}]}}]}

data: {"id":"x","object":"chat.completion.chunk","model":"local","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"add","arguments":":1}"}}]}}]}

data: {"id":"x","object":"chat.completion.chunk","model":"local","choices":[{"index":0,"delta":{"tool_calls":[{"id":"c2","type":"function","function":{"name":"echo","arguments":"{}"}}]}}]}

data: {"id":"x","object":"chat.completion.chunk","model":"local","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

`
	srv := llmtest.NewOpenAI(t, "", llmtest.Reply{Body: body})
	_, res, err := llmtest.Collect(t, client(srv, ""), &llm.Request{Model: "local", Messages: []llm.Message{llm.UserText("x")}})
	if err != nil {
		t.Fatal(err)
	}
	llmtest.CheckToolCalls(t, res, []llm.ToolCall{{ID: "c1", Name: "add", Arguments: `{"a":1}`}, {ID: "c2", Name: "echo", Arguments: "{}"}}, "local", llm.Usage{})
}
