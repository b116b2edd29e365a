package tap

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/url"
	"testing"

	"github.com/mcpkit/mcpkit/tap/capture"
)

// fuzzMaxBody is the body cap of the fuzzed taps: small, so that the fuzzer
// reaches it.
const fuzzMaxBody = 4096

// fuzzConn returns a connection of a tap (to an upstream nobody dials) whose
// client sends in and closes (with in nil it sends nothing and stays), and
// reads everything; and the function that ends it.
func fuzzConn(t *testing.T, in []byte) (*proxyConn, func()) {
	u, _ := url.Parse("http://127.0.0.1:1/mcp")
	rec, err := capture.NewRecorder(capture.Options{Out: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewHTTPTap(HTTPOptions{Upstream: u, Recorder: rec, MaxBody: fuzzMaxBody, MaxMessage: 1024})
	if err != nil {
		t.Fatal(err)
	}
	server, client := net.Pipe()
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		if in != nil {
			go func() { _, _ = client.Write(in); _ = client.Close() }()
		}
		_, _ = io.Copy(io.Discard, client)
	}()
	c := p.newConn(server)
	return c, func() {
		_ = server.Close()
		<-drained
		_ = rec.Close()
	}
}

// FuzzReadRequest feeds any bytes to the tap as a client's requests: readRequest
// (head, request line, framing, Content-Length and chunked bodies, the body cap)
// must not panic nor allocate what the bytes announce, and a body it returns is
// within the cap and framed as announced.
func FuzzReadRequest(f *testing.F) {
	const h = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
	for _, s := range []string{
		h + "Content-Length: 2\r\n\r\n{}",
		h + "Content-Length: 9223372036854775807\r\n\r\n{}",
		h + "Content-Length: 68719476736\r\n\r\n{}",
		h + "Transfer-Encoding: chunked\r\n\r\n7fffffffffffffff\r\n{}",
		h + "Transfer-Encoding: chunked\r\n\r\n2;ext=1\r\n{}\r\n0\r\nTrailer: x\r\n\r\n",
		h + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
		h + "Transfer-Encoding: gzip\r\n\r\n",
		h + "Expect: 100-continue\r\nContent-Length: 3\r\n\r\n{} ",
		h + "Content-Length: 1\r\nContent-Length: 2\r\n\r\n{}",
		"GET /mcp HTTP/1.0\r\nAccept: text/event-stream\r\n\r\n",
		"\r\n\r\nGET http://127.0.0.1/mcp?sessionId=x HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive, Upgrade\r\nUpgrade: h2c\r\n\r\n",
		h + " folded\r\n\r\n",
		h + "Content-Length: 0\r\n\r\n" + h + "Content-Length: 2\r\n\r\n{}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		c, end := fuzzConn(t, in)
		defer end()
		for range 8 {
			x, body, err := c.readRequest()
			if err != nil || x == nil {
				return
			}
			if int64(len(body)) > fuzzMaxBody {
				t.Fatalf("a body of %d bytes passed the cap of %d", len(body), fuzzMaxBody)
			}
			if cl := c.req.contentLength; !c.req.chunked && cl >= 0 && int64(len(body)) != cl {
				t.Fatalf("a body of %d bytes for Content-Length %d", len(body), cl)
			}
			c.recordRequest(x, body)
		}
	})
}

// FuzzRelayResponse feeds any bytes to the tap as the upstream's response to a
// POST: the head, the framing (Content-Length, chunked, until close), SSE framing
// and the recording must not panic nor allocate what the bytes announce.
func FuzzRelayResponse(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
		"HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775807\r\n\r\n{}",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7fffffffffffffff\r\n{}",
		"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n" +
			"1a\r\nevent: message\ndata: {}\n\n\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\nevent: endpoint\ndata: http://127.0.0.1:1/messages?sessionId=a\n\nid: 1\ndata: {\"jsonrpc\":\"2.0\"}\n\n",
		"HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 4\r\n\r\nnope",
		"HTTP/1.0 500 Oops\r\n\r\nbody until close",
		"HTTP/1.1 101 Switching Protocols\r\n\r\n",
		"HTTP/1.1 2000 OK\r\n\r\n",
	} {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, in []byte, head bool) {
		c, end := fuzzConn(t, nil)
		defer end()
		method := "POST"
		if head {
			method = "HEAD"
		}
		x := &exchange{n: 1, method: method, target: "/mcp", path: "/mcp", head: head, minor: 1, transport: capture.TransportStreamable, session: "s", clientHost: "127.0.0.1:2"}
		_, _ = c.relayResponse(x, bufio.NewReaderSize(bytes.NewReader(in), 4096))
	})
}
