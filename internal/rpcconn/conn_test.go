package rpcconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// pipe is a minimal in-memory Stream pair for these tests.
type pipe struct {
	in     chan []byte
	out    chan []byte
	closed chan struct{}
	once   sync.Once
	peer   *pipe
}

func newPipe() (*pipe, *pipe) {
	ab, ba := make(chan []byte, 64), make(chan []byte, 64)
	a := &pipe{in: ba, out: ab, closed: make(chan struct{})}
	b := &pipe{in: ab, out: ba, closed: make(chan struct{})}
	a.peer, b.peer = b, a
	return a, b
}

func (p *pipe) Read(ctx context.Context) ([]byte, error) {
	select {
	case m := <-p.in:
		return m, nil
	case <-p.closed:
		return nil, io.EOF
	case <-p.peer.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (p *pipe) Write(ctx context.Context, msg []byte) error {
	select {
	case p.out <- append([]byte(nil), msg...):
		return nil
	case <-p.closed:
		return jsonrpc.ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (p *pipe) Close() error { p.once.Do(func() { close(p.closed) }); return nil }

// raw sends one message from the peer side and returns the next message the conn writes.
func exchange(t *testing.T, peer *pipe, msg string) string {
	t.Helper()
	peer.out <- []byte(msg)
	return next(t, peer)
}

func next(t *testing.T, peer *pipe) string {
	t.Helper()
	select {
	case m := <-peer.in:
		return string(m)
	case <-time.After(5 * time.Second):
		t.Fatal("no message within 5s")
		return ""
	}
}

func startConn(t *testing.T, opts ConnOptions) (*Conn, *pipe) {
	a, b := newPipe()
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	c := NewConn(a, opts)
	c.Start(context.Background())
	t.Cleanup(func() { _ = c.Close() })
	return c, b
}

// started receives the id of every "block" request once its handler runs.
var started = make(chan jsonrpc.ID, 16)

func echoHandler() Handler {
	return HandlerFunc(func(ctx context.Context, m *jsonrpc.Message) (any, error) {
		switch m.Method {
		case "echo":
			return m.Params, nil
		case "fail":
			return nil, &jsonrpc.Error{Code: 7, Message: "custom"}
		case "plain":
			return nil, errors.New("boom")
		case "panic":
			panic("kaboom")
		case "block":
			started <- m.ID
			<-ctx.Done()
			return map[string]string{"late": "yes"}, nil
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + m.Method}
	})
}

func TestConnAnswersRequests(t *testing.T) {
	_, peer := startConn(t, ConnOptions{Handler: echoHandler()})
	cases := []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":0,"method":"echo","params":{"a":1}}`, `{"jsonrpc":"2.0","id":0,"result":{"a":1}}`},
		{`{"jsonrpc":"2.0","id":"s","method":"echo"}`, `{"jsonrpc":"2.0","id":"s","result":{}}`},
		{`{"jsonrpc":"2.0","id":1,"method":"fail"}`, `{"jsonrpc":"2.0","id":1,"error":{"code":7,"message":"custom"}}`},
		{`{"jsonrpc":"2.0","id":2,"method":"plain"}`, `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"boom"}}`},
		{`{"jsonrpc":"2.0","id":3,"method":"nope"}`, `{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"method not found: nope"}}`},
		{`{"jsonrpc":"2.0","id":4,`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: invalid JSON"}}`},
		{`{"id":5,"method":"echo"}`, `{"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"invalid request: \"jsonrpc\" must be \"2.0\""}}`},
		{`[{"jsonrpc":"2.0","id":6,"method":"echo"}]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: JSON-RPC batches are not supported by the negotiated protocol version"}}`},
	}
	for _, c := range cases {
		if got := exchange(t, peer, c.in); got != c.want {
			t.Errorf("%s\n got  %s\n want %s", c.in, got, c.want)
		}
	}
}

func TestConnSurvivesPanic(t *testing.T) {
	_, peer := startConn(t, ConnOptions{Handler: echoHandler()})
	got := exchange(t, peer, `{"jsonrpc":"2.0","id":1,"method":"panic"}`)
	// The panic's value stays in the log.
	if got != `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"internal error: the handler of \"panic\" failed"}}` {
		t.Fatalf("panic reply = %s", got)
	}
	if got := exchange(t, peer, `{"jsonrpc":"2.0","id":2,"method":"echo","params":{}}`); got != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Fatalf("after panic: %s", got)
	}
}

func TestConnCancelIncoming(t *testing.T) {
	c, peer := startConn(t, ConnOptions{Handler: echoHandler()})
	peer.out <- []byte(`{"jsonrpc":"2.0","id":9,"method":"block"}`)
	if id := <-started; id != jsonrpc.Int64ID(9) || !c.CancelIncoming(id) {
		t.Fatalf("request %v not cancellable", id)
	}
	// The cancelled request gets no answer; the next one is answered first.
	if got := exchange(t, peer, `{"jsonrpc":"2.0","id":10,"method":"echo"}`); got != `{"jsonrpc":"2.0","id":10,"result":{}}` {
		t.Fatalf("got %s", got)
	}
	// Once every handler has returned, nothing more may be written: request 9,
	// cancelled, was never answered.
	c.handlers.Wait()
	select {
	case m := <-peer.in:
		t.Fatalf("a cancelled request was answered: %s", m)
	default:
	}
}

func TestConnDuplicateID(t *testing.T) {
	_, peer := startConn(t, ConnOptions{Handler: echoHandler()})
	peer.out <- []byte(`{"jsonrpc":"2.0","id":1,"method":"block"}`)
	<-started
	got := exchange(t, peer, `{"jsonrpc":"2.0","id":1,"method":"echo"}`)
	if !strings.Contains(got, `"id":1,"error":{"code":-32600`) {
		t.Fatalf("duplicate id reply: %s", got)
	}
}

func TestConnCallBothWays(t *testing.T) {
	a, b := newPipe()
	server := NewConn(a, ConnOptions{Handler: echoHandler()})
	client := NewConn(b, ConnOptions{})
	server.Start(context.Background())
	client.Start(context.Background())
	defer client.Close()
	defer server.Close()

	var out map[string]int
	if err := client.Call(context.Background(), "echo", map[string]int{"x": 1}, &out); err != nil || out["x"] != 1 {
		t.Fatalf("Call = %v, %v", out, err)
	}
	var raw json.RawMessage
	if err := client.Call(context.Background(), "echo", json.RawMessage(`{"y":2}`), &raw); err != nil || string(raw) != `{"y":2}` {
		t.Fatalf("raw Call = %s, %v", raw, err)
	}
	err := client.Call(context.Background(), "fail", nil, nil)
	var e *jsonrpc.Error
	if !errors.As(err, &e) || e.Code != 7 {
		t.Fatalf("Call(fail) = %v", err)
	}
	// Many concurrent calls all get their own answer.
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var got map[string]int
			if err := client.Call(context.Background(), "echo", map[string]int{"i": i}, &got); err != nil || got["i"] != i {
				t.Errorf("call %d = %v, %v", i, got, err)
			}
		}()
	}
	wg.Wait()
}

func TestConnCallCancelled(t *testing.T) {
	a, b := newPipe()
	server := NewConn(a, ConnOptions{Handler: echoHandler()})
	cancelled := make(chan jsonrpc.ID, 1)
	client := NewConn(b, ConnOptions{CallCancelled: func(id jsonrpc.ID, _ error) { cancelled <- id; server.CancelIncoming(id) }})
	server.Start(context.Background())
	client.Start(context.Background())
	defer client.Close()
	defer server.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	err := client.Call(ctx, "block", nil, nil)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Call = %v, want deadline exceeded", err)
	}
	<-started
	select {
	case id := <-cancelled:
		if !id.IsValid() {
			t.Errorf("cancelled id %v", id)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("CallCancelled not called")
	}
	// The connection still works.
	if err := client.Call(context.Background(), "echo", nil, nil); err != nil {
		t.Fatal(err)
	}
}

func TestConnCallFailsWhenPeerCloses(t *testing.T) {
	a, b := newPipe()
	client := NewConn(b, ConnOptions{})
	client.Start(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- client.Call(context.Background(), "never", nil, nil) }()
	<-a.in // the request was sent
	_ = a.Close()
	select {
	case err := <-errc:
		if !jsonrpc.IsClosed(err) {
			t.Fatalf("Call = %v, want ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Call did not return after the peer closed")
	}
	<-client.Done()
	if client.Err() != nil {
		t.Errorf("Err = %v, want nil on clean EOF", client.Err())
	}
	if err := client.Call(context.Background(), "again", nil, nil); !jsonrpc.IsClosed(err) {
		t.Errorf("Call after close = %v", err)
	}
}

func TestConnBatch(t *testing.T) {
	_, peer := startConn(t, ConnOptions{Handler: echoHandler(), AllowBatch: func() bool { return true }})
	got := exchange(t, peer, `[{"jsonrpc":"2.0","id":1,"method":"echo","params":{"a":1}},{"jsonrpc":"2.0","method":"echo"},{"jsonrpc":"2.0","id":2,"method":"fail"},{"bad":1}]`)
	msgs, errs, err := jsonrpc.DecodeBatch([]byte(got))
	if err != nil || errs != nil || len(msgs) != 3 {
		t.Fatalf("batch reply %s: %v %v", got, errs, err)
	}
	if msgs[0].ID != jsonrpc.Int64ID(1) || string(msgs[0].Result) != `{"a":1}` || msgs[1].Error.Code != 7 || msgs[2].Error.Code != jsonrpc.CodeInvalidRequest {
		t.Errorf("batch reply %s", got)
	}
	if got := exchange(t, peer, `[]`); !strings.Contains(got, "empty batch") {
		t.Errorf("empty batch reply %s", got)
	}
	// A batch of only notifications gets no reply at all: the next reply is for id 3.
	peer.out <- []byte(`[{"jsonrpc":"2.0","method":"echo"}]`)
	if got := exchange(t, peer, `{"jsonrpc":"2.0","id":3,"method":"echo"}`); got != `{"jsonrpc":"2.0","id":3,"result":{}}` {
		t.Errorf("got %s", got)
	}
}

// tooLarge is a Stream whose first Read reports an oversized message.
type tooLarge struct {
	*pipe
	once sync.Once
}

func (s *tooLarge) Read(ctx context.Context) ([]byte, error) {
	var err error
	s.once.Do(func() { err = fmt.Errorf("line of 20 MiB exceeds the 16 MiB limit: %w", jsonrpc.ErrMessageTooLarge) })
	if err != nil {
		return nil, err
	}
	return s.pipe.Read(ctx)
}

func TestConnTooLargeIsNotFatal(t *testing.T) {
	a, peer := newPipe()
	c := NewConn(&tooLarge{pipe: a}, ConnOptions{Handler: echoHandler()})
	c.Start(context.Background())
	defer c.Close()
	got := next(t, peer)
	if !strings.Contains(got, `"id":null,"error":{"code":-32600`) || !strings.Contains(got, "16 MiB") {
		t.Fatalf("too-large reply: %s", got)
	}
	if got := exchange(t, peer, `{"jsonrpc":"2.0","id":1,"method":"echo"}`); got != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Fatalf("after too-large: %s", got)
	}
}

func TestRelatedRequest(t *testing.T) {
	seen := make(chan jsonrpc.ID, 1)
	_, peer := startConn(t, ConnOptions{Handler: HandlerFunc(func(ctx context.Context, m *jsonrpc.Message) (any, error) {
		id, _ := jsonrpc.RelatedRequest(ctx)
		seen <- id
		return nil, nil
	})})
	exchange(t, peer, `{"jsonrpc":"2.0","id":"r1","method":"x"}`)
	if id := <-seen; id != jsonrpc.StringID("r1") {
		t.Fatalf("RelatedRequest = %v", id)
	}
}

func BenchmarkConnRoundTrip(b *testing.B) {
	a, p := newPipe()
	server := NewConn(a, ConnOptions{Handler: echoHandler()})
	client := NewConn(p, ConnOptions{})
	server.Start(context.Background())
	client.Start(context.Background())
	defer client.Close()
	defer server.Close()
	params := json.RawMessage(`{"message":"hello"}`)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := client.CallRaw(ctx, "echo", params); err != nil {
			b.Fatal(err)
		}
	}
}

// TestConnNewID: a connection with NewID sends its calls under the ids it
// makes, and matches the answers to them.
func TestConnNewID(t *testing.T) {
	a, b := newPipe()
	var seen []jsonrpc.ID
	var mu sync.Mutex
	server := NewConn(a, ConnOptions{Handler: HandlerFunc(func(ctx context.Context, m *jsonrpc.Message) (any, error) {
		mu.Lock()
		seen = append(seen, m.ID)
		mu.Unlock()
		return map[string]int{"x": 1}, nil
	})})
	n := 0
	client := NewConn(b, ConnOptions{NewID: func() jsonrpc.ID { n++; return jsonrpc.StringID(fmt.Sprintf("R1.%d", n)) }})
	server.Start(t.Context())
	client.Start(t.Context())
	defer client.Close()
	defer server.Close()
	for range 2 {
		var out map[string]int
		if err := client.Call(t.Context(), "m", nil, &out); err != nil || out["x"] != 1 {
			t.Fatalf("Call = %v, %v", out, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || seen[0] != jsonrpc.StringID("R1.1") || seen[1] != jsonrpc.StringID("R1.2") {
		t.Fatalf("the server saw ids %v; want R1.1, R1.2", seen)
	}
}
