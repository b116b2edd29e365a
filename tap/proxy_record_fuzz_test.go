package tap

import (
	"bufio"
	"bytes"
	"net/textproto"
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
