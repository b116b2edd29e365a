package tap

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/demo"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/legacysse"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// demoUpstream serves mcpkit's demo server over both HTTP transports, as `mcpkit
// serve --http` does: /mcp (Streamable HTTP, sessions and stateless), /sse and
// /messages (HTTP+SSE).
func demoUpstream(t *testing.T) string {
	t.Helper()
	srv, err := demo.NewServer(&demo.Options{CountInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	streamableHandler := streamable.NewHandler(srv, nil)
	legacy := legacysse.NewHandler(srv, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", streamableHandler)
	mux.Handle("/sse", legacy)
	mux.Handle("/messages", legacy)
	hs := httptest.NewServer(mux)
	t.Cleanup(func() {
		_ = streamableHandler.Close()
		_ = legacy.Close()
		hs.Close()
	})
	return hs.URL
}

// exercise runs a client session through its paces: tools, a tool with progress
// (an SSE reply), and the end of the session.
func exercise(t *testing.T, conn transport.Conn, version string) {
	t.Helper()
	ctx := testkit.Context(t)
	client := mcp.NewClient(protocol.Implementation{Name: "tap-test", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: version})
	cs, err := client.Connect(ctx, conn)
	if err != nil {
		t.Fatalf("connecting through the tap: %v", err)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Errorf("tools/list: %v", err)
	}
	res, err := cs.CallTool(ctx, "echo", map[string]any{"message": "through the tap"})
	if err != nil || len(res.Content) == 0 || res.Content[0].Text != "hello through the tap" {
		t.Errorf("echo: %+v, %v", res, err)
	}
	var progress int
	res, err = cs.CallTool(ctx, "count", map[string]any{"n": 3},
		mcp.WithProgress(func(*protocol.ProgressParams) { progress++ }))
	if err != nil || res.IsError || progress != 3 {
		t.Errorf("count: %+v, %v, %d progress notifications", res, err, progress)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("closing: %v", err)
	}
}

// checkPaired fails unless every request in recs got its response.
func checkPaired(t *testing.T, recs []*capture.Record) capture.Summary {
	t.Helper()
	sum := capture.Summarize(recs)
	if len(sum.Unanswered) > 0 || sum.Unmatched > 0 || sum.Requests == 0 || sum.Invalid > 0 || sum.Dropped > 0 {
		t.Errorf("summary: %s\nrecords: %s", sum.String(), kinds(recs))
	}
	t.Logf("%s", sum.String())
	return sum
}

// TestHTTPTapStreamableEndToEnd runs mcpkit's client through the tap against the
// demo server, in both eras: stateless (2026-07-28) and a legacy session.
func TestHTTPTapStreamableEndToEnd(t *testing.T) {
	for _, version := range []string{"", "2025-11-25"} {
		name := version
		if name == "" {
			name = "stateless"
		}
		t.Run(name, func(t *testing.T) {
			up := demoUpstream(t)
			capt := newTestCapture(t)
			addr, tp := startTap(t, up+"/mcp", capt, HTTPOptions{})
			conn, err := streamable.NewClientConn(testkit.Context(t), "http://"+addr+"/mcp", nil)
			if err != nil {
				t.Fatal(err)
			}
			exercise(t, conn, version)
			_ = tp.Close() // every record is in
			recs := capt.records(t)
			sum := checkPaired(t, recs)
			if sum.Notifications < 3 {
				t.Errorf("%d notifications recorded, want the 3 progress ones at least", sum.Notifications)
			}
			opens, closes := findKind(recs, capture.KindStreamOpen), findKind(recs, capture.KindStreamClose)
			if len(opens) == 0 || len(closes) == 0 {
				t.Errorf("no SSE stream recorded: %s", kinds(recs))
			}
			for _, r := range recs {
				if r.Transport != capture.TransportStreamable || r.HTTP == nil || r.HTTP.Exchange == 0 {
					t.Errorf("record %d: transport %q, http %+v", r.Seq, r.Transport, r.HTTP)
				}
			}
			if version != "" {
				checkLegacySession(t, recs)
			}
		})
	}
}

// checkLegacySession checks the records of a session: after initialize, all carry
// the session id the server gave, and the session ends with a DELETE.
func checkLegacySession(t *testing.T, recs []*capture.Record) {
	t.Helper()
	var sid string
	for _, r := range recs {
		if r.Dir == capture.ServerToClient && r.HTTP != nil && r.HTTP.Headers["Mcp-Session-Id"] != nil {
			sid = r.HTTP.Headers["Mcp-Session-Id"][0]
			break
		}
	}
	if sid == "" {
		t.Fatalf("no Mcp-Session-Id in the recorded headers: %s", kinds(recs))
	}
	deleted := false
	for _, r := range recs[1:] {
		if r.Session != sid {
			t.Errorf("record %d (%s %s): session %q, want %q", r.Seq, r.Kind, r.Dir, r.Session, sid)
		}
		deleted = deleted || (r.HTTP != nil && r.HTTP.Method == http.MethodDelete && r.Kind == capture.KindHTTP)
	}
	if !deleted {
		t.Errorf("the DELETE that ends the session is not recorded: %s", kinds(recs))
	}
}

// TestHTTPTapLegacySSEEndToEnd runs mcpkit's HTTP+SSE client through the tap: the
// endpoint event leads the client back through the tap, and every record names the
// transport and the session.
func TestHTTPTapLegacySSEEndToEnd(t *testing.T) {
	up := demoUpstream(t)
	capt := newTestCapture(t)
	addr, tp := startTap(t, up+"/sse", capt, HTTPOptions{})
	conn, err := legacysse.NewClientConn(testkit.Context(t), "http://"+addr+"/sse", nil)
	if err != nil {
		t.Fatal(err)
	}
	exercise(t, conn, "2024-11-05")
	_ = tp.Close() // every record is in
	recs := capt.records(t)
	checkPaired(t, recs)
	eps := findKind(recs, capture.KindEndpoint)
	if len(eps) != 1 || !strings.HasPrefix(eps[0].Text, "/messages?sessionId=") || eps[0].Endpoint != eps[0].Text {
		t.Fatalf("endpoint records %+v: want one, relative, relayed as it was", eps)
	}
	session := eps[0].Session
	posts := 0
	for _, r := range recs {
		if r.IsMessage() {
			if r.Transport != capture.TransportHTTPSSE || r.Session != session {
				t.Errorf("message %d: transport %q session %q, want http+sse %q", r.Seq, r.Transport, r.Session, session)
			}
			if r.Dir == capture.ClientToServer {
				posts++
				var m struct{ Method string }
				_ = json.Unmarshal(r.Msg, &m)
				if r.HTTP.Method != http.MethodPost || !strings.HasPrefix(r.HTTP.Path, "/messages?") {
					t.Errorf("message %d (%s) came as %s %s", r.Seq, m.Method, r.HTTP.Method, r.HTTP.Path)
				}
			}
		}
	}
	if posts < 4 {
		t.Errorf("%d client messages recorded, want initialize, initialized, tools/list and the calls", posts)
	}
	checkHTTPSSELane(t, recs, session)
}
