package h1

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
)

// inlineMax is the largest body of known length copied into the request's
// buffer, written with the head in one write and kept for a retry; a larger one
// (or one of unknown length) is streamed after the head.
const inlineMax = 64 << 10

// defaultUserAgent is what net/http sends when the request names none.
const defaultUserAgent = "Go-http-client/1.1"

// keepMax is the largest buffer given back to the pool.
const keepMax = 256 << 10

// wbuf is an encoded request: the head, and the body when inline.
type wbuf struct {
	b      []byte
	stream io.ReadCloser // a body written after b, or nil
	length int64         // its length, -1 for chunked
}

var wbufPool = sync.Pool{New: func() any { return &wbuf{b: make([]byte, 0, 2048)} }}

func (w *wbuf) free() {
	if cap(w.b) > keepMax {
		return
	}
	w.b, w.stream = w.b[:0], nil
	wbufPool.Put(w)
}

// encode writes req's head, as net/http would: request line, Host, User-Agent
// (net/http's default unless req.Header has one; an empty one is not sent),
// Content-Length (or Transfer-Encoding: chunked for a body of unknown length),
// Connection: close when req.Close, then req.Header as given.
func (t *Transport) encode(req *http.Request) (*wbuf, error) {
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	if !validKeyString(method) {
		return nil, fmt.Errorf("h1: invalid method %q", method)
	}
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	uri, err := t.requestURI(req.URL, host)
	if err != nil {
		return nil, err
	}
	if len(req.Trailer) > 0 {
		return nil, errors.New("h1: request trailers are not supported")
	}
	w := wbufPool.Get().(*wbuf)
	b := append(w.b[:0], method...)
	b = append(b, ' ')
	b = append(b, uri...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, host...)
	b = append(b, "\r\n"...)
	ua := defaultUserAgent
	if v, ok := req.Header["User-Agent"]; ok {
		ua = ""
		if len(v) > 0 {
			ua = v[0]
		}
	}
	if ua != "" {
		b = append(b, "User-Agent: "...)
		b = append(b, ua...)
		b = append(b, "\r\n"...)
	}
	body := req.Body
	if body == http.NoBody {
		body = nil
	}
	length := req.ContentLength
	switch {
	case body == nil:
		length = 0
		if method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch {
			b = append(b, "Content-Length: 0\r\n"...)
		}
	case length > 0:
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, length, 10)
		b = append(b, "\r\n"...)
	default:
		length = -1
		b = append(b, "Transfer-Encoding: chunked\r\n"...)
	}
	if req.Close {
		b = append(b, "Connection: close\r\n"...)
	}
	for k, vs := range req.Header {
		switch k {
		case "Host", "User-Agent", "Content-Length", "Transfer-Encoding", "Trailer":
			continue
		}
		if !validKeyString(k) {
			w.b = b
			w.free()
			return nil, fmt.Errorf("h1: invalid header name %q", k)
		}
		for _, v := range vs {
			if !validValueString(v) {
				w.b = b
				w.free()
				return nil, fmt.Errorf("h1: invalid header value for %q", k)
			}
			b = append(b, k...)
			b = append(b, ": "...)
			b = append(b, v...)
			b = append(b, "\r\n"...)
		}
	}
	b = append(b, "\r\n"...)
	if length > 0 && length <= inlineMax {
		n := len(b)
		b = append(b, make([]byte, length)...)
		_, err := io.ReadFull(body, b[n:])
		var extra [1]byte
		if err == nil {
			if m, _ := body.Read(extra[:]); m > 0 {
				err = fmt.Errorf("ContentLength=%d with a longer body", length)
			}
		}
		_ = body.Close()
		if err != nil {
			w.b = b
			w.free()
			return nil, fmt.Errorf("h1: reading the request body: %w", err)
		}
		body = nil
	}
	w.b, w.stream, w.length = b, body, length
	return w, nil
}

// target is a URL's request URI, checked along with the URL's host: what
// requestURI keeps of the last URL it saw.
type target struct {
	u   url.URL
	uri string
}

// requestURI returns the URI of u's request line after checking it and host.
// A client sends its requests to one URL, mostly: the last URL's URI is kept,
// and is used again for a URL equal to it, sparing the escaping (and its
// string) and the checks on every request.
func (t *Transport) requestURI(u *url.URL, host string) (string, error) {
	if last := t.last.Load(); last != nil && *u == last.u && host == last.u.Host {
		return last.uri, nil
	}
	uri := u.RequestURI()
	if strings.ContainsAny(host, " \t\r\n/") || host == "" || strings.ContainsAny(uri, " \t\r\n") {
		return "", fmt.Errorf("h1: invalid host or path %q", host+uri)
	}
	if host == u.Host {
		t.last.Store(&target{u: *u, uri: uri})
	}
	return uri, nil
}

// writeTo writes the request on nc.
func (w *wbuf) writeTo(nc net.Conn) error {
	if _, err := nc.Write(w.b); err != nil || w.stream == nil {
		return err
	}
	if w.length > 0 {
		n, err := io.CopyN(nc, w.stream, w.length)
		if err == io.EOF {
			err = fmt.Errorf("ContentLength=%d with a body of %d bytes", w.length, n)
		}
		return err
	}
	cw := httputil.NewChunkedWriter(nc)
	if _, err := io.Copy(cw, w.stream); err != nil {
		return err
	}
	if err := cw.Close(); err != nil {
		return err
	}
	_, err := io.WriteString(nc, "\r\n")
	return err
}

func (w *wbuf) closeStream() {
	if w.stream != nil {
		_ = w.stream.Close()
	}
}

// rewind prepares the request to be written again, and reports whether it can
// be: an inline body is in the buffer, a streamed one needs req.GetBody.
func (w *wbuf) rewind(req *http.Request) bool {
	if w.stream == nil {
		return true
	}
	if req.GetBody == nil {
		return false
	}
	body, err := req.GetBody()
	if err != nil {
		return false
	}
	_ = w.stream.Close()
	w.stream = body
	return true
}
