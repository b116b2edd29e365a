package tap

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/tap/capture"
)

// TestHTTPTapRelaysHeadersAsTheyCame: header lines reach the upstream in their
// order and spelling; the tap changes Host, drops Accept-Encoding and the
// hop-by-hop fields, adds nothing (no X-Forwarded-For); the response's lines come
// back the same way. A Last-Event-ID is recorded as a reconnect.
func TestHTTPTapRelaysHeadersAsTheyCame(t *testing.T) {
	got := make(chan string, 1)
	up := rawServer(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		var head strings.Builder
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			head.WriteString(line)
			if line == "\r\n" {
				break
			}
		}
		got <- head.String()
		_ = writeResponse(c, 200, "X-Custom-Reply: A\r\nx-lower: b\r\nContent-Type: application/json\r\n", `{"jsonrpc":"2.0","id":1,"result":{}}`)
	})
	capt := newTestCapture(t)
	addr, _ := startTap(t, "http://"+up+"/mcp", capt, HTTPOptions{})
	rc := dialRaw(t, addr)
	rc.send("GET /mcp?x=1 HTTP/1.1\r\nHost: " + addr + "\r\nx-weird-CASE: 1\r\nAccept: text/event-stream\r\nAccept-Encoding: gzip\r\n" +
		"Mcp-Session-Id: s1\r\nLast-Event-ID: 42\r\nConnection: keep-alive, X-Hop\r\nX-Hop: drop me\r\nKeep-Alive: timeout=5\r\n\r\n")
	resp, body := rc.response(http.MethodGet)
	head := <-got
	want := "GET /mcp?x=1 HTTP/1.1\r\nHost: " + up + "\r\nx-weird-CASE: 1\r\nAccept: text/event-stream\r\nMcp-Session-Id: s1\r\nLast-Event-ID: 42\r\n\r\n"
	if head != want {
		t.Errorf("the upstream got\n%q\nwant\n%q", head, want)
	}
	if resp.StatusCode != 200 || resp.Header.Get("X-Custom-Reply") != "A" || resp.Header.Get("X-Lower") != "b" || string(body) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Errorf("response %d %v %q", resp.StatusCode, resp.Header, body)
	}
	recs := capt.records(t)
	rc2 := findKind(recs, capture.KindReconnect)
	if len(rc2) != 1 || rc2[0].LastEventID != "42" || rc2[0].Session != "s1" {
		t.Errorf("reconnect records %+v", rc2)
	}
}

// TestHTTPTapUpstreamDown: an upstream that refuses connections gets the client a
// 502 whose body says why, recorded; the request counts as refused, not lost.
func TestHTTPTapUpstreamDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	_ = ln.Close()
	capt := newTestCapture(t)
	addr, _ := startTap(t, "http://"+dead+"/mcp", capt, HTTPOptions{})
	rc := dialRaw(t, addr)
	for range 2 { // the connection stays usable
		rc.send("POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		resp, body := rc.response(http.MethodPost)
		if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(body), "unreachable") || !strings.Contains(string(body), dead) {
			t.Fatalf("got %d %q, want a 502 naming the upstream", resp.StatusCode, body)
		}
	}
	recs := capt.records(t)
	errs := findKind(recs, capture.KindUpstreamError)
	if len(errs) != 2 || errs[0].HTTP.Status != 502 || !strings.Contains(errs[0].Text, "refused") {
		t.Fatalf("upstream-error records %+v; all: %s", errs, kinds(recs))
	}
	if sum := capture.Summarize(recs); len(sum.Unanswered) != 0 || sum.Refused != 2 || sum.UpstreamErrors != 2 {
		t.Errorf("summary: %s", sum.String())
	}
}

// TestHTTPTapUpstreamGarbage: an upstream that answers with something that is not
// HTTP gets the client a 502, recorded.
func TestHTTPTapUpstreamGarbage(t *testing.T) {
	up := rawServer(t, func(c net.Conn) {
		if _, _, err := readRequest(bufio.NewReader(c)); err == nil {
			_, _ = io.WriteString(c, "SSH-2.0-OpenSSH_9.6\r\n\r\n")
		}
	})
	capt := newTestCapture(t)
	addr, _ := startTap(t, "http://"+up+"/mcp", capt, HTTPOptions{})
	rc := dialRaw(t, addr)
	rc.send("POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nContent-Length: 2\r\n\r\n{}")
	resp, body := rc.response(http.MethodPost)
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(body), "malformed") {
		t.Fatalf("got %d %q", resp.StatusCode, body)
	}
	if errs := findKind(capt.records(t), capture.KindUpstreamError); len(errs) != 1 {
		t.Errorf("upstream errors recorded: %+v", errs)
	}
}

// TestHTTPTapClientGoneMidStream: a client that disconnects in the middle of a
// stream ends the upstream request too, and the capture says who left.
func TestHTTPTapClientGoneMidStream(t *testing.T) {
	upstreamDone := make(chan struct{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "id: 1\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done() // the tap closed its connection
		close(upstreamDone)
	}))
	defer hs.Close()
	capt := newTestCapture(t)
	sub := capt.rec.Subscribe(100)
	addr, _ := startTap(t, hs.URL+"/mcp", capt, HTTPOptions{})
	rc := dialRaw(t, addr)
	rc.send("GET /mcp HTTP/1.1\r\nHost: " + addr + "\r\nAccept: text/event-stream\r\nMcp-Session-Id: s\r\n\r\n")
	resp, err := http.ReadResponse(rc.br, nil)
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || line != "id: 1\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	_ = rc.c.Close()
	select {
	case <-upstreamDone:
	case <-testkit.Context(t).Done():
		t.Fatal("the upstream's request was not ended")
	}
	// The close is recorded once the tap is done with the connection.
	waitFor(t, sub, capture.KindStreamClose)
	recs := capt.records(t)
	closes := findKind(recs, capture.KindStreamClose)
	if len(closes) != 1 || closes[0].Text != capture.EndClientClosed || closes[0].Count != 1 || closes[0].LastEventID != "1" {
		t.Fatalf("stream-close records %+v; all %s", closes, kinds(recs))
	}
	if msgs := capture.Summarize(recs); msgs.S2C != 1 {
		t.Errorf("the event before the disconnect was not recorded: %s", msgs.String())
	}
}

// TestHTTPTapLargeMessages: a 50 MB request and a 50 MB response (JSON), and a 50
// MB SSE event, pass byte for byte and are recorded whole.
func TestHTTPTapLargeMessages(t *testing.T) {
	big := bigMessage(largeMessage)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil || !bytes.Equal(body, big) {
			http.Error(w, "the request was altered", http.StatusBadRequest)
			return
		}
		if r.URL.Query().Get("sse") != "" {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte("data: "))
			_, _ = w.Write(big)
			_, _ = w.Write([]byte("\n\n"))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(big)
	}))
	defer hs.Close()
	capt := newTestCapture(t)
	// The request is over the default body cap (tap.DefaultMaxBody) without -race.
	addr, _ := startTap(t, hs.URL+"/mcp", capt, HTTPOptions{MaxBody: 2 * largeMessage})
	for _, q := range []string{"", "?sse=1"} {
		resp, err := http.Post("http://"+addr+"/mcp"+q, "application/json", bytes.NewReader(big))
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %d %v", q, resp.StatusCode, err)
		}
		want := big
		if q != "" {
			want = append(append([]byte("data: "), big...), "\n\n"...)
		}
		if !bytes.Equal(body, want) {
			t.Fatalf("%s: the response was altered (%d bytes, want %d)", q, len(body), len(want))
		}
	}
	recs := capt.records(t)
	sum := sha256.Sum256(big)
	n := 0
	for _, r := range recs {
		if r.IsMessage() {
			n++
			if r.Truncated || r.Size != int64(len(big)) || sha256.Sum256(r.Msg) != sum {
				t.Errorf("record %d: %d bytes recorded of %d (truncated %v)", r.Seq, len(r.Msg), r.Size, r.Truncated)
			}
		}
	}
	if n != 4 {
		t.Errorf("%d messages recorded, want 4: %s", n, kinds(recs))
	}
}

// bigMessage is a JSON-RPC request of about n bytes.
func bigMessage(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"`)
	chunk := strings.Repeat("0123456789abcdef", 64)
	for b.Len() < n {
		b.WriteString(chunk)
	}
	b.WriteString(`"}}}`)
	return b.Bytes()
}

// TestHTTPTapRedaction: secrets reach the upstream intact but not the capture,
// unless NoRedact.
func TestHTTPTapRedaction(t *testing.T) {
	for _, noRedact := range []bool{false, true} {
		t.Run(fmt.Sprint("noRedact=", noRedact), func(t *testing.T) {
			seen := make(chan http.Header, 1)
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				seen <- r.Header.Clone()
				w.Header().Set("Set-Cookie", "sid=server-secret; Path=/; HttpOnly")
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":{}}`)
			}))
			defer hs.Close()
			capt := newTestCapture(t)
			addr, _ := startTap(t, hs.URL+"/mcp", capt, HTTPOptions{NoRedact: noRedact})
			req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/mcp?access_token=qtok&api_key=qkey&sessionId=keep",
				strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer btok")
			req.Header.Set("Cookie", "a=ctok; b=ctok2")
			req.Header.Set("X-Api-Key", "xkey")
			req.Header.Set("X-Upstream-Token", "utok")
			req.Header.Set("Client-Secret", "csec")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if got := <-seen; got.Get("Authorization") != "Bearer btok" || got.Get("X-Api-Key") != "xkey" || got.Get("Cookie") != "a=ctok; b=ctok2" {
				t.Errorf("the upstream got %v: secrets must pass unchanged", got)
			}
			if resp.Header.Get("Set-Cookie") != "sid=server-secret; Path=/; HttpOnly" {
				t.Errorf("the client got Set-Cookie %q", resp.Header.Get("Set-Cookie"))
			}
			text := capt.text(t)
			secrets := []string{"btok", "ctok", "xkey", "utok", "csec", "qtok", "qkey", "server-secret"}
			for _, s := range secrets {
				if strings.Contains(text, s) != noRedact {
					t.Errorf("capture contains %q: %v, want %v", s, !noRedact, noRedact)
				}
			}
			if !noRedact {
				for _, s := range []string{`"Bearer [REDACTED]"`, `"a=[REDACTED]; b=[REDACTED]"`, `access_token=[REDACTED]`, `sessionId=keep`, `"sid=[REDACTED]; Path=/; HttpOnly"`} {
					if !strings.Contains(text, s) {
						t.Errorf("capture lacks %s:\n%s", s, text)
					}
				}
			}
		})
	}
}

// TestHTTPTapGuardsItsListener: the tap applies the Host/Origin rules of `mcpkit
// serve`: a DNS-rebinding Host or a foreign Origin is refused before anything
// reaches the upstream.
func TestHTTPTapGuardsItsListener(t *testing.T) {
	reached := make(chan string, 4)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached <- r.Host + " " + r.Header.Get("Origin")
		w.WriteHeader(http.StatusAccepted)
	}))
	defer hs.Close()
	capt := newTestCapture(t)
	addr, _ := startTap(t, hs.URL+"/mcp", capt, HTTPOptions{})
	cases := []struct {
		host, origin string
		status       int
	}{
		{"evil.example:80", "", 403},
		{addr, "http://evil.example", 403},
		{addr, "http://localhost:3000", 202},
		{"localhost", "", 202},
	}
	for _, c := range cases {
		rc := dialRaw(t, addr)
		req := "POST /mcp HTTP/1.1\r\nHost: " + c.host + "\r\nContent-Length: 2\r\n"
		if c.origin != "" {
			req += "Origin: " + c.origin + "\r\n"
		}
		rc.send(req + "\r\n{}")
		resp, body := rc.response(http.MethodPost)
		if resp.StatusCode != c.status {
			t.Errorf("Host %q Origin %q: %d %q, want %d", c.host, c.origin, resp.StatusCode, body, c.status)
		}
	}
	if len(reached) != 2 {
		t.Errorf("%d requests reached the upstream, want the 2 allowed", len(reached))
	}
	if f := findKind(capt.records(t), capture.KindForbidden); len(f) != 2 || !strings.Contains(f[0].Text, "evil.example") {
		t.Errorf("forbidden records %+v", f)
	}
}

// TestHTTPTapTLSUpstream: an https upstream works, with its certificate checked.
func TestHTTPTapTLSUpstream(t *testing.T) {
	hs := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":1,"result":{"tls":%v}}`, r.TLS != nil)
	}))
	hs.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake below
	defer hs.Close()
	pool := x509.NewCertPool()
	pool.AddCert(hs.Certificate())
	capt := newTestCapture(t)
	addr, _ := startTap(t, hs.URL+"/mcp", capt, HTTPOptions{TLSConfig: &tls.Config{RootCAs: pool}})
	resp, err := http.Post("http://"+addr+"/mcp", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != `{"jsonrpc":"2.0","id":1,"result":{"tls":true}}` {
		t.Errorf("got %d %q", resp.StatusCode, body)
	}
	// Without the certificate's root, the handshake fails: a 502 that says so.
	addr2, _ := startTap(t, hs.URL+"/mcp", nil, HTTPOptions{})
	resp, err = http.Post("http://"+addr2+"/mcp", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 502 || !strings.Contains(string(body), "certificate") {
		t.Errorf("untrusted upstream: %d %q", resp.StatusCode, body)
	}
	if sum := capture.Summarize(capt.records(t)); sum.Requests != 1 || sum.Responses != 1 {
		t.Errorf("summary %s", sum.String())
	}
}

// TestHTTPTapMirrorsConnections: each client connection has its own upstream
// connection; when the upstream closes it (here after one response, as a server
// with a short keep-alive would), the tap closes the client's, and the client's
// next connection gets a new one.
func TestHTTPTapMirrorsConnections(t *testing.T) {
	conns := make(chan string, 4)
	up := rawServer(t, func(c net.Conn) {
		conns <- c.RemoteAddr().String()
		if _, _, err := readRequest(bufio.NewReader(c)); err == nil {
			_ = writeResponse(c, 200, "Content-Type: application/json\r\n", `{"jsonrpc":"2.0","id":1,"result":{}}`)
		}
		// and close, without "Connection: close"
	})
	addr, _ := startTap(t, "http://"+up+"/mcp", nil, HTTPOptions{})
	for i := range 2 {
		rc := dialRaw(t, addr)
		rc.send("POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nExpect: 100-continue\r\nContent-Length: 40\r\n\r\n")
		resp, _ := rc.response(http.MethodPost)
		if resp.StatusCode != http.StatusContinue {
			t.Fatalf("connection %d: got %d, want 100 Continue first", i, resp.StatusCode)
		}
		rc.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		resp, body := rc.response(http.MethodPost)
		if resp.StatusCode != 200 || string(body) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
			t.Fatalf("connection %d: %d %q", i, resp.StatusCode, body)
		}
		if n, err := rc.br.ReadByte(); err != io.EOF {
			t.Fatalf("connection %d: after the upstream closed, read %q, %v; want EOF", i, n, err)
		}
	}
	if len(conns) != 2 {
		t.Errorf("%d upstream connections, want one per client connection", len(conns))
	}
}

// TestHTTPTapCloseEndsStreams: closing the tap ends the streams in progress,
// recorded as such, and returns.
func TestHTTPTapCloseEndsStreams(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer hs.Close()
	capt := newTestCapture(t)
	sub := capt.rec.Subscribe(100)
	addr, tp := startTap(t, hs.URL+"/mcp", capt, HTTPOptions{})
	rc := dialRaw(t, addr)
	rc.send("GET /mcp HTTP/1.1\r\nHost: " + addr + "\r\nMcp-Session-Id: s\r\n\r\n")
	if resp, err := http.ReadResponse(rc.br, nil); err != nil || resp.StatusCode != 200 {
		t.Fatalf("stream: %v %v", resp, err)
	}
	waitFor(t, sub, capture.KindStreamOpen)
	if err := tp.Close(); err != nil {
		t.Fatal(err)
	}
	if r := waitFor(t, sub, capture.KindStreamClose); r.Text != capture.EndShutdown {
		t.Errorf("stream-close %q, want %q", r.Text, capture.EndShutdown)
	}
}
