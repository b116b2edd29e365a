package host_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/host"
	"github.com/mcpkit/mcpkit/internal/llmtest"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// toolNames returns the names of the tools a request offered.
func toolNames(body map[string]any) []string {
	var out []string
	tools, _ := body["tools"].([]any)
	for _, t := range tools {
		m := t.(map[string]any)
		if f, ok := m["function"].(map[string]any); ok {
			m = f
		}
		out = append(out, m["name"].(string))
	}
	return out
}

// With search on, the first request offers only search_tools and
// load_tools; the model searches, loads echo, and calls it; echo's
// definition is in the request after the load, and the call reaches the
// server. The search found echo first for "echo a message back".
func TestToolSearchFindsLoadsAndCalls(t *testing.T) {
	eachProvider(t, func(t *testing.T, p provider) {
		srv := p.serve(t,
			llmtest.Reply{Body: p.stream("", llmtest.Call{ID: "s1", Name: "search_tools", Args: `{"query":"echo a message back"}`})},
			llmtest.Reply{Body: p.stream("", llmtest.Call{ID: "l1", Name: "load_tools", Args: `{"names":["echo","nope"]}`})},
			llmtest.Reply{Body: p.stream("", llmtest.Call{ID: "c1", Name: "echo", Args: `{"message":"hi"}`})},
			llmtest.Reply{Body: p.stream("done")})
		a, rec := newAgent(t, p, srv, host.Options{ToolSearch: host.ToolSearchOn})
		if _, err := a.Run(t.Context(), "Echo hi"); err != nil {
			t.Fatal(err)
		}
		reqs := srv.Requests()
		if got := toolNames(reqs[0].JSON); strings.Join(got, ",") != "search_tools,load_tools" {
			t.Fatalf("first request offered %v", got)
		}
		res := rec.results()
		search := resultText(res["search_tools"][0])
		if first, _, _ := strings.Cut(search, "\n"); !strings.HasPrefix(first, "echo: Echoes the message back") {
			t.Errorf("search answered:\n%s", search)
		}
		if load := resultText(res["load_tools"][0]); !strings.Contains(load, "Loaded echo") || !strings.Contains(load, "Unknown: nope") {
			t.Errorf("load answered %q", load)
		}
		if got := toolNames(reqs[2].JSON); strings.Join(got, ",") != "search_tools,load_tools,echo" {
			t.Errorf("after the load the request offered %v", got)
		}
		if r := res["echo"]; len(r) != 1 || resultText(r[0]) != "hello hi" {
			t.Errorf("echo: %+v", r)
		}
		if !a.Searching() {
			t.Error("Searching() is false")
		}
	})
}

// Auto searches above the threshold only: the demo's ~2,700 tokens stay
// whole under the default, and go behind search under a lower threshold.
func TestToolSearchAutoThreshold(t *testing.T) {
	p := providers[0]
	for _, c := range []struct {
		threshold int
		search    bool
	}{{0, false}, {500, true}} {
		srv := p.serve(t, llmtest.Reply{Body: p.stream("ok")})
		a, _ := newAgent(t, p, srv, host.Options{ToolSearch: host.ToolSearchAuto, SearchThreshold: c.threshold})
		if _, err := a.Run(t.Context(), "hi"); err != nil {
			t.Fatal(err)
		}
		n := len(toolNames(srv.Requests()[0].JSON))
		if a.Searching() != c.search || (c.search && n != 2) || (!c.search && n < 10) {
			t.Errorf("threshold %d: searching %v, %d tools offered", c.threshold, a.Searching(), n)
		}
	}
}

// An app-only tool (_meta.ui.visibility ["app"]) is never offered to the
// model, with or without search, and a call to it is refused as unknown;
// a tool for both stays.
func TestAppOnlyToolsHiddenFromModel(t *testing.T) {
	s := mcp.NewServer(protocol.Implementation{Name: "app", Version: "1"}, nil)
	add := func(name string, meta protocol.Meta) {
		s.AddRawTool(&protocol.Tool{Name: name, Description: "Refreshes the chart data.", Meta: meta},
			func(context.Context, *mcp.ToolRequest) (*protocol.CallToolResult, error) {
				return protocol.NewToolResultText("ran " + name), nil
			})
	}
	add("refresh", protocol.Meta{"ui": map[string]any{"resourceUri": "ui://chart", "visibility": []any{"app"}}})
	add("show_chart", protocol.Meta{"ui": map[string]any{"resourceUri": "ui://chart", "visibility": []any{"model", "app"}}})
	for _, mode := range []host.ToolSearch{host.ToolSearchOff, host.ToolSearchOn} {
		p := providers[0]
		srv := p.serve(t,
			llmtest.Reply{Body: p.stream("", llmtest.Call{ID: "s", Name: "search_tools", Args: `{"query":"refresh chart"}`}, llmtest.Call{ID: "r", Name: "refresh"})},
			llmtest.Reply{Body: p.stream("done")})
		cs := connect(t, s, nil)
		rec := &recorder{}
		a := host.New(host.NewSessionSource(host.Server{Name: "app", Session: fixedSession(cs)}),
			host.Options{Provider: p.client(srv), Model: "m", ToolSearch: mode, OnEvent: rec.on})
		if _, err := a.Run(t.Context(), "go"); err != nil {
			t.Fatal(err)
		}
		body := string(srv.Requests()[0].Body)
		if strings.Contains(body, `"refresh"`) {
			t.Errorf("mode %d: the app-only tool was offered: %s", mode, body)
		}
		res := rec.results()
		if r := res["refresh"]; len(r) != 1 || !r[0].IsError || !strings.Contains(resultText(r[0]), "unknown tool") {
			t.Errorf("mode %d: calling the app-only tool: %+v", mode, r)
		}
		if mode == host.ToolSearchOn {
			if s := resultText(res["search_tools"][0]); strings.Contains(s, "refresh:") || !strings.Contains(s, "show_chart") {
				t.Errorf("search answered %q", s)
			}
		} else if !strings.Contains(body, `"show_chart"`) {
			t.Errorf("the tool for model and app was not offered: %s", body)
		}
	}
}

// With search on, a call of a tool the model knows by name (never loaded)
// still runs, and its definition is offered from the next request on; a
// name that is no tool is refused with a pointer to the search.
func TestToolSearchCallByKnownName(t *testing.T) {
	p := providers[0]
	srv := p.serve(t,
		llmtest.Reply{Body: p.stream("", llmtest.Call{ID: "c1", Name: "echo", Args: `{"message":"hi"}`}, llmtest.Call{ID: "c2", Name: "ecko", Args: `{}`})},
		llmtest.Reply{Body: p.stream("done")})
	a, rec := newAgent(t, p, srv, host.Options{ToolSearch: host.ToolSearchOn})
	if _, err := a.Run(t.Context(), "Echo hi"); err != nil {
		t.Fatal(err)
	}
	res := rec.results()
	if r := res["echo"]; len(r) != 1 || resultText(r[0]) != "hello hi" {
		t.Errorf("echo: %+v", r)
	}
	if r := res["ecko"]; len(r) != 1 || !r[0].IsError || !strings.Contains(resultText(r[0]), "find tools with search_tools") {
		t.Errorf("ecko: %+v", r)
	}
	if got := toolNames(srv.Requests()[1].JSON); strings.Join(got, ",") != "search_tools,load_tools,echo" {
		t.Errorf("after the call the request offered %v", got)
	}
}
