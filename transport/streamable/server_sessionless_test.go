package streamable

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// sessionSpy is a server with a tool "who" that hands the session serving it to the
// test, then answers with its protocol version.
func sessionSpy(t *testing.T) (*mcp.Server, chan *mcp.ServerSession) {
	t.Helper()
	seen := make(chan *mcp.ServerSession, 4)
	srv := mcp.NewServer(protocol.Implementation{Name: "spy", Version: "1"}, nil)
	if err := mcp.AddTool(srv, &protocol.Tool{Name: "who"}, func(ctx context.Context, req *mcp.ToolRequest, _ struct{}) (string, error) {
		seen <- req.Session
		return "version " + req.Session.ProtocolVersion(), nil
	}); err != nil {
		t.Fatal(err)
	}
	return srv, seen
}

func TestSessionlessToolCallsWithoutInitialize(t *testing.T) {
	srv, seen := sessionSpy(t)
	hs := newHarness(t, srv, &HandlerOptions{Sessionless: true})
	ctx := testkit.Context(t)
	for i, v := range []string{"", "2025-06-18"} {
		resp := hs.post("", v, callBody(i+1, "who", `{}`, ""))
		body := readBody(t, resp)
		want := v
		if want == "" {
			want = DefaultProtocolVersion
		}
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, "version "+want) {
			t.Fatalf("POST %d: %d %s, want the answer at version %s", i, resp.StatusCode, body, want)
		}
		if resp.Header.Get(HeaderSessionID) != "" {
			t.Fatal("a sessionless handler issued a session id")
		}
		// The connection ended with the POST: its Read returned io.EOF.
		ss := <-seen
		select {
		case <-ss.Done():
		case <-ctx.Done():
			t.Fatal("the sessionless connection outlived its POST")
		}
	}
	if n := len(srv.Sessions()); n != 0 {
		t.Errorf("the server keeps %d sessions of a sessionless handler, want none", n)
	}
}

func TestSessionlessInitializeAndMethods(t *testing.T) {
	hs := newHarness(t, newDemo(t), &HandlerOptions{Sessionless: true})
	ctx := testkit.Context(t)
	resp := hs.post("", "", initBody("2025-11-25"))
	body := readBody(t, resp)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"protocolVersion":"2025-11-25"`) || resp.Header.Get(HeaderSessionID) != "" {
		t.Fatalf("initialize: %d %s (session %q)", resp.StatusCode, body, resp.Header.Get(HeaderSessionID))
	}
	wantStatus(t, hs.post("", "2025-06-18", `{"jsonrpc":"2.0","method":"notifications/initialized"}`), http.StatusAccepted, 0)
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		resp := hs.request(ctx, m, nil, "")
		if allow := resp.Header.Get("Allow"); allow != "POST" {
			t.Errorf("%s: Allow %q, want POST", m, allow)
		}
		wantStatus(t, resp, http.StatusMethodNotAllowed, -32600)
	}
	wantStatus(t, hs.post("", "2099-01-01", callBody(1, "echo", `{"message":"x"}`, "")), http.StatusBadRequest, -32600)

	// Progress streams on the POST, without event ids: nothing could resume it.
	evs := mustEvents(t, hs.post("", "2025-11-25", callBody(2, "count", `{"n":3}`, `{"progressToken":"s"}`)))
	if len(evs) != 4 {
		t.Fatalf("%d events, want 3 progress and the response", len(evs))
	}
	for _, ev := range evs {
		if ev.ID != "" || len(ev.Data) == 0 {
			t.Fatalf("sessionless event %+v: want data and no id", ev)
		}
	}
	if m := decodeRPC(t, evs[3].Data); string(m.ID) != "2" {
		t.Fatalf("last event %s", evs[3].Data)
	}
	// A 2025-03-26 batch.
	batch := `[` + callBody(1, "echo", `{"message":"a"}`, "") + `,` + callBody(2, "echo", `{"message":"b"}`, "") + `]`
	body = readBody(t, hs.post("", "2025-03-26", batch))
	if !strings.HasPrefix(body, "[") || !strings.Contains(body, "hello a") || !strings.Contains(body, "hello b") {
		t.Fatalf("batch: %s", body)
	}
}

func TestSessionlessDisconnectCancels(t *testing.T) {
	srv := mcp.NewServer(protocol.Implementation{Name: "hang", Version: "1"}, nil)
	started := make(chan *mcp.ServerSession, 1)
	if err := mcp.AddTool(srv, &protocol.Tool{Name: "hang"}, func(ctx context.Context, req *mcp.ToolRequest, _ struct{}) (string, error) {
		started <- req.Session
		<-ctx.Done()
		return "", ctx.Err()
	}); err != nil {
		t.Fatal(err)
	}
	hs := newHarness(t, srv, &HandlerOptions{Sessionless: true})
	ctx, cancel := context.WithCancel(testkit.Context(t))
	done := make(chan struct{})
	go func() {
		defer close(done)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, hs.srv.URL, strings.NewReader(callBody(1, "hang", `{}`, "")))
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		if resp, err := hs.srv.Client().Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	ss := <-started
	cancel()
	<-done
	select {
	case <-ss.Done():
	case <-testkit.Context(t).Done():
		t.Fatal("the sessionless request was not cancelled when its client left")
	}
}
