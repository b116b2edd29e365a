package rpcconn

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// Call sends a request and waits for its response, decoding the result into result
// (which may be nil to discard it, or a *json.RawMessage to keep it raw). params may
// be nil, a json.RawMessage, or any value encoding/json can marshal.
//
// A response with an error returns that *jsonrpc.Error. If ctx ends first, Call returns
// ctx's error and ConnOptions.CallCancelled is told. If the connection ends first,
// Call returns an error wrapping jsonrpc.ErrClosed and, when the stream ended with more to
// say than a bare io.EOF (a read error, a stdio server's exit), that error too.
func (c *Conn) Call(ctx context.Context, method string, params, result any) error {
	raw, err := c.CallRaw(ctx, method, params)
	if err != nil {
		return err
	}
	return DecodeResult(method, raw, result)
}

// DecodeResult decodes the raw result of method into result: nil discards it,
// a *json.RawMessage keeps it raw, anything else is decoded with encoding/json.
func DecodeResult(method string, raw json.RawMessage, result any) error {
	switch r := result.(type) {
	case nil:
		return nil
	case *json.RawMessage:
		*r = raw
		return nil
	}
	if err := json.Unmarshal(raw, result); err != nil {
		return fmt.Errorf("jsonrpc: decoding result of %s: %w", method, err)
	}
	return nil
}

// CallRaw is Call returning the raw result.
func (c *Conn) CallRaw(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return c.callRaw(ctx, method, params, nil, nil, false)
}

// CallJSON is CallRaw with params already encoded (nil: none): what
// middleware forwards, sent without converting it to an interface value.
func (c *Conn) CallJSON(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	return c.callRaw(ctx, method, nil, params, nil, false)
}

// CallCheckedJSON is CallJSON for params the caller wrote or checked: a
// valid JSON object or array. A RequestStream is handed the request with its
// id, method and params (WriteRequest), so that it need not read the message
// to learn them.
func (c *Conn) CallCheckedJSON(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	return c.callRaw(ctx, method, nil, params, nil, true)
}

// CallEnveloped is CallRaw with params that get members written ahead of
// their own, as Enveloped describes (members must not be empty), without
// allocating an Enveloped.
func (c *Conn) CallEnveloped(ctx context.Context, method string, params any, members []byte) (json.RawMessage, error) {
	return c.callRaw(ctx, method, params, nil, members, false)
}

// callRaw sends a request whose params are raw when it is not nil, else
// params (after members, when there are some: see Enveloped), and waits for
// its result.
//
// checked says that raw is a valid JSON object or array (see CallCheckedJSON).
func (c *Conn) callRaw(ctx context.Context, method string, params any, raw json.RawMessage, members []byte, checked bool) (json.RawMessage, error) {
	var id jsonrpc.ID
	if c.opts.NewID != nil {
		id = c.opts.NewID()
	} else {
		id = jsonrpc.Int64ID(c.nextID.Add(1))
	}
	ch := respChans.Get().(chan *jsonrpc.Message)
	c.mu.Lock()
	if c.closed {
		err := c.closedErrorLocked(method)
		c.mu.Unlock()
		respChans.Put(ch)
		return nil, err
	}
	if c.pending == nil {
		c.pending = make(map[jsonrpc.ID]chan *jsonrpc.Message) // most server connections never call
	}
	c.pending[id] = ch
	c.mu.Unlock()

	e := encoders.Get().(*requestEncoder)
	var msg []byte
	var err error
	switch {
	case raw != nil:
		msg = e.raw(id, method, raw)
	case len(members) > 0:
		msg, err = e.enveloped(id, method, params, members)
	default:
		msg, err = e.request(id, method, params)
	}
	if err != nil {
		putEncoder(e)
		c.forget(id)
		return nil, fmt.Errorf("jsonrpc: encoding params of %s: %w", method, err)
	}
	if rs, ok := c.stream.(RequestStream); ok && checked {
		err = rs.WriteRequest(ctx, id, method, paramsOf(msg, raw), msg)
	} else {
		err = c.stream.Write(ctx, msg)
	}
	putEncoder(e)
	if err != nil {
		c.forget(id)
		return nil, fmt.Errorf("jsonrpc: sending %s: %w", method, err)
	}

	select {
	case resp, ok := <-ch:
		if !ok {
			c.mu.Lock()
			defer c.mu.Unlock()
			return nil, c.closedErrorLocked(method)
		}
		// deliver took ch out of pending before sending the one message it
		// gets: nothing else will touch it.
		respChans.Put(ch)
		if resp.Error != nil {
			return nil, resp.Error
		}
		return resp.Result, nil
	case <-ctx.Done():
		if c.forget(id) {
			if c.opts.CallCancelled != nil {
				c.opts.CallCancelled(id, context.Cause(ctx))
			} else if c.opts.Hooks != nil {
				c.opts.Hooks.CallCancelled(id, context.Cause(ctx))
			}
		}
		return nil, ctx.Err()
	}
}

// respChans holds the channels calls wait on for their response, each
// buffered for one message. Only a channel that delivered its response goes
// back (one that was closed, or that a cancelled call left, does not).
var respChans = sync.Pool{New: func() any { return make(chan *jsonrpc.Message, 1) }}

// forget removes a pending call and reports whether it was still pending.
func (c *Conn) forget(id jsonrpc.ID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.pending[id]
	delete(c.pending, id)
	return ok
}

// Notify sends a notification. params may be nil, a json.RawMessage or any value.
func (c *Conn) Notify(ctx context.Context, method string, params any) error {
	p, err := marshal(params)
	if err != nil {
		return fmt.Errorf("jsonrpc: encoding params of %s: %w", method, err)
	}
	bp := bufPool.Get().(*[]byte)
	*bp = jsonrpc.AppendNotification((*bp)[:0], method, p)
	err = c.stream.Write(ctx, *bp)
	putBuf(bp)
	if err != nil {
		return fmt.Errorf("jsonrpc: sending %s: %w", method, err)
	}
	return nil
}

// errBatchRejected answers a batch when batching is not allowed.
var errBatchRejected = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: JSON-RPC batches are not supported by the negotiated protocol version"}

// handleBatch answers a JSON array of messages: requests run concurrently and their
// responses go back together in one array, in request order. Responses inside the
// batch are delivered to pending calls; notifications produce nothing.
func (c *Conn) handleBatch(ctx context.Context, data []byte) {
	if !c.allowBatch() {
		c.writeError(ctx, jsonrpc.NullID(), errBatchRejected)
		return
	}
	msgs, errs, err := jsonrpc.DecodeBatch(data)
	if err != nil {
		c.writeError(ctx, jsonrpc.NullID(), toError(err))
		return
	}
	replies := make([]*jsonrpc.Message, len(msgs))
	var wg sync.WaitGroup
	for i, m := range msgs {
		if errs != nil && errs[i] != nil {
			id := jsonrpc.NullID()
			if m != nil && m.ID.IsValid() {
				id = m.ID
			}
			replies[i] = &jsonrpc.Message{ID: id, Error: toError(errs[i])}
			continue
		}
		if !m.IsRequest() {
			c.dispatch(ctx, m, nil)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.dispatch(ctx, m, func(r *jsonrpc.Message) { replies[i] = r })
		}()
	}
	// The answers are written by a goroutine so the read loop keeps going: a batch
	// handler may itself wait for a response that only the read loop can deliver.
	go func() {
		wg.Wait()
		out := replies[:0]
		for _, r := range replies {
			if r != nil {
				out = append(out, r)
			}
		}
		if len(out) > 0 {
			c.write(ctx, jsonrpc.EncodeBatch(out))
		}
	}()
}

// allowBatch reports whether an incoming batch is accepted now.
func (c *Conn) allowBatch() bool {
	switch {
	case c.opts.AllowBatch != nil:
		return c.opts.AllowBatch()
	case c.opts.Hooks != nil:
		return c.opts.Hooks.AllowBatch()
	}
	return false
}

// requestEncoder writes a request with its params encoded straight into the
// message (encoding/json's Marshal would return them in a buffer of their own,
// which AppendRequest then copies).
type requestEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder // writes to buf
}

var encoders = sync.Pool{New: func() any {
	e := new(requestEncoder)
	e.enc = json.NewEncoder(&e.buf)
	return e
}}

func putEncoder(e *requestEncoder) {
	if e.buf.Cap() <= 64<<10 { // do not keep huge buffers alive
		encoders.Put(e)
	}
}

// raw returns the request message for params already encoded, valid until e
// is reused.
func (e *requestEncoder) raw(id jsonrpc.ID, method string, params json.RawMessage) []byte {
	e.buf.Reset()
	e.buf.Write(jsonrpc.AppendRequest(e.buf.AvailableBuffer(), id, method, params))
	return e.buf.Bytes()
}

// paramsOf returns the params of msg, which raw's encoding (jsonrpc.AppendRequest)
// wrote last, before the closing brace: nil when there are none.
func paramsOf(msg []byte, raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return nil
	}
	end := len(msg) - 1
	return msg[end-len(raw) : end : end]
}

// request returns the request message for params (nil, raw JSON, or a value
// for encoding/json), valid until e is reused.
func (e *requestEncoder) request(id jsonrpc.ID, method string, params any) ([]byte, error) {
	e.buf.Reset()
	switch p := params.(type) {
	case nil:
		e.buf.Write(jsonrpc.AppendRequest(e.buf.AvailableBuffer(), id, method, nil))
		return e.buf.Bytes(), nil
	case json.RawMessage:
		return e.raw(id, method, p), nil
	case []byte:
		return e.raw(id, method, p), nil
	case *Enveloped:
		if len(p.Members) > 0 {
			return e.enveloped(id, method, p.Params, p.Members)
		}
		params = p.Params
	}
	// AppendRequest's output with the params in place: the head, the params
	// as encoding/json writes them (Encode adds a newline, dropped), the brace.
	b := append(e.buf.AvailableBuffer(), `{"jsonrpc":"2.0","id":`...)
	b = append(id.AppendJSON(b), `,"method":`...)
	b = append(jsonrpc.AppendString(b, method), `,"params":`...)
	e.buf.Write(b)
	if err := e.params(params); err != nil {
		return nil, err
	}
	e.buf.WriteByte('}')
	return e.buf.Bytes(), nil
}

// params appends params to the buffer: through its own AppendJSON when it has
// one, else as encoding/json writes it (Encode's newline dropped).
func (e *requestEncoder) params(params any) error {
	if a, ok := params.(JSONAppender); ok {
		b, err := a.AppendJSON(e.buf.AvailableBuffer())
		if err != nil {
			return err
		}
		e.buf.Write(b)
		return nil
	}
	if err := e.enc.Encode(params); err != nil {
		return err
	}
	e.buf.Truncate(e.buf.Len() - 1)
	return nil
}

// enveloped returns the request message for params with an envelope (see
// Enveloped), valid until e is reused: the members are copied in, the params
// encoded after them in place.
func (e *requestEncoder) enveloped(id jsonrpc.ID, method string, params any, members []byte) ([]byte, error) {
	e.buf.Reset()
	b := append(e.buf.AvailableBuffer(), `{"jsonrpc":"2.0","id":`...)
	b = append(id.AppendJSON(b), `,"method":`...)
	b = append(jsonrpc.AppendString(b, method), `,"params":{`...)
	b = append(b, members...)
	e.buf.Write(b)
	at := e.buf.Len()
	if err := e.params(params); err != nil {
		return nil, err
	}
	n, err := joinEnvelope(e.buf.Bytes(), at)
	if err != nil {
		return nil, err
	}
	e.buf.Truncate(n)
	e.buf.WriteByte('}')
	return e.buf.Bytes(), nil
}
