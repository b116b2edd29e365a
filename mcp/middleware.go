package mcp

import (
	"context"
	"encoding/json"

	"github.com/mcpkit/mcpkit/internal/rpcconn"
)

// Direction says whether a Call is arriving from the peer or being sent to it.
type Direction uint8

// Directions of a Call.
const (
	Incoming Direction = iota // the peer sent it; the result is a Go value about to be encoded
	Outgoing                  // we are sending it; the result is the peer's raw JSON answer
)

// String returns "incoming" or "outgoing".
func (d Direction) String() string {
	if d == Incoming {
		return "incoming"
	}
	return "outgoing"
}

// Session is what middleware sees of the connection a Call travels on: a
// *ServerSession or a *ClientSession.
type Session interface {
	ProtocolVersion() string
}

// Call is one request or notification passing through middleware.
type Call struct {
	Direction    Direction
	Method       string
	Params       json.RawMessage
	Notification bool // no result is expected
	Session      Session

	// For a request to one of the server's own methods: what the Invoker at
	// the end of its middleware, wrapped once per server (NewServer), runs.
	// A Call a middleware makes itself has none of them (see invokeLegacy and
	// invokeStateless).
	fn  featureFunc
	ss  *ServerSession
	req *Request // stateless: the request, its _meta parsed
	// A stateless tools/call: its params as they arrived and as decoded,
	// which serve it while Params are still those bytes.
	toolRaw json.RawMessage
	tool    *statelessToolCall
}

// Invoker handles a [Call]. For an incoming request it returns the result the SDK is
// about to send (a Go value); for an outgoing request, the peer's raw JSON result
// (json.RawMessage). For notifications the result is nil.
type Invoker func(ctx context.Context, call *Call) (result any, err error)

// Middleware wraps an [Invoker]. The same middleware sees every method a server or
// client receives and sends; it may inspect or change the [Call], short-circuit it,
// time it, log it, or change the result. Install it with [ServerOptions].Middleware
// or [ClientOptions].Middleware. The SDK wraps an Invoker once and uses the
// result for many calls (a server wraps its own methods once in NewServer, a
// client session its sender at Connect), so per-call state belongs in the
// returned Invoker's body, not around it. A middleware may pass on a Call of
// its own: a copy of the one it got (`cp := *c`) keeps what the SDK read on
// arrival; one built from scratch is served as a request arriving with its
// method and params (a stateless one's _meta read again from them).
type Middleware func(next Invoker) Invoker

// sameBytes reports whether a and b are the same bytes in memory: a
// middleware that passes on other params passes on another slice.
func sameBytes(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// chain applies middleware so that mws[0] is outermost.
func chain(mws []Middleware, last Invoker) Invoker {
	for i := len(mws) - 1; i >= 0; i-- {
		last = mws[i](last)
	}
	return last
}

// callThrough sends a request through out: outgoing middleware ending in
// sendInvoker. The result is decoded as Conn.Call decodes it (a
// *json.RawMessage gets the peer's JSON as is).
func callThrough(ctx context.Context, out Invoker, s Session, method string, params, result any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	if params == nil {
		p = nil
	}
	call := &Call{Direction: Outgoing, Method: method, Params: p, Session: s}
	res, err := out(ctx, call)
	if err != nil || result == nil {
		return err
	}
	raw, ok := res.(json.RawMessage)
	if !ok {
		if raw, err = json.Marshal(res); err != nil {
			return err
		}
	}
	return rpcconn.DecodeResult(method, raw, result)
}

// sendInvoker is the last Invoker of outgoing middleware: it sends the call
// on conn and returns the peer's raw result.
func sendInvoker(conn *rpcconn.Conn) Invoker {
	return func(ctx context.Context, c *Call) (any, error) {
		raw, err := conn.CallJSON(ctx, c.Method, c.Params)
		if err != nil {
			return nil, err
		}
		return raw, nil
	}
}

// notifyThrough sends a notification through outgoing middleware.
func notifyThrough(ctx context.Context, mws []Middleware, conn *rpcconn.Conn, s Session, method string, params any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return err
	}
	if params == nil {
		p = nil
	}
	call := &Call{Direction: Outgoing, Method: method, Params: p, Notification: true, Session: s}
	_, err = chain(mws, func(ctx context.Context, c *Call) (any, error) {
		return nil, conn.Notify(ctx, c.Method, c.Params)
	})(ctx, call)
	return err
}

// invokeLegacy ends the server's middleware for a legacy request: it runs the
// method the request named when it arrived. A Call that a middleware made
// itself runs the method it names on its session.
func invokeLegacy(ctx context.Context, c *Call) (any, error) {
	if c.fn != nil {
		return c.fn(ctx, &Request{Session: c.ss}, c.Params)
	}
	ss, ok := c.Session.(*ServerSession)
	if !ok {
		return nil, errorf(CodeInternalError, "internal error: middleware passed on a call for %s without its session", c.Method)
	}
	m, ok := ss.server.methods[c.Method]
	if !ok {
		return nil, errorf(CodeMethodNotFound, "Method not found: %s", c.Method)
	}
	return m.handle(ctx, ss, c.Params)
}

// invokeStateless ends the server's middleware for a stateless request: it
// runs the method with the request whose _meta was read on arrival, and
// completes the answer. A Call that a middleware made itself is read as a
// request arriving with its method and params.
func invokeStateless(ctx context.Context, c *Call) (any, error) {
	r, fn := c.req, c.fn
	if r == nil {
		sess, ok := c.Session.(statelessSession)
		if !ok {
			return nil, errorf(CodeInternalError, "internal error: middleware passed on a call for %s without its session", c.Method)
		}
		mr, f, err := sess.statelessFor(c.Method, c.Params)
		if err != nil {
			return nil, err
		}
		if f == nil {
			return nil, errorf(CodeMethodNotFound, "Method not found: %s", c.Method)
		}
		r, fn = &mr.req, f
	}
	var res any
	var err error
	if tc := c.tool; tc != nil && r == &tc.tool.Request && sameBytes(c.Params, c.toolRaw) {
		res, err = r.callDecodedTool(ctx, &tc.tool)
	} else {
		res, err = fn(ctx, r, c.Params)
	}
	return r.Session.server.completeStateless(r, res, err)
}
