package streamable

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

const clientListChanged = `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`

// clientHour is a reconnect delay no test waits for: a test that passes with it
// proves the client used the server's retry field instead.
const clientHour = time.Hour

func TestClientStandaloneStreamDeliversServerMessages(t *testing.T) {
	ctx := testkit.Context(t)
	base := clientBasic(nil)
	f := newClientFake(t, func(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
		if r.Method != http.MethodGet {
			base(w, r, msg)
			return
		}
		clientStartSSE(w)
		clientDataEvent(w, "", clientListChanged)
		clientDataEvent(w, "", `{"jsonrpc":"2.0","id":"srv-1","method":"roots/list"}`)
		clientWaitClosed(r)
	})
	c := clientDial(t, f.URL, &ClientOptions{Header: http.Header{"Authorization": {"Bearer t"}}})
	clientHandshake(t, ctx, c)
	if m := clientReadMsg(t, ctx, c); m.Method != "notifications/tools/list_changed" {
		t.Fatalf("got %+v, want the server's notification", m)
	}
	if m := clientReadMsg(t, ctx, c); m.Method != "roots/list" || m.ID != jsonrpc.StringID("srv-1") {
		t.Fatalf("got %+v, want the server's request", m)
	}
	gets := f.requests(http.MethodGet)
	if len(gets) != 1 {
		t.Fatalf("%d GETs, want 1", len(gets))
	}
	h := gets[0].Header
	if h.Get("Accept") != "text/event-stream" || h.Get(HeaderSessionID) != clientTestSession ||
		h.Get(HeaderProtocolVersion) != "2025-06-18" || h.Get("Authorization") != "Bearer t" || h.Get(HeaderLastEventID) != "" {
		t.Fatalf("GET headers %v", h)
	}
}

// The standalone stream ends; the client reconnects after the server's retry (not
// the hour-long ReconnectDelay) with Last-Event-Id.
func TestClientStandaloneReconnectsWithLastEventID(t *testing.T) {
	ctx := testkit.Context(t)
	var gets atomic.Int32
	base := clientBasic(nil)
	f := newClientFake(t, func(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
		if r.Method != http.MethodGet {
			base(w, r, msg)
			return
		}
		clientStartSSE(w)
		switch gets.Add(1) {
		case 1:
			clientEvent(w, "retry: 5\nid: ev-1\ndata: "+clientListChanged)
			return // the server closes the connection
		case 2:
			clientDataEvent(w, "ev-2", `{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`)
		}
		clientWaitClosed(r)
	})
	c := clientDial(t, f.URL, &ClientOptions{ReconnectDelay: clientHour})
	clientHandshake(t, ctx, c)
	if m := clientReadMsg(t, ctx, c); m.Method != "notifications/tools/list_changed" {
		t.Fatalf("first: %+v", m)
	}
	if m := clientReadMsg(t, ctx, c); m.Method != "notifications/resources/list_changed" {
		t.Fatalf("second: %+v", m)
	}
	reqs := f.requests(http.MethodGet)
	if len(reqs) < 2 || reqs[0].Header.Get(HeaderLastEventID) != "" || reqs[1].Header.Get(HeaderLastEventID) != "ev-1" {
		t.Fatalf("GETs carried Last-Event-Id %q", clientLastEventIDs(reqs))
	}
}

func clientLastEventIDs(reqs []clientSeen) []string {
	var ids []string
	for _, r := range reqs {
		ids = append(ids, r.Header.Get(HeaderLastEventID))
	}
	return ids
}

// A server without a GET stream (405) is asked once, not again and again.
func TestClientStandaloneStopsOn405(t *testing.T) {
	ctx := testkit.Context(t)
	got := make(chan struct{}, 10)
	base := clientBasic(nil)
	f := newClientFake(t, func(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
		if r.Method == http.MethodGet {
			select {
			case got <- struct{}{}:
			default:
			}
		}
		base(w, r, msg)
	})
	c := clientDial(t, f.URL, &ClientOptions{ReconnectDelay: time.Millisecond, MaxReconnectDelay: time.Millisecond})
	clientHandshake(t, ctx, c)
	<-got
	for i := 0; i < 20; i++ { // round trips that leave a retrying client time to retry
		clientWrite(t, ctx, c, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
		clientReadMsg(t, ctx, c)
	}
	_ = c.Close()
	if n := len(f.requests(http.MethodGet)); n != 1 {
		t.Fatalf("%d GETs, want 1", n)
	}
}

// A request's event stream that breaks before the response is resumed with a GET
// carrying the last event id, after the server's retry interval.
func TestClientResumesBrokenPostStream(t *testing.T) {
	ctx := testkit.Context(t)
	base := clientBasic(nil)
	var callID atomic.Value
	f := newClientFake(t, func(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
		switch {
		case r.Method == http.MethodGet:
			if r.Header.Get(HeaderLastEventID) != "e-2" {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			clientStartSSE(w)
			clientDataEvent(w, "e-3", clientProgress("1", 3))
			id := callID.Load().(jsonrpc.ID)
			clientDataEvent(w, "e-4", string(jsonrpc.AppendResult(nil, id, []byte(`{"resumed":true}`))))
		case msg != nil && msg.Method == "tools/call":
			callID.Store(msg.ID)
			clientStartSSE(w)
			clientEvent(w, "id: e-0\nretry: 5\ndata:")
			clientDataEvent(w, "e-1", clientProgress("1", 1))
			clientDataEvent(w, "e-2", clientProgress("1", 2))
			panic(http.ErrAbortHandler) // the connection breaks
		default:
			base(w, r, msg)
		}
	})
	c := clientDial(t, f.URL, &ClientOptions{DisableStandaloneStream: true, ReconnectDelay: clientHour})
	clientHandshake(t, ctx, c)
	clientWrite(t, ctx, c, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":1}}}`)
	for i := 1; i <= 3; i++ {
		m := clientReadMsg(t, ctx, c)
		if m.Method != "notifications/progress" || !strings.Contains(string(m.Params), `"progress":`+string(rune('0'+i))) {
			t.Fatalf("message %d: %s %s", i, m.Method, m.Params)
		}
	}
	if m := clientReadMsg(t, ctx, c); m.ID != jsonrpc.Int64ID(4) || string(m.Result) != `{"resumed":true}` {
		t.Fatalf("got %+v, want the resumed result", m)
	}
	gets := f.requests(http.MethodGet)
	if len(gets) != 1 || gets[0].Header.Get(HeaderSessionID) != clientTestSession {
		t.Fatalf("resumption GETs: %d, Last-Event-Id %q", len(gets), clientLastEventIDs(gets))
	}
}

// Resumption that keeps failing gives up after MaxReconnects attempts and fails
// the one request; the connection goes on.
func TestClientResumptionGivesUp(t *testing.T) {
	ctx := testkit.Context(t)
	base := clientBasic(nil)
	f := newClientFake(t, func(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
		switch {
		case r.Method == http.MethodGet:
			w.WriteHeader(http.StatusServiceUnavailable)
		case msg != nil && msg.Method == "tools/call":
			clientStartSSE(w)
			clientEvent(w, "id: e-1\nretry: 1\ndata:")
			panic(http.ErrAbortHandler)
		default:
			base(w, r, msg)
		}
	})
	c := clientDial(t, f.URL, &ClientOptions{DisableStandaloneStream: true, MaxReconnects: 2, ReconnectDelay: clientHour})
	clientHandshake(t, ctx, c)
	clientWrite(t, ctx, c, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"x"}}`)
	m := clientReadMsg(t, ctx, c)
	if m.ID != jsonrpc.Int64ID(4) || m.Error == nil || m.Error.Code != jsonrpc.CodeInternalError || !strings.Contains(m.Error.Message, "503") {
		t.Fatalf("got %+v, want a synthesized error for id 4", m)
	}
	if n := len(f.requests(http.MethodGet)); n != 2 {
		t.Fatalf("%d resumption attempts, want MaxReconnects = 2", n)
	}
	clientWrite(t, ctx, c, `{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	if m := clientReadMsg(t, ctx, c); m.ID != jsonrpc.Int64ID(5) || m.Error != nil {
		t.Fatalf("next request: %+v", m)
	}
}

// A stream without event ids cannot be resumed: its request fails at once.
func TestClientBrokenStreamWithoutIDFails(t *testing.T) {
	ctx := testkit.Context(t)
	base := clientBasic(nil)
	f := newClientFake(t, func(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
		if msg != nil && msg.Method == "tools/call" {
			clientStartSSE(w)
			clientDataEvent(w, "", clientProgress("1", 1))
			return // ends cleanly, without the response
		}
		base(w, r, msg)
	})
	c := clientDial(t, f.URL, &ClientOptions{DisableStandaloneStream: true, ReconnectDelay: clientHour})
	clientHandshake(t, ctx, c)
	clientWrite(t, ctx, c, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"x"}}`)
	if m := clientReadMsg(t, ctx, c); m.Method != "notifications/progress" {
		t.Fatalf("got %+v", m)
	}
	m := clientReadMsg(t, ctx, c)
	if m.ID != jsonrpc.Int64ID(4) || m.Error == nil || !strings.Contains(m.Error.Message, "no event id") {
		t.Fatalf("got %+v, want a synthesized error", m)
	}
	if n := len(f.requests(http.MethodGet)); n != 0 {
		t.Fatalf("%d GETs for a stream that cannot be resumed", n)
	}
}

// A 2025-11-25 server that closes the connection after each priming event (polling):
// the client keeps reconnecting with the newest event id until the result arrives.
func TestClientPollsStreamClosedByServer(t *testing.T) {
	ctx := testkit.Context(t)
	base := clientBasic(nil)
	var callID atomic.Value
	f := newClientFake(t, func(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
		switch {
		case r.Method == http.MethodGet && r.Header.Get(HeaderLastEventID) == "e-0":
			clientStartSSE(w)
			clientEvent(w, "id: e-1\ndata:") // still working: prime and close again
		case r.Method == http.MethodGet && r.Header.Get(HeaderLastEventID) == "e-1":
			clientStartSSE(w)
			clientDataEvent(w, "e-2", string(jsonrpc.AppendResult(nil, callID.Load().(jsonrpc.ID), []byte(`{"polled":true}`))))
		case r.Method == http.MethodGet:
			w.WriteHeader(http.StatusBadRequest)
		case msg != nil && msg.Method == "tools/call":
			callID.Store(msg.ID)
			clientStartSSE(w)
			clientEvent(w, "id: e-0\nretry: 1\ndata:")
		default:
			base(w, r, msg)
		}
	})
	c := clientDial(t, f.URL, &ClientOptions{DisableStandaloneStream: true, MaxReconnects: 1, ReconnectDelay: clientHour})
	clientHandshake(t, ctx, c)
	clientWrite(t, ctx, c, `{"jsonrpc":"2.0","id":"call","method":"tools/call","params":{"name":"x"}}`)
	if m := clientReadMsg(t, ctx, c); m.ID != jsonrpc.StringID("call") || string(m.Result) != `{"polled":true}` {
		t.Fatalf("got %+v", m)
	}
	if ids := clientLastEventIDs(f.requests(http.MethodGet)); strings.Join(ids, ",") != "e-0,e-1" {
		t.Fatalf("GETs carried Last-Event-Id %q", ids)
	}
}

// A response larger than MaxMessageSize on a request's event stream: the
// request fails saying the message was too large (not that the stream ended),
// and the client does not resume the stream to get the same message again.
func TestClientTooLargeEventFailsClearly(t *testing.T) {
	ctx := testkit.Context(t)
	base := clientBasic(nil)
	f := newClientFake(t, func(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
		if msg != nil && msg.Method == "tools/call" {
			clientStartSSE(w)
			big := `{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 8000) + `"}]}}`
			clientDataEvent(w, "e1", big)
			return
		}
		base(w, r, msg)
	})
	c := clientDial(t, f.URL, &ClientOptions{DisableStandaloneStream: true, ReconnectDelay: clientHour, MaxMessageSize: 4096})
	clientHandshake(t, ctx, c)
	clientWrite(t, ctx, c, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"x"}}`)
	m := clientReadMsg(t, ctx, c)
	if m.ID != jsonrpc.Int64ID(4) || m.Error == nil || !strings.Contains(m.Error.Message, "larger than this client's limit of 4096 bytes") ||
		strings.Contains(m.Error.Message, "ended") {
		t.Fatalf("got %+v, want an error saying the response was too large", m)
	}
	if n := len(f.requests(http.MethodGet)); n != 0 {
		t.Fatalf("%d GETs: the stream was resumed for a message that cannot fit", n)
	}
}
