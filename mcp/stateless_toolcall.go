package mcp

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/protocol"
)

// A stateless tools/call is the request a 2026-07-28 server answers most. The
// general path reads its params twice: parseStatelessMeta decodes the _meta
// fields it needs with encoding/json, then callTool decodes the whole params,
// _meta again included. This file reads them once: the params are decoded
// (protocol.CallToolParams has a fast decoder, which types the well-known
// _meta keys) and the request's declarations are taken from the decoded
// _meta. Whenever the two paths could disagree — a null where parseStatelessMeta
// wants a value, a key it would match only up to case, a version it refuses —
// the fast path steps aside and the general path answers, errors included.

// statelessToolCall is what a stateless tools/call allocates up front, in one
// piece (under 900 bytes, a size class below 1 KB). The Request its handler
// sees is the one inside tool: callDecodedTool copies the request into it,
// which here is copying it onto itself.
type statelessToolCall struct {
	call    statelessCall
	input   inputRound
	tool    toolCall
	stamped stampedToolResult
}

// answer runs the call and returns its answer, as completeStateless would. A
// result the call made for itself (a typed handler's text, see textResult) is
// stamped in place and written with the server's identity spliced in, instead
// of being copied with a _meta map made for it: the fast path runs without
// middleware, so only the JSON-RPC layer sees the result, and it encodes it.
func (tc *statelessToolCall) answer(ctx context.Context, s *Server) (any, error) {
	r := &tc.tool.Request
	res, err := r.callDecodedTool(ctx, &tc.tool)
	if res, err = tc.input.finish(s, r, res, err); err != nil {
		return nil, err
	}
	if v, ok := res.(*protocol.CallToolResult); ok && tc.tool.ownsResult(v) && v.Meta == nil && len(s.infoJSON) > 0 {
		v.ResultType = protocol.ResultTypeComplete
		tc.stamped = stampedToolResult{result: v, serverInfo: s.infoJSON}
		return &tc.stamped, nil
	}
	return s.finishStateless(res), nil
}

// stampedToolResult is a stateless tools/call result as it goes on the wire:
// the result (resultType set, no _meta of its own) and the server's identity,
// already encoded, added as its _meta. It encodes exactly as the result with
// _meta {serverInfo} would.
type stampedToolResult struct {
	result     *protocol.CallToolResult
	serverInfo json.RawMessage // compact, escaped as encoding/json escapes (it made it)
}

// AppendJSON implements rpcconn.JSONAppender.
func (r *stampedToolResult) AppendJSON(b []byte) ([]byte, error) {
	b, err := r.result.AppendJSON(b)
	if err != nil {
		return b, err
	}
	b = append(b[:len(b)-1], `,"_meta":{"`+protocol.MetaKeyServerInfo+`":`...) // over the closing brace
	b = append(b, r.serverInfo...)
	return append(b, '}', '}'), nil
}

// MarshalJSON encodes the result (for the paths that use encoding/json).
func (r *stampedToolResult) MarshalJSON() ([]byte, error) { return r.AppendJSON(nil) }

// decodeStatelessToolCall decodes a stateless tools/call in one pass, or returns
// nil when the general path must serve it.
func (ss *ServerSession) decodeStatelessToolCall(params json.RawMessage) *statelessToolCall {
	if len(params) == 0 {
		return nil
	}
	tc := &statelessToolCall{}
	p := &tc.tool.params
	if p.UnmarshalJSON(params) != nil || !tc.call.fromMeta(params, p.Meta) {
		return nil
	}
	tc.call.method = protocol.MethodToolsCall
	tc.call.input = &tc.input
	tc.tool.Session, tc.tool.stateless = ss, &tc.call
	return tc
}

// fromMeta fills mc from meta, the decoded _meta member of params, and reports
// whether that is exactly what parseStatelessMeta would have filled in (it then
// also accepts the request). Both read the same member — encoding/json's rules
// for a struct field, the last one winning — and match its keys exactly, the
// last one winning. Only nulls set them apart: parseStatelessMeta takes a null
// value for an absent one, while the map holds "" for a null version or log
// level and empty capabilities or client info for null ones. A version is
// never "" and an empty log level is refused, so only null capabilities (and a
// null _meta after a valid one) need the raw params, which are looked at only
// when they contain "null" at all: the common request is not scanned again.
func (mc *statelessCall) fromMeta(params []byte, meta protocol.Meta) bool {
	var ok bool
	if mc.version, ok = meta[protocol.MetaKeyProtocolVersion].(string); !ok || !isStatelessVersion(mc.version) {
		return false
	}
	caps, ok := meta[protocol.MetaKeyClientCapabilities].(*protocol.ClientCapabilities)
	if !ok || caps == nil {
		return false
	}
	mc.caps = *caps
	if v, present := meta[protocol.MetaKeyClientInfo]; present {
		if mc.info, ok = v.(*protocol.Implementation); !ok || mc.info == nil {
			return false
		}
	}
	_, levelSet := meta[protocol.MetaKeyLogLevel]
	if levelSet {
		if mc.logLevel, ok = meta[protocol.MetaKeyLogLevel].(protocol.LoggingLevel); !ok {
			return false
		}
	}
	if hasNull(params) {
		return mc.nullsFrom(params, levelSet)
	}
	return !levelSet || mc.logLevel.Severity() >= 0
}

// hasNull reports whether b holds the bytes null, as bytes.Contains would. It
// looks for their 'u', which a request's envelope holds a few times, where
// bytes.Contains looks for their 'n', which the envelope's keys hold dozens
// of times (it made the search a tenth of a 2026-07-28 tool call's Handle).
func hasNull(b []byte) bool {
	for i := 1; i < len(b)-2; i++ {
		j := bytes.IndexByte(b[i:len(b)-2], 'u')
		if j < 0 {
			return false
		}
		if i += j; b[i-1] == 'n' && b[i+1] == 'l' && b[i+2] == 'l' {
			return true
		}
	}
	return false
}

// nullsFrom finishes fromMeta for params that may hold a null among the
// _meta values it reads: null capabilities (or _meta) are refused, a null
// client info or log level is none.
func (mc *statelessCall) nullsFrom(params []byte, levelSet bool) bool {
	raw, ok := lastMember(params, "_meta")
	if !ok || raw == nil {
		return false
	}
	var caps, info, level []byte
	ok = jsonscan.EachPlainMember(raw, func(key, value []byte) bool {
		switch string(key) {
		case protocol.MetaKeyClientCapabilities:
			caps = value
		case protocol.MetaKeyClientInfo:
			info = value
		case protocol.MetaKeyLogLevel:
			level = value
		}
		return true
	})
	if !ok || string(caps) == "null" {
		return false
	}
	if string(info) == "null" {
		mc.info = nil
	}
	if string(level) == "null" {
		return true // mc.logLevel is "": no log notifications
	}
	return !levelSet || mc.logLevel.Severity() >= 0
}

// lastMember returns the value of the last member of the JSON object data
// named exactly key (nil when there is none). It reports false when
// encoding/json, decoding into a struct with a field of that name, could pick
// another member: a key equal to it only up to case, or one with escapes or
// bytes outside ASCII.
func lastMember(data []byte, key string) (value []byte, ok bool) {
	ok = jsonscan.EachPlainMember(data, func(k, v []byte) bool {
		if string(k) == key {
			value = v
			return true
		}
		return !bytes.EqualFold(k, []byte(key))
	})
	return value, ok
}
