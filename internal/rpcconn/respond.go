package rpcconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// How a connection answers a request: the handler run with its panics caught,
// and the response encoded into a pooled buffer and written.

// invoke runs the handler, turning a panic into an internal error.
func (c *Conn) invoke(ctx context.Context, msg *jsonrpc.Message) (result any, err error) {
	if c.opts.Handler == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found: " + msg.Method}
	}
	defer func() {
		if p := recover(); p != nil {
			// The value and stack go to the log only (see StackAttr).
			c.opts.Logger.Error("jsonrpc: handler panicked", "method", msg.Method, "panic", p, StackAttr())
			err = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("internal error: the handler of %q failed", msg.Method)}
		}
	}()
	return c.opts.Handler.Handle(ctx, msg)
}

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

func (c *Conn) respond(ctx context.Context, id jsonrpc.ID, result any, err error, collect func(*jsonrpc.Message)) {
	if collect != nil {
		collect(responseMessage(id, result, err))
		return
	}
	if err != nil {
		c.writeError(ctx, id, toError(err))
		return
	}
	bp := bufPool.Get().(*[]byte)
	defer putBuf(bp)
	var merr error
	if a, ok := result.(JSONAppender); ok {
		// Encode straight into the message buffer: no intermediate copy.
		b := append((*bp)[:0], `{"jsonrpc":"2.0","id":`...)
		b = append(id.AppendJSON(b), `,"result":`...)
		if b, merr = a.AppendJSON(b); merr == nil {
			*bp = append(b, '}')
		}
	} else {
		var raw json.RawMessage
		if raw, merr = marshal(result); merr == nil {
			*bp = jsonrpc.AppendResult((*bp)[:0], id, raw)
		}
	}
	if merr != nil {
		c.writeError(ctx, id, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error: cannot encode result: " + merr.Error()})
		return
	}
	if rs, ok := c.stream.(ResponseStream); ok {
		// The transport learns the message's id and kind from us instead
		// of reading the message again.
		if err := rs.WriteResponse(ctx, id, *bp); err != nil {
			c.opts.Logger.Debug("jsonrpc: write failed", "error", err)
		}
		return
	}
	c.write(ctx, *bp)
}

// JSONAppender is implemented by results that encode themselves by appending JSON to
// a buffer. The connection uses it instead of encoding/json, which re-validates the
// output of every MarshalJSON method.
type JSONAppender interface {
	AppendJSON(b []byte) ([]byte, error)
}

func putBuf(bp *[]byte) {
	if cap(*bp) <= 64<<10 { // do not keep huge buffers alive
		bufPool.Put(bp)
	}
}

func responseMessage(id jsonrpc.ID, result any, err error) *jsonrpc.Message {
	if err != nil {
		return &jsonrpc.Message{ID: id, Error: toError(err)}
	}
	raw, merr := marshal(result)
	if merr != nil {
		return &jsonrpc.Message{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error: cannot encode result: " + merr.Error()}}
	}
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	return &jsonrpc.Message{ID: id, Result: raw}
}

func toError(err error) *jsonrpc.Error {
	var e *jsonrpc.Error
	if errors.As(err, &e) {
		return e
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}

func marshal(v any) (json.RawMessage, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		return v, nil
	case []byte:
		return v, nil
	}
	return json.Marshal(v)
}

func (c *Conn) writeError(ctx context.Context, id jsonrpc.ID, e *jsonrpc.Error) {
	bp := bufPool.Get().(*[]byte)
	*bp = jsonrpc.AppendError((*bp)[:0], id, e)
	c.write(ctx, *bp)
	putBuf(bp)
}

func (c *Conn) write(ctx context.Context, data []byte) {
	if err := c.stream.Write(ctx, data); err != nil {
		c.opts.Logger.Debug("jsonrpc: write failed", "error", err)
	}
}
