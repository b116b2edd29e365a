package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
)

// This file is the client side of extensions: declaring them
// (ClientOptions.Extensions), reading the server's declarations, calling and
// notifying custom methods in both eras, and answering the custom methods a
// server calls.

// builtinClientMethods are the methods a ClientSession answers itself.
var builtinClientMethods = map[string]bool{
	protocol.MethodPing: true, protocol.MethodSamplingCreateMessage: true, protocol.MethodElicitationCreate: true,
	protocol.MethodRootsList: true, protocol.NotificationProgress: true, protocol.NotificationMessage: true,
	protocol.NotificationCancelled: true, protocol.NotificationToolsListChanged: true,
	protocol.NotificationPromptsListChanged: true, protocol.NotificationResourcesListChanged: true,
	protocol.NotificationResourcesUpdated: true, protocol.NotificationSubscriptionsAcknowledged: true,
}

// withExtensions returns caps with ClientOptions.Extensions added to its
// extensions (in a fresh map: caps may share the caller's).
func (c *Client) withExtensions(caps protocol.ClientCapabilities) protocol.ClientCapabilities {
	if len(c.opts.Extensions) == 0 {
		return caps
	}
	out := make(map[string]map[string]any, len(caps.Extensions)+len(c.opts.Extensions))
	maps.Copy(out, caps.Extensions)
	for id, settings := range c.opts.Extensions {
		if settings == nil {
			settings = map[string]any{}
		}
		out[id] = settings
	}
	caps.Extensions = out
	return caps
}

// ServerExtension returns the settings the server declared for extension id
// (in its initialize result, or its server/discover result in the stateless
// era), and whether it declared it at all.
func (cs *ClientSession) ServerExtension(id string) (map[string]any, bool) {
	settings, ok := cs.init.Capabilities.Extensions[id]
	return settings, ok
}

// Call sends the request method with params (any value encoding/json encodes
// as a JSON object, or nil for none) and decodes the server's result into
// result (a pointer; nil discards it). It is how a client calls a custom or
// extension method the SDK has no typed call for. In the stateless era the
// params carry the client's protocol version and capabilities in _meta (merged
// with a _meta params may hold), as every request does. The call passes
// through [ClientOptions].Middleware, and [RequestOption]s apply
// ([WithProgress], [WithTimeout]). A JSON-RPC error from the server is
// returned as a *jsonrpc.Error (errors.As).
func (cs *ClientSession) Call(ctx context.Context, method string, params, result any, opts ...RequestOption) error {
	p, err := newCustomParams(params)
	if err != nil {
		return fmt.Errorf("mcp: %s: %w", method, err)
	}
	if result == nil {
		result = new(json.RawMessage)
	}
	return cs.request(ctx, &outgoing{method: method, params: p, meta: &p.meta}, result, opts)
}

// Notify sends the notification method with params (a JSON object or nil) to
// the server, through the client's middleware. It is for legacy sessions: the
// 2026-07-28 protocol defines no client notifications (its HTTP transport
// accepts and drops them), so on a stateless session it returns an error
// matching ErrLegacyOnly.
func (cs *ClientSession) Notify(ctx context.Context, method string, params any) error {
	if cs.stateless != nil {
		return fmt.Errorf("%w: the 2026-07-28 protocol carries no client notifications (%s)", ErrLegacyOnly, method)
	}
	p, err := newCustomParams(params)
	if err != nil {
		return fmt.Errorf("mcp: %s: %w", method, err)
	}
	return cs.notify(ctx, method, p)
}

// customParams are the params of a custom request: the caller's members, and
// its _meta kept apart so that the session can add its own keys.
type customParams struct {
	members map[string]json.RawMessage // without _meta; nil for no params
	meta    protocol.Meta
}

func newCustomParams(params any) (*customParams, error) {
	p := &customParams{}
	if params == nil {
		return p, nil
	}
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("encoding params: %w", err)
	}
	if string(raw) == "null" {
		return p, nil
	}
	if err := json.Unmarshal(raw, &p.members); err != nil {
		return nil, errors.New("params must encode as a JSON object")
	}
	if m, ok := p.members["_meta"]; ok {
		delete(p.members, "_meta")
		if !isNull(m) {
			if err := json.Unmarshal(m, &p.meta); err != nil {
				return nil, fmt.Errorf("params _meta: %w", err)
			}
		}
	}
	return p, nil
}

// MarshalJSON writes the members with the _meta (when there is one): {} for
// a request without params, which every peer accepts.
func (p *customParams) MarshalJSON() ([]byte, error) {
	if len(p.members) == 0 && len(p.meta) == 0 {
		return []byte("{}"), nil
	}
	out := make(map[string]any, len(p.members)+1)
	for k, v := range p.members {
		out[k] = v
	}
	if len(p.meta) > 0 {
		out["_meta"] = p.meta
	}
	return json.Marshal(out)
}

// AddClientRequestHandler registers h to answer the custom request method
// when a server sends it (legacy sessions: a 2026-07-28 server sends the
// client no requests), its params decoded into a P (params that do not fit
// are refused with -32602). The method passes through [ClientOptions].Middleware.
// With [MethodOptions].Extension set, a server that did not declare the
// extension is refused with -32021. Registering a method the client answers
// itself (ping, sampling/createMessage, ...) panics.
func AddClientRequestHandler[P, R any](c *Client, method string, h func(ctx context.Context, cs *ClientSession, params *P) (R, error), opts *MethodOptions) {
	c.addCustom(method, opts, false, func(ctx context.Context, peer any, _ *Request, raw json.RawMessage) (any, error) {
		p := new(P)
		if err := decodeParams(raw, p); err != nil {
			return nil, err
		}
		return h(ctx, peer.(*ClientSession), p)
	})
}

// AddClientNotificationHandler registers h to receive the custom notification
// method from servers, in both eras (a stateless server's notifications
// arrive on the reply stream of a request or on a Listen stream). Params that
// do not decode into a P are dropped, as are notifications of an extension
// the server did not declare.
func AddClientNotificationHandler[P any](c *Client, method string, h func(ctx context.Context, cs *ClientSession, params *P), opts *MethodOptions) {
	c.addCustom(method, opts, true, func(ctx context.Context, peer any, _ *Request, raw json.RawMessage) (any, error) {
		p := new(P)
		if err := decodeParams(raw, p); err != nil {
			return nil, err
		}
		h(ctx, peer.(*ClientSession), p)
		return nil, nil
	})
}

func (c *Client) addCustom(method string, opts *MethodOptions, notification bool, serve func(context.Context, any, *Request, json.RawMessage) (any, error)) {
	if method == "" {
		panic("mcp: a custom method needs a name")
	}
	if builtinClientMethods[method] {
		panic(fmt.Sprintf("mcp: %s is implemented by the Client and cannot be registered as a custom method", method))
	}
	cm := &customMethod{notification: notification, serve: serve}
	if opts != nil {
		cm.extension = opts.Extension
	}
	c.custom.set(method, cm)
}

// customHandler returns the dispatcher of a custom method the server sent:
// it takes the place of dispatch, inside the middleware.
func (cs *ClientSession) customHandler(cm *customMethod, notification bool) func(context.Context, string, json.RawMessage) (any, error) {
	return func(ctx context.Context, method string, raw json.RawMessage) (any, error) {
		if notification != cm.notification {
			if notification {
				return nil, nil
			}
			return nil, errorf(CodeMethodNotFound, "Method not found: %s (it is a notification)", method)
		}
		if cm.extension != "" {
			if _, ok := cs.ServerExtension(cm.extension); !ok {
				if notification {
					return nil, nil
				}
				return nil, &jsonrpc.Error{Code: protocol.CodeMissingClientCapability,
					Message: fmt.Sprintf("Missing required server capability: extension %s (%s belongs to it; the server did not declare it in capabilities.extensions)", cm.extension, method)}
			}
		}
		return cm.serve(ctx, cs, nil, raw)
	}
}

// Call sends the request method with params to the client and decodes its
// result into result (a pointer; nil discards it), through the server's
// outgoing middleware. It is how a server calls a custom or extension method
// a client offers. Only a legacy session carries requests to the client: on a
// 2026-07-28 connection it returns an error matching ErrLegacyOnly.
func (ss *ServerSession) Call(ctx context.Context, method string, params, result any) error {
	if !ss.initialized() {
		return fmt.Errorf("%w: a server sends requests to the client only in a legacy session (%s)", ErrLegacyOnly, method)
	}
	return ss.call(ctx, method, params, result)
}
