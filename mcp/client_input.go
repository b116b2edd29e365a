package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpkit/mcpkit/protocol"
)

// This file answers the input requests of a stateless server's input_required
// result. They go through the very path a legacy server's requests take
// (middleware included, then the ClientOptions handlers), so that a client
// written for one era answers the other the same way.

// answerInput answers each input request, in the order of their keys, and returns
// the answers under the same keys (nil when there were none). The first failure
// fails them all: an input response can carry a result, not an error.
func (cs *ClientSession) answerInput(ctx context.Context, reqs map[string]protocol.InputRequest) (protocol.InputResponses, error) {
	if len(reqs) == 0 {
		return nil, nil
	}
	keys := make([]string, 0, len(reqs))
	for k := range reqs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make(protocol.InputResponses, len(reqs))
	for _, key := range keys {
		req := reqs[key]
		res, err := cs.answerOne(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("answering the server's input request %q (%s): %w", key, req.Method, err)
		}
		if out, err = out.Set(key, res); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// answerOne runs the handler for one input request, as if the server had sent it
// as a request of its own.
func (cs *ClientSession) answerOne(ctx context.Context, req protocol.InputRequest) (any, error) {
	switch req.Method {
	case protocol.MethodSamplingCreateMessage, protocol.MethodElicitationCreate, protocol.MethodRootsList:
	default:
		return nil, fmt.Errorf("this client does not know the method %q", req.Method)
	}
	params := req.Params()
	var raw json.RawMessage
	if params != nil {
		var err error
		if raw, err = json.Marshal(params); err != nil {
			return nil, err
		}
	}
	h := cs.dispatch
	if mws := cs.client.opts.Middleware; len(mws) > 0 {
		call := &Call{Direction: Incoming, Method: req.Method, Params: raw, Session: cs}
		h = func(ctx context.Context, _ string, _ json.RawMessage) (any, error) {
			return chain(mws, func(ctx context.Context, c *Call) (any, error) {
				return cs.dispatch(ctx, c.Method, c.Params)
			})(ctx, call)
		}
	}
	res, err := h(ctx, req.Method, raw)
	if err != nil {
		return nil, err
	}
	if res == nil {
		return nil, fmt.Errorf("the handler returned no result")
	}
	return res, nil
}
