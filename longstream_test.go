package mcpkit_test

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/internal/sse"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
)

// TestLongStreamsSurviveTheLimits serves with Serve's settings (the
// recommended http.Server timeouts, the body deadline, the connection cap) and
// checks, over two minutes of a synctest bubble's fake clock, that they cut
// what they should and nothing else: a tool call that runs two minutes is
// answered on its SSE stream, a Streamable HTTP GET stream and an HTTP+SSE
// stream idle for two minutes still deliver, while a connection that sends
// nothing is closed after the header timeout.
func TestLongStreamsSurviveTheLimits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := mcp.NewServer(mcp.Implementation{Name: "slow", Version: "1"}, nil)
		err := mcp.AddTool(srv, &mcp.Tool{Name: "slow"}, func(ctx context.Context, req *mcp.ToolRequest, _ struct{}) (string, error) {
			time.Sleep(2 * time.Minute)
			return "done", nil
		})
		if err != nil {
			t.Fatal(err)
		}
		pn := testkit.NewPipeNet()
		ctx, stop := context.WithCancel(t.Context())
		served := make(chan error, 1)
		go func() { served <- mcpkit.Serve(ctx, pn, srv, nil) }()
		c := &pipeClient{t: t, http: pn.Client()}
		defer c.http.CloseIdleConnections()

		// A connection that never sends its request is closed after the header timeout.
		idle, err := pn.Dial(t.Context(), "tcp", "")
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if _, err := io.ReadAll(idle); err != nil || time.Since(start) != mcpkit.DefaultReadHeaderTimeout {
			t.Errorf("a silent connection was closed after %v (%v), want %v", time.Since(start), err, mcpkit.DefaultReadHeaderTimeout)
		}

		sid := c.initialize()
		get := c.open(http.MethodGet, "/mcp", sid, "")
		legacy := c.open(http.MethodGet, "/sse", "", "")
		endpoint := legacy.next("endpoint")

		call := c.open(http.MethodPost, "/mcp", sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{}}}`)
		if got := call.next("message"); !strings.Contains(got, `"id":2`) || !strings.Contains(got, "done") {
			t.Fatalf("the two-minute call answered %s", got)
		}
		if elapsed := time.Since(start); elapsed < 2*time.Minute {
			t.Fatalf("the call took %v", elapsed)
		}

		// Both idle streams still deliver.
		_ = mcp.AddTool(srv, &mcp.Tool{Name: "new"}, func(context.Context, *mcp.ToolRequest, struct{}) (string, error) { return "", nil })
		if got := get.next("message"); !strings.Contains(got, "notifications/tools/list_changed") {
			t.Errorf("the GET stream delivered %s", got)
		}
		c.post("/"+strings.TrimPrefix(endpoint, "/"), "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		if got := legacy.next("message"); !strings.Contains(got, `"protocolVersion":"2024-11-05"`) {
			t.Errorf("the HTTP+SSE stream delivered %s", got)
		}

		stop()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		get.close()
		legacy.close()
		call.close()
	})
}

// pipeClient sends raw MCP requests over a PipeNet.
type pipeClient struct {
	t    *testing.T
	http *http.Client
}

func (c *pipeClient) request(method, path, sid, body string) *http.Response {
	c.t.Helper()
	req, _ := http.NewRequestWithContext(c.t.Context(), method, "http://127.0.0.1"+path, strings.NewReader(body))
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp
}

func (c *pipeClient) post(path, sid, body string) *http.Response {
	c.t.Helper()
	resp := c.request(http.MethodPost, path, sid, body)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

func (c *pipeClient) initialize() string {
	c.t.Helper()
	resp := c.post("/mcp", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		c.t.Fatalf("initialize: %s", resp.Status)
	}
	c.post("/mcp", sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return sid
}

// open sends a request whose answer is an event stream, which it reads on
// from then on (a pipe has no buffer: a stream nobody reads would block the
// server's writes, and it would cut the client as too slow).
func (c *pipeClient) open(method, path, sid, body string) *eventStream {
	c.t.Helper()
	resp := c.request(method, path, sid, body)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		c.t.Fatalf("%s %s: %s %s", method, path, resp.Status, resp.Header.Get("Content-Type"))
	}
	s := &eventStream{t: c.t, resp: resp, events: make(chan sse.Event, 16), ended: make(chan struct{})}
	go func() {
		defer close(s.ended)
		dec := sse.NewDecoder(bufio.NewReader(resp.Body))
		for {
			ev, err := dec.Next()
			if err != nil {
				s.err = err
				close(s.events)
				return
			}
			if len(ev.Data) > 0 { // not a priming event
				s.events <- ev
			}
		}
	}()
	return s
}

type eventStream struct {
	t      *testing.T
	resp   *http.Response
	events chan sse.Event
	err    error // why the stream ended, once events is closed
	ended  chan struct{}
}

// next returns the data of the next event, which must be of type typ.
func (s *eventStream) next(typ string) string {
	s.t.Helper()
	ev, ok := <-s.events
	if !ok {
		s.t.Fatalf("the stream ended: %v", s.err)
	}
	if ev.Type != typ {
		s.t.Fatalf("event %q %s, want a %q", ev.Type, ev.Data, typ)
	}
	return string(ev.Data)
}

// close ends the stream and waits for its reader.
func (s *eventStream) close() {
	s.resp.Body.Close()
	<-s.ended
}
