package rpcconn

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// recorder is a Stream for pushed connections: it keeps what the connection
// writes and fails the test if the connection ever reads.
type recorder struct {
	t      *testing.T
	mu     sync.Mutex
	out    []string
	closed bool
	wrote  chan struct{} // if set, receives after every write
}

func (r *recorder) Read(context.Context) ([]byte, error) {
	r.t.Error("a pushed connection read its stream")
	return nil, jsonrpc.ErrClosed
}

func (r *recorder) Write(_ context.Context, msg []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.out = append(r.out, string(msg))
	if r.wrote != nil {
		r.wrote <- struct{}{}
	}
	return nil
}

func (r *recorder) Close() error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	return nil
}

func (r *recorder) written() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.out...)
}

func pushConn(t *testing.T, h HandlerFunc) (*Conn, *recorder) {
	rec := &recorder{t: t}
	c := NewConn(rec, ConnOptions{Handler: h, Logger: slog.New(slog.DiscardHandler)})
	c.StartPush()
	return c, rec
}

func mustDecode(t *testing.T, s string) *jsonrpc.Message {
	t.Helper()
	m, err := jsonrpc.Decode([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestPushRequestIsAnsweredBeforeReceiveReturns(t *testing.T) {
	type key struct{}
	c, rec := pushConn(t, func(ctx context.Context, msg *jsonrpc.Message) (any, error) {
		if id, ok := jsonrpc.RelatedRequest(ctx); !ok || id != jsonrpc.Int64ID(7) {
			t.Errorf("related request %v %v", id, ok)
		}
		return map[string]any{"from": ctx.Value(key{})}, nil
	})
	ctx := context.WithValue(context.Background(), key{}, "the transport's context")
	c.Receive(ctx, mustDecode(t, `{"jsonrpc":"2.0","id":7,"method":"m"}`))
	got := rec.written()
	if want := `{"jsonrpc":"2.0","id":7,"result":{"from":"the transport's context"}}`; len(got) != 1 || got[0] != want {
		t.Fatalf("wrote %q, want [%s]", got, want)
	}
}

func TestPushCancellingTheContextCancelsTheRequest(t *testing.T) {
	started := make(chan struct{})
	c, _ := pushConn(t, func(ctx context.Context, msg *jsonrpc.Message) (any, error) {
		close(started)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	ctx, cancel := context.WithCancel(context.Background())
	returned := make(chan struct{})
	go func() {
		c.Receive(ctx, mustDecode(t, `{"jsonrpc":"2.0","id":1,"method":"slow"}`))
		close(returned)
	}()
	<-started
	cancel()
	select {
	case <-returned:
	case <-time.After(5 * time.Second):
		t.Fatal("Receive did not return after its context was cancelled")
	}
}

func TestPushNotificationsRunInOrder(t *testing.T) {
	var mu sync.Mutex
	var order []string
	c, _ := pushConn(t, func(ctx context.Context, msg *jsonrpc.Message) (any, error) {
		var p struct{ N string }
		_ = json.Unmarshal(msg.Params, &p)
		mu.Lock()
		order = append(order, p.N)
		mu.Unlock()
		return nil, nil
	})
	for _, n := range []string{"a", "b", "c"} {
		c.Receive(context.Background(), mustDecode(t, `{"jsonrpc":"2.0","method":"n","params":{"N":"`+n+`"}}`))
	}
	if got := strings.Join(order, ""); got != "abc" {
		t.Fatalf("order %q", got)
	}
}

func TestPushResponseCompletesACall(t *testing.T) {
	var c *Conn
	rec := &recorder{t: t, wrote: make(chan struct{}, 1)}
	c = NewConn(rec, ConnOptions{Logger: slog.New(slog.DiscardHandler)})
	c.StartPush()
	done := make(chan error, 1)
	var res json.RawMessage
	go func() { done <- c.Call(context.Background(), "ping", nil, &res) }()
	select {
	case <-rec.wrote:
	case <-time.After(5 * time.Second):
		t.Fatal("the call was not written")
	}
	var req struct{ ID json.RawMessage }
	_ = json.Unmarshal([]byte(rec.written()[0]), &req)
	c.Receive(context.Background(), mustDecode(t, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":{"ok":true}}`))
	if err := <-done; err != nil || string(res) != `{"ok":true}` {
		t.Fatalf("call: %s, %v", res, err)
	}
}

func TestPushEndCancelsRunningRequestsAndDropsLaterMessages(t *testing.T) {
	started := make(chan struct{})
	var calls sync.WaitGroup
	var cause error
	c, rec := pushConn(t, func(ctx context.Context, msg *jsonrpc.Message) (any, error) {
		if msg.Method == "late" {
			t.Error("a message received after End was handled")
		}
		close(started)
		<-ctx.Done()
		cause = context.Cause(ctx)
		return nil, ctx.Err()
	})
	calls.Add(1)
	go func() {
		defer calls.Done()
		c.Receive(context.Background(), mustDecode(t, `{"jsonrpc":"2.0","id":1,"method":"slow"}`))
	}()
	<-started
	c.End(nil)
	calls.Wait()
	if !errors.Is(cause, errEnded) {
		t.Errorf("the running request's cause is %v", cause)
	}
	select {
	case <-c.Done():
	default:
		t.Fatal("Done is not closed after End")
	}
	if c.Err() != nil {
		t.Errorf("Err after a clean End: %v", c.Err())
	}
	n := len(rec.written())
	c.Receive(context.Background(), mustDecode(t, `{"jsonrpc":"2.0","id":2,"method":"late"}`))
	c.Receive(context.Background(), mustDecode(t, `{"jsonrpc":"2.0","method":"late"}`))
	if len(rec.written()) != n {
		t.Fatalf("wrote after End: %q", rec.written()[n:])
	}
	c.End(errors.New("a second End is ignored"))
	if c.Err() != nil {
		t.Errorf("a second End changed Err: %v", c.Err())
	}
}

func TestPushCloseEndsTheConnection(t *testing.T) {
	c, rec := pushConn(t, func(ctx context.Context, msg *jsonrpc.Message) (any, error) { return nil, nil })
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Done():
	default:
		t.Fatal("Done is not closed after Close")
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if !rec.closed {
		t.Fatal("Close did not close the stream")
	}
}

// BenchmarkPushRequest measures one pushed request: the handler runs on the
// caller's goroutine and the response is written before Receive returns.
func BenchmarkPushRequest(b *testing.B) {
	c := NewConn(discard{}, ConnOptions{Handler: HandlerFunc(func(ctx context.Context, msg *jsonrpc.Message) (any, error) {
		return json.RawMessage(`{}`), nil
	}), Logger: slog.New(slog.DiscardHandler)})
	c.StartPush()
	msg, _ := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":1,"method":"m","params":{}}`))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		c.Receive(ctx, msg)
	}
}

// discard is a Stream that drops what it is given.
type discard struct{}

func (discard) Read(context.Context) ([]byte, error) { return nil, jsonrpc.ErrClosed }
func (discard) Write(context.Context, []byte) error  { return nil }
func (discard) Close() error                         { return nil }
