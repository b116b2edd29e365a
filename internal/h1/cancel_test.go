package h1

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync/atomic"
	"testing"
)

// staleServer answers each connection's first request, then closes it and
// reports that on closed.
func staleServer(t *testing.T, handled *atomic.Int64, closed chan<- struct{}) string {
	return rawServer(t, func(c net.Conn, br *bufio.Reader) {
		if _, err := readRequest(br); err != nil {
			return
		}
		handled.Add(1)
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		c.Close()
		closed <- struct{}{}
	})
}

func TestStaleIdleConnectionRetried(t *testing.T) {
	for _, size := range []int{10, inlineMax + 1000} { // an inline body, then one streamed (GetBody)
		var handled atomic.Int64
		closed := make(chan struct{}, 4)
		u := staleServer(t, &handled, closed)
		tr := newTransport(t, nil)
		tr.noPeek = true // reach the retry, not the check before reuse
		body := strings.Repeat("b", size)
		if _, got := do(t, tr, http.MethodPost, u, body); got != "ok" {
			t.Fatal(got)
		}
		<-closed // the idle connection in the pool is dead now
		if tr.IdleConns() != 1 {
			t.Fatal("no idle connection to reuse")
		}
		if _, got := do(t, tr, http.MethodPost, u, body); got != "ok" {
			t.Fatalf("the retried POST got %q", got)
		}
		if n := handled.Load(); n != 2 {
			t.Fatalf("the server handled %d requests, want 2 (each once)", n)
		}
	}
}

func TestStaleIdleConnectionFoundBeforeReuse(t *testing.T) {
	var handled atomic.Int64
	closed := make(chan struct{}, 4)
	u := staleServer(t, &handled, closed)
	tr := newTransport(t, nil)
	do(t, tr, http.MethodGet, u, "")
	tr.mu.Lock()
	var c *conn
	for _, list := range tr.idle {
		c = list[0]
	}
	tr.mu.Unlock()
	<-closed
	waitFor(t, func() bool { return !c.alive() }) // the FIN arrives over loopback
	open := newServer(t, func(w http.ResponseWriter, r *http.Request) {})
	do(t, tr, http.MethodGet, open.URL, "")
	tr.mu.Lock()
	for k, list := range tr.idle {
		if k != c.key && !list[0].alive() {
			t.Error("an open idle connection looks closed")
		}
	}
	tr.mu.Unlock()
}

func TestNoRetryWhenUnsafe(t *testing.T) {
	// A fresh connection that the server closes without answering.
	var seen atomic.Int64
	u := rawServer(t, func(c net.Conn, br *bufio.Reader) {
		if _, err := readRequest(br); err == nil {
			seen.Add(1)
		}
	})
	tr := newTransport(t, nil)
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader("x"))
	if _, err := tr.RoundTrip(req); err == nil {
		t.Fatal("no error")
	}
	if n := seen.Load(); n != 1 {
		t.Fatalf("the server saw the POST %d times on a fresh connection, want 1", n)
	}

	// A reused connection on which part of a response came.
	seen.Store(0)
	u = rawServer(t, func(c net.Conn, br *bufio.Reader) {
		for i := 0; ; i++ {
			if _, err := readRequest(br); err != nil {
				return
			}
			seen.Add(1)
			if i == 1 {
				io.WriteString(c, "HTTP/1.1 200 O")
				return
			}
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
		}
	})
	tr = newTransport(t, nil)
	do(t, tr, http.MethodPost, u, "x")
	req, _ = http.NewRequest(http.MethodPost, u, strings.NewReader("x"))
	if _, err := tr.RoundTrip(req); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("error %v, want an unexpected EOF", err)
	}
	if n := seen.Load(); n != 2 {
		t.Fatalf("the server saw %d POSTs, want 2 (no retry after response bytes)", n)
	}
}

func TestCancelWhileReadingHead(t *testing.T) {
	block := make(chan struct{})
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) { <-block })
	t.Cleanup(func() { close(block) }) // before the server's Close
	tr := newTransport(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest: func(httptrace.WroteRequestInfo) { cancel() },
	})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL, strings.NewReader("x"))
	if _, err := tr.RoundTrip(req); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if tr.IdleConns() != 0 {
		t.Fatal("an aborted connection was kept")
	}
}

// zeros is an endless body that cancels its request once it has produced after
// bytes: by then the server, which reads nothing, has stopped the writes.
type zeros struct {
	n, after int
	cancel   func()
}

func (z *zeros) Read(p []byte) (int, error) {
	clear(p)
	z.n += len(p)
	if z.n > z.after {
		z.cancel()
	}
	return len(p), nil
}

func TestCancelWhileWriting(t *testing.T) {
	u := rawServer(t, func(c net.Conn, br *bufio.Reader) {
		<-t.Context().Done() // reads nothing
	})
	tr := newTransport(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, u, io.NopCloser(&zeros{after: 1 << 20, cancel: cancel}))
	req.ContentLength = 1 << 40
	if _, err := tr.RoundTrip(req); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

func TestCancelWhileReadingBody(t *testing.T) {
	block := make(chan struct{})
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "first")
		w.(http.Flusher).Flush()
		<-block
	})
	t.Cleanup(func() { close(block) }) // before the server's Close
	tr := newTransport(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL, nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := io.ReadFull(resp.Body, buf); err != nil || string(buf) != "first" {
		t.Fatalf("%q %v", buf, err)
	}
	cancel()
	if _, err := resp.Body.Read(buf); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	resp.Body.Close()
	if tr.IdleConns() != 0 {
		t.Fatal("an aborted connection was kept")
	}
}

func TestCloseEndsABlockedRead(t *testing.T) {
	block := make(chan struct{})
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.(http.Flusher).Flush()
		<-block
	})
	t.Cleanup(func() { close(block) }) // before the server's Close
	tr := newTransport(t, nil)
	req, _ := http.NewRequest(http.MethodGet, s.URL, nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	read := make(chan error, 1)
	go func() {
		_, err := resp.Body.Read(make([]byte, 10))
		read <- err
	}()
	resp.Body.Close()
	if err := <-read; err == nil {
		t.Fatal("the Read returned no error")
	}
	if tr.IdleConns() != 0 {
		t.Fatal("the connection was kept")
	}
}

func TestDialTimeoutUsed(t *testing.T) {
	tr := New(&Options{DialTimeout: 1234})
	if tr.dialer.Timeout != 1234 {
		t.Fatalf("dialer timeout %v", tr.dialer.Timeout)
	}
	// A refused dial fails the request with the dial's error.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr, nil)
	if _, err := tr.RoundTrip(req); err == nil || !strings.Contains(err.Error(), "dial") {
		t.Fatalf("error %v", err)
	}
}
