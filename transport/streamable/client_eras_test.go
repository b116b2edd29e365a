package streamable

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/internal/wirecheck"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// This file runs mcp's client against this package's handler serving both eras on
// one endpoint: a client that detects the era speaks the stateless protocol, one
// pinned to a legacy version gets a session, and a server that refuses stateless
// requests is reached through the fallback to initialize.

// postLog records the headers of the POSTs a handler receives, by JSON-RPC method.
type postLog struct {
	mu    sync.Mutex
	posts map[string][]http.Header
}

func (l *postLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			var m struct {
				Method string `json:"method"`
			}
			body, _ := readAllAndRestore(r)
			_ = json.Unmarshal(body, &m)
			l.mu.Lock()
			if l.posts == nil {
				l.posts = make(map[string][]http.Header)
			}
			l.posts[m.Method] = append(l.posts[m.Method], r.Header.Clone())
			l.mu.Unlock()
		}
		h.ServeHTTP(w, r)
	})
}

func (l *postLog) of(method string) []http.Header {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.posts[method]
}

// erasServer serves an mcp.Server with a tool that mirrors an argument into a
// header and a tool that asks the user, behind a postLog.
func erasServer(t *testing.T, mws ...mcp.Middleware) (*httptest.Server, *postLog, *mcp.Server) {
	t.Helper()
	srv := mcp.NewServer(protocol.Implementation{Name: "both", Version: "1"}, &mcp.ServerOptions{Middleware: mws})
	err := srv.AddRawTool(&protocol.Tool{Name: "weather", InputSchema: json.RawMessage(
		`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"]}`)},
		func(ctx context.Context, r *mcp.ToolRequest) (*protocol.CallToolResult, error) {
			var in struct{ Region string }
			_ = json.Unmarshal(r.Params.Arguments, &in)
			return protocol.NewToolResultText("sunny in " + in.Region), nil
		})
	if err != nil {
		t.Fatal(err)
	}
	err = srv.AddRawTool(&protocol.Tool{Name: "ask"}, func(ctx context.Context, r *mcp.ToolRequest) (*protocol.CallToolResult, error) {
		el, err := r.Elicit(ctx, &protocol.ElicitParams{Message: "name?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
		if err != nil {
			return nil, err
		}
		return protocol.NewToolResultText("hi " + el.Content["name"].(string)), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var log postLog
	h := NewHandler(srv, nil)
	ts := testkit.NewServer(t, log.wrap(h))
	t.Cleanup(func() { _ = h.Close() }) // before the server stops
	return ts, &log, srv
}

func erasClient(t *testing.T, url string, version string, changed ...chan<- struct{}) *mcp.ClientSession {
	t.Helper()
	ctx := testkit.Context(t)
	conn := clientDial(t, url, nil)
	opts := &mcp.ClientOptions{
		ProtocolVersion: version,
		ElicitationHandler: func(ctx context.Context, _ *mcp.ClientSession, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
			return &protocol.ElicitResult{Action: protocol.ElicitActionAccept, Content: map[string]any{"name": "ada"}}, nil
		},
	}
	if len(changed) > 0 {
		opts.ToolListChangedHandler = func(ctx context.Context, _ *mcp.ClientSession) { changed[0] <- struct{}{} }
	}
	// What the client writes is checked against the schema of its version.
	cs, err := mcp.NewClient(clientInfo, opts).Connect(ctx, wirecheck.Wrap(t, conn, wirecheck.Client, wirecheck.CheckIncoming()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func erasCall(t *testing.T, cs *mcp.ClientSession, name string, args any, want string) {
	t.Helper()
	res, err := cs.CallTool(testkit.Context(t), name, args)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(res.Content) != 1 || res.Content[0].Text != want || res.IsError {
		t.Fatalf("%s answered %+v, want %q", name, res.Content, want)
	}
}

func TestClientBothErasOnOneEndpoint(t *testing.T) {
	ts, log, _ := erasServer(t)
	ctx := testkit.Context(t)

	stateless := erasClient(t, ts.URL, "")
	if !stateless.IsStateless() || stateless.InitializeResult().ServerInfo.Name != "both" {
		t.Fatalf("stateless %v, server %+v", stateless.IsStateless(), stateless.InitializeResult().ServerInfo)
	}
	if _, err := stateless.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	erasCall(t, stateless, "weather", map[string]any{"region": "Zürich"}, "sunny in Zürich")
	erasCall(t, stateless, "ask", nil, "hi ada")
	calls := log.of("tools/call")
	if len(calls) != 3 { // weather, then ask twice (an input round)
		t.Fatalf("%d tools/call POSTs, want 3", len(calls))
	}
	h := calls[0]
	if h.Get("Mcp-Method") != "tools/call" || h.Get("Mcp-Name") != "weather" || h.Get("Mcp-Protocol-Version") != "2026-07-28" ||
		h.Get("Mcp-Param-Region") != "=?base64?WsO8cmljaA==?=" || h.Get(HeaderSessionID) != "" {
		t.Errorf("stateless tools/call headers: %v", h)
	}
	if n := len(log.of("initialize")); n != 0 {
		t.Errorf("the stateless client sent initialize %d times", n)
	}

	legacy := erasClient(t, ts.URL, protocol.LatestLegacy)
	if legacy.IsStateless() || legacy.ProtocolVersion() != protocol.LatestLegacy {
		t.Fatalf("pinned client: stateless %v, version %q", legacy.IsStateless(), legacy.ProtocolVersion())
	}
	erasCall(t, legacy, "weather", map[string]any{"region": "Oslo"}, "sunny in Oslo")
	erasCall(t, legacy, "ask", nil, "hi ada")
	calls = log.of("tools/call")
	if h := calls[len(calls)-1]; h.Get(HeaderSessionID) == "" || h.Get("Mcp-Method") != "" {
		t.Errorf("legacy tools/call headers: %v", h)
	}
}

func TestClientFallsBackToALegacyOnlyHTTPServer(t *testing.T) {
	refuse := func(next mcp.Invoker) mcp.Invoker {
		return func(ctx context.Context, c *mcp.Call) (any, error) {
			if c.Direction == mcp.Incoming && (c.Method == protocol.MethodServerDiscover || protocol.IsStateless(c.Session.ProtocolVersion())) {
				return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "Method not found: %s", c.Method)
			}
			return next(ctx, c)
		}
	}
	ts, log, _ := erasServer(t, refuse)
	cs := erasClient(t, ts.URL, "")
	if cs.IsStateless() {
		t.Fatal("a server refusing stateless requests was taken for a stateless one")
	}
	erasCall(t, cs, "weather", map[string]any{"region": "Rome"}, "sunny in Rome")
	var methods []string
	for _, m := range []string{"server/discover", "initialize", "notifications/initialized", "tools/call"} {
		if len(log.of(m)) > 0 {
			methods = append(methods, m)
		}
	}
	if !slices.Equal(methods, []string{"server/discover", "initialize", "notifications/initialized", "tools/call"}) {
		t.Errorf("POSTed %v", methods)
	}
}

// readAllAndRestore reads r's body and puts it back for the handler.
func readAllAndRestore(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, err
}

// A subscriptions/listen stream over HTTP: the acknowledgement and the change
// notifications arrive on the request's event stream; Close ends the stream.
func TestClientListensOverHTTP(t *testing.T) {
	ts, log, srv := erasServer(t)
	changed := make(chan struct{}, 1)
	cs := erasClient(t, ts.URL, "", changed)
	ctx := testkit.Context(t)
	sub, err := cs.Listen(ctx, protocol.SubscriptionFilter{ToolsListChanged: true})
	if err != nil {
		t.Fatal(err)
	}
	if !sub.Acknowledged().ToolsListChanged {
		t.Errorf("acknowledged %+v", sub.Acknowledged())
	}
	if err := srv.AddRawTool(&protocol.Tool{Name: "late"}, func(ctx context.Context, r *mcp.ToolRequest) (*protocol.CallToolResult, error) {
		return protocol.NewToolResultText("x"), nil
	}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("no tools/list_changed arrived on the listen stream")
	}
	sub.Close()
	if sub.Err() != nil {
		t.Errorf("closed subscription: %v", sub.Err())
	}
	if h := log.of("subscriptions/listen"); len(h) != 1 || h[0].Get("Mcp-Method") != "subscriptions/listen" {
		t.Errorf("listen POSTs: %v", h)
	}
	if n := len(log.of("notifications/cancelled")); n != 0 {
		t.Errorf("closing the subscription POSTed notifications/cancelled %d times", n)
	}
}
