package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"testing"
	"time"
)

// TestRefusedSlowBodyClosed: a POST that `mcpkit serve --http` and `mcpkit
// gateway --http` refuse before reading its body (no Accept, a wrong
// Content-Type, a foreign Origin, an unknown path, /messages of an unknown
// session) still has the body deadline: a client that sends its headers and
// one byte of body is answered or cut, and its connection closed, within
// --body-timeout, instead of being held for ever.
func TestRefusedSlowBodyClosed(t *testing.T) {
	const bodyTimeout = time.Second
	// The bound on each wait: the deadline plus room for a loaded machine,
	// well under what an unbounded server would take (for ever).
	const wait = bodyTimeout + 15*time.Second
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	writeGatewayConfig(t, cfg, map[string]string{"demo": "serve"})
	for _, srv := range []struct {
		name string
		args []string
	}{
		{"serve", []string{"serve", "--http", "127.0.0.1:0", "--body-timeout", bodyTimeout.String()}},
		{"gateway", []string{"gateway", "--config", cfg, "--http", "127.0.0.1:0", "--body-timeout", bodyTimeout.String(), "--start-timeout", "30s"}},
	} {
		t.Run(srv.name, func(t *testing.T) {
			base := startHTTPForTest(t, srv.args...)
			u, err := url.Parse(base)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				name, path string
				header     string
			}{
				{"no Accept", "/mcp", "Content-Type: application/json\r\n"},
				{"text/plain", "/mcp", "Content-Type: text/plain\r\nAccept: application/json, text/event-stream\r\n"},
				{"foreign Origin", "/mcp", "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nOrigin: http://evil.example\r\n"},
				{"unknown path", "/other", "Content-Type: application/json\r\n"},
				{"unknown HTTP+SSE session", "/messages?sessionId=nope", "Content-Type: application/json\r\n"},
			} {
				t.Run(c.name, func(t *testing.T) {
					status, err := slowBody(u.Host, c.path, c.header, wait)
					if err != nil {
						t.Fatalf("POST %s (%s) with one byte of a 1000-byte body: %v", c.path, c.name, err)
					}
					t.Logf("POST %s (%s): status %d, then closed", c.path, c.name, status)
				})
			}
		})
	}
}

// slowBody sends a POST of path to addr that announces a body of 1000 bytes
// and sends one, then reads until the server closes the connection, for at
// most wait. It returns the status of the answer the server sent before
// closing (0: none), or an error if the connection was still open at wait.
func slowBody(addr, path, header string, wait time.Duration) (int, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(wait)); err != nil {
		return 0, err
	}
	req := "POST " + path + " HTTP/1.1\r\nHost: " + addr + "\r\n" + header + "Content-Length: 1000\r\n\r\n{"
	if _, err := io.WriteString(c, req); err != nil {
		return 0, err
	}
	br := bufio.NewReader(c)
	status := 0
	if resp, err := http.ReadResponse(br, nil); err == nil {
		status = resp.StatusCode
		_, _ = io.Copy(io.Discard, resp.Body)
	} else if isTimeout(err) {
		return 0, errors.New("no answer and still open after " + wait.String())
	}
	// The connection must end: EOF (or a reset), not the read's own deadline.
	_, err = io.Copy(io.Discard, br)
	if isTimeout(err) {
		return status, errors.New("answered " + http.StatusText(status) + " but still open after " + wait.String())
	}
	return status, nil
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
