package streamable

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/demo"
	"github.com/mcpkit/mcpkit/internal/sse"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
)

// quietLogger keeps expected server complaints (a panicking tool, an unmatched
// response) out of the test output.
var quietLogger = slog.New(slog.DiscardHandler)

// harness serves a Handler on 127.0.0.1 for one test.
type harness struct {
	t    *testing.T
	h    *Handler
	srv  *httptest.Server
	reqs testkit.Requests // the requests h is serving (newHarness's only)
}

func newHarness(t *testing.T, srv transport.Server, opts *HandlerOptions) *harness {
	t.Helper()
	if opts == nil {
		opts = &HandlerOptions{}
	}
	if opts.Logger == nil {
		opts.Logger = quietLogger
	}
	hs := &harness{t: t, h: NewHandler(srv, opts)}
	hs.srv = testkit.NewServer(t, hs.reqs.Handler(hs.h))
	t.Cleanup(func() { _ = hs.h.Close() }) // before the server stops
	return hs
}

func newDemo(t testing.TB) *mcp.Server {
	t.Helper()
	s, err := demo.NewServer(&demo.Options{CountInterval: time.Millisecond, Logger: quietLogger})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// request sends one raw HTTP request. hdr values replace the defaults; an empty value
// deletes the header.
func (hs *harness) request(ctx context.Context, method string, hdr map[string]string, body string) *http.Response {
	hs.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, hs.srv.URL+"/mcp", rd)
	if err != nil {
		hs.t.Fatal(err)
	}
	switch method {
	case http.MethodPost:
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
	case http.MethodGet:
		req.Header.Set("Accept", "text/event-stream")
	}
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := hs.srv.Client().Do(req)
	if err != nil {
		hs.t.Fatalf("%s: %v", method, err)
	}
	return resp
}

// post sends a POST in session sid ("" for none) speaking version ("" for no header).
func (hs *harness) post(sid, version, body string) *http.Response {
	hs.t.Helper()
	return hs.postCtx(testkit.Context(hs.t), sid, version, body)
}

func (hs *harness) postCtx(ctx context.Context, sid, version, body string) *http.Response {
	hs.t.Helper()
	return hs.request(ctx, http.MethodPost, map[string]string{HeaderSessionID: sid, HeaderProtocolVersion: version}, body)
}

func initBody(version string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{"sampling":{},"roots":{}},"clientInfo":{"name":"test","version":"1"}}}`, version)
}

// initialize opens a session at version and sends notifications/initialized.
func (hs *harness) initialize(version string) string {
	hs.t.Helper()
	resp := hs.post("", "", initBody(version))
	body := readBody(hs.t, resp)
	if resp.StatusCode != http.StatusOK {
		hs.t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	sid := resp.Header.Get(HeaderSessionID)
	if sid == "" {
		hs.t.Fatalf("initialize: no %s header", HeaderSessionID)
	}
	resp = hs.post(sid, version, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if b := readBody(hs.t, resp); resp.StatusCode != http.StatusAccepted || b != "" {
		hs.t.Fatalf("notifications/initialized: %d %q", resp.StatusCode, b)
	}
	return sid
}

func readBody(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading body: %v", err)
	}
	return string(b)
}

// rpc is a JSON-RPC message as tests inspect it.
type rpc struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

func decodeRPC(t *testing.T, data []byte) rpc {
	t.Helper()
	var m rpc
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("not a JSON-RPC message: %q: %v", data, err)
	}
	return m
}

// events reads SSE events until the stream ends (or fails: then the error is returned
// with what was read).
func events(resp *http.Response) ([]sse.Event, error) {
	defer resp.Body.Close()
	dec := sse.NewDecoder(resp.Body)
	var out []sse.Event
	for {
		ev, err := dec.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
}

func mustEvents(t *testing.T, resp *http.Response) []sse.Event {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type %q, want text/event-stream", ct)
	}
	evs, err := events(resp)
	if err != nil {
		t.Fatalf("reading events: %v (after %d)", err, len(evs))
	}
	return evs
}

// wantStatus checks a response's status and that its body is a JSON-RPC error with
// code (0: any body).
func wantStatus(t *testing.T, resp *http.Response, status int, code int64) {
	t.Helper()
	body := readBody(t, resp)
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d (body %s)", resp.StatusCode, status, body)
	}
	if code != 0 {
		m := decodeRPC(t, []byte(body))
		if m.Error == nil || m.Error.Code != code {
			t.Fatalf("body %s, want a JSON-RPC error %d", body, code)
		}
	}
}

func callBody(id int, tool, args string, meta string) string {
	if meta != "" {
		meta = `,"_meta":` + meta
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s%s}}`, id, tool, args, meta)
}

func TestInitializeIssuesSessionID(t *testing.T) {
	hs := newHarness(t, newDemo(t), nil)
	resp := hs.post("", "", initBody("2025-06-18"))
	body := readBody(t, resp)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("initialize: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	m := decodeRPC(t, []byte(body))
	var res protocol.InitializeResult
	if err := json.Unmarshal(m.Result, &res); err != nil || res.ProtocolVersion != "2025-06-18" {
		t.Fatalf("initialize result %s (%v)", m.Result, err)
	}
	sid := resp.Header.Get(HeaderSessionID)
	if len(sid) < 22 { // 128 bits in base32 is 26 characters
		t.Fatalf("session id %q is too short to hold 128 random bits", sid)
	}
	for _, c := range []byte(sid) {
		if c < 0x21 || c > 0x7e {
			t.Fatalf("session id %q has a character outside visible ASCII", sid)
		}
	}
	if other := hs.initialize("2025-06-18"); other == sid {
		t.Fatal("two sessions got the same id")
	}
	if n := hs.h.Sessions(); n != 2 {
		t.Fatalf("Sessions() = %d, want 2", n)
	}
}

func TestToolsCallJSON(t *testing.T) {
	hs := newHarness(t, newDemo(t), nil)
	sid := hs.initialize("2025-06-18")
	resp := hs.post(sid, "2025-06-18", callBody(7, "echo", `{"message":"world"}`, ""))
	body := readBody(t, resp)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("tools/call: %d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	want := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello world"}]}}`
	var got, exp any
	_ = json.Unmarshal([]byte(body), &got)
	_ = json.Unmarshal([]byte(want), &exp)
	if fmt.Sprint(got) != fmt.Sprint(exp) {
		t.Fatalf("body %s, want %s", body, want)
	}
	if resp.Header.Get(HeaderSessionID) != "" {
		t.Error("the session id header is only sent with the initialize response")
	}
}

func TestCountProgressOverSSE(t *testing.T) {
	hs := newHarness(t, newDemo(t), nil)
	sid := hs.initialize("2025-06-18")
	resp := hs.post(sid, "2025-06-18", callBody(3, "count", `{"n":5}`, `{"progressToken":"tok"}`))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	for k, v := range map[string]string{"Cache-Control": "no-cache", "X-Accel-Buffering": "no"} {
		if got := resp.Header.Get(k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	evs := mustEvents(t, resp)
	if len(evs) != 6 {
		t.Fatalf("%d events, want 5 progress and the response: %v", len(evs), evs)
	}
	ids := map[string]bool{}
	for i, ev := range evs {
		if ev.ID == "" || ids[ev.ID] {
			t.Errorf("event %d has id %q: every event needs its own id", i, ev.ID)
		}
		ids[ev.ID] = true
		m := decodeRPC(t, ev.Data)
		if i < 5 {
			var p protocol.ProgressParams
			if m.Method != "notifications/progress" || json.Unmarshal(m.Params, &p) != nil || p.Progress != float64(i) || p.ProgressToken != "tok" {
				t.Errorf("event %d = %s, want progress %d", i, ev.Data, i)
			}
			continue
		}
		if string(m.ID) != "3" || !strings.Contains(string(m.Result), `"5"`) {
			t.Errorf("last event %s, want the response to id 3", ev.Data)
		}
	}
}

func TestNotificationsAndResponsesAccepted(t *testing.T) {
	hs := newHarness(t, newDemo(t), nil)
	sid := hs.initialize("2025-06-18") // checks 202 for notifications/initialized
	resp := hs.post(sid, "2025-06-18", `{"jsonrpc":"2.0","id":99,"result":{}}`)
	if b := readBody(t, resp); resp.StatusCode != http.StatusAccepted || b != "" {
		t.Fatalf("a response from the client: %d %q, want 202 and no body", resp.StatusCode, b)
	}
}

func TestSessionErrors(t *testing.T) {
	hs := newHarness(t, newDemo(t), nil)
	sid := hs.initialize("2025-06-18")
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`

	wantStatus(t, hs.post("", "2025-06-18", list), http.StatusBadRequest, -32600)
	wantStatus(t, hs.post("no-such-session", "2025-06-18", list), http.StatusNotFound, -32600)
	ctx := testkit.Context(t)
	// GET and DELETE without a session: only POST serves such a client (405, as
	// 2026-07-28 requires; earlier versions allow it for GET).
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		resp := hs.request(ctx, m, nil, "")
		if allow := resp.Header.Get("Allow"); allow != "POST" {
			t.Errorf("%s without a session: Allow %q, want POST", m, allow)
		}
		wantStatus(t, resp, http.StatusMethodNotAllowed, -32600)
	}
	wantStatus(t, hs.request(ctx, http.MethodDelete, map[string]string{HeaderSessionID: "nope"}, ""), http.StatusNotFound, -32600)

	resp := hs.request(ctx, http.MethodDelete, map[string]string{HeaderSessionID: sid}, "")
	wantStatus(t, resp, http.StatusNoContent, 0)
	wantStatus(t, hs.post(sid, "2025-06-18", list), http.StatusNotFound, -32600)
	wantStatus(t, hs.request(ctx, http.MethodGet, map[string]string{HeaderSessionID: sid}, ""), http.StatusNotFound, -32600)
	wantStatus(t, hs.request(ctx, http.MethodPut, nil, "x"), http.StatusMethodNotAllowed, -32600)
}

func TestDeleteEndsServerSession(t *testing.T) {
	srv := newDemo(t)
	hs := newHarness(t, srv, nil)
	sid := hs.initialize("2025-06-18")
	if n := len(srv.Sessions()); n != 1 {
		t.Fatalf("%d server sessions, want 1", n)
	}
	ss := srv.Sessions()[0]
	wantStatus(t, hs.request(testkit.Context(t), http.MethodDelete, map[string]string{HeaderSessionID: sid}, ""), http.StatusNoContent, 0)
	select {
	case <-ss.Done(): // its Conn's Read returned io.EOF
	case <-testkit.Context(t).Done():
		t.Fatal("the MCP session did not end after DELETE")
	}
	if hs.h.Sessions() != 0 {
		t.Fatal("the handler still holds the session")
	}
}

func TestProtocolVersionHeader(t *testing.T) {
	hs := newHarness(t, newDemo(t), nil)
	sid := hs.initialize("2025-06-18")
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	// Missing: assume the negotiated version (or 2025-03-26), and answer.
	wantStatus(t, hs.post(sid, "", list), http.StatusOK, 0)
	// Unsupported or malformed: 400.
	for _, v := range []string{"1999-01-01", "latest", "2026-07-28"} {
		wantStatus(t, hs.post(sid, v, list), http.StatusBadRequest, -32600)
	}
	// A version from before the header existed says no more than a missing
	// header: the negotiated version is assumed.
	for _, v := range []string{"2024-11-05", "2025-03-26"} {
		wantStatus(t, hs.post(sid, v, list), http.StatusOK, 0)
	}
	// One that has the header and contradicts the negotiated version: 400 as well,
	// on every method, and the session is left usable.
	for _, v := range []string{"2025-11-25"} {
		resp := hs.post(sid, v, list)
		if body := readBody(t, resp); resp.StatusCode != http.StatusBadRequest ||
			!strings.Contains(body, `contradicts the session's negotiated version \"2025-06-18\"`) {
			t.Errorf("POST with version %s: %d %s", v, resp.StatusCode, body)
		}
		for _, method := range []string{http.MethodGet, http.MethodDelete} {
			resp := hs.request(testkit.Context(t), method, map[string]string{HeaderSessionID: sid, HeaderProtocolVersion: v, "Accept": "text/event-stream"}, "")
			if body := readBody(t, resp); resp.StatusCode != http.StatusBadRequest {
				t.Errorf("%s with version %s: %d %s", method, v, resp.StatusCode, body)
			}
		}
	}
	wantStatus(t, hs.post(sid, "2025-06-18", list), http.StatusOK, 0)
	newer := hs.initialize("2025-11-25")
	wantStatus(t, hs.post(newer, "2025-06-18", list), http.StatusBadRequest, -32600)
	wantStatus(t, hs.post(newer, "2025-11-25", list), http.StatusOK, 0)
}

func TestContentNegotiation(t *testing.T) {
	hs := newHarness(t, newDemo(t), nil)
	ctx := testkit.Context(t)
	init := initBody("2025-06-18")
	for _, accept := range []string{"application/json", "text/event-stream", "text/html", "application/json, text/event-stream;q=0"} {
		resp := hs.request(ctx, http.MethodPost, map[string]string{"Accept": accept}, init)
		wantStatus(t, resp, http.StatusNotAcceptable, -32600)
	}
	resp := hs.request(ctx, http.MethodPost, map[string]string{"Accept": ""}, init)
	wantStatus(t, resp, http.StatusNotAcceptable, -32600)
	for _, accept := range []string{"*/*", "application/*, text/*", "text/event-stream, application/json;q=0.5"} {
		resp := hs.request(ctx, http.MethodPost, map[string]string{"Accept": accept}, init)
		wantStatus(t, resp, http.StatusOK, 0)
	}
	for _, ct := range []string{"text/plain", "", "application/jsonx"} {
		resp := hs.request(ctx, http.MethodPost, map[string]string{"Content-Type": ct}, init)
		wantStatus(t, resp, http.StatusUnsupportedMediaType, -32600)
	}
	resp = hs.request(ctx, http.MethodPost, map[string]string{"Content-Type": "application/json; charset=utf-8"}, init)
	wantStatus(t, resp, http.StatusOK, 0)
	sid := hs.initialize("2025-06-18")
	resp = hs.request(ctx, http.MethodGet, map[string]string{HeaderSessionID: sid, "Accept": "application/json"}, "")
	wantStatus(t, resp, http.StatusNotAcceptable, -32600)
}

func TestMalformedBodies(t *testing.T) {
	hs := newHarness(t, newDemo(t), &HandlerOptions{MaxBodyBytes: 1024})
	sid := hs.initialize("2025-06-18")
	wantStatus(t, hs.post(sid, "2025-06-18", `{"jsonrpc":"2.0","id":1,`), http.StatusBadRequest, -32700)
	wantStatus(t, hs.post(sid, "2025-06-18", `not json`), http.StatusBadRequest, -32700)
	wantStatus(t, hs.post("", "", ``), http.StatusBadRequest, -32700)
	resp := hs.post(sid, "2025-06-18", `{"jsonrpc":"1.0","id":5,"method":"x"}`)
	body := readBody(t, resp)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `"id":5`) || !strings.Contains(body, "-32600") {
		t.Fatalf("invalid request: %d %s, want 400 with -32600 and the id", resp.StatusCode, body)
	}
	big := callBody(2, "echo", `{"message":"`+strings.Repeat("x", 2000)+`"}`, "")
	wantStatus(t, hs.post(sid, "2025-06-18", big), http.StatusRequestEntityTooLarge, -32600)
	// Without a Content-Length (chunked), the bound still holds.
	req, _ := http.NewRequestWithContext(testkit.Context(t), http.MethodPost, hs.srv.URL, io.MultiReader(strings.NewReader(big)))
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(HeaderSessionID, sid)
	resp, err := hs.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, resp, http.StatusRequestEntityTooLarge, -32600)
	// The session survives all of this.
	wantStatus(t, hs.post(sid, "2025-06-18", callBody(3, "echo", `{"message":"ok"}`, "")), http.StatusOK, 0)
}

func TestBatches(t *testing.T) {
	hs := newHarness(t, newDemo(t), nil)
	old := hs.initialize("2025-03-26")
	batch := `[` + callBody(1, "echo", `{"message":"a"}`, "") + `,{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"x","progress":1}},` +
		callBody(2, "echo", `{"message":"b"}`, "") + `]`
	resp := hs.post(old, "2025-03-26", batch)
	body := readBody(t, resp)
	var arr []rpc
	if resp.StatusCode != http.StatusOK || json.Unmarshal([]byte(body), &arr) != nil || len(arr) != 2 {
		t.Fatalf("batch: %d %s, want an array of 2 responses", resp.StatusCode, body)
	}
	got := map[string]string{}
	for _, m := range arr {
		got[string(m.ID)] = string(m.Result)
	}
	if !strings.Contains(got["1"], "hello a") || !strings.Contains(got["2"], "hello b") {
		t.Fatalf("batch answers %v", got)
	}
	// A batch of notifications only: 202.
	wantStatus(t, hs.post(old, "2025-03-26", `[{"jsonrpc":"2.0","method":"notifications/initialized"}]`), http.StatusAccepted, 0)
	// 2025-06-18 has no batches.
	sid := hs.initialize("2025-06-18")
	wantStatus(t, hs.post(sid, "2025-06-18", batch), http.StatusBadRequest, -32600)
	wantStatus(t, hs.post(old, "2025-03-26", `[]`), http.StatusBadRequest, -32600)
}

func TestDuplicateRequestID(t *testing.T) {
	srv, release := blockingServer(t)
	hs := newHarness(t, srv, nil)
	sid := hs.initialize("2025-06-18")
	ctx, cancel := context.WithCancel(testkit.Context(t))
	defer cancel()
	first := hs.postCtx(ctx, sid, "2025-06-18", callBody(5, "block", `{}`, `{"progressToken":1}`))
	defer first.Body.Close()
	// The first progress event shows the request is in flight.
	dec := sse.NewDecoder(first.Body)
	if _, err := dec.Next(); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, hs.post(sid, "2025-06-18", callBody(5, "echo", `{"message":"x"}`, "")), http.StatusBadRequest, -32600)
	close(release)
}

func TestCancelledRequestEndsItsStream(t *testing.T) {
	srv, release := blockingServer(t)
	defer close(release)
	hs := newHarness(t, srv, nil)
	sid := hs.initialize("2025-06-18")
	post := newEventReader(t, hs.postCtx(testkit.Context(t), sid, "2025-06-18", callBody(2, "block", `{}`, `{"progressToken":1}`)))
	post.next()
	post.next()
	cancel := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"user"}}`
	wantStatus(t, hs.post(sid, "2025-06-18", cancel), http.StatusAccepted, 0)
	post.end() // no response will come: the stream ends
	// The id is free again.
	wantStatus(t, hs.post(sid, "2025-06-18", callBody(2, "echo", `{"message":"x"}`, "")), http.StatusOK, 0)
}

func TestCancelledJSONRequestIsAccepted(t *testing.T) {
	srv := mcp.NewServer(protocol.Implementation{Name: "hang", Version: "1"}, &mcp.ServerOptions{Logger: quietLogger})
	started := make(chan struct{}, 1)
	if err := mcp.AddTool(srv, &protocol.Tool{Name: "hang"}, func(ctx context.Context, req *mcp.ToolRequest, _ struct{}) (string, error) {
		started <- struct{}{}
		<-ctx.Done()
		return "", ctx.Err()
	}); err != nil {
		t.Fatal(err)
	}
	hs := newHarness(t, srv, &HandlerOptions{ResponseMode: ResponseAlwaysJSON})
	sid := hs.initialize("2025-06-18")
	got := make(chan *http.Response, 1)
	go func() { got <- hs.post(sid, "2025-06-18", callBody(8, "hang", `{}`, "")) }()
	<-started
	wantStatus(t, hs.post(sid, "2025-06-18", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":8}}`), http.StatusAccepted, 0)
	wantStatus(t, <-got, http.StatusAccepted, 0)
}

func TestInitializeTwice(t *testing.T) {
	hs := newHarness(t, newDemo(t), nil)
	sid := hs.initialize("2025-06-18")
	// A second initialize inside the session is the server's to refuse; the session
	// lives on.
	resp := hs.post(sid, "2025-06-18", initBody("2025-06-18"))
	body := readBody(t, resp)
	if resp.StatusCode != http.StatusOK || resp.Header.Get(HeaderSessionID) != "" {
		t.Fatalf("second initialize: %d %s (session header %q)", resp.StatusCode, body, resp.Header.Get(HeaderSessionID))
	}
	wantStatus(t, hs.post(sid, "2025-06-18", `{"jsonrpc":"2.0","id":9,"method":"ping"}`), http.StatusOK, 0)
}

func TestFailedInitializeIssuesNoSession(t *testing.T) {
	hs := newHarness(t, newDemo(t), nil)
	resp := hs.post("", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":7}}`)
	body := readBody(t, resp)
	m := decodeRPC(t, []byte(body))
	if resp.StatusCode != http.StatusOK || m.Error == nil {
		t.Fatalf("bad initialize: %d %s, want a JSON-RPC error", resp.StatusCode, body)
	}
	if sid := resp.Header.Get(HeaderSessionID); sid != "" {
		t.Fatalf("a failed initialize issued session %q", sid)
	}
	if n := hs.h.Sessions(); n != 0 {
		t.Fatalf("%d sessions remain after a failed initialize", n)
	}
}
