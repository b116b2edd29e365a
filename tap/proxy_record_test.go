package tap

import (
	"bufio"
	"bytes"
	"fmt"
	"net/textproto"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/tap/capture"
)

// FuzzHeaderLines feeds any header sections, one after the other on a
// connection, to the recording of headers: what the capture gets from
// headerLines (built, or shared with the previous message) is, byte for byte,
// what it got from a map of the fields built the way the tap built it before
// (textproto's canonical names, secrets redacted unless told otherwise).
func FuzzHeaderLines(f *testing.F) {
	for _, s := range []string{
		"Host: a\r\nContent-Type: application/json\r\nContent-Length: 2\r\n",
		"host: a\r\nAUTHORIZATION: Bearer x\r\ncookie: a=1; b\r\nSet-Cookie: s=1; Path=/\r\nset-cookie: t=2\r\nX-Api-Key: k\r\n",
		"Foo Bar: spaced\r\nx_y: z\r\nX: \"q\\u\x00\xff\r\nX:\r\nÜ: x:y:z\r\nA:\tb \r\n",
		"Mcp-Session-Id: s\nmcp-session-id: t\nMCP-Protocol-Version: 2025-06-18\n",
	} {
		f.Add([]byte(s), []byte("Host: a\r\nContent-Length: 3\r\n"), false)
		f.Add([]byte(s), []byte(s+"X: 1\r\n"), true)
	}
	f.Fuzz(func(t *testing.T, section, other []byte, noRedact bool) {
		c := &proxyConn{p: &HTTPTap{opts: HTTPOptions{NoRedact: noRedact}}}
		var lc lineCache // one connection's: each section after the one before
		for _, sec := range [][]byte{section, section, other, section} {
			checkHeaderLines(t, c, &lc, sec, noRedact)
		}
	})
}

// checkHeaderLines records the fields of section with c and lc, and compares
// what the capture gets with what the map of them gives.
func checkHeaderLines(t *testing.T, c *proxyConn, lc *lineCache, section []byte, noRedact bool) {
	var h head
	if err := h.read(bufio.NewReader(bytes.NewReader(append(append([]byte("GET / HTTP/1.1\r\n"), section...), "\r\n\r\n"...)))); err != nil {
		return
	}
	lines := c.headerLines(&h, lc)
	want := map[string][]string{}
	for _, f := range h.fields {
		name := textproto.CanonicalMIMEHeaderKey(h.str(f.name))
		value := h.str(f.value)
		if !noRedact && isSecretName(name) {
			value = redactHeaderValue(name, value)
		}
		want[name] = append(want[name], value)
	}
	got := &capture.HTTPInfo{Method: "GET", Path: "/"}
	got.SetHeaderLines(lines)
	gotLine := capture.AppendRecord(nil, &capture.Record{HTTP: got})
	wantLine := capture.AppendRecord(nil, &capture.Record{HTTP: &capture.HTTPInfo{Method: "GET", Path: "/", Headers: want}})
	if !bytes.Equal(gotLine, wantLine) {
		t.Fatalf("fields %q recorded as\n%s\nwant\n%s", section, gotLine, wantLine)
	}
}

// TestFieldName: the names the tap recognises without allocating get the
// canonical form textproto gives them, and are secret as isSecretName says;
// others too.
func TestFieldName(t *testing.T) {
	for spelling, n := range commonNames {
		if want := textproto.CanonicalMIMEHeaderKey(spelling); n.canon != want || n.secret != isSecretName(want) {
			t.Errorf("%q: %+v, want %q", spelling, n, want)
		}
	}
	for _, n := range []string{"mcp-session-id", "MCP-SESSION-ID", "x-weird-CASE", "Foo Bar", "a_b", "ümlaut", "authorization", "x-api-key", "Cookie"} {
		canon, secret := fieldName([]byte(n))
		if want := textproto.CanonicalMIMEHeaderKey(n); canon != want || secret != isSecretName(want) {
			t.Errorf("%q: %q %v, want %q %v", n, canon, secret, want, isSecretName(want))
		}
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = fieldName([]byte("content-type")) }); n != 0 {
		t.Errorf("fieldName of a common name: %v allocations", n)
	}
}

// TestHeaderLinesLargeHead: header lines too large to keep for the next message
// (short secrets grow redacted) are recorded all the same, each time.
func TestHeaderLinesLargeHead(t *testing.T) {
	const n = 70000
	var h head
	if err := h.read(bufio.NewReader(strings.NewReader("GET / HTTP/1.1\r\n" + strings.Repeat("x-api-key: k\r\n", n) + "\r\n"))); err != nil {
		t.Fatal(err)
	}
	c := &proxyConn{p: &HTTPTap{}}
	var lc lineCache
	want := strings.Repeat("X-Api-Key:"+Redacted+"\n", n)
	for range 2 {
		if got := c.headerLines(&h, &lc); got != want {
			t.Fatalf("recorded %d bytes of lines, want %d", len(got), len(want))
		}
	}
	if lc.buf != nil || lc.raw != nil {
		t.Errorf("kept %d + %d bytes of a large head", cap(lc.buf), cap(lc.raw))
	}
}

// BenchmarkHeaderLines measures recording the header fields of a request (those
// of BenchmarkHTTPTap's client, and an Authorization): when they repeat from the
// connection's previous request, and when they do not (Content-Length changes).
func BenchmarkHeaderLines(b *testing.B) {
	heads := make([]head, 2)
	for i := range heads {
		raw := "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
			"Mcp-Protocol-Version: 2025-06-18\r\nAuthorization: Bearer abc\r\nContent-Length: 10" + string(rune('0'+i)) + "\r\n\r\n"
		if err := heads[i].read(bufio.NewReader(strings.NewReader(raw))); err != nil {
			b.Fatal(err)
		}
	}
	c := &proxyConn{p: &HTTPTap{}}
	for _, changing := range []bool{false, true} {
		b.Run(fmt.Sprintf("changing=%v", changing), func(b *testing.B) {
			var lc lineCache
			b.ReportAllocs()
			for i := range b.N {
				h := &heads[0]
				if changing {
					h = &heads[i%2]
				}
				_ = c.headerLines(h, &lc)
			}
		})
	}
}
