package streamable

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/memory"
)

var clientInfo = protocol.Implementation{Name: "client-test", Version: "1"}

// legacyClient are client options for the tests of the legacy era (sessions,
// re-initialization, the HTTP+SSE fallback): initialize at once, without the
// stateless probe.
func legacyClient() *mcp.ClientOptions {
	return &mcp.ClientOptions{ProtocolVersion: protocol.LatestLegacy}
}

// clientSessionServer issues a new session (s1, s2, ...) per initialize and answers
// 404 for sessions it has ended. tools/list names the session in its one tool.
type clientSessionServer struct {
	mu         sync.Mutex
	live       map[string]bool
	n          int
	refuseInit bool
}

func (s *clientSessionServer) expire(id string) {
	s.mu.Lock()
	delete(s.live, id)
	s.mu.Unlock()
}

func (s *clientSessionServer) setRefuseInit(v bool) {
	s.mu.Lock()
	s.refuseInit = v
	s.mu.Unlock()
}

func (s *clientSessionServer) serve(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sid := r.Header.Get(HeaderSessionID)
	switch {
	case r.Method != http.MethodPost:
		w.WriteHeader(http.StatusMethodNotAllowed)
	case msg.Method == "initialize":
		if sid != "" || s.refuseInit {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		s.n++
		sid = fmt.Sprintf("s%d", s.n)
		s.live[sid] = true
		w.Header().Set(HeaderSessionID, sid)
		clientReplyJSON(w, string(jsonrpc.AppendResult(nil, msg.ID, json.RawMessage(clientInitResult))))
	case !s.live[sid]:
		w.WriteHeader(http.StatusNotFound)
	case !msg.IsRequest():
		w.WriteHeader(http.StatusAccepted)
	default:
		clientReplyJSON(w, string(jsonrpc.AppendResult(nil, msg.ID, json.RawMessage(`{"tools":[{"name":"tool-of-`+sid+`","inputSchema":{"type":"object"}}]}`))))
	}
}

type clientExpiry struct{ oldID, newID string }

// A 404 for the session: the client starts a new session with the same initialize
// request, sends notifications/initialized, and retries the request, which succeeds.
func TestClientReinitializesExpiredSession(t *testing.T) {
	ctx := testkit.Context(t)
	srv := &clientSessionServer{live: map[string]bool{}}
	f := newClientFake(t, srv.serve)
	expired := make(chan clientExpiry, 10)
	conn := clientDial(t, f.URL, &ClientOptions{OnSessionExpired: func(oldID, newID string, err error) {
		if err != nil {
			t.Errorf("OnSessionExpired(%q, %q, %v)", oldID, newID, err)
		}
		expired <- clientExpiry{oldID, newID}
	}})
	cs, err := mcp.NewClient(clientInfo, &mcp.ClientOptions{Roots: []protocol.Root{}, ProtocolVersion: protocol.LatestLegacy}).Connect(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	clientWantTool(t, cs, "tool-of-s1")

	srv.expire("s1")
	var wg sync.WaitGroup
	for range 3 { // concurrent requests meeting the same 404 share one re-initialization
		wg.Add(1)
		go func() {
			defer wg.Done()
			clientWantTool(t, cs, "tool-of-s2")
		}()
	}
	wg.Wait()
	if got := clientNextExpiry(t, expired); got != (clientExpiry{"s1", "s2"}) {
		t.Fatalf("OnSessionExpired got %+v", got)
	}
	if conn.SessionID() != "s2" || conn.ProtocolVersion() != "2025-06-18" {
		t.Fatalf("session %q, version %q", conn.SessionID(), conn.ProtocolVersion())
	}
	inits := f.posts("initialize")
	if len(inits) != 2 || !bytes.Equal(inits[0].Body, inits[1].Body) {
		t.Fatalf("%d initialize POSTs; the repeat must send the original request", len(inits))
	}
	if h := inits[1].Header; h.Get(HeaderSessionID) != "" || h.Get(HeaderProtocolVersion) != "" {
		t.Fatalf("the repeated initialize carried session headers: %v", h)
	}
	if notes := f.posts("notifications/initialized"); len(notes) != 2 || notes[1].Header.Get(HeaderSessionID) != "s2" {
		t.Fatalf("notifications/initialized POSTs: %d", len(notes))
	}

	// A notification meeting a 404 re-initializes too, and is then delivered.
	srv.expire("s2")
	if err := cs.SetRoots(ctx, nil); err != nil {
		t.Fatalf("notification after expiry: %v", err)
	}
	if got := clientNextExpiry(t, expired); got != (clientExpiry{"s2", "s3"}) {
		t.Fatalf("OnSessionExpired got %+v", got)
	}
	roots := f.posts("notifications/roots/list_changed")
	if len(roots) != 2 || roots[1].Header.Get(HeaderSessionID) != "s3" {
		t.Fatalf("the notification was not resent in the new session (%d POSTs)", len(roots))
	}
}

func clientNextExpiry(t *testing.T, ch <-chan clientExpiry) clientExpiry {
	t.Helper()
	select {
	case e := <-ch:
		return e
	case <-testkit.Context(t).Done():
		t.Fatal("OnSessionExpired was not called")
		return clientExpiry{}
	}
}

// When starting a new session fails, the request fails, and the next one tries again.
func TestClientFailedReinitializationFailsOneRequest(t *testing.T) {
	ctx := testkit.Context(t)
	srv := &clientSessionServer{live: map[string]bool{}}
	f := newClientFake(t, srv.serve)
	var reports atomic.Int32
	conn := clientDial(t, f.URL, &ClientOptions{OnSessionExpired: func(_, _ string, err error) {
		if err != nil {
			reports.Add(1)
		}
	}})
	cs, err := mcp.NewClient(clientInfo, legacyClient()).Connect(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	srv.expire("s1")
	srv.setRefuseInit(true)
	_, err = cs.ListTools(ctx, nil)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || !strings.Contains(rpcErr.Message, "session expired") {
		t.Fatalf("ListTools = %v, want a session-expired error", err)
	}
	if reports.Load() != 1 {
		t.Fatalf("OnSessionExpired reported %d failures", reports.Load())
	}
	srv.setRefuseInit(false)
	clientWantTool(t, cs, "tool-of-s2")
}

func clientWantTool(t *testing.T, cs *mcp.ClientSession, name string) {
	t.Helper()
	res, err := cs.ListTools(testkit.Context(t), nil)
	if err != nil {
		t.Errorf("ListTools: %v", err)
		return
	}
	if len(res.Tools) != 1 || res.Tools[0].Name != name {
		t.Errorf("ListTools = %+v, want %s", res.Tools, name)
	}
}

// A broken connection or a 5xx fails one call; the next call succeeds.
func TestClientTransientFailureFailsOneRequest(t *testing.T) {
	ctx := testkit.Context(t)
	f := newClientFake(t, clientBasic(func(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
		switch clientToolName(msg.Params) {
		case "cut":
			panic(http.ErrAbortHandler)
		case "busy":
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
		default:
			clientReplyJSON(w, string(jsonrpc.AppendResult(nil, msg.ID, json.RawMessage(`{"content":[{"type":"text","text":"ok"}]}`))))
		}
	}))
	conn := clientDial(t, f.URL, nil)
	cs, err := mcp.NewClient(clientInfo, legacyClient()).Connect(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(name string) (*protocol.CallToolResult, error) {
		return cs.CallTool(ctx, name, nil)
	}
	for _, failing := range []string{"cut", "busy"} {
		if _, err := call(failing); err == nil {
			t.Fatalf("%s: call succeeded", failing)
		} else if failing == "busy" && !strings.Contains(err.Error(), "503") {
			t.Errorf("busy: error %v does not name the status", err)
		}
		if res, err := call("fine"); err != nil || res.Content[0].Text != "ok" {
			t.Fatalf("the call after %s: %+v, %v", failing, res, err)
		}
	}
}

// clientRecordingConn notes whether it was closed.
type clientRecordingConn struct {
	transport.Conn
	closed atomic.Bool
}

func (c *clientRecordingConn) Close() error {
	c.closed.Store(true)
	return c.Conn.Close()
}

// A server that answers initialize with 405 gets the fallback transport, which
// then carries the whole session. A client detecting the era first POSTs its
// server/discover probe, which meets the same 405 (no stateless error in the
// body: a legacy server), and then goes the same way.
func TestClientFallsBackOn405(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  *mcp.ClientOptions
		posts int
	}{{"legacy", legacyClient(), 1}, {"detected", nil, 2}} {
		t.Run(tc.name, func(t *testing.T) { clientFallsBackOn405(t, tc.opts, tc.posts) })
	}
}

func clientFallsBackOn405(t *testing.T, opts *mcp.ClientOptions, posts int) {
	ctx := testkit.Context(t)
	f := newClientFake(t, func(w http.ResponseWriter, r *http.Request, _ *jsonrpc.Message) {
		w.WriteHeader(http.StatusMethodNotAllowed)
	})
	server := mcp.NewServer(protocol.Implementation{Name: "old-server", Version: "1"}, nil)
	if err := mcp.AddTool(server, &protocol.Tool{Name: "legacy"}, func(ctx context.Context, _ *mcp.ToolRequest, _ struct{}) (string, error) {
		return "via fallback", nil
	}); err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int32
	var fb *clientRecordingConn
	conn := clientDial(t, f.URL, &ClientOptions{Fallback: func(ctx context.Context) (transport.Conn, error) {
		calls.Add(1)
		// ctx bounds connecting only: the session must outlive it.
		clientEnd, serverEnd := memory.NewPair()
		if _, err := server.Connect(context.WithoutCancel(ctx), serverEnd); err != nil {
			return nil, err
		}
		fb = &clientRecordingConn{Conn: clientEnd}
		return fb, nil
	}})
	cs, err := mcp.NewClient(clientInfo, opts).Connect(ctx, conn)
	if err != nil {
		t.Fatalf("Connect through the fallback: %v", err)
	}
	if got := cs.InitializeResult().ServerInfo.Name; got != "old-server" {
		t.Fatalf("server %q", got)
	}
	res, err := cs.CallTool(ctx, "legacy", nil)
	if err != nil || res.Content[0].Text != "via fallback" {
		t.Fatalf("CallTool: %+v, %v", res, err)
	}
	if err := cs.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if calls.Load() != 1 || !fb.closed.Load() {
		t.Fatalf("Fallback called %d times; fallback closed: %v", calls.Load(), fb.closed.Load())
	}
	if n := len(f.requests("")); n != posts {
		t.Fatalf("%d HTTP requests, want %d POSTs before the fallback", n, posts)
	}
}

// Only 400, 404 and 405 call for the fallback; other failures of initialize are
// returned by Write, and so is a 405 when there is no Fallback.
func TestClientInitializeFailuresWithoutFallback(t *testing.T) {
	for _, tc := range []struct {
		status       int
		withFallback bool
	}{{http.StatusUnauthorized, true}, {http.StatusInternalServerError, true}, {http.StatusMethodNotAllowed, false}} {
		t.Run(fmt.Sprint(tc.status, tc.withFallback), func(t *testing.T) {
			ctx := testkit.Context(t)
			f := newClientFake(t, func(w http.ResponseWriter, r *http.Request, _ *jsonrpc.Message) {
				w.WriteHeader(tc.status)
			})
			var opts ClientOptions
			if tc.withFallback {
				opts.Fallback = func(context.Context) (transport.Conn, error) {
					t.Error("Fallback called")
					return nil, io.EOF
				}
			}
			conn := clientDial(t, f.URL, &opts)
			_, err := mcp.NewClient(clientInfo, legacyClient()).Connect(ctx, conn)
			var se *StatusError
			if !errors.As(err, &se) || se.StatusCode != tc.status {
				t.Fatalf("Connect = %v, want a StatusError %d", err, tc.status)
			}
		})
	}
}
