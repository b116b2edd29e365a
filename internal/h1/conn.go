package h1

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
	"syscall"
	"time"
)

// readBufferSize is each connection's read buffer; a header line longer than it
// is still read (up to the header limit), a chunk size line is not.
const readBufferSize = 8 << 10

// conn is one keep-alive connection. It is used by one request at a time: from
// RoundTrip until its body ends, then it goes back to the pool.
type conn struct {
	t   *Transport
	key string
	nc  net.Conn
	br  *bufio.Reader
	p   parser

	peek    peeker // the liveness check of an idle connection
	abortFn func() // c.abort, made once: what an Interrupter is given
	fireFn  func() // c.fire, made once: what the request context's AfterFunc runs
	w       watch  // the request context's AfterFunc: see watch
	aborted atomic.Bool
	in      Interrupter // the request context's, while a request holds c
	reused  bool
	idleAt  time.Time
}

func newConn(t *Transport, key string, nc net.Conn) *conn {
	c := &conn{
		t:   t,
		key: key,
		nc:  nc,
		br:  bufio.NewReaderSize(nc, readBufferSize),
		p:   parser{maxBytes: t.o.MaxResponseHeaderBytes, maxCount: t.o.MaxResponseHeaders},
	}
	c.abortFn, c.fireFn = c.abort, c.fire
	c.peek.init(nc)
	return c
}

// aLongTimeAgo is a deadline in the past: it makes blocked reads and writes
// return at once.
var aLongTimeAgo = time.Unix(1, 0)

// abort ends the request's blocked I/O when its context ends.
func (c *conn) abort() {
	c.aborted.Store(true)
	_ = c.nc.SetDeadline(aLongTimeAgo)
}

func (c *conn) close() {
	c.unwatch()
	_ = c.nc.Close()
}

// alive reports whether an idle connection is still open, without blocking.
func (c *conn) alive() bool { return c.peek.alive() }

// Interrupter is a request context that can end its request by other means
// than its Done channel: the Streamable HTTP client's Close, without a
// context.AfterFunc per request. Once RoundTrip holds a connection, before it
// writes, it calls AttachAbort with the function that aborts the connection's
// I/O (the context calls it, at most until DetachAbort returns, to end the
// request); AttachAbort returns false when the request is to end already.
// DetachAbort is called when the request gives the connection up: at the end
// of its body, at Close, or when it failed.
type Interrupter interface {
	context.Context
	AttachAbort(abort func()) bool
	DetachAbort()
}

// errInterrupted is the error of a request its Interrupter ended.
var errInterrupted = fmt.Errorf("request interrupted: %w", net.ErrClosed)

// release ends a request on c: the connection goes back to the pool when reuse
// holds and neither the context's end nor its Interrupter had aborted it, else
// it is closed.
func (c *conn) release(reuse bool) {
	if c.in != nil { // first, so that no abort comes once c is back in the pool
		c.in.DetachAbort()
		c.in = nil
	}
	if !c.deactivate() {
		reuse = false
	}
	if reuse && !c.aborted.Load() {
		c.t.put(c)
	} else {
		c.close()
	}
}

// response holds a response with its body and the backing of its first header
// values: one allocation, reused when the caller gives it back (Recycle).
type response struct {
	resp http.Response
	body body
	vals [8]string
	te   [1]string
}

// roundTrip writes the request and reads the response head. retry reports
// whether the request may be sent again on another connection: see retryable.
// The connection watches ctx already (see Transport.get).
func (c *conn) roundTrip(ctx context.Context, req *http.Request, w *wbuf) (*http.Response, bool, error) {
	if in, ok := ctx.(Interrupter); ok {
		c.in = in
		if !in.AttachAbort(c.abortFn) {
			c.abort()
		}
	}
	err := w.writeTo(c.nc)
	if tr := httptrace.ContextClientTrace(ctx); tr != nil && tr.WroteRequest != nil {
		tr.WroteRequest(httptrace.WroteRequestInfo{Err: err})
	}
	if err != nil {
		c.release(false)
		return nil, c.retryable(false, err), c.fail(ctx, "writing the request", err)
	}
	h, err := c.p.readHead(c.br)
	if err != nil {
		c.release(false)
		return nil, c.retryable(h.gotBytes, err), c.fail(ctx, "reading the response", err)
	}
	r := newResponse()
	resp := &r.resp
	resp.Status, resp.StatusCode = h.statusText, h.status
	resp.Proto, resp.ProtoMajor, resp.ProtoMinor = h.proto, h.major, h.minor
	if resp.Header == nil {
		resp.Header = make(http.Header, len(c.p.fields))
	}
	c.p.build(resp.Header, r.vals[:])
	resp.Request = req
	keep := !h.close && !req.Close && (h.minor >= 1 || h.keepAlive)
	b := &r.body
	*b = body{br: c.br, c: c, r: r, ctx: ctx, keep: keep}
	switch {
	case req.Method == http.MethodHead || h.status == http.StatusNoContent || h.status == http.StatusNotModified:
		resp.ContentLength = 0
		if req.Method == http.MethodHead {
			resp.ContentLength = h.length
		}
		resp.Body = http.NoBody
		c.release(keep)
	case h.chunked:
		b.mode = byChunks
		resp.ContentLength = -1
		r.te[0] = "chunked"
		resp.TransferEncoding = r.te[:]
		resp.Body = b
	case h.length == 0:
		resp.Body = http.NoBody
		c.release(keep)
	case h.length > 0:
		b.mode, b.n = byLength, h.length
		resp.ContentLength = h.length
		resp.Body = b
	default:
		b.mode, b.keep = byClose, false
		keep = false
		resp.ContentLength = -1
		resp.Body = b
	}
	resp.Close = !keep
	return resp, false, nil
}

// retryable reports whether a request that failed on c may be sent again on a
// new connection: c came from the pool, not one byte of a response arrived, the
// failure is the connection's end (EOF, reset, broken pipe) rather than a
// timeout or the context, and nothing was aborted. That is what a server's
// closing of an idle keep-alive connection looks like when it crosses the next
// request; a server closes an idle connection without reading a request from
// it, so the request was not acted on. (curl retries on the same condition.)
// The case it gets wrong: a server that reads a request, acts on it and then
// dies without sending a byte sees it twice; net/http would return the error
// instead.
func (c *conn) retryable(gotBytes bool, err error) bool {
	if !c.reused || gotBytes || c.aborted.Load() {
		return false
	}
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// fail returns the error of a failed exchange: the context's when it ended it.
func (c *conn) fail(ctx context.Context, what string, err error) error {
	if c.aborted.Load() {
		if err := ctx.Err(); err != nil {
			return err
		}
		return fmt.Errorf("h1: %s: %w", what, errInterrupted)
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("h1: %s: %w", what, err)
}
