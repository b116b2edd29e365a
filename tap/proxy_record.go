package tap

import (
	"bytes"
	"net/textproto"
	"strings"

	"github.com/mcpkit/mcpkit/tap/capture"
)

// What the HTTP tap records of an exchange, at the least cost to the relays: the
// first records of a request and of its response come with the exchange (one
// allocation), and the header fields as one string (capture.HTTPInfo.SetHeaderLines)
// that repeats from one message of a connection to the next.

// recorded is the first record of an HTTP message and its HTTPInfo.
type recorded struct {
	rec  capture.Record
	info capture.HTTPInfo
}

// recordingExchange is an exchange and the first records of its request and
// response, allocated together when the tap records.
type recordingExchange struct {
	x   exchange
	rec [2]recorded
}

// newExchange returns a new exchange set to v, with room for its records when
// the tap records.
func (c *proxyConn) newExchange(v exchange) *exchange {
	if c.p.opts.Recorder == nil {
		x := new(exchange)
		*x = v
		return x
	}
	b := &recordingExchange{x: v}
	b.x.rec = &b.rec
	return &b.x
}

// requestRecorded returns the room for the first record of x's request.
func (x *exchange) requestRecorded() *recorded {
	if x.rec == nil {
		return new(recorded)
	}
	return &x.rec[0]
}

// responseRecorded returns the room for the first record of x's response.
func (c *proxyConn) responseRecorded(x *exchange) *recorded {
	switch {
	case c.p.opts.Recorder == nil:
		return &c.unrecorded // nothing keeps it
	case x.rec != nil && !x.respTaken:
		x.respTaken = true
		return &x.rec[1]
	}
	return new(recorded)
}

// recordRequest records what a request carries: its message, or that it resumes
// a stream.
func (c *proxyConn) recordRequest(x *exchange, body []byte) {
	if c.p.opts.Recorder == nil {
		return
	}
	h := &c.req
	ct, _ := h.getAs("Content-Type", &c.reqLast.ct)
	rd := x.requestRecorded()
	info := &rd.info
	*info = capture.HTTPInfo{Exchange: x.n, Method: x.method, Path: x.path, ContentType: ct}
	info.SetHeaderLines(c.headerLines(h, &c.reqLines))
	if id, ok := h.get("Last-Event-ID"); ok {
		r := &rd.rec
		if len(body) > 0 {
			r = new(capture.Record) // rd.rec is the body's
		}
		*r = capture.Record{Kind: capture.KindReconnect, Dir: capture.ClientToServer, Transport: x.transport, Session: x.session, LastEventID: id, HTTP: info}
		c.p.record(r)
	}
	if len(body) == 0 {
		return
	}
	size := int64(len(body))
	if len(body) > c.p.maxKeep { // what the capture keeps of one message
		body = body[:c.p.maxKeep]
	}
	c.p.record(c.bodyRecord(&rd.rec, capture.ClientToServer, x, info, ct, body, size, size > int64(len(body))))
}

// bodyRecord sets r to the record of an HTTP body: a message when it may be
// JSON-RPC, else an http record that gives only its size. It returns r.
func (c *proxyConn) bodyRecord(r *capture.Record, dir string, x *exchange, info *capture.HTTPInfo, ct string, body []byte, size int64, truncated bool) *capture.Record {
	*r = capture.Record{Dir: dir, Transport: x.transport, Session: x.session, HTTP: info}
	switch {
	case !jsonish(ct):
		r.Kind, r.Size = capture.KindHTTP, size
	case !c.p.opts.NoRedact && holdsCredentials(body):
		r.Kind, r.Size = capture.KindHTTP, size
		r.Text = "body withheld: it holds credentials (--no-redact keeps it)"
	default:
		r.Msg, r.Size, r.Truncated = body, size, truncated
	}
	return r
}

// lineCache is what headerLines keeps of one direction of a connection: the
// header section last seen, as it came (raw) and as recorded (last), and a
// buffer to build the next one in. Messages of a connection mostly repeat their
// header fields, often all of them: the recorded string is then shared, not
// built again.
type lineCache struct {
	raw  []byte
	last string
	buf  []byte
	// The recorded forms of the last secret values (an Authorization that
	// stays while Content-Length changes), each worked out once.
	secrets [4]redacted
	next    int // the entry of secrets to replace next
}

// redacted is a secret field's value and its recorded form.
type redacted struct {
	name string
	raw  []byte
	out  string
}

// redact returns the recorded form of the value of the secret field name.
func (lc *lineCache) redact(name string, value []byte) string {
	for i := range lc.secrets {
		if e := &lc.secrets[i]; e.name == name && bytes.Equal(e.raw, value) {
			return e.out
		}
	}
	out := redactHeaderValue(name, string(value))
	if len(value) <= 4<<10 {
		e := &lc.secrets[lc.next]
		e.name, e.raw, e.out = name, append(e.raw[:0], value...), out
		lc.next = (lc.next + 1) % len(lc.secrets)
	}
	return out
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
		name, secret := fieldName(h.bytes(f.name))
		b = append(b, name...)
		b = append(b, ':')
		if value := h.bytes(f.value); secret && !c.p.opts.NoRedact {
			b = append(b, lc.redact(name, value)...)
		} else {
			b = append(b, value...)
		}
		b = append(b, '\n')
	}
	lines := lc.last
	if string(b) != lines {
		lines = string(b)
	}
	if cap(b) <= holdLimit {
		lc.buf, lc.last = b, lines
		lc.raw = append(lc.raw[:0], raw...)
	} else {
		lc.buf, lc.raw, lc.last = nil, nil, "" // do not keep a huge head
	}
	return lines
}

// fieldName returns the canonical form of a field name
// (textproto.CanonicalMIMEHeaderKey) and whether it names a secret
// (isSecretName), without an allocation for the names MCP traffic carries, in
// their usual spellings.
func fieldName(raw []byte) (string, bool) {
	if n, ok := commonNames[string(raw)]; ok {
		return n.canon, n.secret
	}
	canon := textproto.CanonicalMIMEHeaderKey(string(raw))
	return canon, isSecretName(canon)
}

// knownName is what fieldName knows of a common field name.
type knownName struct {
	canon  string
	secret bool
}

// commonNames maps the usual spellings of common field names (canonical and
// lower-case) to their canonical form, as textproto.CanonicalMIMEHeaderKey
// gives it, and to whether they name a secret.
var commonNames = func() map[string]knownName {
	names := [...]string{
		"Accept", "Accept-Encoding", "Accept-Language", "Access-Control-Allow-Origin", "Authorization",
		"Cache-Control", "Connection", "Content-Encoding", "Content-Length", "Content-Type", "Cookie",
		"Date", "Etag", "Expect", "Host", "Keep-Alive", "Last-Event-Id", "Location", "Mcp-Protocol-Version",
		"Mcp-Session-Id", "Origin", "Pragma", "Referer", "Sec-Fetch-Mode", "Server", "Set-Cookie",
		"Traceparent", "Transfer-Encoding", "User-Agent", "Vary", "Www-Authenticate", "X-Accel-Buffering",
		"X-Forwarded-For", "X-Request-Id",
	}
	m := make(map[string]knownName, 3*len(names))
	spellings := names[:]
	spellings = append(spellings, "Last-Event-ID", "MCP-Protocol-Version", "MCP-Session-ID", "ETag", "WWW-Authenticate", "X-Request-ID")
	for _, n := range spellings {
		for _, s := range [...]string{n, strings.ToLower(n), textproto.CanonicalMIMEHeaderKey(n)} {
			canon := textproto.CanonicalMIMEHeaderKey(s)
			m[s] = knownName{canon, isSecretName(canon)}
		}
	}
	return m
}()
