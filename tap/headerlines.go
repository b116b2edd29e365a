package tap

import (
	"bytes"
	"net/textproto"
	"strings"
)

// lineCache is what headerLines keeps of one direction of a connection: the
// header section last seen, as it came (raw) and as recorded (last), and a
// buffer to build the next one in. Messages of a connection mostly repeat their
// header fields, often all of them: the recorded string is then shared, not
// built again.
type lineCache struct {
	raw  []byte
	last string
	buf  []byte
}

// headerLines returns a head's fields in the form of
// capture.HTTPInfo.SetHeaderLines, secrets redacted unless the tap was told
// otherwise: "" for none, the string of the previous call when the fields are
// the same, else one new string.
func (c *proxyConn) headerLines(h *head, lc *lineCache) string {
	if len(h.fields) == 0 {
		return ""
	}
	raw := h.buf[h.fields[0].line.start:h.fields[len(h.fields)-1].line.end]
	if lc.last != "" && bytes.Equal(raw, lc.raw) {
		return lc.last
	}
	b := lc.buf[:0]
	for _, f := range h.fields {
		name := canonicalName(h.bytes(f.name))
		b = append(b, name...)
		b = append(b, ':')
		if value := h.bytes(f.value); !c.p.opts.NoRedact && isSecretName(name) {
			b = append(b, redactHeaderValue(name, string(value))...)
		} else {
			b = append(b, value...)
		}
		b = append(b, '\n')
	}
	if string(b) != lc.last {
		lc.last = string(b)
	}
	if cap(b) <= holdLimit {
		lc.buf = b
		lc.raw = append(lc.raw[:0], raw...)
	} else {
		lc.buf, lc.raw, lc.last = nil, nil, "" // do not keep a huge head
	}
	return lc.last
}

// canonicalName is textproto.CanonicalMIMEHeaderKey of a field name, without an
// allocation for the names MCP traffic carries, in their usual spellings.
func canonicalName(raw []byte) string {
	if s, ok := commonNames[string(raw)]; ok {
		return s
	}
	return textproto.CanonicalMIMEHeaderKey(string(raw))
}

// commonNames maps the usual spellings of common field names (canonical and
// lower-case) to their canonical form, as textproto.CanonicalMIMEHeaderKey
// gives it.
var commonNames = func() map[string]string {
	names := [...]string{
		"Accept", "Accept-Encoding", "Accept-Language", "Access-Control-Allow-Origin", "Authorization",
		"Cache-Control", "Connection", "Content-Encoding", "Content-Length", "Content-Type", "Cookie",
		"Date", "Etag", "Expect", "Host", "Keep-Alive", "Last-Event-Id", "Location", "Mcp-Protocol-Version",
		"Mcp-Session-Id", "Origin", "Pragma", "Referer", "Sec-Fetch-Mode", "Server", "Set-Cookie",
		"Traceparent", "Transfer-Encoding", "User-Agent", "Vary", "Www-Authenticate", "X-Accel-Buffering",
		"X-Forwarded-For", "X-Request-Id",
	}
	m := make(map[string]string, 3*len(names))
	spellings := names[:]
	spellings = append(spellings, "Last-Event-ID", "MCP-Protocol-Version", "MCP-Session-ID", "ETag", "WWW-Authenticate", "X-Request-ID")
	for _, n := range spellings {
		for _, s := range [...]string{n, strings.ToLower(n), textproto.CanonicalMIMEHeaderKey(n)} {
			m[s] = textproto.CanonicalMIMEHeaderKey(s)
		}
	}
	return m
}()
