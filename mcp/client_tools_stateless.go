package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpkit/mcpkit/protocol"
)

// callToolStateless is callToolPlain in the stateless era: the params, the
// session's envelope (its _meta member, encoded once per version and log
// level: see envelopeLocked) ahead of the name and arguments, are written by
// hand into a pooled buffer, as statelessCall writes protocol.CallToolParams
// after the envelope, and the raw result comes back without the params or the
// result passing through an interface value (the general path boxes both).
// The retries of statelessCall are made here too; a call the server answers
// with input_required goes on in statelessCall, after this first round's
// answers, with the rounds and retries spent so far.
//
// Given res (fresh from newToolResult), a result that fastToolResult reads is
// decoded into it in the same pass that finds its resultType (decoded is
// then true); any other is scanned for its resultType (resultTypeOf) and
// left to the caller to decode.
func (cs *ClientSession) callToolStateless(ctx context.Context, name string, args json.RawMessage, m map[string]any, res *protocol.CallToolResult) (json.RawMessage, bool, error) {
	if d := cs.client.opts.RequestTimeout; d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	var r statelessRetries
	for {
		st := cs.stateless
		st.mu.Lock()
		env := st.envelopeLocked(cs.client, st.version, st.logLevel)
		st.mu.Unlock()
		if env == nil {
			raw, err := cs.toolCallOn(ctx, name, args, m, nil, "", r) // never, in practice
			return raw, false, err
		}
		raw, sent, err := cs.sendStatelessToolCall(ctx, env, name, args, m)
		if err != nil {
			if sent && cs.retryAfter(ctx, protocol.MethodToolsCall, err, &r) {
				continue
			}
			return nil, false, err
		}
		var kind protocol.ResultType
		decoded := res != nil && fastToolResult(raw, res)
		if decoded {
			kind = res.ResultType // the one resultType member, unescaped, or none
		} else if kind, err = resultTypeOf(raw); err != nil {
			return nil, false, fmt.Errorf("mcp: %s: %w", protocol.MethodToolsCall, err)
		}
		switch kind {
		case "", protocol.ResultTypeComplete:
			return raw, decoded, nil
		case protocol.ResultTypeInputRequired:
			if res != nil { // the final result is decoded afresh
				*res = protocol.CallToolResult{Content: res.Content[:0]}
			}
			answers, state, err := cs.inputRound(ctx, protocol.MethodToolsCall, raw, &r)
			if err != nil {
				return nil, false, err
			}
			raw, err = cs.toolCallOn(ctx, name, args, m, answers, state, r)
			return raw, false, err
		default:
			return nil, false, unknownResultType(protocol.MethodToolsCall, kind)
		}
	}
}

// sendStatelessToolCall sends one tools/call of callToolStateless with the
// envelope env, and the tool's Mcp-Param-{Name} headers, and returns its raw
// result. sent says whether the request went out (the arguments could be
// encoded and mirrored into headers), so that the error is the server's or
// the connection's.
func (cs *ClientSession) sendStatelessToolCall(ctx context.Context, env []byte, name string, args json.RawMessage, m map[string]any) (raw json.RawMessage, sent bool, err error) {
	bp := toolParamBufs.Get().(*[]byte)
	b := append(append(append((*bp)[:0], '{'), env...), ',')
	b, at, err := appendNameArgs(b, name, args, m)
	if err != nil {
		err = fmt.Errorf("mcp: calling tool %q: encoding the arguments: %w", name, err)
	} else {
		b = append(b, '}')
		var wire json.RawMessage // the arguments, as the headers mirror them
		if at < len(b)-1 {
			wire = b[at : len(b)-1]
		}
		var callCtx context.Context
		if callCtx, err = cs.withParamHeaders(ctx, name, wire); err == nil {
			raw, err = cs.conn.CallCheckedJSON(callCtx, protocol.MethodToolsCall, b) // b is copied into the request
			sent = true
		}
	}
	putToolParamBuf(bp, b)
	return raw, sent, err
}

// toolCallOn makes the call of callToolStateless in statelessCall, with the
// answers and requestState of a round of input (none when there was none),
// after r.
func (cs *ClientSession) toolCallOn(ctx context.Context, name string, args json.RawMessage, m map[string]any,
	answers protocol.InputResponses, state string, r statelessRetries) (json.RawMessage, error) {
	if m != nil {
		var err error
		if args, err = toolArguments(m); err != nil {
			return nil, fmt.Errorf("mcp: calling tool %q: %w", name, err)
		}
	}
	params := protocol.CallToolParams{Name: name, Arguments: args, InputResponses: answers, RequestState: state}
	var raw json.RawMessage
	if err := cs.statelessCall(ctx, toolCallOut(&params), &raw, r); err != nil {
		return nil, err
	}
	return raw, nil
}
