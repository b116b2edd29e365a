package host_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/host"
	"github.com/mcpkit/mcpkit/internal/llmtest"
	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// The model asks for the demo server's echo tool; the agent runs it over MCP,
// sends the result back, and returns the model's final answer.
func TestRunCallsToolAndAnswers(t *testing.T) {
	eachProvider(t, func(t *testing.T, p provider) {
		srv := p.serve(t,
			llmtest.Reply{Body: p.stream("Let me echo that.", llmtest.Call{ID: "c1", Name: "echo", Args: `{"message":"hi"}`})},
			llmtest.Reply{Body: p.stream("The server said: hello hi.")})
		a, rec := newAgent(t, p, srv, host.Options{System: "You are terse."})
		res, err := a.Run(t.Context(), "Echo hi, please.")
		if err != nil {
			t.Fatal(err)
		}
		if res.Text != "The server said: hello hi." || res.Steps != 2 || res.StopReason != llm.StopEndTurn {
			t.Fatalf("result %+v", res)
		}
		got := p.results(srv.Requests()[1].JSON)
		if r := got["c1"]; r.text != "hello hi" || r.isError {
			t.Errorf("the model got %+v", got)
		}
		// The first request offered the demo's tools, with their schemas.
		first := srv.Requests()[0].JSON
		tools, _ := first["tools"].([]any)
		if len(tools) < 10 || !strings.Contains(string(srv.Requests()[0].Body), `"message":{"type":"string","description":"the text to echo back"}`) {
			t.Errorf("%d tools offered: %s", len(tools), srv.Requests()[0].Body)
		}
		// The answer streamed: text events came before the step ended.
		var text strings.Builder
		for _, ev := range rec.events {
			if ev.Type == host.EventText {
				text.WriteString(ev.Text)
			}
		}
		if text.String() != "Let me echo that.The server said: hello hi." {
			t.Errorf("streamed text %q", text.String())
		}
		if u := a.Usage(); u.InputTokens == 0 || u.OutputTokens == 0 || u != res.Usage {
			t.Errorf("usage %+v, run usage %+v", u, res.Usage)
		}
	})
}

// Rich MCP results reach the model whole: an image, an embedded resource
// and text from test_multiple_content_types, structured output from add, an
// isError result from test_throw — all three asked for at once.
func TestRunPassesRichResults(t *testing.T) {
	eachProvider(t, func(t *testing.T, p provider) {
		srv := p.serve(t,
			llmtest.Reply{Body: p.stream("", llmtest.Call{ID: "m", Name: "test_multiple_content_types", Args: `{}`},
				llmtest.Call{ID: "a", Name: "add", Args: `{"a":2,"b":3}`}, llmtest.Call{ID: "x", Name: "test_throw"})},
			llmtest.Reply{Body: p.stream("done")})
		a, _ := newAgent(t, p, srv, host.Options{})
		if _, err := a.Run(t.Context(), "go"); err != nil {
			t.Fatal(err)
		}
		got := p.results(srv.Requests()[1].JSON)
		if m := got["m"]; m.images != 1 || !strings.Contains(m.text, "Resource ") || m.isError {
			t.Errorf("mixed content: %+v", m)
		}
		if r := got["a"]; !strings.Contains(r.text, `"sum":5`) || r.isError {
			t.Errorf("add: %+v", r)
		}
		if r := got["x"]; !r.isError || !strings.Contains(r.text, "test_throw always fails") {
			t.Errorf("test_throw: %+v", r)
		}
	})
}

// Two calls asked for at once run at the same time: each waits for the other
// to have started.
func TestRunParallelToolCalls(t *testing.T) {
	eachProvider(t, func(t *testing.T, p provider) {
		var arrived atomic.Int32
		both := make(chan struct{})
		srvMCP := mcp.NewServer(protocol.Implementation{Name: "rendezvous", Version: "1"}, nil)
		type in struct {
			Who string `json:"who"`
		}
		if err := mcp.AddTool(srvMCP, &protocol.Tool{Name: "meet", Description: "Waits until a second call has arrived."},
			func(ctx context.Context, req *mcp.ToolRequest, in in) (string, error) {
				if arrived.Add(1) == 2 {
					close(both)
				}
				select {
				case <-both:
					return in.Who + " met its peer", nil
				case <-ctx.Done():
					return "", ctx.Err()
				case <-time.After(10 * time.Second):
					return "", errors.New("no peer came: the calls ran one after the other")
				}
			}); err != nil {
			t.Fatal(err)
		}
		llmSrv := p.serve(t,
			llmtest.Reply{Body: p.stream("", llmtest.Call{ID: "p1", Name: "meet", Args: `{"who":"first"}`}, llmtest.Call{ID: "p2", Name: "meet", Args: `{"who":"second"}`})},
			llmtest.Reply{Body: p.stream("Both met.")})
		cs := connect(t, srvMCP, nil)
		a := host.New(host.NewSessionSource(host.Server{Name: "r", Session: fixedSession(cs)}), host.Options{Provider: p.client(llmSrv), Model: "m"})
		res, err := a.Run(t.Context(), "meet twice")
		if err != nil {
			t.Fatal(err)
		}
		got := p.results(llmSrv.Requests()[1].JSON)
		if got["p1"].text != "first met its peer" || got["p2"].text != "second met its peer" || res.Text != "Both met." {
			t.Errorf("results %+v, answer %q", got, res.Text)
		}
	})
}

// A tool that does not exist, and arguments that are not a JSON object, get
// error results the model reads; the loop goes on and the model recovers.
func TestRunReportsBadCallsToTheModel(t *testing.T) {
	eachProvider(t, func(t *testing.T, p provider) {
		srv := p.serve(t,
			llmtest.Reply{Body: p.stream("", llmtest.Call{ID: "u", Name: "no_such_tool", Args: `{}`},
				llmtest.Call{ID: "j", Name: "echo", Args: `{"message": "hi"`},
				llmtest.Call{ID: "k", Name: "echo", Args: `["hi"]`})},
			llmtest.Reply{Body: p.stream("", llmtest.Call{ID: "ok", Name: "echo", Args: `{"message":"again"}`})},
			llmtest.Reply{Body: p.stream("Recovered.")})
		a, rec := newAgent(t, p, srv, host.Options{})
		res, err := a.Run(t.Context(), "go")
		if err != nil {
			t.Fatal(err)
		}
		if res.Text != "Recovered." || res.Steps != 3 {
			t.Fatalf("result %+v", res)
		}
		got := p.results(srv.Requests()[1].JSON)
		if r := got["u"]; !r.isError || !strings.Contains(r.text, `unknown tool "no_such_tool"; the available tools are: `) || !strings.Contains(r.text, "echo") {
			t.Errorf("unknown tool: %+v", r)
		}
		if r := got["j"]; !r.isError || !strings.Contains(r.text, "the arguments are not valid JSON") || !strings.Contains(r.text, `{"message": "hi"`) {
			t.Errorf("malformed JSON: %+v", r)
		}
		if r := got["k"]; !r.isError || !strings.Contains(r.text, "must be a JSON object") {
			t.Errorf("an array: %+v", r)
		}
		if r := p.results(srv.Requests()[2].JSON)["ok"]; r.text != "hello again" {
			t.Errorf("the retry: %+v", r)
		}
		// Only the good call reached the server.
		if calls := rec.results()["echo"]; len(calls) != 3 || resultText(calls[2]) != "hello again" {
			t.Errorf("echo results %d", len(calls))
		}
	})
}

// After MaxSteps requests the run stops with ErrMaxSteps; the last calls are
// answered "not run" without running, and the conversation can go on.
func TestRunStopsAtMaxSteps(t *testing.T) {
	eachProvider(t, func(t *testing.T, p provider) {
		call := func(id string) llmtest.Reply {
			return llmtest.Reply{Body: p.stream("", llmtest.Call{ID: id, Name: "echo", Args: `{"message":"` + id + `"}`})}
		}
		srv := p.serve(t, call("s1"), call("s2"), llmtest.Reply{Body: p.stream("Fine, I stop.")})
		a, rec := newAgent(t, p, srv, host.Options{MaxSteps: 2})
		res, err := a.Run(t.Context(), "loop forever")
		if !errors.Is(err, host.ErrMaxSteps) || res.Steps != 2 {
			t.Fatalf("err %v, result %+v", err, res)
		}
		if n := len(rec.results()["echo"]); n != 1 {
			t.Errorf("echo ran %d times, want 1 (the second step's call must not run)", n)
		}
		res, err = a.Run(t.Context(), "stop now")
		if err != nil || res.Text != "Fine, I stop." {
			t.Fatalf("next run: %v %+v", err, res)
		}
		if r := p.results(srv.Requests()[2].JSON)["s2"]; !r.isError || !strings.Contains(r.text, "limit of 2 model requests") {
			t.Errorf("the unrun call's result: %+v", r)
		}
	})
}

// A declined call is not run; the model is told.
func TestRunApproval(t *testing.T) {
	eachProvider(t, func(t *testing.T, p provider) {
		srv := p.serve(t,
			llmtest.Reply{Body: p.stream("", llmtest.Call{ID: "e", Name: "echo", Args: `{"message":"x"}`}, llmtest.Call{ID: "d", Name: "add", Args: `{"a":1,"b":1}`})},
			llmtest.Reply{Body: p.stream("OK.")})
		var asked []string
		a, rec := newAgent(t, p, srv, host.Options{Approve: func(ctx context.Context, c *host.Call) (bool, error) {
			asked = append(asked, fmt.Sprintf("%s %s", c.Name, c.Arguments))
			return c.Name == "echo", nil
		}})
		if _, err := a.Run(t.Context(), "go"); err != nil {
			t.Fatal(err)
		}
		if len(asked) != 2 || asked[0] != `echo {"message":"x"}` || asked[1] != `add {"a":1,"b":1}` {
			t.Errorf("asked %q", asked)
		}
		got := p.results(srv.Requests()[1].JSON)
		if got["e"].text != "hello x" || !got["d"].isError || !strings.Contains(got["d"].text, "declined") {
			t.Errorf("results %+v", got)
		}
		written := map[string]string{} // the arguments as they streamed, by call id
		for _, ev := range rec.events {
			if ev.Type == host.EventToolCall && ev.Call.Name == "add" {
				t.Error("the declined call was started")
			}
			if ev.Type == host.EventToolArguments {
				if ev.Call.Tool == nil || ev.Call.Tool.Name != ev.Call.Name || ev.Call.Arguments != nil {
					t.Errorf("a streaming call: %+v", ev.Call)
				}
				written[ev.Call.ID] += ev.Text
			}
			if ev.Type == host.EventToolResult && ev.NotRun != (ev.Call.Name == "add") {
				t.Errorf("%s's result: NotRun %v", ev.Call.Name, ev.NotRun)
			}
		}
		if written["e"] != `{"message":"x"}` || written["d"] != `{"a":1,"b":1}` {
			t.Errorf("the arguments streamed as %q", written)
		}
	})
}

// The demo's sample tool asks the client's model (sampling/createMessage):
// the same scripted model answers, and its answer reaches the tool.
func TestSamplingAnsweredByTheModel(t *testing.T) {
	eachProvider(t, func(t *testing.T, p provider) {
		srv := p.serve(t,
			llmtest.Reply{Body: p.stream("", llmtest.Call{ID: "s", Name: "sample", Args: `{"prompt":"Say hi","maxTokens":40}`})},
			llmtest.Reply{Body: p.stream("Hi from the model"), Check: func(t testing.TB, body map[string]any) {
				if _, has := body["tools"]; has || body["max_tokens"] != 40.0 {
					t.Errorf("the sampling request: %v", body)
				}
				msgs := llmtest.Messages(body)
				if len(msgs) != 1 || !strings.Contains(fmt.Sprint(msgs[0]["content"]), "Say hi") {
					t.Errorf("sampling messages %v", msgs)
				}
			}},
			llmtest.Reply{Body: p.stream("It said hi.")})
		a, _ := newAgent(t, p, srv, host.Options{})
		res, err := a.Run(t.Context(), "sample something")
		if err != nil {
			t.Fatal(err)
		}
		model := llmtest.OpenAIModel
		if p.name == "anthropic" {
			model = llmtest.AnthropicModel
		}
		if r := p.results(srv.Requests()[2].JSON)["s"]; r.text != "Hi from the model (model "+model+")" || r.isError {
			t.Errorf("the tool's result: %+v", r)
		}
		if res.Text != "It said hi." || srv.Remaining() != 0 {
			t.Errorf("answer %q, %d replies unused", res.Text, srv.Remaining())
		}
	})
}

// A provider error ends the run with that error; the next run goes on.
func TestRunProviderError(t *testing.T) {
	eachProvider(t, func(t *testing.T, p provider) {
		srv := p.serve(t,
			llmtest.Reply{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"bad request"}}`},
			llmtest.Reply{Body: p.stream("Back.")})
		a, _ := newAgent(t, p, srv, host.Options{})
		_, err := a.Run(t.Context(), "one")
		var ae *llm.APIError
		if !errors.As(err, &ae) || ae.StatusCode != 400 || ae.Message != "bad request" {
			t.Fatalf("err %v", err)
		}
		res, err := a.Run(t.Context(), "two")
		if err != nil || res.Text != "Back." {
			t.Fatalf("%v %+v", err, res)
		}
	})
}
