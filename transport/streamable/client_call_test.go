package streamable

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/transport"
)

// A single request's JSON reply is read on the Write's goroutine: when Write
// returns, the response is already queued for Read (before, Write returned once
// the request was written and a goroutine of its own delivered the reply later).
func TestClientCallJSONReplyQueuedWhenWriteReturns(t *testing.T) {
	ctx := testkit.Context(t)
	f := newClientFake(t, clientBasic(nil))
	c := clientDial(t, f.URL, &ClientOptions{DisableStandaloneStream: true})
	clientHandshake(t, ctx, c)
	for i := range 20 {
		for _, wctx := range []context.Context{ctx, context.Background()} { // both request contexts
			clientWrite(t, wctx, c, `{"jsonrpc":"2.0","id":7,"method":"ping"}`)
			if n := len(c.incoming); n != 1 {
				t.Fatalf("call %d: %d messages queued when Write returned, want the response", i, n)
			}
			if m := clientReadMsg(t, ctx, c); m.ID != jsonrpc.Int64ID(7) {
				t.Fatalf("got %+v", m)
			}
		}
	}
}

// A Write whose context ends while the server has not answered returns: nil for
// a legacy request that went out (the caller then sends notifications/cancelled),
// and the POST is abandoned (the server sees its request end). Nothing is delivered
// for it.
func TestClientCallContextEndsWhileWaiting(t *testing.T) {
	ctx := testkit.Context(t)
	arrived, gone := make(chan struct{}), make(chan struct{})
	f := newClientFake(t, clientBasic(func(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
		if msg.ID == jsonrpc.Int64ID(5) {
			close(arrived)
			clientWaitClosed(r)
			close(gone)
			return
		}
		clientReplyJSON(w, string(jsonrpc.AppendResult(nil, msg.ID, nil)))
	}))
	c := clientDial(t, f.URL, &ClientOptions{DisableStandaloneStream: true})
	clientHandshake(t, ctx, c)
	wctx, cancel := context.WithCancel(ctx)
	go func() { <-arrived; cancel() }()
	if err := c.Write(wctx, []byte(`{"jsonrpc":"2.0","id":5,"method":"slow"}`)); err != nil {
		t.Fatalf("Write of a request that went out returned %v, want nil", err)
	}
	select {
	case <-gone:
	case <-ctx.Done():
		t.Fatal("the abandoned POST stayed open")
	}
	clientWrite(t, ctx, c, `{"jsonrpc":"2.0","id":6,"method":"ping"}`)
	if m := clientReadMsg(t, ctx, c); m.ID != jsonrpc.Int64ID(6) {
		t.Fatalf("got %+v, want only the ping response", m)
	}
}

// A 2026-07-28 request whose context ends while waiting is cancelled by closing
// its POST: Write returns the context's error, and no notification is needed.
func TestClientCallStatelessContextEnds(t *testing.T) {
	ctx := testkit.Context(t)
	arrived := make(chan struct{})
	f := newClientFake(t, clientBasic(func(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
		close(arrived)
		clientWaitClosed(r)
	}))
	c := clientDial(t, f.URL, &ClientOptions{DisableStandaloneStream: true})
	wctx, cancel := context.WithCancel(ctx)
	go func() { <-arrived; cancel() }()
	err := c.Write(wctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{`+statelessMeta+`}}`))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Write = %v, want context.Canceled", err)
	}
	if got := len(f.posts("notifications/cancelled")); got != 0 {
		t.Errorf("%d notifications/cancelled posted", got)
	}
}

// Close ends a Write waiting for its answer, whether its context can be
// cancelled or not (on the default transport, Close interrupts the request
// through its request context; elsewhere the connection's cancellation ends it).
func TestClientCallCloseEndsWaitingWrite(t *testing.T) {
	for _, cancellable := range []bool{false, true} {
		ctx := testkit.Context(t)
		arrived := make(chan struct{})
		f := newClientFake(t, clientBasic(func(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
			close(arrived)
			clientWaitClosed(r)
		}))
		c := clientDial(t, f.URL, &ClientOptions{DisableStandaloneStream: true})
		clientHandshake(t, ctx, c)
		wctx := context.Background()
		if cancellable {
			var cancel context.CancelFunc
			wctx, cancel = context.WithCancel(wctx)
			defer cancel()
		}
		done := make(chan error, 1)
		go func() { done <- c.Write(wctx, []byte(`{"jsonrpc":"2.0","id":3,"method":"slow"}`)) }()
		<-arrived
		_ = c.Close()
		select {
		case <-done:
		case <-ctx.Done():
			t.Fatalf("cancellable=%v: Write still waiting after Close", cancellable)
		}
	}
}

// With a reply handler set, a single request's JSON response goes to it before
// Write returns, and not through Read; a handler that declines leaves it to Read.
func TestClientCallReplyHandler(t *testing.T) {
	ctx := testkit.Context(t)
	f := newClientFake(t, clientBasic(nil))
	c := clientDial(t, f.URL, &ClientOptions{DisableStandaloneStream: true})
	clientHandshake(t, ctx, c)
	var got []string
	take := true
	c.SetReplyHandler(func(msg []byte) bool {
		got = append(got, string(msg))
		return take
	})
	clientWrite(t, ctx, c, `{"jsonrpc":"2.0","id":8,"method":"ping"}`)
	if len(got) != 1 || !strings.Contains(got[0], `"id":8`) {
		t.Fatalf("the handler got %q", got)
	}
	if n := len(c.incoming); n != 0 {
		t.Fatalf("%d messages queued for Read as well", n)
	}
	take = false
	clientWrite(t, ctx, c, `{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	if m := clientReadMsg(t, ctx, c); m.ID != jsonrpc.Int64ID(9) || len(got) != 2 {
		t.Fatalf("Read got %+v after the handler declined (%d calls)", m, len(got))
	}
}

// A POST that meets a redirect is sent again where it points, as http.Client
// does (the client sends its POSTs to the transport directly otherwise).
func TestClientPostFollowsRedirect(t *testing.T) {
	ctx := testkit.Context(t)
	f := newClientFake(t, func(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/mcp", http.StatusTemporaryRedirect)
			return
		}
		clientBasic(nil)(w, r, msg)
	})
	c := clientDial(t, f.URL+"/old", &ClientOptions{DisableStandaloneStream: true})
	clientHandshake(t, ctx, c)
	clientWrite(t, ctx, c, `{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	if m := clientReadMsg(t, ctx, c); m.ID != jsonrpc.Int64ID(4) {
		t.Fatalf("got %+v", m)
	}
	// Redirected, sent again through http.Client (redirected), answered.
	if n := len(f.posts("ping")); n != 3 {
		t.Errorf("the server saw %d pings, want 3", n)
	}
}

// Close ends a POST that a redirect sent through net/http, even when its Write's
// context can never end: on h1, Close reaches a request through h1's
// Interrupter, which net/http does not know.
func TestClientCloseEndsRedirectedPost(t *testing.T) {
	ctx := testkit.Context(t)
	arrived, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	f := newClientFake(t, func(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
		switch {
		case msg != nil && msg.Method == "slow" && r.URL.Path == "/old":
			http.Redirect(w, r, "/mcp", http.StatusTemporaryRedirect)
		case msg != nil && msg.Method == "slow":
			close(arrived)
			select { // no answer until the test ends
			case <-release:
			case <-r.Context().Done():
			}
		default:
			clientBasic(nil)(w, r, msg)
		}
	})
	c := clientDial(t, f.URL+"/old", &ClientOptions{DisableStandaloneStream: true})
	clientHandshake(t, ctx, c)
	done := make(chan error, 1)
	go func() { done <- c.Write(context.Background(), []byte(`{"jsonrpc":"2.0","id":5,"method":"slow"}`)) }()
	select {
	case <-arrived:
	case <-ctx.Done():
		t.Fatal("the redirected POST never arrived")
	}
	closed := make(chan struct{})
	go func() { _ = c.Close(); close(closed) }()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("Close did not end the redirected POST")
	}
	select {
	case <-closed:
	case <-ctx.Done():
		t.Fatal("Close did not return")
	}
}

// A request whose reply is an SSE stream handed off to a background reader
// outlives the Write's context: cancelling it after Write returned does not
// end the stream, whose response still arrives.
func TestClientCallHandedStreamOutlivesWriteContext(t *testing.T) {
	ctx := testkit.Context(t)
	next := make(chan struct{})
	f := newClientFake(t, clientBasic(func(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
		if msg.ID == jsonrpc.Int64ID(8) { // after the cancellation: the stream may go on
			clientReplyJSON(w, string(jsonrpc.AppendResult(nil, msg.ID, nil)))
			close(next)
			return
		}
		clientStartSSE(w)
		<-next
		clientDataEvent(w, "", string(jsonrpc.AppendResult(nil, msg.ID, json.RawMessage(`{"ok":true}`))))
	}))
	c := clientDial(t, f.URL, &ClientOptions{DisableStandaloneStream: true})
	clientHandshake(t, ctx, c)
	wctx, cancel := context.WithCancel(ctx)
	if err := c.Write(wctx, []byte(`{"jsonrpc":"2.0","id":7,"method":"slow"}`)); err != nil {
		t.Fatal(err)
	}
	cancel()
	clientWrite(t, ctx, c, `{"jsonrpc":"2.0","id":8,"method":"ping"}`) // a round trip for the cancellation to land
	got := map[string]string{}
	for range 2 { // the ping's response and the stream's, in either order
		m := clientReadMsg(t, ctx, c)
		got[fmt.Sprint(m.ID.Raw())] = string(m.Result)
		if m.Error != nil {
			t.Fatalf("got %+v", m)
		}
	}
	if got["7"] != `{"ok":true}` {
		t.Fatalf("responses %q, want the stream's to id 7", got)
	}
}

// A decoded reply handler gets the response decoded, in place of the raw
// reply handler, and a declined one goes to Read.
func TestClientCallDecodedReplyHandler(t *testing.T) {
	ctx := testkit.Context(t)
	f := newClientFake(t, clientBasic(nil))
	c := clientDial(t, f.URL, &ClientOptions{DisableStandaloneStream: true})
	clientHandshake(t, ctx, c)
	c.SetReplyHandler(func([]byte) bool { t.Error("the raw reply handler was called"); return false })
	var got []*jsonrpc.Message
	take := true
	c.SetDecodedReplyHandler(func(m *jsonrpc.Message) bool {
		got = append(got, m)
		return take
	})
	clientWrite(t, ctx, c, `{"jsonrpc":"2.0","id":8,"method":"ping"}`)
	if len(got) != 1 || got[0].ID != jsonrpc.Int64ID(8) || !got[0].IsResponse() {
		t.Fatalf("the handler got %+v", got)
	}
	if n := len(c.incoming); n != 0 {
		t.Fatalf("%d messages queued for Read as well", n)
	}
	take = false
	clientWrite(t, ctx, c, `{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	if m := clientReadMsg(t, ctx, c); m.ID != jsonrpc.Int64ID(9) || len(got) != 2 {
		t.Fatalf("Read got %+v after the handler declined (%d calls)", m, len(got))
	}
}

// The header map of a POST sent on h1 is reused for the next one: a header of
// one request's (here from transport.WithHeader) is not sent with the next.
func TestClientPostHeaderNotCarriedOver(t *testing.T) {
	ctx := testkit.Context(t)
	f := newClientFake(t, clientBasic(nil))
	c := clientDial(t, f.URL, &ClientOptions{DisableStandaloneStream: true})
	clientHandshake(t, ctx, c)
	for i := range 3 {
		wctx := ctx
		if i == 0 {
			wctx = transport.WithHeader(ctx, http.Header{"X-Once": {"1"}})
		}
		clientWrite(t, wctx, c, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, 20+i))
		clientReadMsg(t, ctx, c)
	}
	posts := f.posts("ping")
	if len(posts) != 3 {
		t.Fatalf("%d pings posted", len(posts))
	}
	for i, p := range posts {
		if got, want := p.Header.Get("X-Once"), map[bool]string{true: "1"}[i == 0]; got != want {
			t.Errorf("ping %d: X-Once %q, want %q", i, got, want)
		}
		if p.Header.Get(HeaderSessionID) == "" || p.Header.Get("Content-Type") != "application/json" {
			t.Errorf("ping %d: headers %v", i, p.Header)
		}
	}
}
