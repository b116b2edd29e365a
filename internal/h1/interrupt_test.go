package h1

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// interrupter is a request context that records its Interrupter calls: the
// abort attached (nil once detached) and whether it refuses the request.
type interrupter struct {
	context.Context
	mu       sync.Mutex
	abort    func()
	refuse   bool
	attached int
	detached int
}

func (in *interrupter) AttachAbort(abort func()) bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.attached++
	if in.refuse {
		return false
	}
	in.abort = abort
	return true
}

func (in *interrupter) DetachAbort() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.detached++
	in.abort = nil
}

// interrupt calls the attached abort, as the streamable client's Close does.
func (in *interrupter) interrupt() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.abort == nil {
		return false
	}
	in.abort()
	return true
}

func (in *interrupter) counts() (int, int) {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.attached, in.detached
}

// A request whose context is an Interrupter is attached before it is written
// and detached when its body ends; the connection is then reused, and with a
// context that cannot be cancelled no AfterFunc is armed.
func TestInterrupterAttachedAndDetached(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	tr := newTransport(t, nil)
	for range 2 {
		in := &interrupter{Context: context.Background()}
		req, _ := http.NewRequestWithContext(in, http.MethodPost, s.URL, strings.NewReader("x"))
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		if a, d := in.counts(); a != 1 || d != 0 {
			t.Fatalf("before the body's end: attached %d, detached %d; want 1, 0", a, d)
		}
		if c := resp.Body.(*body).c; c.w.stop != nil || c.w.arms != 0 {
			t.Fatal("an AfterFunc was armed on a context that cannot be cancelled")
		}
		if data, err := io.ReadAll(resp.Body); err != nil || string(data) != "ok" {
			t.Fatalf("%q %v", data, err)
		}
		resp.Body.Close()
		if a, d := in.counts(); a != 1 || d != 1 {
			t.Fatalf("after the body's end: attached %d, detached %d; want 1, 1", a, d)
		}
		if in.interrupt() {
			t.Fatal("the abort is still attached after the body ended")
		}
	}
	if n := s.accepted.Load(); n != 1 {
		t.Fatalf("%d connections, want 1 (reused)", n)
	}
}

// An Interrupter that refuses the request ends it before it is written.
func TestInterrupterRefuses(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) { t.Error("the request reached the server") })
	tr := newTransport(t, nil)
	in := &interrupter{Context: context.Background(), refuse: true}
	req, _ := http.NewRequestWithContext(in, http.MethodPost, s.URL, strings.NewReader("x"))
	if _, err := tr.RoundTrip(req); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("error %v, want one wrapping net.ErrClosed", err)
	}
	if a, d := in.counts(); a != 1 || d != 1 {
		t.Fatalf("attached %d, detached %d; want 1, 1", a, d)
	}
	if tr.IdleConns() != 0 {
		t.Fatal("an aborted connection was kept")
	}
}

// Interrupting a request ends a read of its head, and one of its body.
func TestInterrupterEndsBlockedReads(t *testing.T) {
	block := make(chan struct{})
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/body" {
			io.WriteString(w, "first")
			w.(http.Flusher).Flush()
		}
		<-block
	})
	t.Cleanup(func() { close(block) }) // before the server's Close
	tr := newTransport(t, nil)

	in := &interrupter{Context: context.Background()}
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		WroteRequest: func(httptrace.WroteRequestInfo) { in.interrupt() },
	})
	in.Context = ctx
	req, _ := http.NewRequestWithContext(in, http.MethodPost, s.URL+"/head", strings.NewReader("x"))
	if _, err := tr.RoundTrip(req); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("head: error %v, want one wrapping net.ErrClosed", err)
	}

	in = &interrupter{Context: context.Background()}
	req, _ = http.NewRequestWithContext(in, http.MethodGet, s.URL+"/body", nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatal(err)
	}
	if !in.interrupt() {
		t.Fatal("no abort attached while the body is read")
	}
	if _, err := resp.Body.Read(buf); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("body: error %v, want one wrapping net.ErrClosed", err)
	}
	resp.Body.Close()
	if tr.IdleConns() != 0 {
		t.Fatal("an aborted connection was kept")
	}
}

// DetachContext keeps a body going after its request's context ended.
func TestDetachContext(t *testing.T) {
	next := make(chan struct{})
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "first")
		w.(http.Flusher).Flush()
		<-next
		io.WriteString(w, "second")
	})
	tr := newTransport(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL, nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Body.(interface{ DetachContext() bool }).DetachContext() {
		t.Fatal("DetachContext reported an ended context")
	}
	cancel()
	close(next)
	if data, err := io.ReadAll(resp.Body); err != nil || string(data) != "firstsecond" {
		t.Fatalf("%q %v", data, err)
	}
	resp.Body.Close()
	if tr.IdleConns() != 1 {
		t.Fatal("the connection was not kept")
	}

	// A context that ended first: DetachContext says so.
	ctx, cancel = context.WithCancel(context.Background())
	req, _ = http.NewRequestWithContext(ctx, http.MethodGet, s.URL, nil)
	next = make(chan struct{})
	resp, err = tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	b := resp.Body.(*body)
	waitFor(t, b.c.aborted.Load) // the context's AfterFunc ran
	if b.DetachContext() {
		t.Fatal("DetachContext did not report the ended context")
	}
	close(next)
	resp.Body.Close()
}

// A connection given back less than peekAfter ago is reused without the
// liveness peek: when the server closed it meanwhile, the request is retried
// on a new connection (two writes); one idle for longer is peeked, found
// closed and not used (one write).
func TestRecentConnectionNotPeeked(t *testing.T) {
	for _, old := range []bool{false, true} {
		var handled atomic.Int64
		closed := make(chan struct{}, 4)
		u := staleServer(t, &handled, closed)
		tr := newTransport(t, nil)
		do(t, tr, http.MethodGet, u, "")
		<-closed
		tr.mu.Lock()
		var c *conn
		for _, list := range tr.idle {
			c = list[0]
		}
		tr.mu.Unlock()
		waitFor(t, func() bool { return !c.alive() }) // the FIN arrived
		if old {
			c.idleAt = c.idleAt.Add(-2 * peekAfter)
		}
		var writes atomic.Int64
		ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
			WroteRequest: func(httptrace.WroteRequestInfo) { writes.Add(1) },
		})
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader("x"))
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatalf("old=%v: %v", old, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		want := int64(2) // written on the dead connection, then retried
		if old {
			want = 1
		}
		if n := writes.Load(); n != want {
			t.Errorf("old=%v: the request was written %d times, want %d", old, n, want)
		}
		if n := handled.Load(); n != 2 {
			t.Errorf("old=%v: the server handled %d requests, want 2", old, n)
		}
	}
}
