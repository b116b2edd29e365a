//go:build linux

package stress

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// dialRaw opens a TCP connection to the server from localIP.
func dialRaw(t *testing.T, addr, localIP string) *net.TCPConn {
	t.Helper()
	d := net.Dialer{Timeout: 10 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(localIP)}}
	c, err := d.DialContext(t.Context(), "tcp", addr)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	return c.(*net.TCPConn)
}

// closedByServer reports whether the server closed c (an EOF, or a reset)
// within limit; what the server sent before closing is skipped.
func closedByServer(c net.Conn, limit time.Duration) error {
	if err := c.SetReadDeadline(time.Now().Add(limit)); err != nil {
		return err
	}
	_, err := io.Copy(io.Discard, c)
	switch {
	case err == nil, errors.Is(err, net.ErrClosed):
		return nil // EOF
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("still open after %v", limit)
	}
	return nil // reset
}

// eachConn runs fn for every connection at once and returns the errors.
func eachConn(conns []*net.TCPConn, fn func(*net.TCPConn) error) []error {
	errs := make([]error, len(conns))
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Go(func() { errs[i] = fn(c) })
	}
	wg.Wait()
	return errs
}

// failures counts the non-nil errors and returns the first.
func failures(errs []error) (int, error) {
	n := 0
	var first error
	for _, err := range errs {
		if err != nil {
			if first == nil {
				first = err
			}
			n++
		}
	}
	return n, first
}

// idleConnections opens n connections that never send a request. The server
// must never hold more than its cap, and must close every one of them (its
// header timeout) within limit, the ones beyond the cap after they got in.
func idleConnections(t *testing.T, s *server, n int, limit time.Duration) {
	conns := make([]*net.TCPConn, n)
	for i := range conns {
		conns[i] = dialRaw(t, s.addr, "127.0.0.1")
	}
	// A new client meanwhile waits its turn behind them, and is served.
	served := make(chan error, 1)
	go func() {
		c := newClient(s.addr, "127.0.0.1")
		defer c.http.CloseIdleConnections()
		ctx, cancel := context.WithTimeout(t.Context(), limit)
		defer cancel()
		served <- c.echo(ctx, "", "behind the idle ones")
	}()
	errs := eachConn(conns, func(c *net.TCPConn) error {
		defer c.Close()
		return closedByServer(c, limit)
	})
	if n, err := failures(errs); n > 0 {
		t.Errorf("%d of %d idle connections were not closed by the server: %v", n, len(conns), err)
	}
	if err := <-served; err != nil {
		t.Errorf("a client that came during the flood: %v", err)
	}
}

// keptAliveConnections opens n connections that send one request each and
// then stay idle: the server must close them (its idle timeout) within limit.
func keptAliveConnections(t *testing.T, s *server, n int, limit time.Duration) {
	conns := make([]*net.TCPConn, n)
	for i := range conns {
		conns[i] = dialRaw(t, s.addr, "127.0.0.1")
	}
	errs := eachConn(conns, func(c *net.TCPConn) error {
		defer c.Close()
		if _, err := fmt.Fprintf(c, "GET /nothing-here HTTP/1.1\r\nHost: %s\r\n\r\n", s.addr); err != nil {
			return err
		}
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return closedByServer(c, limit) // kept alive, then idle
	})
	if n, err := failures(errs); n > 0 {
		t.Errorf("%d of %d kept-alive idle connections were not closed by the server: %v", n, len(conns), err)
	}
}

// trickle sends the request head and then one byte of body (or of header,
// when header is set) every interval until the server answers or closes.
// It returns the status the server answered (0 if it closed without one).
func trickle(ctx context.Context, c *net.TCPConn, addr string, header bool, limit time.Duration) (int, error) {
	head := fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n", addr)
	if !header {
		head += "Content-Length: 1000\r\n\r\n"
	}
	if _, err := io.WriteString(c, head); err != nil {
		return 0, err
	}
	go func() {
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			b := "{"
			if header {
				b = "X-Slow: 1\r\n"
			}
			if _, err := io.WriteString(c, b); err != nil {
				return // the server closed it
			}
		}
	}()
	if err := c.SetReadDeadline(time.Now().Add(limit)); err != nil {
		return 0, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return 0, fmt.Errorf("no answer within %v", limit)
		}
		return 0, nil // closed
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// slowClients opens n connections that trickle a body (or, with header, a
// header) a byte at a time: the server must answer 408 or close each within
// limit.
func slowClients(t *testing.T, s *server, n int, header bool, limit time.Duration) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	conns := make([]*net.TCPConn, n)
	for i := range conns {
		conns[i] = dialRaw(t, s.addr, "127.0.0.1")
	}
	var mu sync.Mutex
	statuses := map[int]int{}
	errs := eachConn(conns, func(c *net.TCPConn) error {
		defer c.Close()
		status, err := trickle(ctx, c, s.addr, header, limit)
		mu.Lock()
		statuses[status]++
		mu.Unlock()
		if err == nil && status != 0 && status != http.StatusRequestTimeout && status != http.StatusBadRequest {
			err = fmt.Errorf("status %d", status)
		}
		return err
	})
	if n, err := failures(errs); n > 0 {
		t.Errorf("%d of %d slow clients were not cut: %v", n, len(conns), err)
	}
	if !header && statuses[http.StatusRequestTimeout] == 0 {
		t.Errorf("no slow body got 408: %v", statuses)
	}
	t.Logf("slow clients (header %v): statuses %v (0: closed without an answer)", header, statuses)
}

// refused checks a refusal: status, a Retry-After header, and a JSON-RPC
// error explaining it.
func refused(t *testing.T, r reply, status int, reason string) {
	t.Helper()
	_, msg := r.rpcError()
	if r.status != status || r.header.Get("Retry-After") == "" || !strings.Contains(msg, reason) {
		t.Errorf("got %d (Retry-After %q) %s, want %d with Retry-After and a JSON-RPC error saying %q",
			r.status, r.header.Get("Retry-After"), r.body, status, reason)
	}
}

// rst closes c abruptly: a TCP reset rather than an orderly close.
func rst(c *net.TCPConn) {
	_ = c.SetLinger(0)
	_ = c.Close()
}

// rawRequest sends a request on a new connection and reads the response's
// head and the first n events' worth of lines, then resets the connection:
// a client that vanishes mid-stream.
func vanishMidStream(t *testing.T, addr, request string, lines int) {
	t.Helper()
	c := dialRaw(t, addr, "127.0.0.1")
	defer rst(c)
	if _, err := io.WriteString(c, request); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("reading the stream's head: %v", err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the stream: %s", resp.Status)
	}
	for range lines {
		if _, err := br.ReadString('\n'); err != nil {
			t.Fatalf("reading the stream: %v", err)
		}
	}
}

// httpRequest is the text of an HTTP/1.1 request with a JSON body.
func httpRequest(method, path, addr, body string, hdr ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\nHost: %s\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n", method, path, addr)
	for i := 0; i+1 < len(hdr); i += 2 {
		fmt.Fprintf(&b, "%s: %s\r\n", hdr[i], hdr[i+1])
	}
	fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(body), body)
	return b.String()
}
