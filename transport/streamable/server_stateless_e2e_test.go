package streamable

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// These tests serve 2026-07-28 requests with a real mcp.Server behind the
// handler, in both handler modes.

func TestStatelessEndToEnd(t *testing.T) {
	for _, sessionless := range []bool{false, true} {
		hs := newHarness(t, echoServer(t), &HandlerOptions{Sessionless: sessionless})
		check := func(name string, hdr map[string]string, body string, status int, want string) {
			t.Helper()
			resp := hs.postStateless(hdr, body)
			got := readBody(t, resp)
			if resp.StatusCode != status || !strings.Contains(got, want) {
				t.Errorf("sessionless=%v, %s: %d %s; want %d and %s", sessionless, name, resp.StatusCode, got, status, want)
			}
			if resp.Header.Get(HeaderSessionID) != "" {
				t.Errorf("sessionless=%v, %s: a session id", sessionless, name)
			}
		}
		check("tools/call", statelessHeaders("tools/call", "echo"),
			statelessBody(1, "tools/call", `"name":"echo","arguments":{"message":"world"}`), http.StatusOK, `hello world`)
		check("server/discover", statelessHeaders("server/discover", ""),
			statelessBody(2, "server/discover", ""), http.StatusOK, `"supportedVersions"`)
		check("unknown tool (-32602 with complete _meta)", statelessHeaders("tools/call", "nope"),
			statelessBody(3, "tools/call", `"name":"nope","arguments":{}`), http.StatusOK, `"code":-32602`)
		check("no _meta", statelessHeaders("server/discover", ""),
			`{"jsonrpc":"2.0","id":4,"method":"server/discover","params":{}}`, http.StatusBadRequest, `"code":-32602`)
		check("no clientCapabilities", statelessHeaders("tools/list", ""),
			`{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
			http.StatusBadRequest, `"code":-32602`)
		check("unsupported version", statelessHeaders("server/discover", "", HeaderProtocolVersion, "v999.0.0"),
			`{"jsonrpc":"2.0","id":6,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			http.StatusBadRequest, `"code":-32022`)
		for i, m := range []string{"initialize", "ping", "logging/setLevel", "resources/subscribe", "unknown/method"} {
			check(m, statelessHeaders(m, ""), statelessBody(10+i, m, ""), http.StatusNotFound, `"code":-32601`)
		}
		if n := hs.h.Sessions(); n != 0 {
			t.Errorf("sessionless=%v: %d sessions after stateless requests", sessionless, n)
		}
	}
}

// TestStatelessEndToEndProgress: the progress a tool reports travels on its
// request's SSE stream, before the result.
func TestStatelessEndToEndProgress(t *testing.T) {
	srv := mcp.NewServer(protocol.Implementation{Name: "p", Version: "1"}, &mcp.ServerOptions{Logger: quietLogger})
	if err := mcp.AddTool(srv, &protocol.Tool{Name: "count"}, func(ctx context.Context, req *mcp.ToolRequest, _ struct{}) (string, error) {
		for i := range 3 {
			if err := req.ReportProgress(ctx, float64(i+1), 3, ""); err != nil {
				return "", err
			}
		}
		return "counted", nil
	}); err != nil {
		t.Fatal(err)
	}
	hs := newHarness(t, srv, nil)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{},"_meta":{"progressToken":"p1",` + testMeta[1:] + `}}`
	evs := mustEvents(t, hs.postStateless(statelessHeaders("tools/call", "count"), body))
	if len(evs) != 4 {
		t.Fatalf("%d events, want 3 progress notifications and the result", len(evs))
	}
	for i, ev := range evs {
		m := decodeRPC(t, ev.Data)
		if (i < 3 && m.Method != protocol.NotificationProgress) || (i == 3 && !strings.Contains(string(m.Result), "counted")) {
			t.Fatalf("event %d: %s", i, ev.Data)
		}
	}
}

// TestStatelessEndToEndDisconnectCancels: closing the response cancels the tool.
func TestStatelessEndToEndDisconnectCancels(t *testing.T) {
	srv := mcp.NewServer(protocol.Implementation{Name: "hang", Version: "1"}, &mcp.ServerOptions{Logger: quietLogger})
	started := make(chan struct{})
	cancelled := make(chan struct{})
	if err := mcp.AddTool(srv, &protocol.Tool{Name: "hang"}, func(ctx context.Context, req *mcp.ToolRequest, _ struct{}) (string, error) {
		close(started)
		<-ctx.Done()
		close(cancelled)
		return "", ctx.Err()
	}); err != nil {
		t.Fatal(err)
	}
	hs := newHarness(t, srv, nil)
	ctx, cancel := context.WithCancel(testkit.Context(t))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, hs.srv.URL, strings.NewReader(statelessBody(1, "tools/call", `"name":"hang","arguments":{}`)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	for k, v := range statelessHeaders("tools/call", "hang") {
		req.Header.Set(k, v)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := hs.srv.Client().Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	<-started
	cancel()
	// Well before jsonrpc's grace for handlers of a peer that merely stopped
	// sending (5 s): a closed response is a cancellation, not an end of input.
	timer := time.NewTimer(3 * time.Second)
	defer timer.Stop()
	select {
	case <-cancelled:
	case <-timer.C:
		t.Fatal("the tool was not cancelled when its client left")
	}
	<-done
}
