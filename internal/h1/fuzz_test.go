package h1

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/textproto"
	"testing"
)

// FuzzReadResponse feeds peer bytes to the response parser and the body reader
// (status line, headers, Content-Length, chunked framing, trailers). It checks
// that they fail with one of their errors or give a well-formed result, and,
// where net/http's reader also accepts the bytes, the same status and body.
func FuzzReadResponse(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=1\r\nhello\r\n0\r\nTrailer: 1\r\n\r\n",
		"HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
		"HTTP/1.0 200 OK\r\nconnection: keep-alive\r\ncontent-length: 1\r\n\r\nx",
		"HTTP/1.1 404 Nope\r\nmcp-session-id: abc\r\nX-A: 1\r\nx-a: 2\r\n\r\nuntil close",
		"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
		"HTTP/1.1 200\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := parser{maxBytes: 4096, maxCount: 32}
		br := bufio.NewReaderSize(bytes.NewReader(data), 16)
		h, err := p.readHead(br)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrHeaderTooLarge) &&
				!errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if h.status < 200 || h.status > 999 || h.length < -1 || (h.chunked && h.length != -1) {
			t.Fatalf("head %+v", h)
		}
		if p.used > p.maxBytes || len(p.fields) > p.maxCount {
			t.Fatalf("limits passed: %d bytes, %d fields", p.used, len(p.fields))
		}
		hdr := make(http.Header)
		p.build(hdr, make([]string, 3))
		for k := range hdr {
			if textproto.CanonicalMIMEHeaderKey(k) != k {
				t.Fatalf("key %q is not canonical", k)
			}
		}
		b := &body{br: br, keep: true}
		switch {
		case h.status == 204 || h.status == 304:
			b.n = 0
		case h.chunked:
			b.mode = byChunks
		case h.length >= 0:
			b.mode, b.n = byLength, h.length
		default:
			b.mode = byClose
		}
		got, berr := io.ReadAll(b)
		if berr == nil && h.length >= 0 && !h.chunked && int64(len(got)) != h.length && h.status != 204 && h.status != 304 {
			t.Fatalf("read %d bytes of a %d-byte body", len(got), h.length)
		}
		// net/http's reader, when it accepts the same bytes, agrees.
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(data)), nil)
		if err != nil || resp.StatusCode != h.status {
			return
		}
		want, werr := io.ReadAll(resp.Body)
		if werr == nil && berr == nil && h.status != 204 && h.status != 304 && !bytes.Equal(got, want) {
			t.Fatalf("body %q, net/http read %q", got, want)
		}
	})
}
