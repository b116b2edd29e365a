package streamable

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/lazydone"
	"github.com/mcpkit/mcpkit/internal/sse"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// blockingServer has a tool "block" that reports progress 1 and 2, waits until
// release is closed, reports progress 3 and returns "done"; and "echo".
func blockingServer(t testing.TB) (*mcp.Server, chan struct{}) {
	t.Helper()
	release := make(chan struct{})
	srv := mcp.NewServer(protocol.Implementation{Name: "blocking", Version: "1"}, nil)
	err := errors.Join(
		mcp.AddTool(srv, &protocol.Tool{Name: "block"}, func(ctx context.Context, req *mcp.ToolRequest, _ struct{}) (string, error) {
			for i := 1; i <= 2; i++ {
				if err := req.ReportProgress(ctx, float64(i), 3, ""); err != nil {
					return "", err
				}
			}
			select {
			case <-release:
			case <-ctx.Done():
				return "", ctx.Err()
			}
			if err := req.ReportProgress(ctx, 3, 3, ""); err != nil {
				return "", err
			}
			return "done", nil
		}),
		mcp.AddTool(srv, &protocol.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.ToolRequest, in struct {
			Message string `json:"message"`
		}) (string, error) {
			return "hello " + in.Message, nil
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	return srv, release
}

// stream reads one SSE response event by event.
type eventReader struct {
	t    *testing.T
	resp *http.Response
	dec  *sse.Decoder
}

func newEventReader(t *testing.T, resp *http.Response) *eventReader {
	t.Helper()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("want an event stream, got %d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return &eventReader{t: t, resp: resp, dec: sse.NewDecoder(resp.Body)}
}

func (er *eventReader) next() (sse.Event, rpc) {
	er.t.Helper()
	ev, err := er.dec.Next()
	if err != nil {
		er.t.Fatalf("reading an event: %v", err)
	}
	if len(ev.Data) == 0 {
		return ev, rpc{}
	}
	return ev, decodeRPC(er.t, ev.Data)
}

// end checks that the stream ends cleanly with no further event.
func (er *eventReader) end() {
	er.t.Helper()
	if ev, err := er.dec.Next(); !errors.Is(err, io.EOF) {
		er.t.Fatalf("want the end of the stream, got %q, %v", ev.Data, err)
	}
}

func progressOf(t *testing.T, m rpc) float64 {
	t.Helper()
	var p protocol.ProgressParams
	if m.Method != "notifications/progress" || json.Unmarshal(m.Params, &p) != nil {
		t.Fatalf("want a progress notification, got %+v", m)
	}
	return p.Progress
}

func getStream(t *testing.T, hs *harness, ctx context.Context, sid string, hdr map[string]string) *http.Response {
	t.Helper()
	h := map[string]string{HeaderSessionID: sid, HeaderProtocolVersion: "2025-06-18"}
	for k, v := range hdr {
		h[k] = v
	}
	return hs.request(ctx, http.MethodGet, h, "")
}

func TestGETStreamCarriesListChangedOnce(t *testing.T) {
	srv, release := blockingServer(t)
	hs := newHarness(t, srv, nil)
	sid := hs.initialize("2025-06-18")
	ctx := testkit.Context(t)
	get := newEventReader(t, getStream(t, hs, ctx, sid, nil))
	if ct := get.resp.Header.Get("Cache-Control"); ct != "no-cache" {
		t.Errorf("Cache-Control %q", ct)
	}

	// A second GET stream on the same session is refused.
	wantStatus(t, getStream(t, hs, ctx, sid, nil), http.StatusConflict, -32600)

	// With a POST stream open, the tool list changes: the notification goes on the GET
	// stream only.
	post := newEventReader(t, hs.postCtx(ctx, sid, "2025-06-18", callBody(2, "block", `{}`, `{"progressToken":"p"}`)))
	_, m := post.next()
	progressOf(t, m)
	if err := mcp.AddTool(srv, &protocol.Tool{Name: "late"}, func(ctx context.Context, req *mcp.ToolRequest, _ struct{}) (string, error) {
		return "", nil
	}); err != nil {
		t.Fatal(err)
	}
	_, m = get.next()
	if m.Method != "notifications/tools/list_changed" {
		t.Fatalf("GET stream: %+v, want tools/list_changed", m)
	}
	// A marker (a ping from the server) must be the next event: no duplicate.
	pingCtx, cancelPing := context.WithCancel(ctx)
	defer cancelPing()
	go func() { _ = srv.Sessions()[0].Ping(pingCtx) }()
	_, m = get.next()
	if m.Method != "ping" {
		t.Fatalf("GET stream: %+v after list_changed, want the ping (a duplicate was sent?)", m)
	}
	close(release)
	var seen []string
	for {
		_, m := post.next()
		seen = append(seen, m.Method)
		if m.Method == "" {
			break
		}
	}
	post.end()
	for _, method := range seen {
		if method != "notifications/progress" && method != "" {
			t.Fatalf("the POST stream carried %q: %v", method, seen)
		}
	}
}

func TestServerRequestOnPOSTStreamAndAnswer(t *testing.T) {
	hs := newHarness(t, newDemo(t), nil)
	sid := hs.initialize("2025-06-18")
	ctx := testkit.Context(t)
	post := newEventReader(t, hs.postCtx(ctx, sid, "2025-06-18", callBody(4, "list_roots", `{}`, "")))
	_, req := post.next()
	if req.Method != "roots/list" || len(req.ID) == 0 {
		t.Fatalf("want a roots/list request on the POST stream, got %+v", req)
	}
	answer := `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"roots":[{"uri":"file:///tmp","name":"tmp"}]}}`
	wantStatus(t, hs.post(sid, "2025-06-18", answer), http.StatusAccepted, 0)
	_, res := post.next()
	if string(res.ID) != "4" || !strings.Contains(string(res.Result), "file:///tmp tmp") {
		t.Fatalf("response %+v", res)
	}
	post.end()
}

func TestAlwaysJSONRoutesServerRequestsToGET(t *testing.T) {
	hs := newHarness(t, newDemo(t), &HandlerOptions{ResponseMode: ResponseAlwaysJSON})
	sid := hs.initialize("2025-06-18")
	ctx := testkit.Context(t)

	// Without a GET stream the server's request fails at once: the tool reports it.
	resp := hs.post(sid, "2025-06-18", callBody(2, "list_roots", `{}`, ""))
	body := readBody(t, resp)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" || !strings.Contains(body, `"isError":true`) {
		t.Fatalf("without a GET stream: %d %s", resp.StatusCode, body)
	}

	get := newEventReader(t, getStream(t, hs, ctx, sid, nil))
	type result struct {
		status int
		ct     string
		body   string
	}
	done := make(chan result, 1)
	go func() {
		resp := hs.postCtx(ctx, sid, "2025-06-18", callBody(3, "list_roots", `{}`, ""))
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		done <- result{resp.StatusCode, resp.Header.Get("Content-Type"), string(b)}
	}()
	_, req := get.next()
	if req.Method != "roots/list" {
		t.Fatalf("GET stream: %+v, want roots/list", req)
	}
	answer := `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"roots":[]}}`
	wantStatus(t, hs.post(sid, "2025-06-18", answer), http.StatusAccepted, 0)
	r := <-done
	if r.status != http.StatusOK || r.ct != "application/json" || !strings.Contains(r.body, "no roots") {
		t.Fatalf("JSON answer: %+v", r)
	}
}

func TestResumePOSTStreamAfterDisconnect(t *testing.T) {
	srv, release := blockingServer(t)
	hs := newHarness(t, srv, nil)
	sid := hs.initialize("2025-11-25")
	ctx := testkit.Context(t)

	cut, cancel := context.WithCancel(ctx)
	post := newEventReader(t, hs.postCtx(cut, sid, "2025-11-25", callBody(9, "block", `{}`, `{"progressToken":"r"}`)))
	primer, _ := post.next()
	if len(primer.Data) != 0 || primer.ID == "" {
		t.Fatalf("first event %+v, want the priming event", primer)
	}
	if r, ok := post.dec.Retry(); !ok || r != DefaultRetryInterval {
		t.Fatalf("retry %v %v, want %v", r, ok, DefaultRetryInterval)
	}
	var last string
	for i := 1; i <= 2; i++ {
		ev, m := post.next()
		if progressOf(t, m) != float64(i) {
			t.Fatalf("event %d: %+v", i, m)
		}
		last = ev.ID
	}
	cancel() // the connection breaks; the request goes on
	close(release)

	resumed := newEventReader(t, getStream(t, hs, ctx, sid, map[string]string{HeaderLastEventID: last, HeaderProtocolVersion: "2025-11-25"}))
	_, m := resumed.next()
	if progressOf(t, m) != 3 {
		t.Fatalf("resumed stream starts with %+v, want progress 3", m)
	}
	_, m = resumed.next()
	if string(m.ID) != "9" || !strings.Contains(string(m.Result), "done") {
		t.Fatalf("resumed stream: %+v, want the response", m)
	}
	resumed.end()

	// Resuming again from the same point replays the same events (from the store).
	again := newEventReader(t, getStream(t, hs, ctx, sid, map[string]string{HeaderLastEventID: last, HeaderProtocolVersion: "2025-11-25"}))
	_, m = again.next()
	progressOf(t, m)
	_, m = again.next()
	if string(m.ID) != "9" {
		t.Fatalf("second replay: %+v", m)
	}
	again.end()

	wantStatus(t, getStream(t, hs, ctx, sid, map[string]string{HeaderLastEventID: "nope_1"}), http.StatusBadRequest, -32600)
}

func TestResumeGETStream(t *testing.T) {
	srv, _ := blockingServer(t)
	hs := newHarness(t, srv, nil)
	sid := hs.initialize("2025-06-18")
	ctx := testkit.Context(t)
	cut, cancel := context.WithCancel(ctx)
	get := newEventReader(t, getStream(t, hs, cut, sid, nil))
	addTool := func(name string) {
		t.Helper()
		if err := mcp.AddTool(srv, &protocol.Tool{Name: name}, func(ctx context.Context, req *mcp.ToolRequest, _ struct{}) (string, error) {
			return "", nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	addTool("a")
	ev, m := get.next()
	if m.Method != "notifications/tools/list_changed" || ev.ID == "" {
		t.Fatalf("%+v %+v", ev, m)
	}
	cancel()
	// Sent while the client is away: kept for it.
	addTool("b")
	resumed := newEventReader(t, getStream(t, hs, ctx, sid, map[string]string{HeaderLastEventID: ev.ID}))
	ev2, m := resumed.next()
	if m.Method != "notifications/tools/list_changed" || ev2.ID == ev.ID {
		t.Fatalf("resumed: %+v %+v", ev2, m)
	}
	// The resumed stream is live.
	addTool("c")
	if _, m = resumed.next(); m.Method != "notifications/tools/list_changed" {
		t.Fatalf("live after resume: %+v", m)
	}
}

func TestPrimingOnlyFor20251125(t *testing.T) {
	for _, v := range []string{"2025-03-26", "2025-06-18", "2025-11-25"} {
		t.Run(v, func(t *testing.T) {
			hs := newHarness(t, newDemo(t), &HandlerOptions{ResponseMode: ResponseAlwaysSSE, RetryInterval: 2500 * time.Millisecond})
			resp := hs.post("", "", initBody(v))
			sid := resp.Header.Get(HeaderSessionID)
			evs := mustEvents(t, resp)
			primed := v == "2025-11-25"
			if want := map[bool]int{true: 2, false: 1}[primed]; len(evs) != want {
				t.Fatalf("initialize: %d events, want %d", len(evs), want)
			}
			body := readBody(t, hs.post(sid, v, callBody(2, "echo", `{"message":"x"}`, "")))
			hasRetry := strings.Contains(body, "retry: 2500\n")
			hasEmpty := strings.Contains(body, "data:\n") || strings.HasPrefix(body, "data:\n")
			if hasRetry != primed || hasEmpty != primed {
				t.Fatalf("version %s: body %q: retry %v, empty data %v, want %v", v, body, hasRetry, hasEmpty, primed)
			}
			if primed && !strings.HasPrefix(body, "id: ") {
				t.Fatalf("the priming event must come first: %q", body)
			}
			// The GET stream too.
			ctx, cancel := context.WithCancel(testkit.Context(t))
			defer cancel()
			get := newEventReader(t, getStream(t, hs, ctx, sid, map[string]string{HeaderProtocolVersion: v}))
			if primed {
				ev, _ := get.next()
				if len(ev.Data) != 0 || ev.ID == "" {
					t.Fatalf("GET: first event %+v, want the priming event", ev)
				}
			}
		})
	}
}

func TestKeepAliveComments(t *testing.T) {
	hs := newHarness(t, newDemo(t), &HandlerOptions{KeepAlive: 5 * time.Millisecond})
	sid := hs.initialize("2025-06-18")
	ctx, cancel := context.WithCancel(testkit.Context(t))
	defer cancel()
	resp := getStream(t, hs, ctx, sid, nil)
	defer resp.Body.Close()
	comments := make(chan string, 16)
	dec := sse.NewDecoderWithOptions(resp.Body, sse.DecoderOptions{OnComment: func(b []byte) {
		select {
		case comments <- string(b):
		default:
		}
	}})
	go func() {
		for {
			if _, err := dec.Next(); err != nil {
				return
			}
		}
	}()
	for i := 0; i < 3; i++ {
		select {
		case c := <-comments:
			if c != "keep-alive" {
				t.Fatalf("comment %q", c)
			}
		case <-ctx.Done():
			t.Fatal("no keep-alive comment")
		}
	}
}

func TestAutoModeStreamsSlowResponses(t *testing.T) {
	srv, release := blockingServer(t)
	hs := newHarness(t, srv, &HandlerOptions{KeepAlive: 5 * time.Millisecond})
	sid := hs.initialize("2025-06-18")
	// No progress token: nothing interim is sent, yet the answer is slow.
	resp := hs.post(sid, "2025-06-18", callBody(2, "block", `{}`, ""))
	er := newEventReader(t, resp) // SSE was chosen before the response
	close(release)
	_, m := er.next()
	if string(m.ID) != "2" {
		t.Fatalf("%+v", m)
	}
	er.end()
}

func TestCloseEndsStreams(t *testing.T) {
	srv, _ := blockingServer(t)
	hs := newHarness(t, srv, nil)
	sid := hs.initialize("2025-06-18")
	ctx := testkit.Context(t)
	get := newEventReader(t, getStream(t, hs, ctx, sid, nil))
	post := newEventReader(t, hs.postCtx(ctx, sid, "2025-06-18", callBody(2, "block", `{}`, `{"progressToken":1}`)))
	post.next()
	post.next()
	ss := srv.Sessions()[0]
	if err := hs.h.Close(); err != nil {
		t.Fatal(err)
	}
	get.end() // ended cleanly: the chunked body was terminated
	post.end()
	select {
	case <-ss.Done():
	case <-ctx.Done():
		t.Fatal("the MCP session did not end")
	}
	wantStatus(t, hs.post(sid, "2025-06-18", callBody(3, "echo", `{}`, "")), http.StatusServiceUnavailable, -32603)
	if hs.h.Sessions() != 0 {
		t.Fatal("sessions remain after Close")
	}
}

func TestShutdownLetsRequestsFinish(t *testing.T) {
	srv, release := blockingServer(t)
	hs := newHarness(t, srv, nil)
	sid := hs.initialize("2025-06-18")
	ctx := testkit.Context(t)
	get := newEventReader(t, getStream(t, hs, ctx, sid, nil))
	post := newEventReader(t, hs.postCtx(ctx, sid, "2025-06-18", callBody(2, "block", `{}`, `{"progressToken":1}`)))
	post.next()
	shut := make(chan error, 1)
	go func() { shut <- hs.h.Shutdown(ctx) }()
	get.end() // GET streams end at once
	// New sessions are refused while draining; the request in flight goes on, and its
	// session still takes posts (here, a ping's answer would be one).
	wantStatus(t, hs.post("", "", initBody("2025-06-18")), http.StatusServiceUnavailable, -32603)
	wantStatus(t, hs.post(sid, "2025-06-18", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"x","progress":1}}`), http.StatusAccepted, 0)
	close(release)
	post.next()
	post.next()
	_, m := post.next()
	if string(m.ID) != "2" {
		t.Fatalf("%+v", m)
	}
	post.end()
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
}

func TestSlowClientIsCutNotBuffered(t *testing.T) {
	h := NewHandler(echoServer(t), &HandlerOptions{Logger: quietLogger})
	defer h.Close()
	s := h.newSession("sid", "127.0.0.1:1", 1)
	st := newStream(s, modeSSE, 0)
	me := new(lazydone.Done)
	st.writer = me
	msg := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`)
	st.mu.Lock()
	for range maxQueuedEvents + 1 {
		st.pushLocked(msg)
	}
	queued, attached := len(st.queue), st.writer != nil
	st.mu.Unlock()
	select {
	case <-me.Wait():
	default:
		t.Fatal("the writer of a client that does not keep up was not told to leave")
	}
	if queued != 0 || attached {
		t.Fatalf("%d events still queued, attached %v", queued, attached)
	}
	// Everything is in the store (up to its retention) for the client to resume.
	n := 0
	if _, err := h.store.Replay(context.Background(), "sid", st.name+"_0", func(string, []byte) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if want := min(maxQueuedEvents+1, DefaultMaxEventsPerStream); n != want {
		t.Fatalf("%d events stored, want %d", n, want)
	}
}

// deadlineWriter records the write deadlines the handler sets.
type deadlineWriter struct {
	*httptest.ResponseRecorder
	deadlines []time.Time
}

func (w *deadlineWriter) SetWriteDeadline(t time.Time) error {
	w.deadlines = append(w.deadlines, t)
	return nil
}

func TestSSEWriteDeadlineIsRollingAndCleared(t *testing.T) {
	h := NewHandler(echoServer(t), &HandlerOptions{ResponseMode: ResponseAlwaysSSE, Logger: quietLogger})
	defer h.Close()
	sid := serve(h, http.MethodPost, "", initBody("2025-06-18")).Header().Get(HeaderSessionID)
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(callBody(2, "echo", `{"message":"x"}`, "")))
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(HeaderSessionID, sid)
	w := &deadlineWriter{ResponseRecorder: httptest.NewRecorder()}
	before := time.Now()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "hello x") {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	n := len(w.deadlines)
	if n < 2 || !w.deadlines[0].After(before) || !w.deadlines[n-1].IsZero() {
		t.Fatalf("deadlines %v: want rolling deadlines, then none once the stream ended", w.deadlines)
	}
}
