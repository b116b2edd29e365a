package streamable

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"

	"github.com/mcpkit/mcpkit/internal/h1"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
)

// Header values shared by all requests (net/http does not modify them).
var (
	clientPostAccept = []string{"application/json, text/event-stream"}
	clientJSONType   = []string{"application/json"}
	clientSSEAccept  = []string{"text/event-stream"}
)

// clientOutgoing describes a message about to be written.
type clientOutgoing struct {
	method     string       // the method of a single request or notification
	nrequests  int          // how many requests it holds
	first      jsonrpc.ID   // the id of the first
	requests   []jsonrpc.ID // the ids of all of them, when there is more than one
	cancels    []jsonrpc.ID // requests named by the notifications/cancelled it holds
	initialize bool         // it is a single initialize request
	stateless  bool         // it is a single 2026-07-28 request
	header     http.Header  // the request metadata headers of a 2026-07-28 request
}

// clientClassify decodes an outgoing message (or batch) to learn what it holds.
func clientClassify(msg []byte) (clientOutgoing, error) {
	var out clientOutgoing
	if jsonrpc.IsBatch(msg) {
		msgs, errs, err := jsonrpc.DecodeBatch(msg)
		if err != nil {
			return out, err
		}
		for i, m := range msgs {
			if errs != nil && errs[i] != nil {
				return out, errs[i]
			}
			out.add(m)
		}
		out.method = ""
		return out, nil
	}
	var m jsonrpc.Message // on the stack: nothing keeps it
	if err := jsonrpc.DecodeInto(msg, &m); err != nil {
		return out, err
	}
	out.add(&m)
	if m.IsRequest() {
		out.initialize = m.Method == protocol.MethodInitialize
		out.header, out.stateless = clientStatelessHeader(m.Method, m.Params)
	}
	return out, nil
}

// clientRequest is what clientClassify learns of a single request whose id,
// method and params its writer gave (see ClientConn.WriteRequest).
func clientRequest(id jsonrpc.ID, method string, params json.RawMessage) clientOutgoing {
	out := clientOutgoing{method: method, nrequests: 1, first: id, initialize: method == protocol.MethodInitialize}
	out.header, out.stateless = clientStatelessHeader(method, params)
	return out
}

func (o *clientOutgoing) add(m *jsonrpc.Message) {
	o.method = m.Method
	switch {
	case m.IsRequest():
		// A single request (the common case) keeps its id without a slice.
		if o.nrequests == 1 {
			o.requests = append(o.requests, o.first)
		}
		if o.nrequests == 0 {
			o.first = m.ID
		} else {
			o.requests = append(o.requests, m.ID)
		}
		o.nrequests++
	case m.Method == protocol.NotificationCancelled:
		var p struct {
			RequestID jsonrpc.ID `json:"requestId"`
		}
		if json.Unmarshal(m.Params, &p) == nil && p.RequestID.IsValid() {
			o.cancels = append(o.cancels, p.RequestID)
		}
	}
}

// clientCall is one request (or batch with requests) in flight.
type clientCall struct {
	body       []byte // a copy of the message, for retries
	ids        []jsonrpc.ID
	one        [1]jsonrpc.ID // ids' array for a single request
	method     string
	initialize bool
	stateless  bool        // a 2026-07-28 request: no session, no resumption
	header     http.Header // added to the POST (request metadata, transport.WithHeader)
	fallback   bool        // a 400, 404 or 405 answer calls for ClientOptions.Fallback
	cancel     context.CancelFunc
	trace      httptrace.ClientTrace // tells report when the POST is written (see post)
	inline     bool                  // exchanged on the Write's goroutine (see writeCall)
	written    bool                  // an inline call's POST got an answer
	ctx        callContext           // an inline call's request context, when it needs no other
	reqBody    clientBody            // on h1, the reader of each POST's body (see post)
	abort      func()                // on h1, ends the inline call's I/O (see callContext.AttachAbort); under ClientConn.mu

	once     sync.Once
	result   chan error // receives the first report, for Write; nil for an inline call
	reported error      // the first report; read only after once.Do returned
}

// errAbandoned is the report of a Write whose context ended before the request went
// out: the request is abandoned and nothing is delivered for it.
var errAbandoned = errors.New("streamable: write abandoned")

// report passes the outcome of sending to the waiting Write; only the first report
// counts, and report says whether it was the first.
func (k *clientCall) report(err error) (first bool) {
	k.once.Do(func() {
		k.reported = err
		if k.result != nil {
			k.result <- err
		}
		first = true
	})
	return first
}

// wroteRequest is the HTTP trace hook of k's POST: once the request is
// written, the waiting Write may return.
func (k *clientCall) wroteRequest(info httptrace.WroteRequestInfo) {
	if info.Err == nil {
		k.report(nil)
	}
}

// clientNeedFallback is the report of an initialize request that calls for the
// fallback transport.
type clientNeedFallback struct{ status int }

func (e *clientNeedFallback) Error() string {
	return fmt.Sprintf("streamable: the server answered initialize with %d", e.status)
}

func (c *ClientConn) writeRequest(ctx context.Context, msg []byte, out *clientOutgoing) error {
	if out.nrequests == 1 && !out.initialize {
		return c.writeCall(ctx, msg, out)
	}
	k := &clientCall{
		body:       bytes.Clone(msg),
		method:     out.method,
		initialize: out.initialize,
		stateless:  out.stateless,
		header:     messageHeader(ctx, out),
		result:     make(chan error, 1),
	}
	if k.method == "" {
		k.method = "batch"
	}
	if k.ids = out.requests; out.nrequests == 1 {
		k.one[0] = out.first
		k.ids = k.one[:]
	}
	// The request context keeps the values of ctx but lives as long as the
	// connection: the reply may outlast this Write.
	base := ctx
	if ctx.Done() != nil { // one that is never cancelled has nothing to take away
		base = context.WithoutCancel(ctx)
	}
	reqCtx, cancel := context.WithCancel(base)
	stop := context.AfterFunc(c.ctx, cancel)
	k.cancel = cancel
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		stop()
		cancel()
		return errClientClosed
	}
	for _, id := range k.ids {
		c.pending[id] = k
	}
	if k.initialize { // the one to repeat if the session expires
		c.initMsg, c.initID = k.body, k.ids[0]
		k.fallback = c.opts.Fallback != nil && !c.answered
	}
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		defer stop()
		defer cancel()
		c.finish(k, c.exchange(reqCtx, k))
	}()

	var err error
	select {
	case err = <-k.result:
	case <-ctx.Done():
		if k.report(errAbandoned) {
			cancel()
			c.forget(k)
			return fmt.Errorf("streamable: sending %s: %w", k.method, ctx.Err())
		}
		err = <-k.result
	}
	var fb *clientNeedFallback
	if errors.As(err, &fb) {
		return c.switchToFallback(ctx, msg, fb.status)
	}
	if err != nil {
		return fmt.Errorf("streamable: sending %s: %w", k.method, err)
	}
	return nil
}

// errNoResponse fails a request whose reply was read to its end without its response.
var errNoResponse = errors.New("the server's reply ended without a response to this request")

// finish settles a request once its exchange is over: ids still pending got no
// response, and fail with err.
func (c *ClientConn) finish(k *clientCall, err error) {
	if err == nil {
		err = errNoResponse
	}
	if k.report(err) { // Write is still waiting: it returns err
		c.forget(k)
		return
	}
	if k.reported == errAbandoned {
		return
	}
	for _, id := range c.forget(k) {
		c.enqueue(clientErrorResponse(id, k.method, err))
	}
}

// clientErrorResponse builds the JSON-RPC error response delivered for a failed request.
func clientErrorResponse(id jsonrpc.ID, method string, err error) []byte {
	text := strings.TrimPrefix(err.Error(), "streamable: ")
	e := &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "streamable: " + method + " failed: " + text}
	var se *StatusError
	if errors.As(err, &se) && se.RPCError != nil {
		e = se.RPCError
	}
	return jsonrpc.AppendError(nil, id, e)
}

// forget removes k's requests that are still pending and returns their ids.
func (c *ClientConn) forget(k *clientCall) []jsonrpc.ID {
	var ids []jsonrpc.ID
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range k.ids {
		if c.pending[id] == k {
			delete(c.pending, id)
			ids = append(ids, id)
		}
	}
	return ids
}

// exchange POSTs a request and reads its reply. It returns nil once the reply has
// been read (finish then fails whatever got no response), or why it failed.
func (c *ClientConn) exchange(ctx context.Context, k *clientCall) error {
	sess := c.currentSession()
	if k.initialize || k.stateless {
		sess = clientSession{} // initialize and stateless requests never carry a session
	}
	resp, err := c.post(ctx, k.body, sess, k, k.header)
	if err != nil {
		return err
	}
	k.written = true
	if resp.StatusCode == http.StatusNotFound && sess.id != "" {
		clientDiscard(resp)
		if err := c.reinitialize(ctx, sess.gen); err != nil {
			return err
		}
		if resp, err = c.post(ctx, k.body, c.currentSession(), k, k.header); err != nil {
			return err
		}
	}
	if k.fallback {
		switch resp.StatusCode {
		case http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed:
			clientDiscard(resp)
			return &clientNeedFallback{status: resp.StatusCode}
		}
	}
	if !clientIs2xx(resp.StatusCode) {
		return clientStatusError(resp, c.opts.MaxMessageSize)
	}
	c.mu.Lock()
	c.answered = true
	if k.initialize {
		c.session.setID(resp.Header.Get(HeaderSessionID))
	}
	c.mu.Unlock()
	k.report(nil)
	return c.readReply(ctx, k, resp)
}

// readReply delivers the messages of a request's reply.
func (c *ClientConn) readReply(ctx context.Context, k *clientCall, resp *http.Response) error {
	switch clientContentType(resp) {
	case clientSSE:
		if k.inline {
			return c.handOff(ctx, k, resp)
		}
		return c.followStream(ctx, k, resp.Body)
	case clientJSON:
		data, err := clientReadBody(resp, c.opts.MaxMessageSize)
		if c.h1 != nil {
			h1.Recycle(resp) // read and closed; not used again
		}
		if err != nil {
			return err
		}
		if data = bytes.TrimSpace(data); len(data) > 0 {
			if k.inline {
				c.deliverReply(data)
			} else {
				c.deliver(data)
			}
		}
		return nil
	}
	if resp.StatusCode == http.StatusAccepted || resp.StatusCode == http.StatusNoContent || resp.ContentLength == 0 {
		clientDiscard(resp)
		return nil // finish fails the request: no response came
	}
	// No usable Content-Type (a Go handler that sets none sends text/plain): take a
	// body that looks like JSON for JSON.
	data, err := clientReadBody(resp, c.opts.MaxMessageSize)
	if err != nil {
		return err
	}
	if data = bytes.TrimSpace(data); len(data) > 0 && (data[0] == '{' || data[0] == '[') {
		c.deliver(data)
		return nil
	}
	if len(data) == 0 {
		return nil
	}
	return fmt.Errorf("the server answered with an unexpected %q body", resp.Header.Get("Content-Type"))
}

func (c *ClientConn) currentSession() clientSession {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session
}

// post sends body in a POST, adding header to the client's own headers. When k is
// a request other than initialize, k learns through an HTTP trace when the request
// has been written, which lets its Write return before the reply arrives.
func (c *ClientConn) post(ctx context.Context, body []byte, sess clientSession, k *clientCall, header http.Header) (*http.Response, error) {
	if k != nil && !k.initialize && !k.inline { // an inline Write waits for the answer itself
		if httptrace.ContextClientTrace(ctx) == nil {
			// k's own trace, set once: a retry's POST uses it again. (With a
			// trace of the caller's, WithClientTrace changes the trace it is
			// given to call the caller's too: that one is made fresh each time.)
			if k.trace.WroteRequest == nil {
				k.trace.WroteRequest = k.wroteRequest
			}
			ctx = httptrace.WithClientTrace(ctx, &k.trace)
		} else {
			ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: k.wroteRequest})
		}
	}
	var rb *clientBody
	if k != nil && c.h1 != nil { // h1 reads the body before RoundTrip returns: k's reader serves each POST of it in turn
		rb = &k.reqBody
	}
	req, err := c.newRequestBody(ctx, http.MethodPost, body, rb, sess)
	if err != nil {
		return nil, err
	}
	for name, v := range header {
		req.Header[name] = v
	}
	req.Header["Content-Type"] = clientJSONType
	req.Header["Accept"] = clientPostAccept
	resp, err := c.do(req)
	if c.h1 != nil {
		// h1 wrote the header when RoundTrip began, and a redirect was sent
		// with a copy: the map goes back for the next request. (Of the
		// request, the response keeps only what clientStatusError reads: its
		// method.)
		h := req.Header
		req.Header = nil
		clear(h)
		clientHeaders.Put(h)
	}
	return resp, err
}

// clientHeaders holds the header maps of POSTs sent with h1 (see post).
var clientHeaders = sync.Pool{New: func() any { return make(http.Header, 8) }}

// newRequest builds a request carrying the custom headers and the session's. It
// is what http.NewRequestWithContext(ctx, method, c.url, bytes.NewReader(body))
// builds, without parsing the URL again (requests share c.u, which nothing
// modifies) and with one allocation for the body.
func (c *ClientConn) newRequest(ctx context.Context, method string, body []byte, sess clientSession) (*http.Request, error) {
	return c.newRequestBody(ctx, method, body, nil, sess)
}

// newRequestBody is newRequest with rb, when not nil, as the reader of a
// non-empty body, in place of a new one.
func (c *ClientConn) newRequestBody(ctx context.Context, method string, body []byte, rb *clientBody, sess clientSession) (*http.Request, error) {
	tmpl := http.Request{ // on the stack: WithContext copies it
		Method: method, URL: c.u, Host: c.u.Host,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
	}
	if method == http.MethodPost && c.h1 != nil {
		tmpl.Header = clientHeaders.Get().(http.Header) // post gives it back
	} else {
		tmpl.Header = make(http.Header, len(c.hdr)+4)
	}
	if len(body) > 0 {
		if rb == nil {
			rb = new(clientBody)
		}
		rb.Reset(body)
		tmpl.Body, tmpl.ContentLength = rb, int64(len(body))
		if c.h1 == nil { // net/http's transport needs it to retry; h1 keeps the bytes
			tmpl.GetBody = func() (io.ReadCloser, error) { return newClientBody(body), nil }
		}
	} else if body != nil {
		tmpl.Body, tmpl.GetBody = http.NoBody, clientNoBody
	}
	req := tmpl.WithContext(ctx)
	for k, v := range c.hdr {
		req.Header[k] = v
	}
	if sess.id != "" {
		req.Header[HeaderSessionID] = sess.idHeader
	}
	if sess.version != "" {
		req.Header[HeaderProtocolVersion] = sess.versionHeader
	}
	return req, nil
}

// clientBody is a request body: the bytes of a message.
type clientBody struct{ bytes.Reader }

func newClientBody(b []byte) *clientBody {
	r := new(clientBody)
	r.Reset(b)
	return r
}

// Close does nothing: the bytes stay the caller's.
func (*clientBody) Close() error { return nil }

func clientNoBody() (io.ReadCloser, error) { return http.NoBody, nil }

// Kinds of reply bodies.
const (
	clientOther = iota
	clientJSON
	clientSSE
)

// clientContentType classifies a reply by its Content-Type, without allocating.
func clientContentType(resp *http.Response) int {
	var ct string
	if v := resp.Header["Content-Type"]; len(v) > 0 { // the key as Get would canonicalize it
		ct = v[0]
	}
	if i := strings.IndexByte(ct, ';'); i >= 0 {
		ct = ct[:i]
	}
	ct = strings.TrimSpace(ct)
	switch {
	case strings.EqualFold(ct, "text/event-stream"):
		return clientSSE
	case strings.EqualFold(ct, "application/json"):
		return clientJSON
	}
	return clientOther
}

func clientHasBody(resp *http.Response) bool {
	return resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusNoContent &&
		resp.ContentLength != 0 && clientContentType(resp) != clientOther
}

func clientIs2xx(status int) bool { return status >= 200 && status < 300 }

// clientReadBody reads a whole body of at most limit bytes and closes it.
func clientReadBody(resp *http.Response, limit int) ([]byte, error) {
	defer resp.Body.Close()
	n := resp.ContentLength
	if n > int64(limit) {
		return nil, fmt.Errorf("reply of %d bytes exceeds the %d-byte limit: %w", n, limit, jsonrpc.ErrMessageTooLarge)
	}
	if n >= 0 {
		// A body of known length: net/http delivers exactly n bytes (or an
		// error), so read them straight into a buffer of that size.
		data := make([]byte, n)
		if _, err := io.ReadFull(resp.Body, data); err != nil {
			return nil, fmt.Errorf("reading the reply: %w", err)
		}
		return data, nil
	}
	buf := bytes.NewBuffer(make([]byte, 0, 512))
	n, err := buf.ReadFrom(io.LimitReader(resp.Body, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("reading the reply: %w", err)
	}
	if n > int64(limit) {
		return nil, fmt.Errorf("reply exceeds the %d-byte limit: %w", limit, jsonrpc.ErrMessageTooLarge)
	}
	return buf.Bytes(), nil
}

// clientDiscard closes a body we do not need, reading it first when it is short
// and of known length, so that the connection can be reused.
func clientDiscard(resp *http.Response) {
	if n := resp.ContentLength; n > 0 && n <= 4096 {
		_, _ = io.Copy(io.Discard, resp.Body)
	}
	resp.Body.Close()
}

// clientStatusError builds the error for an unacceptable status, reading the start
// of the body (a JSON-RPC error, if the server sent one) and closing it.
func clientStatusError(resp *http.Response, limit int) *StatusError {
	defer resp.Body.Close()
	e := &StatusError{Method: resp.Request.Method, StatusCode: resp.StatusCode}
	if resp.ContentLength == 0 {
		return e
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, int64(min(limit, 64<<10))))
	if clientContentType(resp) == clientJSON {
		// A JSON-RPC error response, possibly without the id member (as the
		// specification allows for these bodies, and servers do).
		var v struct {
			Error *jsonrpc.Error `json:"error"`
		}
		if json.Unmarshal(data, &v) == nil && v.Error != nil && v.Error.Message != "" {
			e.RPCError = v.Error
			return e
		}
	}
	if len(data) > 1024 {
		data = data[:1024]
	}
	e.Body = strings.TrimSpace(string(data))
	return e
}
