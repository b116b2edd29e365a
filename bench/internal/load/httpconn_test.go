package load

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// responseFrom returns an httpConn that reads raw as the server's bytes.
func responseFrom(raw string) *httpConn {
	return &httpConn{br: bufio.NewReaderSize(strings.NewReader(raw), 4096)}
}

func TestReadResponseFraming(t *testing.T) {
	tests := []struct {
		name        string
		raw         string
		status      int
		contentType string
		session     string
		body        string
		keep        bool
	}{
		{
			name:   "content-length",
			raw:    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: abc\r\nContent-Length: 7\r\n\r\n{\"a\":1}",
			status: 200, contentType: "application/json", session: "abc", body: `{"a":1}`, keep: true,
		},
		{
			name:   "chunked with extension and trailer",
			raw:    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n5;x=y\r\nhello\r\n6\r\n world\r\n0\r\nTrailer: 1\r\n\r\n",
			status: 200, contentType: "text/event-stream", body: "hello world", keep: true,
		},
		{
			name:   "202 with no body",
			raw:    "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n",
			status: 202, keep: true,
		},
		{
			name:   "204 has no body whatever follows",
			raw:    "HTTP/1.1 204 No Content\r\n\r\n",
			status: 204, keep: true,
		},
		{
			name:   "delimited by close",
			raw:    "HTTP/1.1 200 OK\r\n\r\nuntil the end",
			status: 200, body: "until the end", keep: false,
		},
		{
			name:   "connection close",
			raw:    "HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 3\r\n\r\nbad",
			status: 400, body: "bad", keep: false,
		},
		{
			name:   "bare LF line endings",
			raw:    "HTTP/1.1 200 OK\nContent-Length: 2\n\nok",
			status: 200, body: "ok", keep: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, keep, err := responseFrom(tt.raw).readResponse()
			if err != nil {
				t.Fatalf("readResponse: %v", err)
			}
			if resp.Status != tt.status || resp.ContentType != tt.contentType || resp.SessionID != tt.session ||
				string(resp.Body) != tt.body || keep != tt.keep {
				t.Errorf("got status %d type %q session %q body %q keep %v; want %d %q %q %q %v",
					resp.Status, resp.ContentType, resp.SessionID, resp.Body, keep,
					tt.status, tt.contentType, tt.session, tt.body, tt.keep)
			}
		})
	}
}

func TestReadResponseMalformed(t *testing.T) {
	for _, raw := range []string{
		"",
		"HTTP/1.1 2\r\n\r\n",
		"SMTP 220 hello\r\n\r\n",
		"HTTP/1.1 200 OK\r\nno colon\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabX\r\n0\r\n\r\n",
	} {
		if _, _, err := responseFrom(raw).readResponse(); err == nil {
			t.Errorf("readResponse(%q) succeeded, want an error", raw)
		}
	}
}

// TestPostOverTCP checks the request post writes (as net/http parses it) and the
// reuse of the keep-alive connection.
func TestPostOverTCP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	type seen struct {
		req  *http.Request
		body string
	}
	got := make(chan seen, 2)
	accepted := make(chan int, 2)
	go func() {
		conns := 0
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns++
			accepted <- conns
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					body, _ := io.ReadAll(req.Body)
					got <- seen{req, string(body)}
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
				}
			}()
		}
	}()
	h := newHTTPConn(ln.Addr().String(), 5*time.Second)
	defer h.close()
	for i := range 2 {
		resp, err := h.post("/mcp", []byte(`{"x":1}`), "sess", "2025-06-18")
		if err != nil {
			t.Fatalf("post %d: %v", i, err)
		}
		if resp.Status != 200 || string(resp.Body) != "{}" {
			t.Fatalf("post %d: status %d body %q", i, resp.Status, resp.Body)
		}
		s := <-got
		if s.req.Method != "POST" || s.req.URL.Path != "/mcp" || s.body != `{"x":1}` ||
			s.req.Header.Get("Mcp-Session-Id") != "sess" || s.req.Header.Get("Mcp-Protocol-Version") != "2025-06-18" ||
			!strings.Contains(s.req.Header.Get("Accept"), "text/event-stream") || s.req.Host != ln.Addr().String() {
			t.Fatalf("post %d: server saw %s %s host %q headers %v body %q", i, s.req.Method, s.req.URL, s.req.Host, s.req.Header, s.body)
		}
	}
	if n := len(accepted); n != 1 {
		t.Errorf("%d connections for 2 posts, want 1 (keep-alive)", n)
	}
}

func TestAsciiEqualFold(t *testing.T) {
	if !asciiEqualFold([]byte("content-LENGTH"), "Content-Length") {
		t.Error("content-LENGTH != Content-Length")
	}
	if asciiEqualFold([]byte("Content-Lengt"), "Content-Length") || asciiEqualFold([]byte("Content-Lengtx"), "Content-Length") {
		t.Error("different names compare equal")
	}
}

func FuzzReadResponse(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"))
	f.Add([]byte("HTTP/1.1 202 Accepted\r\n\r\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		h := &httpConn{br: bufio.NewReaderSize(bytes.NewReader(raw), 4096)}
		resp, _, err := h.readResponse()
		if err == nil && len(resp.Body) > len(raw) {
			t.Fatalf("body of %d bytes from %d bytes of input", len(resp.Body), len(raw))
		}
	})
}
