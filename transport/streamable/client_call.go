package streamable

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/mcpkit/mcpkit/internal/h1"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// errHandedOff is exchange's result when a request's reply is an SSE stream that a
// background goroutine now reads: the Write may return.
var errHandedOff = errors.New("streamable: reply handed to a stream reader")

// writeCall sends a single request (not initialize) on the Write's own goroutine:
// it POSTs msg, and a JSON reply is read and delivered before Write returns, with no
// goroutine, channel or copy of msg of its own. Only a reply that is an SSE stream
// (which may last as long as the tool runs) is handed to a background goroutine,
// and Write returns once its headers arrived.
//
// If ctx ends while the request or its JSON reply is in flight, the POST is
// abandoned. Write then returns ctx's error if the request had not gone out (or is
// a 2026-07-28 request, for which closing the stream is the cancellation), and nil
// otherwise: the caller, seeing its context end with no response, sends
// notifications/cancelled as it would after a Write that returned early.
func (c *ClientConn) writeCall(ctx context.Context, msg []byte, out *clientOutgoing) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("streamable: sending %s: %w", out.method, err)
	}
	k := &clientCall{
		body:      msg, // valid during this Write, which every POST of it happens in
		method:    out.method,
		stateless: out.stateless,
		header:    messageHeader(ctx, out),
		inline:    true,
	}
	k.one[0] = out.first
	k.ids = k.one[:]
	// The request context keeps ctx's values and is cancelled by Close. While
	// this Write waits it also ends with ctx; an SSE stream handed off outlives
	// ctx, until a notifications/cancelled naming the request.
	//
	// On the default transport (internal/h1) the request context is k.ctx with
	// ctx's cancellation, and Close ends the request through it (it is an
	// h1.Interrupter): h1 watches ctx only when ctx can be cancelled, with an
	// AfterFunc its connection keeps while requests come with the same ctx;
	// handOff detaches it from a stream that outlives the Write. Elsewhere, a
	// context that is never cancelled needs no context of its own: the
	// connection's cancellation is all there is (see callContext); a
	// cancellable one gets one of its own, cancelled by ctx while the Write
	// waits.
	var reqCtx context.Context
	var stop func() bool
	switch {
	case c.h1 != nil:
		k.ctx = callContext{Context: ctx, conn: c.ctx, done: ctx, cc: c, call: k}
		reqCtx = &k.ctx
	case ctx.Done() == nil:
		k.ctx = callContext{Context: ctx, conn: c.ctx, done: c.ctx}
		reqCtx = &k.ctx
	default:
		var cancel context.CancelFunc
		reqCtx, cancel = context.WithCancel(context.WithoutCancel(ctx))
		k.cancel = cancel
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		if k.cancel != nil {
			k.cancel()
		}
		return errClientClosed
	}
	c.pending[k.one[0]] = k
	c.mu.Unlock()
	if k.cancel != nil {
		stop = context.AfterFunc(ctx, k.cancel)
	}

	err := c.exchange(reqCtx, k)
	handed := err == errHandedOff
	if !handed && k.cancel != nil {
		defer k.cancel()
	}
	// ctx ended while the POST was in flight: it was (or is being) abandoned.
	// (A stream handed off on h1 was detached from ctx: it lives on.)
	ended := stop != nil && !stop() || k.ctx.call != nil && !handed && ctx.Err() != nil
	if ended {
		ids := c.forget(k)
		if len(ids) == 0 && !handed && err == nil {
			return nil // the response arrived and was delivered
		}
		if k.stateless {
			return fmt.Errorf("streamable: sending %s: %w", k.method, ctx.Err())
		}
		// Whether the request went out is not known: the caller cancels it
		// with notifications/cancelled, which a server ignores for a request
		// it never saw.
		return nil
	}
	if handed {
		return nil
	}
	ids := c.forget(k)
	if len(ids) == 0 {
		return nil // delivered, or dropped by a notifications/cancelled
	}
	if err == nil {
		err = errNoResponse
	}
	if !k.written {
		return fmt.Errorf("streamable: sending %s: %w", k.method, err)
	}
	for _, id := range ids {
		c.enqueue(clientErrorResponse(id, k.method, err))
	}
	return nil
}

// callContext is the request context of an inline call that needs no
// context of its own: ctx's values (then the connection's), and the
// cancellation of done: the connection's context when the Write's context is
// never cancelled, or, on the default transport, the Write's context (see
// writeCall). It costs no allocation of its own; net/http's transport ties the
// request to the connection's context through it (its Value finds the
// connection context's cancellation), without a goroutine.
type callContext struct {
	context.Context // the Write's context, for its values
	conn            context.Context
	done            context.Context // whose Done and Err are the request's

	// On the default transport, what Close ends the request with (see
	// AttachAbort); nil elsewhere.
	cc   *ClientConn
	call *clientCall
}

// Done implements context.Context.
func (c *callContext) Done() <-chan struct{} { return c.done.Done() }

// Err implements context.Context.
func (c *callContext) Err() error { return c.done.Err() }

// Value implements context.Context.
func (c *callContext) Value(key any) any {
	if v := c.Context.Value(key); v != nil {
		return v
	}
	return c.conn.Value(key)
}

var _ h1.Interrupter = (*callContext)(nil)

// AttachAbort implements h1.Interrupter: Close aborts the request's I/O with
// abort until DetachAbort. It returns false when the connection is closed.
func (c *callContext) AttachAbort(abort func()) bool {
	if c.cc == nil {
		return true
	}
	c.cc.mu.Lock()
	defer c.cc.mu.Unlock()
	if c.cc.closed {
		return false
	}
	c.call.abort = abort
	return true
}

// DetachAbort implements h1.Interrupter.
func (c *callContext) DetachAbort() {
	if c.cc == nil {
		return
	}
	c.cc.mu.Lock()
	c.call.abort = nil
	c.cc.mu.Unlock()
}

// SetReplyHandler sets f to receive the response that is the JSON reply of a
// single request, on the Write's goroutine before Write returns, instead of
// through Read; f reports whether it took the message (otherwise Read returns
// it). The JSON-RPC layer sets it (rpcconn.ReplyStream) to spare each call the
// hand-over to its read loop. Set it before the first Write.
func (c *ClientConn) SetReplyHandler(f func(msg []byte) bool) {
	c.reply.Store(&f)
}

// SetDecodedReplyHandler is SetReplyHandler for a handler that takes the
// response decoded (the client decodes it anyway, to match it to its request):
// it spares the JSON-RPC layer a second decode. It takes precedence over
// SetReplyHandler's. Set it before the first Write.
func (c *ClientConn) SetDecodedReplyHandler(f func(m *jsonrpc.Message) bool) {
	c.replyMsg.Store(&f)
}

// deliverReply delivers the JSON reply of an inline call: a response goes to
// the reply handler, if one is set, in place of Read.
func (c *ClientConn) deliverReply(data []byte) bool {
	g := c.replyMsg.Load()
	f := c.reply.Load()
	if f == nil && g == nil || jsonrpc.IsBatch(data) {
		return c.deliver(data)
	}
	if g != nil {
		m := new(jsonrpc.Message) // the handler's to keep
		if jsonrpc.DecodeInto(data, m) != nil || !m.IsResponse() {
			return c.enqueue(data) // the JSON-RPC layer's to judge
		}
		if !c.claim(m) {
			return true
		}
		return (*g)(m) || c.enqueue(data)
	}
	var m jsonrpc.Message
	if jsonrpc.DecodeInto(data, &m) != nil || !m.IsResponse() {
		return c.enqueue(data) // the JSON-RPC layer's to judge
	}
	if !c.claim(&m) {
		return true
	}
	return (*f)(data) || c.enqueue(data)
}

// handOff passes a request's SSE reply to a background goroutine, which follows it
// (resuming it if it breaks) and fails the request if it ends without the response.
func (c *ClientConn) handOff(ctx context.Context, k *clientCall, resp *http.Response) error {
	k.body = nil // the Write's message: not to be used once Write returns
	k.reqBody.Reset(nil)
	stop := func() bool { return true }
	if k.ctx.call != nil { // on h1: the stream outlives the Write's context
		if d, ok := resp.Body.(interface{ DetachContext() bool }); ok && !d.DetachContext() {
			resp.Body.Close()
			return ctx.Err()
		}
		ctx = &callContext{Context: k.ctx.Context, conn: c.ctx, done: c.ctx} // k.ctx is not changed: others may read it
	}
	if k.cancel == nil { // a callContext: give the stream a cancellation of its own
		sctx, cancel := context.WithCancel(ctx)
		body := resp.Body
		c.mu.Lock()
		k.cancel = func() { cancel(); body.Close() }
		c.mu.Unlock()
		ctx = sctx
	} else {
		stop = context.AfterFunc(c.ctx, k.cancel)
	}
	cancel := k.cancel
	if !c.goBackground(func() {
		defer stop()
		defer cancel()
		c.finish(k, c.followStream(ctx, k, resp.Body))
	}) {
		resp.Body.Close()
		stop()
		cancel()
		return errClientClosed
	}
	return errHandedOff
}
