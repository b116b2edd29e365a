package h1

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// server is an httptest server on 127.0.0.1 that counts the connections it
// accepted and closed.
type server struct {
	*httptest.Server
	accepted, closed atomic.Int64
}

func newServer(t *testing.T, h http.HandlerFunc) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewUnstartedServer(h)
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			s.accepted.Add(1)
		case http.StateClosed, http.StateHijacked:
			s.closed.Add(1)
		}
	}
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func newTransport(t *testing.T, o *Options) *Transport {
	t.Helper()
	tr := New(o)
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// do sends a request and reads the whole body.
func do(t *testing.T, tr http.RoundTripper, method, u string, body string) (*http.Response, string) {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(context.Background(), method, u, r)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the body: %v", err)
	}
	if err := resp.Body.Close(); err != nil {
		t.Fatal(err)
	}
	return resp, string(data)
}

func TestContentLengthBodyAndReuse(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Mcp-Session-Id", "s-1")
		w.Header().Set("X-Custom", "v1")
		w.Header().Add("X-Custom", "v2")
		fmt.Fprintf(w, `{"got":%q}`, data)
	})
	tr := newTransport(t, nil)
	for i := range 3 {
		resp, body := do(t, tr, http.MethodPost, s.URL+"/mcp?x=1", fmt.Sprintf("hello %d", i))
		if want := fmt.Sprintf(`{"got":"hello %d"}`, i); body != want {
			t.Fatalf("body %q, want %q", body, want)
		}
		if resp.StatusCode != 200 || resp.Status != "200 OK" || resp.Proto != "HTTP/1.1" {
			t.Fatalf("status %d %q %q", resp.StatusCode, resp.Status, resp.Proto)
		}
		if resp.ContentLength != int64(len(body)) || resp.Close {
			t.Fatalf("ContentLength %d, Close %v", resp.ContentLength, resp.Close)
		}
		if got := resp.Header.Get("Mcp-Session-Id"); got != "s-1" {
			t.Fatalf("Mcp-Session-Id %q", got)
		}
		if got := resp.Header["X-Custom"]; len(got) != 2 || got[0] != "v1" || got[1] != "v2" {
			t.Fatalf("X-Custom %q", got)
		}
		if resp.Header.Get("Date") == "" || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("header %v", resp.Header)
		}
		if resp.Request == nil || resp.Request.Method != http.MethodPost {
			t.Fatal("Response.Request not set")
		}
	}
	if n := s.accepted.Load(); n != 1 {
		t.Fatalf("%d connections for 3 sequential requests, want 1", n)
	}
	if n := tr.IdleConns(); n != 1 {
		t.Fatalf("%d idle connections, want 1", n)
	}
}

func TestChunkedBody(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 5 {
			fmt.Fprintf(w, "data: %d\n\n", i)
			w.(http.Flusher).Flush()
		}
	})
	tr := newTransport(t, nil)
	var want strings.Builder
	for i := range 5 {
		fmt.Fprintf(&want, "data: %d\n\n", i)
	}
	for range 2 {
		resp, body := do(t, tr, http.MethodGet, s.URL, "")
		if body != want.String() {
			t.Fatalf("body %q", body)
		}
		if resp.ContentLength != -1 || len(resp.TransferEncoding) != 1 || resp.TransferEncoding[0] != "chunked" {
			t.Fatalf("ContentLength %d, TransferEncoding %q", resp.ContentLength, resp.TransferEncoding)
		}
	}
	if n := s.accepted.Load(); n != 1 {
		t.Fatalf("%d connections, want 1 (a chunked body read to its end keeps the connection)", n)
	}
}

// hijacked answers with raw bytes written by a net/http handler.
func hijacked(t *testing.T, raw string) *server {
	return newServer(t, func(w http.ResponseWriter, r *http.Request) {
		nc, bw, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		defer nc.Close()
		bw.WriteString(raw)
		bw.Flush()
	})
}

func TestCloseDelimitedBody(t *testing.T) {
	s := hijacked(t, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end")
	tr := newTransport(t, nil)
	resp, body := do(t, tr, http.MethodGet, s.URL, "")
	if body != "until the end" || resp.ContentLength != -1 || !resp.Close {
		t.Fatalf("body %q, ContentLength %d, Close %v", body, resp.ContentLength, resp.Close)
	}
	if n := tr.IdleConns(); n != 0 {
		t.Fatalf("%d idle connections after a close-delimited body", n)
	}
}

func TestInterimResponsesSkipped(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", "</style.css>; rel=preload")
		w.WriteHeader(http.StatusEarlyHints)
		w.WriteHeader(http.StatusEarlyHints)
		w.Header().Del("Link")
		w.Header().Set("X-Final", "yes")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, "made")
	})
	tr := newTransport(t, nil)
	resp, body := do(t, tr, http.MethodPost, s.URL, "x")
	if resp.StatusCode != http.StatusCreated || body != "made" || resp.Header.Get("X-Final") != "yes" {
		t.Fatalf("status %d, body %q, header %v", resp.StatusCode, body, resp.Header)
	}
}

func TestNoBodyResponses(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/204":
			w.WriteHeader(http.StatusNoContent)
		case "/304":
			w.WriteHeader(http.StatusNotModified)
		default:
			w.Header().Set("Content-Length", "11")
			io.WriteString(w, "hello world")
		}
	})
	tr := newTransport(t, nil)
	for _, c := range []struct {
		method, path string
		status       int
		length       int64
	}{
		{http.MethodHead, "/", 200, 11},
		{http.MethodGet, "/204", 204, 0},
		{http.MethodGet, "/304", 304, 0},
		{http.MethodGet, "/", 200, 11},
	} {
		resp, body := do(t, tr, c.method, s.URL+c.path, "")
		if resp.StatusCode != c.status || resp.ContentLength != c.length {
			t.Fatalf("%s %s: status %d, length %d", c.method, c.path, resp.StatusCode, resp.ContentLength)
		}
		if c.method == http.MethodHead || c.status != 200 {
			if resp.Body != http.NoBody || body != "" {
				t.Fatalf("%s %s: a body (%q)", c.method, c.path, body)
			}
		}
	}
	if n := s.accepted.Load(); n != 1 {
		t.Fatalf("%d connections, want 1: a response without a body keeps the connection", n)
	}
}

func TestConnectionCloseHonoured(t *testing.T) {
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		io.WriteString(w, "bye")
	})
	tr := newTransport(t, nil)
	for range 2 {
		resp, body := do(t, tr, http.MethodGet, s.URL, "")
		if body != "bye" || !resp.Close {
			t.Fatalf("body %q, Close %v", body, resp.Close)
		}
	}
	if n := s.accepted.Load(); n != 2 || tr.IdleConns() != 0 {
		t.Fatalf("%d connections, %d idle: want 2 and 0", n, tr.IdleConns())
	}
	// And a request that asks for it.
	req, _ := http.NewRequest(http.MethodGet, s.URL, nil)
	req.Close = true
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if tr.IdleConns() != 0 {
		t.Fatal("a Close request's connection was kept")
	}
}

func TestUnreadBodyReuse(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big" {
			io.WriteString(w, big)
			return
		}
		io.WriteString(w, "short")
	})
	tr := newTransport(t, nil)
	get := func(path string) {
		req, _ := http.NewRequest(http.MethodGet, s.URL+path, nil)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close() // unread
	}
	get("/short")
	if tr.IdleConns() != 1 || s.accepted.Load() != 1 {
		t.Fatalf("a short unread body: %d idle, want 1 (drained)", tr.IdleConns())
	}
	get("/big")
	if tr.IdleConns() != 0 {
		t.Fatalf("a 1 MiB unread body: %d idle, want 0 (closed, not drained)", tr.IdleConns())
	}
	get("/short")
	if n := s.accepted.Load(); n != 2 {
		t.Fatalf("%d connections, want 2", n)
	}
}

func TestRequestHeadersAsNetHTTP(t *testing.T) {
	type seen struct {
		host, ua, te string
		length       int64
		header       http.Header
		uri, body    string
	}
	got := make(chan seen, 1)
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h := r.Header.Clone()
		h.Del("Accept-Encoding") // net/http asks for gzip; h1 does not
		got <- seen{r.Host, r.UserAgent(), strings.Join(r.TransferEncoding, ","), r.ContentLength, h, r.RequestURI, string(b)}
	})
	send := func(rt http.RoundTripper, mod func(*http.Request)) seen {
		req, _ := http.NewRequest(http.MethodPost, s.URL+"/a%20b?q=1", strings.NewReader(`{"a":1}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header["Mcp-Session-Id"] = []string{"abc"}
		req.Header.Add("X-Many", "1")
		req.Header.Add("X-Many", "2")
		if mod != nil {
			mod(req)
		}
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return <-got
	}
	tr := newTransport(t, nil)
	std := &http.Transport{}
	t.Cleanup(std.CloseIdleConnections)
	for _, mod := range []func(*http.Request){
		nil,
		func(r *http.Request) { r.Header.Set("User-Agent", "mine/1") },
		func(r *http.Request) { r.Host = "example.test:99" },
		func(r *http.Request) { r.Body = io.NopCloser(strings.NewReader("unknown length")); r.ContentLength = 0 },
		func(r *http.Request) { r.Body, r.ContentLength = nil, 0 },
	} {
		a, b := send(tr, mod), send(std, mod)
		if a.host != b.host || a.ua != b.ua || a.length != b.length || a.te != b.te || a.uri != b.uri || a.body != b.body ||
			fmt.Sprint(a.header) != fmt.Sprint(b.header) {
			t.Errorf("h1 sent %+v\nnet/http %+v", a, b)
		}
	}
	// Bytes that would split a header are refused before anything is sent.
	req, _ := http.NewRequest(http.MethodGet, s.URL, nil)
	req.Header.Set("X-Bad", "a\r\nInjected: 1")
	if _, err := tr.RoundTrip(req); err == nil {
		t.Fatal("a header value with CRLF was sent")
	}
}

func TestHeaderLimits(t *testing.T) {
	many := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		for i := range 300 {
			w.Header().Set(fmt.Sprintf("X-H%d", i), "v")
		}
	})
	huge := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Long", strings.Repeat("a", 40<<10)) // longer than the read buffer
	})
	tr := newTransport(t, &Options{MaxResponseHeaders: 100, MaxResponseHeaderBytes: 32 << 10})
	for _, u := range []string{many.URL, huge.URL} {
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		if _, err := tr.RoundTrip(req); !errors.Is(err, ErrHeaderTooLarge) {
			t.Fatalf("%s: error %v, want ErrHeaderTooLarge", u, err)
		}
	}
	// A header line longer than the read buffer, within the limit, is read.
	tr = newTransport(t, nil)
	resp, _ := do(t, tr, http.MethodGet, huge.URL, "")
	if len(resp.Header.Get("X-Long")) != 40<<10 {
		t.Fatal("the long header was not read whole")
	}
}

func TestLowerCaseHeadersCanonical(t *testing.T) {
	s := hijacked(t, "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nmcp-session-id: Ab\r\nx-odd-NAME: 1\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}")
	tr := newTransport(t, nil)
	resp, body := do(t, tr, http.MethodGet, s.URL, "")
	want := http.Header{"Content-Type": {"application/json"}, "Mcp-Session-Id": {"Ab"}, "X-Odd-Name": {"1"},
		"Content-Length": {"2"}, "Connection": {"close"}}
	if fmt.Sprint(resp.Header) != fmt.Sprint(want) || body != "{}" {
		t.Fatalf("header %v, body %q", resp.Header, body)
	}
}

func TestMalformedResponses(t *testing.T) {
	for _, raw := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello",
		"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
		"HTTP/1.1 200 OK\r\n folded: x\r\n\r\n",
		"HTTP/1.1 2x0 OK\r\n\r\n",
		"HTTP/2.0 200 OK\r\n\r\n",
		"HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n",
		"HTTP/1.1 101 Switching Protocols\r\n\r\n",
	} {
		s := hijacked(t, raw)
		tr := newTransport(t, nil)
		req, _ := http.NewRequest(http.MethodGet, s.URL, nil)
		if _, err := tr.RoundTrip(req); !errors.Is(err, ErrMalformed) {
			t.Errorf("%q: error %v, want ErrMalformed", raw, err)
		}
	}
	// Bad chunked framing fails the body's Read.
	s := hijacked(t, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n")
	tr := newTransport(t, nil)
	req, _ := http.NewRequest(http.MethodGet, s.URL, nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(resp.Body); !errors.Is(err, ErrMalformed) {
		t.Fatalf("read error %v, want ErrMalformed", err)
	}
	resp.Body.Close()
	if tr.IdleConns() != 0 {
		t.Fatal("a connection with broken framing was kept")
	}
}

func TestFallbackAndProxy(t *testing.T) {
	var fell atomic.Int64
	fb := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		fell.Add(1)
		return &http.Response{StatusCode: 299, Body: http.NoBody, Request: r}, nil
	})
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {})
	proxy := func(r *http.Request) (*url.URL, error) {
		if r.URL.Path == "/proxied" {
			return url.Parse("http://proxy.test")
		}
		return nil, nil
	}
	tr := newTransport(t, &Options{Fallback: fb, Proxy: proxy})
	for _, c := range []struct {
		u    string
		fell bool
	}{{"https://example.test/", true}, {s.URL + "/proxied", true}, {s.URL + "/direct", false}} {
		before := fell.Load()
		resp, _ := do(t, tr, http.MethodGet, c.u, "")
		if got := fell.Load() > before; got != c.fell || (resp.StatusCode == 299) != c.fell {
			t.Errorf("%s: fallback %v, want %v", c.u, got, c.fell)
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestIdleCapTimeoutAndClose(t *testing.T) {
	release := make(chan struct{})
	var entered sync.WaitGroup
	s := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/wait" {
			entered.Done()
			<-release
		}
		io.WriteString(w, "ok")
	})
	tr := newTransport(t, &Options{MaxIdleConnsPerHost: 2})
	const n = 5
	entered.Add(n)
	var done sync.WaitGroup
	for range n {
		done.Go(func() {
			req, _ := http.NewRequest(http.MethodGet, s.URL+"/wait", nil)
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		})
	}
	entered.Wait() // five connections at once
	close(release)
	done.Wait()
	if got := tr.IdleConns(); got != 2 {
		t.Fatalf("%d idle connections, want the cap of 2", got)
	}
	// The sweep closes connections idle for IdleTimeout.
	tr.mu.Lock()
	for _, list := range tr.idle {
		list[0].idleAt = list[0].idleAt.Add(-2 * tr.o.IdleTimeout)
	}
	tr.mu.Unlock()
	tr.sweep()
	if got := tr.IdleConns(); got != 1 {
		t.Fatalf("%d idle connections after the sweep, want 1", got)
	}
	tr.CloseIdleConnections()
	if got := tr.IdleConns(); got != 0 {
		t.Fatalf("%d idle connections after CloseIdleConnections", got)
	}
	// The server sees every connection closed.
	waitFor(t, func() bool { return s.closed.Load() == n })

	// After Close, a connection in use is closed when its response ends.
	req, _ := http.NewRequest(http.MethodGet, s.URL, nil)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	tr.Close()
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if got := tr.IdleConns(); got != 0 {
		t.Fatalf("%d idle connections after Close", got)
	}
}

// waitFor waits for cond, which another goroutine makes true, up to the test's
// deadline.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	ctx := t.Context()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatal("condition never held")
		default:
			runtime.Gosched()
		}
	}
}

// rawServer accepts connections on 127.0.0.1 and hands each to serve.
func rawServer(t *testing.T, serve func(net.Conn, *bufio.Reader)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				serve(c, bufio.NewReader(c))
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// readRequest reads one request's head and body from a raw server's connection.
func readRequest(br *bufio.Reader) (*http.Request, error) {
	req, err := http.ReadRequest(br)
	if err != nil {
		return nil, err
	}
	_, err = io.Copy(io.Discard, req.Body)
	return req, err
}
