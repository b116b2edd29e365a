package streamable

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

func TestClientJSONRepliesAndHeaders(t *testing.T) {
	ctx := testkit.Context(t)
	f := newClientFake(t, clientBasic(nil))
	c := clientDial(t, f.URL, &ClientOptions{Header: http.Header{"x-api-key": {"k1"}, "accept": {"text/html"}, "Mcp-Session-Id": {"forged"}}})
	clientHandshake(t, ctx, c)
	clientWrite(t, ctx, c, `{"jsonrpc":"2.0","id":"two","method":"tools/list"}`)
	if m := clientReadMsg(t, ctx, c); m.ID != jsonrpc.StringID("two") || string(m.Result) != "{}" {
		t.Fatalf("tools/list answered %+v", m)
	}
	if got := c.SessionID(); got != clientTestSession {
		t.Errorf("SessionID() = %q", got)
	}
	if got := c.ProtocolVersion(); got != "2025-06-18" {
		t.Errorf("ProtocolVersion() = %q", got)
	}

	posts := f.requests(http.MethodPost)
	if len(posts) != 3 {
		t.Fatalf("got %d POSTs, want 3", len(posts))
	}
	for i, p := range posts {
		if got := p.Header.Values("Accept"); len(got) != 1 || got[0] != "application/json, text/event-stream" {
			t.Errorf("POST %d: Accept %q", i, got)
		}
		if got := p.Header.Get("Content-Type"); got != "application/json" {
			t.Errorf("POST %d: Content-Type %q", i, got)
		}
		if got := p.Header.Get("X-Api-Key"); got != "k1" {
			t.Errorf("POST %d: custom header %q", i, got)
		}
		wantSession, wantVersion := clientTestSession, "2025-06-18"
		if i == 0 { // initialize carries neither
			wantSession, wantVersion = "", ""
		}
		if got := strings.Join(p.Header.Values(HeaderSessionID), ","); got != wantSession {
			t.Errorf("POST %d (%s): session %q, want %q", i, p.Msg.Method, got, wantSession)
		}
		if got := p.Header.Get("MCP-Protocol-Version"); got != wantVersion {
			t.Errorf("POST %d (%s): protocol version %q, want %q", i, p.Msg.Method, got, wantVersion)
		}
	}
}

func TestClientSSEReplyKeepsOrder(t *testing.T) {
	ctx := testkit.Context(t)
	f := newClientFake(t, clientBasic(func(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
		clientStartSSE(w)
		clientEvent(w, ": a comment first")
		clientEvent(w, "id: p0\ndata:") // priming event: no message
		for i := 1; i <= 3; i++ {
			clientDataEvent(w, "", clientProgress(`"tok"`, i))
		}
		clientEvent(w, "event: message\ndata: "+string(jsonrpc.AppendResult(nil, msg.ID, []byte(`{"done":true}`))))
	}))
	c := clientDial(t, f.URL, &ClientOptions{DisableStandaloneStream: true})
	clientHandshake(t, ctx, c)
	clientWrite(t, ctx, c, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","_meta":{"progressToken":"tok"}}}`)
	for i := 1; i <= 3; i++ {
		m := clientReadMsg(t, ctx, c)
		if m.Method != "notifications/progress" || !strings.Contains(string(m.Params), `"progress":`+string(rune('0'+i))) {
			t.Fatalf("message %d: %s %s", i, m.Method, m.Params)
		}
	}
	if m := clientReadMsg(t, ctx, c); m.ID != jsonrpc.Int64ID(7) || string(m.Result) != `{"done":true}` {
		t.Fatalf("final message %+v", m)
	}
}

// A server may answer a notification with 202, 200 and no body, or a body: a
// JSON or SSE body's messages are delivered, and a stray response (the C# server
// repeats the initialize response) is dropped.
func TestClientOneWayReplies(t *testing.T) {
	note := `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}`
	stray := `{"jsonrpc":"2.0","id":1,"result":{}}`
	cases := map[string]func(w http.ResponseWriter){
		"202":       func(w http.ResponseWriter) { w.WriteHeader(http.StatusAccepted) },
		"200 empty": func(w http.ResponseWriter) { w.WriteHeader(http.StatusOK) },
		"200 JSON":  func(w http.ResponseWriter) { clientReplyJSON(w, note) },
		"200 batch": func(w http.ResponseWriter) { clientReplyJSON(w, "["+stray+","+note+"]") },
		"200 stream": func(w http.ResponseWriter) {
			clientStartSSE(w)
			clientDataEvent(w, "", stray)
			clientDataEvent(w, "", note)
		},
	}
	for name, reply := range cases {
		t.Run(name, func(t *testing.T) {
			ctx := testkit.Context(t)
			f := newClientFake(t, func(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
				if msg != nil && msg.Method == "notifications/roots/list_changed" {
					reply(w)
					return
				}
				clientBasic(nil)(w, r, msg)
			})
			c := clientDial(t, f.URL, &ClientOptions{DisableStandaloneStream: true})
			clientHandshake(t, ctx, c)
			clientWrite(t, ctx, c, `{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
			clientWrite(t, ctx, c, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
			// The notification's reply body is read in the background, so its message
			// and the ping response may come in either order.
			want := map[string]bool{"ping response": true}
			if strings.HasPrefix(name, "200 ") && name != "200 empty" {
				want["notification"] = true
			}
			for n := len(want); n > 0; n-- {
				m := clientReadMsg(t, ctx, c)
				switch {
				case m.ID == jsonrpc.Int64ID(2):
					delete(want, "ping response")
				case m.Method == "notifications/message":
					delete(want, "notification")
				default:
					t.Fatalf("unexpected message %+v (the stray response must be dropped)", m)
				}
			}
			if len(want) != 0 {
				t.Fatalf("missing %v", want)
			}
		})
	}
}

func TestClientNotificationErrorStatus(t *testing.T) {
	ctx := testkit.Context(t)
	f := newClientFake(t, clientBasic(nil))
	c := clientDial(t, f.URL, &ClientOptions{DisableStandaloneStream: true})
	clientHandshake(t, ctx, c)
	f.setHandler(func(w http.ResponseWriter, r *http.Request, _ *jsonrpc.Message) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad notification"}}`)
	})
	err := c.Write(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/x"}`))
	var se *StatusError
	var rpc *jsonrpc.Error
	if !errors.As(err, &se) || se.StatusCode != 400 || !errors.As(err, &rpc) || rpc.Code != -32600 {
		t.Fatalf("Write = %v, want a 400 StatusError carrying -32600", err)
	}
}

// A 4xx answer to a request fails that request with the server's JSON-RPC error.
func TestClientRequestErrorStatusCarriesRPCError(t *testing.T) {
	ctx := testkit.Context(t)
	f := newClientFake(t, clientBasic(func(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","error":{"code":-32020,"message":"header mismatch"}}`) // no id, as servers do
	}))
	c := clientDial(t, f.URL, &ClientOptions{DisableStandaloneStream: true})
	clientHandshake(t, ctx, c)
	clientWrite(t, ctx, c, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	m := clientReadMsg(t, ctx, c)
	if m.ID != jsonrpc.Int64ID(3) || m.Error == nil || m.Error.Code != -32020 || m.Error.Message != "header mismatch" {
		t.Fatalf("got %+v, want the server's error for id 3", m)
	}
}

// A JSON array reply is split into its messages.
func TestClientBatchReplySplit(t *testing.T) {
	ctx := testkit.Context(t)
	f := newClientFake(t, func(w http.ResponseWriter, r *http.Request, _ *jsonrpc.Message) {
		body, _ := io.ReadAll(r.Body)
		if !strings.HasPrefix(string(body), "[") {
			t.Errorf("body %s is not the batch written", body)
		}
		clientReplyJSON(w, `[{"jsonrpc":"2.0","id":10,"result":{"a":1}},{"jsonrpc":"2.0","id":11,"error":{"code":-32601,"message":"no"}}]`)
	})
	c := clientDial(t, f.URL, &ClientOptions{DisableStandaloneStream: true})
	clientWrite(t, ctx, c, `[{"jsonrpc":"2.0","id":10,"method":"a"},{"jsonrpc":"2.0","id":11,"method":"b"}]`)
	a, b := clientReadMsg(t, ctx, c), clientReadMsg(t, ctx, c)
	if a.ID != jsonrpc.Int64ID(10) || string(a.Result) != `{"a":1}` || b.ID != jsonrpc.Int64ID(11) || b.Error == nil || b.Error.Code != -32601 {
		t.Fatalf("got %+v and %+v", a, b)
	}
}

// notifications/cancelled for a pending request stops its stream: no response (and
// no synthesized error) is delivered for it. This holds whether the request was
// written with a cancellable context or with one never cancelled (its SSE reply
// is then read in the background).
func TestClientCancelledRequestDeliversNothing(t *testing.T) {
	for _, tc := range []struct {
		name  string
		write func(ctx context.Context) context.Context
	}{
		{"cancellable", func(ctx context.Context) context.Context { return ctx }},
		{"never cancelled", func(context.Context) context.Context { return context.Background() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testkit.Context(t)
			streamStarted, streamGone := make(chan struct{}), make(chan struct{})
			f := newClientFake(t, clientBasic(func(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
				if msg.ID == jsonrpc.Int64ID(5) {
					clientStartSSE(w)
					close(streamStarted)
					clientWaitClosed(r)
					close(streamGone)
					return
				}
				clientReplyJSON(w, string(jsonrpc.AppendResult(nil, msg.ID, nil)))
			}))
			c := clientDial(t, f.URL, &ClientOptions{DisableStandaloneStream: true})
			clientHandshake(t, ctx, c)
			clientWrite(t, tc.write(ctx), c, `{"jsonrpc":"2.0","id":5,"method":"slow"}`)
			<-streamStarted
			clientWrite(t, ctx, c, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}`)
			select {
			case <-streamGone:
			case <-ctx.Done():
				t.Fatal("the cancelled request's stream stayed open")
			}
			clientWrite(t, ctx, c, `{"jsonrpc":"2.0","id":6,"method":"ping"}`)
			if m := clientReadMsg(t, ctx, c); m.ID != jsonrpc.Int64ID(6) {
				t.Fatalf("got %+v, want only the ping response", m)
			}
		})
	}
}

func TestClientCloseDeletesSession(t *testing.T) {
	ctx := testkit.Context(t)
	f := newClientFake(t, clientBasic(nil))
	c := clientDial(t, f.URL, &ClientOptions{DisableStandaloneStream: true})
	clientHandshake(t, ctx, c)
	readErr := make(chan error, 1)
	go func() { _, err := c.Read(ctx); readErr <- err }()
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := <-readErr; err != io.EOF {
		t.Fatalf("pending Read returned %v, want io.EOF", err)
	}
	dels := f.requests(http.MethodDelete)
	if len(dels) != 1 || dels[0].Header.Get(HeaderSessionID) != clientTestSession {
		t.Fatalf("DELETEs: %+v", dels)
	}
	if _, err := c.Read(ctx); err != io.EOF {
		t.Errorf("Read after Close = %v, want io.EOF", err)
	}
	if err := c.Write(ctx, []byte(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)); err == nil {
		t.Error("Write after Close succeeded")
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestClientCloseToleratesDelete405AndIsBounded(t *testing.T) {
	ctx := testkit.Context(t)
	hang := make(chan struct{})
	defer close(hang)
	for _, tc := range []struct {
		name    string
		del     func(w http.ResponseWriter, r *http.Request)
		wantErr bool
	}{
		{"405", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusMethodNotAllowed) }, false},
		{"hanging", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-hang:
			}
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newClientFake(t, clientBasic(nil))
			c := clientDial(t, f.URL, &ClientOptions{DisableStandaloneStream: true, CloseTimeout: 50 * time.Millisecond})
			clientHandshake(t, ctx, c)
			f.setHandler(func(w http.ResponseWriter, r *http.Request, _ *jsonrpc.Message) { tc.del(w, r) })
			done := make(chan error, 1)
			go func() { done <- c.Close() }()
			select {
			case err := <-done:
				if (err != nil) != tc.wantErr {
					t.Fatalf("Close = %v, want error: %v", err, tc.wantErr)
				}
			case <-ctx.Done():
				t.Fatal("Close did not return")
			}
		})
	}
}

func TestClientReadHonoursContext(t *testing.T) {
	f := newClientFake(t, clientBasic(nil))
	c := clientDial(t, f.URL, nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Read(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Read = %v, want context.Canceled", err)
	}
}

func TestNewClientConnRejectsBadURLs(t *testing.T) {
	for _, u := range []string{"", "ftp://x/mcp", "/relative", "http://", "http://a b/"} {
		if _, err := NewClientConn(context.Background(), u, nil); err == nil {
			t.Errorf("NewClientConn(%q) succeeded", u)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewClientConn(ctx, "http://127.0.0.1/mcp", nil); !errors.Is(err, context.Canceled) {
		t.Errorf("NewClientConn with a cancelled context = %v", err)
	}
}

func TestClientRejectsMalformedWrite(t *testing.T) {
	f := newClientFake(t, clientBasic(nil))
	c := clientDial(t, f.URL, nil)
	if err := c.Write(testkit.Context(t), []byte(`{"jsonrpc":"2.0",`)); err == nil {
		t.Fatal("Write of malformed JSON succeeded")
	}
	if n := len(f.requests("")); n != 0 {
		t.Fatalf("%d requests sent for a malformed message", n)
	}
}

// Close unblocks Writes waiting for a server that does not answer.
func TestClientCloseUnblocksWrites(t *testing.T) {
	ctx := testkit.Context(t)
	arrived := make(chan struct{}, 2)
	f := newClientFake(t, func(w http.ResponseWriter, r *http.Request, _ *jsonrpc.Message) {
		arrived <- struct{}{}
		clientWaitClosed(r)
	})
	c := clientDial(t, f.URL, &ClientOptions{CloseTimeout: time.Millisecond})
	errs := make(chan error, 2)
	go func() { errs <- c.Write(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)) }()
	go func() { errs <- c.Write(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/x"}`)) }()
	<-arrived
	<-arrived
	_ = c.Close()
	for range 2 {
		if err := <-errs; err == nil {
			t.Error("a Write interrupted by Close returned nil")
		}
	}
}

// A reply without a usable Content-Type (a Go handler that sets none sends
// text/plain) is taken for JSON when it looks like JSON.
func TestClientJSONWithoutContentType(t *testing.T) {
	ctx := testkit.Context(t)
	f := newClientFake(t, clientBasic(func(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
		_, _ = w.Write(jsonrpc.AppendResult(nil, msg.ID, []byte(`{"sniffed":true}`)))
	}))
	c := clientDial(t, f.URL, &ClientOptions{DisableStandaloneStream: true})
	clientHandshake(t, ctx, c)
	clientWrite(t, ctx, c, `{"jsonrpc":"2.0","id":2,"method":"x"}`)
	if m := clientReadMsg(t, ctx, c); m.ID != jsonrpc.Int64ID(2) || string(m.Result) != `{"sniffed":true}` {
		t.Fatalf("got %+v", m)
	}
}
