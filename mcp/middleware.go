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
}

// Invoker handles a [Call]. For an incoming request it returns the result the SDK is
// about to send (a Go value); for an outgoing request, the peer's raw JSON result
// (json.RawMessage). For notifications the result is nil.
type Invoker func(ctx context.Context, call *Call) (result any, err error)

// Middleware wraps an [Invoker]. The same middleware sees every method a server or
// client receives and sends; it may inspect or change the [Call], short-circuit it,
// time it, log it, or change the result. Install it with [ServerOptions].Middleware
// or [ClientOptions].Middleware. The SDK may wrap an Invoker once and use the
// result for many calls (a client session wraps its sender once), so per-call
// state belongs in the returned Invoker's body, not around it.
type Middleware func(next Invoker) Invoker

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
