package tap

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpkit/mcpkit/tap/capture"
)

// proxyConn relays one client connection. Its goroutine (serve) reads the client's
// requests and forwards them; a second one (relayResponses), started with the
// connection to the upstream, relays the responses. The upstream connection mirrors
// the client's: opened at the first request, closed when either side closes.
type proxyConn struct {
	p      *HTTPTap
	id     string // the session of requests without one
	client net.Conn
	cbr    *bufio.Reader
	ctx    context.Context // of the requests the tap sends for the connection itself
	cancel context.CancelFunc

	wmu sync.Mutex // serialises writes to the client
	cbw *bufio.Writer

	up       net.Conn // nil until the first request, and after a failed dial
	ubr      *bufio.Reader
	pending  chan *exchange // forwarded requests, in order, for relayResponses
	respDone chan struct{}  // closed when relayResponses returns

	mu       sync.Mutex
	cond     *sync.Cond
	inflight int  // requests forwarded and not yet answered
	upEnded  bool // relayResponses returned: nothing more will be answered
	waiting  bool // serve waits for the client's next request
	served   int  // requests read

	clientGone atomic.Bool // the client closed its connection
	aborted    atomic.Bool // the tap is shutting down

	req    head
	out    []byte        // the request being forwarded
	resp   head          // relayResponses's
	rout   []byte        // the response head being relayed
	guard  *http.Request // reused for the Host/Origin check
	origin [1]string

	// The last values of the fields that repeat from one request (reqLast) or
	// response (respLast) of the connection to the next, reused instead of
	// copied again (head.strAs).
	reqLast  struct{ method, target, host, origin, sid, accept, ct string }
	respLast struct{ ct, sid string }

	// The header lines recorded for the last request and response (headerLines).
	reqLines, respLines lineCache
	// unrecorded stands in for an exchange's records when the tap has no
	// recorder: nothing keeps them, relayResponses reuses it.
	unrecorded recorded
}

// exchange is one request on its way through, and what its response needs.
type exchange struct {
	n          uint64
	method     string
	target     string // as forwarded (origin-form)
	path       string // target, redacted, for the capture
	head       bool   // a HEAD request: the response has no body
	minor      int    // the client's HTTP/1.<minor>
	closeAfter bool   // the client asked to close after this exchange
	transport  string
	session    string
	clientHost string  // the Host the client used to reach the tap
	again      *resend // to send the request again if challenged (with an Authorizer)

	rec       *[2]recorded // the first records of the request and response (newExchange)
	respTaken bool         // the response's is taken
}

// pendingDepth bounds the requests a client may pipeline.
const pendingDepth = 64

func (p *HTTPTap) newConn(conn net.Conn) *proxyConn {
	c := &proxyConn{
		p:       p,
		id:      connID(p.conns.Add(1)),
		client:  conn,
		cbr:     bufio.NewReaderSize(conn, 16<<10),
		cbw:     bufio.NewWriterSize(conn, 16<<10),
		pending: make(chan *exchange, pendingDepth),
	}
	c.cond = sync.NewCond(&c.mu)
	c.ctx, c.cancel = context.WithCancel(context.Background())
	ctx := context.WithValue(context.Background(), http.LocalAddrContextKey, conn.LocalAddr())
	c.guard = (&http.Request{Header: http.Header{}}).WithContext(ctx)
	return c
}

// serve reads requests and forwards them until the client or the upstream ends
// the connection.
func (c *proxyConn) serve() {
	defer c.finish()
	for {
		x, body, err := c.readRequest()
		if err != nil {
			if errors.Is(err, io.EOF) || c.aborted.Load() || isClosedErr(err) || isTimeout(err) {
				c.clientGone.Store(!c.aborted.Load())
				return
			}
			c.refuse(nil, http.StatusBadRequest, "mcpkit tap: a malformed request: "+err.Error(), capture.KindForbidden)
			return
		}
		if x == nil {
			return // refused: the connection closes
		}
		c.recordRequest(x, body)
		if c.up == nil {
			if err := c.dial(); err != nil {
				c.waitIdle()
				c.upstreamDown(x, err)
				if x.closeAfter {
					return
				}
				continue
			}
		}
		creds, err := c.credentials(x)
		if err != nil {
			c.waitIdle()
			c.authorizationFailed(x, err, x.closeAfter)
			if x.closeAfter {
				return
			}
			continue
		}
		closeAfter := x.closeAfter // x belongs to relayResponses once forwarded
		if !c.forward(x, body, creds) {
			return
		}
		if closeAfter {
			c.waitIdle() // the answer, before finish closes the upstream connection
			return
		}
	}
}

// readRequest reads the next request and its body. It returns a nil exchange,
// after answering, for a request the tap refuses.
func (c *proxyConn) readRequest() (*exchange, []byte, error) {
	h := &c.req
	if err := c.awaitRequest(); err != nil {
		return nil, nil, err
	}
	err := h.read(c.cbr)
	_ = c.client.SetReadDeadline(time.Time{})
	if err != nil {
		if errors.Is(err, errHeadTooLarge) {
			c.refuse(nil, http.StatusRequestHeaderFieldsTooLarge, "mcpkit tap: request header too large", capture.KindForbidden)
			return nil, nil, nil
		}
		return nil, nil, err
	}
	if err := h.parseRequestLine(); err != nil {
		return nil, nil, err
	}
	if err := h.parseFraming(); err != nil {
		return nil, nil, err
	}
	x := c.newExchange(exchange{n: c.p.exchanges.Add(1), method: h.strAs(h.method, &c.reqLast.method), target: h.strAs(h.target, &c.reqLast.target), minor: h.minor, closeAfter: h.closeConn})
	x.head = x.method == http.MethodHead
	host, _ := h.getAs("Host", &c.reqLast.host)
	if i := strings.Index(x.target, "://"); i > 0 && !strings.HasPrefix(x.target, "/") {
		// absolute-form: the authority is the host
		rest := x.target[i+3:]
		j := strings.IndexAny(rest, "/?")
		if j < 0 {
			host, x.target = rest, "/"
		} else {
			host, x.target = rest[:j], rest[j:]
		}
		if x.target[0] == '?' {
			x.target = "/" + x.target
		}
	}
	x.clientHost = host
	x.path = x.target
	if !c.p.opts.NoRedact {
		x.path = redactTarget(x.target)
	}
	if reason := c.check(h, host); reason != "" {
		c.refuse(x, http.StatusForbidden, "mcpkit tap: "+reason, capture.KindForbidden)
		return nil, nil, nil
	}
	if h.upgrade || x.method == http.MethodConnect || h.otherTE {
		c.refuse(x, http.StatusNotImplemented, "mcpkit tap: protocol upgrades, CONNECT and transfer codings other than chunked are not relayed", capture.KindForbidden)
		return nil, nil, nil
	}
	if h.contentLength > c.p.maxBody {
		c.tooLarge(x, h.contentLength)
		return nil, nil, nil
	}
	if h.expect100 {
		if err := c.writeClient([]byte("HTTP/1.1 100 Continue\r\n\r\n")); err != nil {
			return nil, nil, err
		}
	}
	var body []byte
	switch {
	case h.chunked:
		body, err = readChunkedBody(c.cbr, nil, c.p.maxBody)
		if errors.Is(err, errBodyTooLarge) {
			c.tooLarge(x, -1)
			return nil, nil, nil
		}
	case h.contentLength > 0:
		body, err = readBodyN(c.cbr, nil, h.contentLength)
	}
	if err != nil {
		return nil, nil, noEOF(err)
	}
	c.classify(x, h)
	return x, body, nil
}

// tooLarge refuses a request whose body is over the cap, with 413: size is what
// its Content-Length announced, or -1 for a chunked body that grew past the cap.
// The refusal is recorded, and logged (at most once a minute); the connection
// closes after the answer, since the rest of the body may still be coming.
func (c *proxyConn) tooLarge(x *exchange, size int64) {
	msg := fmt.Sprintf("mcpkit tap: the request body exceeds the tap's limit of %d bytes (mcpkit tap --max-body-bytes)", c.p.maxBody)
	if size >= 0 {
		msg = fmt.Sprintf("mcpkit tap: the request body of %d bytes exceeds the tap's limit of %d bytes (mcpkit tap --max-body-bytes)", size, c.p.maxBody)
	}
	if l := c.p.opts.Logger; l != nil && c.p.refusals.Allow() {
		l.Warn("tap: refused a request body over the limit (413); more are not logged for a minute",
			"method", x.method, "path", x.path, "announced", size, "limit", c.p.maxBody)
	}
	c.refuse(x, http.StatusRequestEntityTooLarge, msg, capture.KindForbidden)
	c.lingerClose()
}

// lingerClose ends the tap's side of the connection after an answer the client
// may not have read yet, and drops a bounded amount of what the client is still
// sending: closing with unread bytes would reset the connection, and a client
// still writing its body could lose the answer.
func (c *proxyConn) lingerClose() {
	cw, ok := c.client.(interface{ CloseWrite() error })
	if !ok || cw.CloseWrite() != nil {
		return
	}
	_ = c.client.SetReadDeadline(time.Now().Add(lingerTime))
	_, _ = io.CopyN(io.Discard, c.cbr, lingerBytes)
}

// How long, and how much, lingerClose reads of a refused client's remaining bytes.
const (
	lingerTime  = 2 * time.Second
	lingerBytes = 1 << 20
)

// check applies the Host/Origin policy; it returns why a request is refused.
func (c *proxyConn) check(h *head, host string) string {
	if host == "" && h.minor >= 1 {
		return "no Host header"
	}
	c.guard.Host = host
	if origin, ok := h.getAs("Origin", &c.reqLast.origin); ok {
		c.origin[0] = origin
		c.guard.Header["Origin"] = c.origin[:]
	} else {
		delete(c.guard.Header, "Origin")
	}
	if err := c.p.policy.Check(c.guard); err != nil {
		return err.Error()
	}
	return ""
}

// classify works out the transport and session of a request.
func (c *proxyConn) classify(x *exchange, h *head) {
	sid, hasSID := h.getAs("Mcp-Session-Id", &c.reqLast.sid)
	if id, ok := c.p.sseSession(x.target); ok && !hasSID {
		x.transport, x.session = capture.TransportHTTPSSE, id
		return
	}
	x.transport, x.session = capture.TransportStreamable, sid
	if !hasSID {
		x.session = c.id
		accept, _ := h.getAs("Accept", &c.reqLast.accept)
		hasVersion := h.has("Mcp-Protocol-Version")
		if x.method == http.MethodGet && strings.Contains(accept, "text/event-stream") && !hasVersion {
			x.transport = capture.TransportHTTPSSE // an HTTP+SSE stream, until shown otherwise
		}
	}
}

// dial connects to the upstream and starts relaying its responses.
func (c *proxyConn) dial() error {
	d := net.Dialer{Timeout: c.p.opts.DialTimeout}
	conn, err := d.Dial("tcp", c.p.dialAddr)
	if err != nil {
		return err
	}
	if c.p.useTLS {
		cfg := &tls.Config{}
		if c.p.opts.TLSConfig != nil {
			cfg = c.p.opts.TLSConfig.Clone()
		}
		if cfg.ServerName == "" {
			cfg.ServerName = c.p.opts.Upstream.Hostname()
		}
		cfg.NextProtos = []string{"http/1.1"}
		tc := tls.Client(conn, cfg)
		ctx, cancel := context.WithTimeout(context.Background(), c.p.opts.DialTimeout)
		err := tc.HandshakeContext(ctx)
		cancel()
		if err != nil {
			_ = conn.Close()
			return fmt.Errorf("TLS handshake with %s: %w", c.p.dialAddr, err)
		}
		conn = tc
	}
	if c.aborted.Load() {
		_ = conn.Close()
		return errors.New("the tap is shutting down")
	}
	c.mu.Lock()
	c.up, c.ubr = conn, bufio.NewReaderSize(conn, 32<<10)
	c.upEnded = false
	c.respDone = make(chan struct{})
	c.mu.Unlock()
	go c.relayResponses(conn, c.ubr, c.respDone)
	return nil
}

// forward queues x for relayResponses and sends the request upstream, with the
// header lines creds (the tap's credentials, when it has an Authorizer). It
// reports whether the connection goes on.
func (c *proxyConn) forward(x *exchange, body []byte, creds []byte) bool {
	c.mu.Lock()
	if c.upEnded {
		c.mu.Unlock()
		c.p.record(&capture.Record{Kind: capture.KindUpstreamError, Dir: capture.ServerToClient, Transport: x.transport, Session: x.session,
			HTTP: &capture.HTTPInfo{Exchange: x.n, Method: x.method, Path: x.path}, Text: "the upstream closed the connection: the request was not relayed"})
		return false
	}
	select {
	case c.pending <- x:
		c.inflight++
	default:
		c.mu.Unlock()
		return false // more pipelined requests than the tap follows
	}
	c.mu.Unlock()

	h := &c.req
	b := c.out[:0]
	b = append(b, x.method...)
	b = append(b, ' ')
	b = append(b, x.target...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, c.p.upHost...)
	b = append(b, "\r\n"...)
	authorizes := c.p.opts.Authorizer != nil
	if authorizes {
		x.again = &resend{header: http.Header{}, body: body}
	}
	for _, f := range h.fields {
		name := h.bytes(f.name)
		if asciiEqualFold(name, "Host") || asciiEqualFold(name, "Content-Length") || asciiEqualFold(name, "Expect") ||
			asciiEqualFold(name, "Accept-Encoding") || h.isHopByHop(f) || (authorizes && isCredential(name)) {
			continue
		}
		if authorizes {
			x.again.header.Add(string(name), string(h.bytes(f.value)))
		}
		b = append(b, h.bytes(f.line)...)
		b = append(b, '\r', '\n')
	}
	b = append(b, creds...)
	if len(body) > 0 || h.contentLength == 0 {
		b = append(b, "Content-Length: "...)
		b = strconv.AppendInt(b, int64(len(body)), 10)
		b = append(b, '\r', '\n')
	}
	if x.closeAfter {
		b = append(b, "Connection: close\r\n"...)
	}
	b = append(b, '\r', '\n')
	var err error
	if len(body) <= 64<<10 {
		b = append(b, body...)
		_, err = c.up.Write(b)
	} else if _, err = c.up.Write(b); err == nil {
		_, err = c.up.Write(body)
	}
	if cap(b) <= 1<<20 {
		c.out = b
	}
	if err != nil {
		// relayResponses sees the broken connection and accounts for x.
		_ = c.up.Close()
		return false
	}
	return true
}

// waitIdle waits until every forwarded request has been answered (or never will
// be), so that the tap may answer the client itself.
func (c *proxyConn) waitIdle() {
	c.mu.Lock()
	for c.inflight > 0 && !c.upEnded {
		c.cond.Wait()
	}
	c.mu.Unlock()
}

// upstreamDown answers x with a 502 saying why the upstream is unreachable.
func (c *proxyConn) upstreamDown(x *exchange, err error) {
	msg := fmt.Sprintf("mcpkit tap: the upstream %s://%s is unreachable: %v", c.p.opts.Upstream.Scheme, c.p.opts.Upstream.Host, err)
	c.p.record(&capture.Record{Kind: capture.KindUpstreamError, Dir: capture.ServerToClient, Transport: x.transport, Session: x.session,
		HTTP: &capture.HTTPInfo{Exchange: x.n, Method: x.method, Path: x.path, Status: http.StatusBadGateway, ContentType: "text/plain; charset=utf-8"}, Text: msg})
	_ = c.writeLocal(http.StatusBadGateway, msg, x.closeAfter)
}

// refuse answers a request the tap will not relay, records why, and leaves the
// connection to close.
func (c *proxyConn) refuse(x *exchange, status int, msg, kind string) {
	r := &capture.Record{Kind: kind, Dir: capture.ClientToServer, Transport: capture.TransportStreamable, Session: c.id, Text: msg}
	if x != nil {
		r.HTTP = &capture.HTTPInfo{Exchange: x.n, Method: x.method, Path: x.path, Status: status}
	}
	c.p.record(r)
	c.waitIdle()
	_ = c.writeLocal(status, msg, true)
}

// writeLocal writes a response of the tap's own: a status and a text body, and
// "Connection: close" when the connection ends after it.
func (c *proxyConn) writeLocal(status int, msg string, closeConn bool) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\n", status, http.StatusText(status), len(msg)+1)
	if closeConn {
		b.WriteString("Connection: close\r\n")
	}
	b.WriteString("\r\n")
	b.WriteString(msg)
	b.WriteString("\n")
	return c.writeClient(b.Bytes())
}

// writeClient writes p to the client and flushes.
func (c *proxyConn) writeClient(p []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.cbw.Write(p); err != nil {
		return err
	}
	return c.cbw.Flush()
}

// finish ends the connection: the upstream one, relayResponses, the client's.
func (c *proxyConn) finish() {
	c.cancel()
	c.mu.Lock()
	up, done := c.up, c.respDone
	c.mu.Unlock()
	if up != nil {
		_ = up.Close()
		<-done
	}
	_ = c.client.Close()
}

// abort ends the connection from outside (the tap is closing).
func (c *proxyConn) abort() {
	c.aborted.Store(true)
	c.cancel()
	_ = c.client.Close()
	c.mu.Lock()
	up := c.up
	c.mu.Unlock()
	if up != nil {
		_ = up.Close()
	}
}

// isClosedErr reports whether err comes from a connection that was closed or reset.
func isClosedErr(err error) bool {
	return errors.Is(err, net.ErrClosed) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || isReset(err)
}

func isReset(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && strings.Contains(op.Err.Error(), "reset")
}

// jsonish reports whether a body with this Content-Type may be a JSON-RPC message:
// JSON, or no type at all.
func jsonish(ct string) bool {
	if ct == "" || strings.EqualFold(ct, "application/json") || strings.EqualFold(ct, "application/json; charset=utf-8") {
		return true // no type, or the two forms servers send: no parsing, no allocation
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// isEventStream reports whether a Content-Type is text/event-stream.
func isEventStream(ct string) bool {
	mt, _, _ := strings.Cut(ct, ";")
	return strings.EqualFold(strings.TrimSpace(mt), "text/event-stream")
}

// holdsCredentials reports whether a JSON body that is not JSON-RPC carries OAuth
// credentials (a token response, a client's secret): such a body is not kept.
func holdsCredentials(body []byte) bool {
	if bytes.Contains(body, []byte(`"jsonrpc"`)) {
		return false
	}
	for _, name := range [...]string{`"access_token"`, `"refresh_token"`, `"id_token"`, `"client_secret"`, `"code_verifier"`, `"password"`} {
		if bytes.Contains(body, []byte(name)) {
			return true
		}
	}
	return false
}
