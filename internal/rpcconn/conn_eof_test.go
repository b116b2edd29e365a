package rpcconn

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// scripted is a stream whose peer sends a fixed list of messages and then
// closes its sending side, while still reading what the conn writes.
type scripted struct {
	in      chan []byte
	written chan string
}

func (s *scripted) Read(ctx context.Context) ([]byte, error) {
	select {
	case m, ok := <-s.in:
		if !ok {
			return nil, io.EOF
		}
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *scripted) Write(ctx context.Context, msg []byte) error {
	s.written <- string(msg)
	return nil
}

func (s *scripted) Close() error { return nil }

func TestConnAnswersRequestsSentBeforeEOF(t *testing.T) {
	s := &scripted{in: make(chan []byte, 4), written: make(chan string, 8)}
	release := make(chan struct{})
	var c *Conn // set before Start, so before any handler runs
	h := HandlerFunc(func(ctx context.Context, m *jsonrpc.Message) (any, error) {
		if m.Method == "slow" {
			<-release
		}
		var out string
		// A call back to the peer cannot be answered any more: it fails at once
		// instead of holding the handler until the grace period ends.
		if err := c.Call(ctx, "ask", nil, &out); !jsonrpc.IsClosed(err) {
			return nil, err
		}
		return "done " + m.Method, nil
	})
	c = NewConn(s, ConnOptions{Handler: h, Logger: slog.New(slog.DiscardHandler)})
	s.in <- []byte(`{"jsonrpc":"2.0","id":1,"method":"slow"}`)
	s.in <- []byte(`{"jsonrpc":"2.0","id":2,"method":"fast"}`)
	close(s.in)
	c.Start(context.Background())

	got := map[string]bool{}
	deadline := time.After(5 * time.Second)
	for len(got) < 2 {
		select {
		case w := <-s.written:
			if strings.Contains(w, `"method":"ask"`) {
				continue // the handler's call back, written before EOF was seen
			}
			got[w] = true
			if strings.Contains(w, `"id":2`) {
				close(release) // the slow one finishes after the fast one answered
			}
		case <-deadline:
			t.Fatalf("answers after EOF: %v", got)
		}
	}
	<-c.Done()
	for _, want := range []string{`{"jsonrpc":"2.0","id":1,"result":"done slow"}`, `{"jsonrpc":"2.0","id":2,"result":"done fast"}`} {
		if !got[want] {
			t.Errorf("missing %s in %v", want, got)
		}
	}
}

func TestConnOnDoneRunsBeforeDone(t *testing.T) {
	a, b := newPipe()
	ran := make(chan struct{})
	c := NewConn(a, ConnOptions{Logger: slog.New(slog.DiscardHandler), OnDone: func() { close(ran) }})
	c.Start(context.Background())
	_ = b.Close() // the peer goes away
	<-c.Done()
	select {
	case <-ran:
	default:
		t.Fatal("Done closed before OnDone ran")
	}
}

// failingStream is a Stream whose Read fails with err once its peer sends "fail".
type failingStream struct {
	*pipe
	err error
}

func (s *failingStream) Read(ctx context.Context) ([]byte, error) {
	msg, err := s.pipe.Read(ctx)
	if err == nil && string(msg) == "fail" {
		return nil, s.err
	}
	return msg, err
}

// When the stream fails (a stdio server exits, say), a call waiting for its reply
// and every later call report why, not only that the connection closed.
func TestConnCallsReportWhyTheStreamFailed(t *testing.T) {
	exited := errors.New("the server exited (status 3): fatal: out of memory")
	a, b := newPipe()
	client := NewConn(&failingStream{pipe: b, err: exited}, ConnOptions{Logger: slog.New(slog.DiscardHandler)})
	client.Start(t.Context())
	t.Cleanup(func() { _ = client.Close() })
	errc := make(chan error, 1)
	go func() { errc <- client.Call(t.Context(), "pending", nil, nil) }()
	<-a.in // the request was sent
	a.out <- []byte("fail")
	var pending error
	select {
	case pending = <-errc:
	case <-time.After(5 * time.Second): // a bound, not a synchronisation
		t.Fatal("the pending call did not return after the stream failed")
	}
	for _, err := range []error{pending, client.Call(t.Context(), "later", nil, nil)} {
		if !jsonrpc.IsClosed(err) || !errors.Is(err, exited) || !strings.Contains(err.Error(), exited.Error()) {
			t.Errorf("call = %v, want ErrClosed and %q", err, exited)
		}
	}
	if !errors.Is(client.Err(), exited) {
		t.Errorf("Err = %v", client.Err())
	}
}
