package tap

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// closedByTap reports whether the tap closes r's connection: a read gets EOF
// (or a reset) before testTimeout.
func (r *rawConn) closedByTap() bool {
	_ = r.c.SetReadDeadline(time.Now().Add(testTimeout))
	_, err := r.br.ReadByte()
	return err != nil && !errors.Is(err, os.ErrDeadlineExceeded)
}

// The tap's listener closes a connection that sends nothing, one that stops in
// the middle of its header, and a kept-alive one that stays idle; a connection
// whose response is still under way is not idle, however long it lasts.
func TestTapClosesSilentAndIdleConnections(t *testing.T) {
	release := make(chan struct{})
	up := rawServer(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			req, _, err := readRequest(br)
			if err != nil {
				return
			}
			if req.URL.Path != "/stream" {
				_ = writeResponse(c, 200, "", "ok")
				continue
			}
			_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
			<-release
			_, _ = io.WriteString(c, "15\r\nevent: x\ndata: late\n\n\r\n0\r\n\r\n")
		}
	})
	addr, _ := startTap(t, "http://"+up+"/", nil, HTTPOptions{ReadHeaderTimeout: 200 * time.Millisecond, IdleTimeout: 300 * time.Millisecond})

	silent := dialRaw(t, addr)
	if !silent.closedByTap() {
		t.Error("a connection that sent nothing was not closed")
	}
	partial := dialRaw(t, addr)
	partial.send("GET / HTTP/1.1\r\nHost: " + addr + "\r\n")
	if !partial.closedByTap() {
		t.Error("a connection that stopped in its header was not closed")
	}

	streaming := dialRaw(t, addr)
	streaming.send("GET /stream HTTP/1.1\r\nHost: " + addr + "\r\n\r\n")
	resp, err := http.ReadResponse(streaming.br, &http.Request{Method: http.MethodGet})
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the stream: %v, %v", resp, err)
	}
	// A connection idle after its exchange is closed after IdleTimeout; the
	// stream began before it, so it too has waited that long.
	idle := dialRaw(t, addr)
	idle.send("GET / HTTP/1.1\r\nHost: " + addr + "\r\n\r\n")
	if resp, body := idle.response(http.MethodGet); resp.StatusCode != 200 || string(body) != "ok" {
		t.Fatalf("an exchange: %d %q", resp.StatusCode, body)
	}
	if !idle.closedByTap() {
		t.Error("an idle connection was not closed")
	}
	close(release)
	data, err := io.ReadAll(resp.Body)
	if err != nil || string(data) != "event: x\ndata: late\n\n" {
		t.Errorf("the stream, after the idle timeout: %q, %v; want its event", data, err)
	}
	if !streaming.closedByTap() {
		t.Error("the stream's connection, idle once the stream ended, was not closed")
	}
}

// With MaxConnections 1 a second client waits until the first one's connection
// closes, then is served.
func TestTapCapsConnections(t *testing.T) {
	up := okUpstream(t)
	addr, _ := startTap(t, "http://"+up+"/", nil, HTTPOptions{MaxConnections: 1})
	get := "GET / HTTP/1.1\r\nHost: " + addr + "\r\n\r\n"
	first := dialRaw(t, addr)
	first.send(get)
	if resp, _ := first.response(http.MethodGet); resp.StatusCode != 200 {
		t.Fatalf("first client: %d", resp.StatusCode)
	}
	second := dialRaw(t, addr)
	second.send(get)
	// Bounded check of an absence: no answer while the first connection is open.
	_ = second.c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if _, err := second.br.Peek(1); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the second client was answered while the first held the only slot (%v)", err)
	}
	_ = first.c.Close()
	_ = second.c.SetReadDeadline(time.Now().Add(testTimeout))
	resp, body := second.response(http.MethodGet)
	if resp.StatusCode != 200 || !strings.Contains(string(body), "ok") {
		t.Errorf("second client after the first left: %d %q", resp.StatusCode, body)
	}
}

// A request that asks to close the connection after it ("Connection: close",
// or HTTP/1.0) still gets its answer before the tap closes the connection.
func TestTapAnswersTheLastRequest(t *testing.T) {
	up := okUpstream(t)
	addr, _ := startTap(t, "http://"+up+"/", nil, HTTPOptions{})
	for _, req := range []string{
		"GET / HTTP/1.1\r\nHost: " + addr + "\r\nConnection: close\r\n\r\n",
		"GET / HTTP/1.0\r\nHost: " + addr + "\r\n\r\n",
	} {
		c := dialRaw(t, addr)
		c.send(req)
		if resp, body := c.response(http.MethodGet); resp.StatusCode != 200 || string(body) != "ok" {
			t.Errorf("%q: %d %q", req, resp.StatusCode, body)
		}
		if !c.closedByTap() {
			t.Errorf("%q: the connection stayed open", req)
		}
	}
}

// okUpstream is a server that answers every request with 200 "ok".
func okUpstream(t *testing.T) string {
	return rawServer(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for {
			if _, _, err := readRequest(br); err != nil {
				return
			}
			_ = writeResponse(c, 200, "", "ok")
		}
	})
}
