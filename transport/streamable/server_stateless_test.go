package streamable

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/internal/rpcconn"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
)

// fakeServer is a transport.Server that serves each connection with a rpcconn.Conn
// calling handle, and records the connections it was given.
type fakeServer struct {
	handle func(ctx context.Context, c *rpcconn.Conn, msg *jsonrpc.Message) (any, error)

	mu    sync.Mutex
	conns []transport.Conn
	rpcs  []*rpcconn.Conn
}

func (f *fakeServer) Accept(ctx context.Context, conn transport.Conn) error {
	var c *rpcconn.Conn
	c = rpcconn.NewConn(conn, rpcconn.ConnOptions{
		Logger: quietLogger,
		Handler: rpcconn.HandlerFunc(func(ctx context.Context, msg *jsonrpc.Message) (any, error) {
			return f.handle(ctx, c, msg)
		}),
	})
	f.mu.Lock()
	f.conns = append(f.conns, conn)
	f.rpcs = append(f.rpcs, c)
	f.mu.Unlock()
	c.Start(ctx) // its read loop ends when conn's Read returns io.EOF (the POST ended)
	return nil
}

// lastConn returns the connection of the most recent Accept.
func (f *fakeServer) lastConn(t *testing.T) (transport.Conn, *rpcconn.Conn) {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.conns) == 0 {
		t.Fatal("the server was given no connection")
	}
	return f.conns[len(f.conns)-1], f.rpcs[len(f.rpcs)-1]
}

// answering returns a fakeServer that answers every request with result, or with
// the *jsonrpc.Error that errFor returns for its method.
func answering(result any, errFor func(method string) *jsonrpc.Error) *fakeServer {
	return &fakeServer{handle: func(ctx context.Context, _ *rpcconn.Conn, msg *jsonrpc.Message) (any, error) {
		if errFor != nil {
			if e := errFor(msg.Method); e != nil {
				return nil, e
			}
		}
		return result, nil
	}}
}

const testMeta = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// statelessBody is a 2026-07-28 request: params (a JSON object's members, may be
// empty) and the standard _meta.
func statelessBody(id int, method, params string) string {
	if params != "" {
		params += ","
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s"_meta":%s}}`, id, method, params, testMeta)
}

// statelessHeaders are the standard headers of a request of method with Mcp-Name name
// ("" for none), changed by the pairs of extra (an empty value deletes).
func statelessHeaders(method, name string, extra ...string) map[string]string {
	h := map[string]string{HeaderProtocolVersion: "2026-07-28", protocol.HeaderMethod: method}
	if name != "" {
		h[protocol.HeaderName] = name
	}
	for i := 0; i+1 < len(extra); i += 2 {
		h[extra[i]] = extra[i+1]
	}
	return h
}

func (hs *harness) postStateless(hdr map[string]string, body string) *http.Response {
	hs.t.Helper()
	return hs.request(testkit.Context(hs.t), http.MethodPost, hdr, body)
}

func TestStatelessRequestInBothModes(t *testing.T) {
	for _, sessionless := range []bool{false, true} {
		srv := answering(map[string]any{"tools": []any{}}, nil)
		hs := newHarness(t, srv, &HandlerOptions{Sessionless: sessionless})
		resp := hs.postStateless(statelessHeaders("tools/list", ""), statelessBody(7, "tools/list", ""))
		body := readBody(t, resp)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" || !strings.Contains(body, `"id":7`) {
			t.Fatalf("sessionless=%v: %d %s %s", sessionless, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		if resp.Header.Get(HeaderSessionID) != "" || hs.h.Sessions() != 0 {
			t.Fatalf("sessionless=%v: a stateless request got a session (%q, %d open)", sessionless, resp.Header.Get(HeaderSessionID), hs.h.Sessions())
		}
		conn, rpc := srv.lastConn(t)
		sc, ok := conn.(transport.SessionlessConn)
		if !ok || sc.ProtocolVersion() != protocol.Version20260728 {
			t.Fatalf("the connection is %T, want a SessionlessConn of version 2026-07-28", conn)
		}
		if _, ok := conn.(transport.HeaderConn); !ok {
			t.Fatalf("the connection %T is no HeaderConn", conn)
		}
		if pc, ok := conn.(transport.PeerConn); !ok || !strings.HasPrefix(pc.RemoteAddr(), "127.0.0.1:") {
			t.Fatalf("the connection %T does not know its peer", conn)
		}
		select { // the connection ended with its POST
		case <-rpc.Done():
		case <-testkit.Context(t).Done():
			t.Fatal("the connection of a stateless request outlived its POST")
		}
	}
}

// TestStatelessSessionIDIgnoredWhenSessionless: a sessionless handler has no sessions, so
// it ignores an Mcp-Session-Id on a stateless request (and echoes none), as
// 2026-07-28 asks; a stateful one takes it for a legacy session.
func TestStatelessSessionIDIgnoredWhenSessionless(t *testing.T) {
	hdr := statelessHeaders("tools/list", "", HeaderSessionID, "some-old-session")
	hs := newHarness(t, answering(map[string]any{"tools": []any{}}, nil), &HandlerOptions{Sessionless: true})
	resp := hs.postStateless(hdr, statelessBody(1, "tools/list", ""))
	if body := readBody(t, resp); resp.StatusCode != http.StatusOK || !strings.Contains(body, `"tools"`) || resp.Header.Get(HeaderSessionID) != "" {
		t.Fatalf("sessionless: %d %s (session %q)", resp.StatusCode, body, resp.Header.Get(HeaderSessionID))
	}
	hs = newHarness(t, answering(map[string]any{}, nil), nil)
	wantStatus(t, hs.postStateless(hdr, statelessBody(1, "tools/list", "")), http.StatusBadRequest, jsonrpc.CodeInvalidRequest)
}

func TestStatelessAndLegacySessionsOnTheSameEndpoint(t *testing.T) {
	hs := newHarness(t, newDemo(t), nil)
	sid := hs.initialize("2025-11-25")
	// A legacy session, a stateless request in between, the legacy session again.
	wantStatus(t, hs.post(sid, "2025-11-25", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`), http.StatusOK, 0)
	resp := hs.postStateless(statelessHeaders("unknown/method", ""), statelessBody(3, "unknown/method", ""))
	if resp.Header.Get(HeaderSessionID) != "" {
		t.Fatal("a stateless answer carries a session id")
	}
	readBody(t, resp)
	wantStatus(t, hs.post(sid, "2025-11-25", `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`), http.StatusOK, 0)
	if hs.h.Sessions() != 1 {
		t.Fatalf("%d sessions, want the legacy one", hs.h.Sessions())
	}
	// An initialize that carries Mcp-Method (a dual-era client falling back) is
	// still legacy.
	resp = hs.request(testkit.Context(t), http.MethodPost, map[string]string{protocol.HeaderMethod: "initialize"}, initBody("2025-06-18"))
	if body := readBody(t, resp); resp.StatusCode != http.StatusOK || resp.Header.Get(HeaderSessionID) == "" {
		t.Fatalf("initialize with Mcp-Method: %d %s, want a session", resp.StatusCode, body)
	}
}

func TestDetectEra(t *testing.T) {
	meta := statelessBody(1, "tools/list", "")
	legacy := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	for _, tc := range []struct {
		name      string
		hdr       map[string]string
		body      string
		stateless bool
	}{
		{"_meta protocolVersion", nil, meta, true},
		{"_meta with a legacy version header", map[string]string{HeaderProtocolVersion: "2025-06-18"}, meta, true},
		{"_meta in an initialize", nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"_meta":` + testMeta + `}}`, true},
		{"Mcp-Method without version", map[string]string{protocol.HeaderMethod: "tools/list"}, legacy, true},
		{"Mcp-Method, unknown version", map[string]string{protocol.HeaderMethod: "tools/list", HeaderProtocolVersion: "2099-01-01"}, legacy, true},
		{"stateless version header", map[string]string{HeaderProtocolVersion: "2026-07-28"}, legacy, true},
		{"stateless version header, batch", map[string]string{HeaderProtocolVersion: "2026-07-28"}, `[` + legacy + `]`, true},
		{"plain legacy", nil, legacy, false},
		{"legacy version", map[string]string{HeaderProtocolVersion: "2025-11-25"}, legacy, false},
		{"Mcp-Method with legacy version", map[string]string{protocol.HeaderMethod: "tools/list", HeaderProtocolVersion: "2025-11-25"}, legacy, false},
		{"unknown version alone", map[string]string{HeaderProtocolVersion: "2099-01-01"}, legacy, false},
		{"initialize with Mcp-Method", map[string]string{protocol.HeaderMethod: "initialize", HeaderProtocolVersion: "2026-07-28"}, initBody("2025-11-25"), false},
		{"meta key elsewhere", nil, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"io.modelcontextprotocol/protocolVersion"}}`, false},
		{"null meta version", nil, `{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":null}}}`, false},
	} {
		r, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", nil)
		for k, v := range tc.hdr {
			r.Header.Set(k, v)
		}
		in := incoming{body: []byte(tc.body)}
		if !parseBody(discardWriter{}, &in) {
			t.Fatalf("%s: the body does not parse", tc.name)
		}
		if got := detectEra(r, &in).stateless; got != tc.stateless {
			t.Errorf("%s: stateless %v, want %v", tc.name, got, tc.stateless)
		}
	}
}

// discardWriter is an http.ResponseWriter that drops everything.
type discardWriter struct{}

func (discardWriter) Header() http.Header         { return http.Header{} }
func (discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (discardWriter) WriteHeader(int)             {}

func TestStatelessStandardHeaderValidation(t *testing.T) {
	srv := answering(map[string]any{"ok": true}, nil)
	hs := newHarness(t, srv, nil)
	call := statelessBody(41, "tools/call", `"name":"get_weather","arguments":{}`)
	read := statelessBody(42, "resources/read", `"uri":"file:///a b/ü.txt"`)
	for _, tc := range []struct {
		name string
		hdr  map[string]string
		body string
	}{
		{"Mcp-Method missing", statelessHeaders("tools/list", "", protocol.HeaderMethod, ""), statelessBody(41, "tools/list", "")},
		{"Mcp-Method mismatch", statelessHeaders("prompts/list", ""), statelessBody(41, "tools/list", "")},
		{"Mcp-Method case", statelessHeaders("TOOLS/LIST", ""), statelessBody(41, "tools/list", "")},
		{"Mcp-Name missing", statelessHeaders("tools/call", ""), call},
		{"Mcp-Name mismatch", statelessHeaders("tools/call", "wrong_tool_name"), call},
		{"Mcp-Name bad Base64", statelessHeaders("tools/call", "=?base64?Z2V0X3dlYXRoZXI?="), call},
		{"Mcp-Name of resources/read", statelessHeaders("resources/read", "file:///a b/u.txt"), read},
		{"Mcp-Name of prompts/get missing", statelessHeaders("prompts/get", ""), statelessBody(41, "prompts/get", `"name":"p"`)},
		{"version header missing", statelessHeaders("tools/list", "", HeaderProtocolVersion, ""), statelessBody(41, "tools/list", "")},
		{"version header mismatch", statelessHeaders("server/discover", "", HeaderProtocolVersion, "2026-07-28"),
			`{"jsonrpc":"2.0","id":41,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"v999.0.0","io.modelcontextprotocol/clientCapabilities":{}}}}`},
	} {
		resp := hs.postStateless(tc.hdr, tc.body)
		body := readBody(t, resp)
		m := decodeRPC(t, []byte(body))
		if resp.StatusCode != http.StatusBadRequest || m.Error == nil || m.Error.Code != protocol.CodeHeaderMismatch ||
			!strings.HasPrefix(m.Error.Message, "Header mismatch: ") || (string(m.ID) != "41" && string(m.ID) != "42") {
			t.Errorf("%s: %d %s, want 400 with a -32020 error for the request's id", tc.name, resp.StatusCode, body)
		}
	}
	srv.mu.Lock()
	n := len(srv.conns)
	srv.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d requests with bad headers reached the server", n)
	}
	// Accepted: header names in any case, a Base64 Mcp-Name, an Mcp-Name with
	// spaces around it (HTTP drops them), and a body without _meta version (the
	// server's -32602, not the transport's -32020).
	for name, tc := range map[string]struct {
		hdr  map[string]string
		body string
	}{
		"lower-case names": {map[string]string{"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "get_weather"}, call},
		"Base64 name":      {statelessHeaders("resources/read", protocol.EncodeHeaderValue("file:///a b/ü.txt")), read},
		"padded name":      {statelessHeaders("tools/call", "  get_weather  "), call},
		"no _meta version": {statelessHeaders("server/discover", ""), `{"jsonrpc":"2.0","id":5,"method":"server/discover","params":{}}`},
	} {
		resp := hs.postStateless(tc.hdr, tc.body)
		if body := readBody(t, resp); resp.StatusCode != http.StatusOK || strings.Contains(body, `"error"`) {
			t.Errorf("%s: %d %s, want the server's result", name, resp.StatusCode, body)
		}
	}
}

func TestStatelessErrorStatuses(t *testing.T) {
	codes := map[string]int64{
		"unknown/method":       jsonrpc.CodeMethodNotFound,
		"initialize":           jsonrpc.CodeMethodNotFound,
		"server/discover":      protocol.CodeUnsupportedProtocolVersion,
		"tools/list":           protocol.CodeMissingClientCapability,
		"prompts/list":         protocol.CodeHeaderMismatch,
		"resources/list":       jsonrpc.CodeInvalidParams,
		"completion/complete":  jsonrpc.CodeInternalError,
		"resources/templates/": -32000,
	}
	srv := answering(map[string]any{}, func(method string) *jsonrpc.Error {
		if code, ok := codes[method]; ok {
			return &jsonrpc.Error{Code: code, Message: "no"}
		}
		return nil
	})
	for _, mode := range []ResponseMode{ResponseAuto, ResponseAlwaysJSON, ResponseAlwaysSSE} {
		hs := newHarness(t, srv, &HandlerOptions{ResponseMode: mode})
		for method, want := range map[string]int{
			"unknown/method":       http.StatusNotFound,
			"initialize":           http.StatusNotFound,
			"server/discover":      http.StatusBadRequest,
			"tools/list":           http.StatusBadRequest,
			"prompts/list":         http.StatusBadRequest,
			"resources/list":       http.StatusOK, // -32602 with complete _meta (an unknown tool, say)
			"completion/complete":  http.StatusOK,
			"resources/templates/": http.StatusOK,
		} {
			resp := hs.postStateless(statelessHeaders(method, ""), statelessBody(9, method, ""))
			ct := resp.Header.Get("Content-Type")
			var data []byte
			if mode == ResponseAlwaysSSE && want == http.StatusOK {
				// An error without a status of its own streams like a result.
				evs := mustEvents(t, resp)
				if len(evs) != 1 {
					t.Fatalf("mode %d, %s: %d events", mode, method, len(evs))
				}
				data, ct = evs[0].Data, "application/json"
			} else {
				data = []byte(readBody(t, resp))
			}
			m := decodeRPC(t, data)
			if resp.StatusCode != want || ct != "application/json" || m.Error == nil || m.Error.Code != codes[method] || string(m.ID) != "9" {
				t.Errorf("mode %d, %s: %d %s %s; want %d and the error %d", mode, method, resp.StatusCode, ct, data, want, codes[method])
			}
		}
		// -32602 for a request missing required _meta fields is a 400.
		for _, params := range []string{`{}`, `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`,
			`{"_meta":{"io.modelcontextprotocol/clientCapabilities":{}}}`} {
			resp := hs.postStateless(statelessHeaders("resources/list", ""), `{"jsonrpc":"2.0","id":10,"method":"resources/list","params":`+params+`}`)
			if body := readBody(t, resp); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `"code":-32602`) {
				t.Errorf("mode %d, params %s: %d %s, want 400 with -32602", mode, params, resp.StatusCode, body)
			}
		}
	}
}

func TestStatelessAlwaysSSE(t *testing.T) {
	hs := newHarness(t, answering(map[string]any{"tools": []any{}}, nil), &HandlerOptions{ResponseMode: ResponseAlwaysSSE})
	evs := mustEvents(t, hs.postStateless(statelessHeaders("tools/list", ""), statelessBody(3, "tools/list", "")))
	if len(evs) != 1 || evs[0].ID != "" || !strings.Contains(string(evs[0].Data), `"tools":[]`) {
		t.Fatalf("events %+v, want the result alone, without an event id (nothing resumes)", evs)
	}
}

func TestStatelessBodyShapes(t *testing.T) {
	srv := answering(map[string]any{}, nil)
	hs := newHarness(t, srv, &HandlerOptions{Sessionless: true})
	hdr := statelessHeaders("tools/list", "")
	wantStatus(t, hs.postStateless(hdr, `[`+statelessBody(1, "tools/list", "")+`]`), http.StatusBadRequest, jsonrpc.CodeInvalidRequest)
	wantStatus(t, hs.postStateless(hdr, `{"jsonrpc":"2.0","id":1,"result":{}}`), http.StatusBadRequest, jsonrpc.CodeInvalidRequest)
	resp := hs.postStateless(statelessHeaders("notifications/cancelled", ""), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"_meta":`+testMeta+`,"requestId":1}}`)
	if body := readBody(t, resp); resp.StatusCode != http.StatusAccepted || body != "" {
		t.Fatalf("a notification: %d %q, want 202 without a body", resp.StatusCode, body)
	}
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(srv.conns) != 0 {
		t.Fatalf("%d messages reached the server", len(srv.conns))
	}
}

func TestStatelessGetAndDelete405(t *testing.T) {
	for _, sessionless := range []bool{false, true} {
		hs := newHarness(t, answering(nil, nil), &HandlerOptions{Sessionless: sessionless})
		for _, m := range []string{http.MethodGet, http.MethodDelete} {
			resp := hs.request(testkit.Context(t), m, statelessHeaders("tools/list", ""), "")
			if allow := resp.Header.Get("Allow"); allow != "POST" {
				t.Errorf("sessionless=%v %s: Allow %q, want POST", sessionless, m, allow)
			}
			wantStatus(t, resp, http.StatusMethodNotAllowed, jsonrpc.CodeInvalidRequest)
		}
	}
}

func TestStatelessOriginChecked(t *testing.T) {
	srv := answering(map[string]any{}, nil)
	hs := newHarness(t, srv, nil)
	hdr := statelessHeaders("tools/list", "", "Origin", "http://evil.example.com")
	wantStatus(t, hs.postStateless(hdr, statelessBody(1, "tools/list", "")), http.StatusForbidden, 0)
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if len(srv.conns) != 0 {
		t.Fatal("a request from a foreign origin reached the server")
	}
}

// TestStatelessProgressAndNoServerRequests: what a handler sends while serving a
// stateless request goes on that request's SSE stream before the response, and a
// request to the client fails at once (2026-07-28 has none).
func TestStatelessProgressAndNoServerRequests(t *testing.T) {
	callErr := make(chan error, 1)
	srv := &fakeServer{handle: func(ctx context.Context, c *rpcconn.Conn, msg *jsonrpc.Message) (any, error) {
		for i := range 2 {
			if err := c.Notify(ctx, protocol.NotificationProgress, map[string]any{"progressToken": "t", "progress": i}); err != nil {
				return nil, err
			}
		}
		callErr <- c.Call(ctx, protocol.MethodElicitationCreate, map[string]any{}, nil)
		return map[string]any{"done": true}, nil
	}}
	for _, mode := range []ResponseMode{ResponseAuto, ResponseAlwaysSSE} {
		hs := newHarness(t, srv, &HandlerOptions{ResponseMode: mode})
		evs := mustEvents(t, hs.postStateless(statelessHeaders("tools/call", "slow"), statelessBody(5, "tools/call", `"name":"slow"`)))
		if len(evs) != 3 {
			t.Fatalf("mode %d: %d events, want 2 progress notifications and the result", mode, len(evs))
		}
		for i, ev := range evs {
			m := decodeRPC(t, ev.Data)
			if (i < 2 && m.Method != protocol.NotificationProgress) || (i == 2 && string(m.ID) != "5") || ev.ID != "" {
				t.Fatalf("mode %d: event %d is %s", mode, i, ev.Data)
			}
		}
		if err := <-callErr; !errors.Is(err, errStatelessRequest) {
			t.Fatalf("mode %d: a request to the client: %v, want errStatelessRequest", mode, err)
		}
	}
}

// TestStatelessHeaderConn: the server reads the POST's headers (the Mcp-Param-*
// headers of a tools/call) through the connection.
func TestStatelessHeaderConn(t *testing.T) {
	srv := answering(map[string]any{}, nil)
	hs := newHarness(t, srv, nil)
	hdr := statelessHeaders("tools/call", "sql", "Mcp-Param-Region", "us-west1")
	wantStatus(t, hs.postStateless(hdr, statelessBody(1, "tools/call", `"name":"sql","arguments":{"region":"us-west1"}`)), http.StatusOK, 0)
	conn, _ := srv.lastConn(t)
	if got := conn.(transport.HeaderConn).Header().Get("Mcp-Param-Region"); got != "us-west1" {
		t.Fatalf("Header()[Mcp-Param-Region] = %q", got)
	}
}

// TestStatelessDisconnectCancels: a client that closes the response cancels the
// request: the handler's context ends.
func TestStatelessDisconnectCancels(t *testing.T) {
	started := make(chan struct{})
	cancelled := make(chan error, 1)
	srv := &fakeServer{handle: func(ctx context.Context, _ *rpcconn.Conn, msg *jsonrpc.Message) (any, error) {
		close(started)
		<-ctx.Done()
		cancelled <- ctx.Err()
		return nil, ctx.Err()
	}}
	hs := newHarness(t, srv, nil)
	ctx, cancel := context.WithCancel(testkit.Context(t))
	done := make(chan struct{})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, hs.srv.URL, strings.NewReader(statelessBody(1, "tools/call", `"name":"hang"`)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	for k, v := range statelessHeaders("tools/call", "hang") {
		req.Header.Set(k, v)
	}
	go func() {
		defer close(done)
		if resp, err := hs.srv.Client().Do(req); err == nil { // it fails: the request is cancelled
			resp.Body.Close()
		}
	}()
	<-started
	cancel()
	select {
	case err := <-cancelled:
		if err == nil {
			t.Fatal("the handler's context ended without an error")
		}
	case <-testkit.Context(t).Done():
		t.Fatal("the request was not cancelled when its client left")
	}
	<-done
}

// TestStatelessListenStream: subscriptions/listen streams its notifications even in
// ResponseAlwaysJSON mode, and Shutdown ends it at once.
func TestStatelessListenStream(t *testing.T) {
	srv := &fakeServer{handle: func(ctx context.Context, c *rpcconn.Conn, msg *jsonrpc.Message) (any, error) {
		if err := c.Notify(ctx, "notifications/subscriptions/acknowledged", map[string]any{}); err != nil {
			return nil, err
		}
		<-ctx.Done() // open until the client or the server ends it
		return nil, ctx.Err()
	}}
	hs := newHarness(t, srv, &HandlerOptions{ResponseMode: ResponseAlwaysJSON})
	body := statelessBody(8, "subscriptions/listen", `"notifications":{"toolsListChanged":true}`)
	resp := hs.postStateless(statelessHeaders("subscriptions/listen", ""), body)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q", ct)
	}
	shut := make(chan error, 1)
	go func() { shut <- hs.h.Shutdown(testkit.Context(t)) }()
	evs := mustEvents(t, resp) // returns when the stream ends
	if len(evs) != 1 || !strings.Contains(string(evs[0].Data), "subscriptions/acknowledged") {
		t.Fatalf("events %+v", evs)
	}
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
}

func TestStatelessErrorStatusTable(t *testing.T) {
	for _, tc := range []struct {
		code        int64
		missingMeta bool
		want        int
	}{
		{-32601, false, 404}, {-32022, false, 400}, {-32020, false, 400}, {-32021, false, 400},
		{-32602, true, 400}, {-32602, false, 0}, {-32603, true, 0}, {-32600, false, 0}, {-32002, false, 0},
	} {
		if got := statelessErrorStatus(&jsonrpc.Error{Code: tc.code}, tc.missingMeta); got != tc.want {
			t.Errorf("statelessErrorStatus(%d, %v) = %d, want %d", tc.code, tc.missingMeta, got, tc.want)
		}
	}
	// A shared backend that cannot answer: 503; the same code with other data keeps 200.
	if got := statelessErrorStatus(&jsonrpc.Error{Code: -32603, Data: transport.UnavailableErrorData}, false); got != http.StatusServiceUnavailable {
		t.Errorf("unavailable -32603: status %d, want 503", got)
	}
	if got := statelessErrorStatus(&jsonrpc.Error{Code: -32603, Data: []byte(`{"unavailable":false}`)}, false); got != 0 {
		t.Errorf("-32603 with other data: status %d, want 0", got)
	}
	if msg := headerMismatchMessage(errors.New("header mismatch: Mcp-Name header value")); msg != "Header mismatch: Mcp-Name header value" {
		t.Errorf("message %q", msg)
	}
}
