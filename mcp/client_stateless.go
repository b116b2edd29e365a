package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/internal/rpcconn"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
)

// This file sends the requests of a stateless (2026-07-28) session. Each request
// carries the protocol version, the client's capabilities and identity (and the
// log level, when set) in _meta, merged with whatever _meta the caller or
// middleware put there. Its result is read by resultType: "complete" (or absent)
// is the answer; "input_required" is answered through the client's handlers and
// the request is sent again with the answers and the server's requestState, as a
// new JSON-RPC request. An UnsupportedProtocolVersion error switches the session
// to a version the server offers and retries once; a HeaderMismatch on tools/call
// refreshes the tools' x-mcp-header declarations and retries once.

// DefaultMaxInputRounds bounds the input rounds of one request when
// ClientOptions.MaxInputRounds is zero.
const DefaultMaxInputRounds = 10

// ErrStatelessOnly is returned by the methods that exist only in the stateless
// era (Listen, Discover) on a legacy session.
var ErrStatelessOnly = errors.New("mcp: this needs a stateless (2026-07-28) session")

// ErrLegacyOnly is returned by the methods whose requests the stateless era
// removed (Subscribe, Unsubscribe) on a stateless session.
var ErrLegacyOnly = errors.New("mcp: the stateless protocol (2026-07-28) has no such request")

// outgoing describes one request of the session's methods: the params (a copy the
// method owns, so that the request may fill it in) and pointers to the fields the
// client sets.
type outgoing struct {
	method string
	params any            // a pointer to the params
	meta   *protocol.Meta // the params' _meta, or nil for a request without params

	// For tools/call, prompts/get and resources/read: the fields a retry sets.
	responses *protocol.InputResponses
	state     *string

	// cacheKey, when set, lets a stateless session answer from its cache.
	cacheKey string
	// For tools/call: the tool and arguments its Mcp-Param headers mirror.
	tool string
	args json.RawMessage
}

// cacheable returns the cache key of a request whose result may be cached: one the
// caller did not give _meta of its own (which might change the answer).
func cacheable(meta protocol.Meta, method, arg string) string {
	if len(meta) > 0 {
		return ""
	}
	return cacheKey(method, arg)
}

// statelessCall sends out in the stateless era and decodes its final result into
// result. r is what earlier rounds of the same call spent (zero for a new call:
// callToolStateless hands on a call after its first round of input).
func (cs *ClientSession) statelessCall(ctx context.Context, out *outgoing, result any, r statelessRetries) error {
	m := cs.stateless
	if out.cacheKey != "" && m.cache != nil {
		if raw, ok := m.cache.get(out.cacheKey); ok {
			return rpcconn.DecodeResult(out.method, raw, result)
		}
	}
	var base protocol.Meta
	if out.meta != nil {
		base = *out.meta
	}
	for {
		m.mu.Lock()
		version, level := m.version, m.logLevel
		var env []byte
		if out.meta != nil && plainParams(out.params) {
			env = m.envelopeLocked(cs.client, version, level)
		}
		m.mu.Unlock()
		if env != nil && len(base) > 0 {
			// The caller's own members (a progress token, say) join the
			// envelope's; the params go without _meta of their own.
			env = appendMetaMembers(nil, env, base, level != "")
			*out.meta = nil
		}
		// With env, the envelope goes in encoded: no map built, nothing walked.
		if env == nil && out.meta != nil {
			*out.meta = cs.client.requestMeta(base, version, m.caps, level)
		}
		callCtx := ctx
		if out.method == protocol.MethodToolsCall {
			var err error
			if callCtx, err = cs.withParamHeaders(ctx, out.tool, out.args); err != nil {
				return err
			}
		}
		raw, err := cs.callRaw(callCtx, out.method, out.params, env)
		if err != nil {
			if cs.retryAfter(ctx, out.method, err, &r) {
				continue
			}
			if out.cacheKey != "" && m.cache != nil {
				// A failing page (say, a cursor the server no longer
				// knows) makes every cached page of the list suspect.
				m.cache.invalidate(out.method)
			}
			return err
		}
		kind, err := resultTypeOf(raw)
		if err != nil {
			return fmt.Errorf("mcp: %s: %w", out.method, err)
		}
		switch kind {
		case "", protocol.ResultTypeComplete:
			if err := rpcconn.DecodeResult(out.method, raw, result); err != nil {
				return err
			}
			if out.cacheKey != "" && m.cache != nil && r.rounds == 0 {
				m.cache.put(out.method, out.cacheKey, raw, cacheHintOf(result))
			}
			return nil
		case protocol.ResultTypeInputRequired:
			if out.responses == nil {
				return fmt.Errorf("mcp: %s: the server answered input_required, which this request cannot carry", out.method)
			}
			// Only this round's answers travel with the retry; the server
			// carries earlier ones in requestState, echoed byte for byte
			// (and left out when the server sent none).
			if *out.responses, *out.state, err = cs.inputRound(ctx, out.method, raw, &r); err != nil {
				return err
			}
		default:
			return unknownResultType(out.method, kind)
		}
	}
}

// statelessRetries is what one stateless request has spent: its rounds of
// input, and its one retry at another version and after refreshed headers.
type statelessRetries struct {
	rounds                         int
	versionRetried, headersRetried bool
}

// retryAfter reports whether a stateless request of method that failed with
// err is to be sent again: once at a version the server offers after an
// UnsupportedProtocolVersion error (the session switches to it), once after a
// HeaderMismatch on tools/call, when the tools' x-mcp-header declarations
// could be listed again.
func (cs *ClientSession) retryAfter(ctx context.Context, method string, err error, r *statelessRetries) bool {
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		return false
	}
	switch je.Code {
	case protocol.CodeUnsupportedProtocolVersion:
		if next := newestCommon(unsupportedData(je), protocol.IsStateless); next != "" && !r.versionRetried {
			r.versionRetried = true
			m := cs.stateless
			m.mu.Lock()
			m.version = next
			m.mu.Unlock()
			return true
		}
	case protocol.CodeHeaderMismatch:
		if method == protocol.MethodToolsCall && !r.headersRetried {
			r.headersRetried = true
			return cs.refreshToolHeaders(ctx) == nil
		}
	}
	return false
}

// inputRound answers raw, an input_required result of method, through the
// client's handlers (ClientOptions.MaxInputRounds bounds the rounds r counts),
// returning the answers and the requestState the retry carries.
func (cs *ClientSession) inputRound(ctx context.Context, method string, raw json.RawMessage, r *statelessRetries) (protocol.InputResponses, string, error) {
	maxRounds := cs.client.opts.MaxInputRounds
	if maxRounds <= 0 {
		maxRounds = DefaultMaxInputRounds
	}
	if r.rounds++; r.rounds > maxRounds {
		return nil, "", fmt.Errorf("mcp: %s: the server still asked for input after %d rounds", method, maxRounds)
	}
	var ir protocol.InputRequiredResult
	if err := json.Unmarshal(raw, &ir); err != nil {
		return nil, "", fmt.Errorf("mcp: %s: decoding the input_required result: %w", method, err)
	}
	answers, err := cs.answerInput(ctx, ir.InputRequests)
	if err != nil {
		return nil, "", fmt.Errorf("mcp: %s: %w", method, err)
	}
	return answers, ir.RequestState, nil
}

// unknownResultType is the error for a result whose resultType this client
// does not know.
func unknownResultType(method string, kind protocol.ResultType) error {
	return fmt.Errorf("mcp: %s: the server answered with an unknown resultType %q", method, kind)
}

// resultTypeOf returns the resultType member of a raw result ("" when absent; the
// last one when repeated, as decoding would). It scans the top-level members in
// place, allocating nothing unless a member name or the value is written with
// escape sequences.
func resultTypeOf(raw json.RawMessage) (protocol.ResultType, error) {
	s := jsonscan.Scanner{Data: raw}
	s.SkipSpace()
	if s.Peek() != '{' {
		return "", errors.New("the result is not a JSON object")
	}
	s.Pos++
	var found protocol.ResultType
	for first := true; ; first = false {
		s.SkipSpace()
		if first && s.Peek() == '}' {
			if err := endOfResult(&s); err != nil {
				return "", err
			}
			return found, nil
		}
		if s.Peek() != '"' {
			return "", errMalformedResult
		}
		key, keyEscaped, err := s.String()
		if err != nil {
			return "", errMalformedResult
		}
		s.SkipSpace()
		if s.Peek() != ':' {
			return "", errMalformedResult
		}
		s.Pos++
		s.SkipSpace()
		if isResultTypeKey(key, keyEscaped) {
			if found, err = scanResultType(&s); err != nil {
				return "", err
			}
		} else if err := s.SkipValue(1); err != nil {
			return "", errMalformedResult
		}
		s.SkipSpace()
		switch s.Peek() {
		case ',':
			s.Pos++
		case '}':
			if err := endOfResult(&s); err != nil {
				return "", err
			}
			return found, nil
		default:
			return "", errMalformedResult
		}
	}
}

// endOfResult checks that nothing but white space follows the closing brace at
// s.Pos.
func endOfResult(s *jsonscan.Scanner) error {
	s.Pos++
	s.SkipSpace()
	if s.Pos != len(s.Data) {
		return errMalformedResult
	}
	return nil
}

// errMalformedResult reports a result that is not valid JSON.
var errMalformedResult = errors.New("the result is not valid JSON")

// isResultTypeKey reports whether a raw member name is "resultType".
func isResultTypeKey(key []byte, escaped bool) bool {
	if !escaped {
		return string(key) == "resultType"
	}
	var k string
	return json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &k) == nil && k == "resultType"
}

// scanResultType reads the value of a resultType member at s.Pos: a string, or
// null (as if absent).
func scanResultType(s *jsonscan.Scanner) (protocol.ResultType, error) {
	if s.Peek() == 'n' && s.Literal("null") == nil {
		return "", nil
	}
	if s.Peek() != '"' {
		return "", errors.New("the result's resultType is not a string")
	}
	start := s.Pos
	v, escaped, err := s.String()
	if err != nil {
		return "", errMalformedResult
	}
	return resultTypeValue(v, escaped, s.Data[start:s.Pos]), nil
}

// resultTypeValue converts a raw resultType string (quoted is its JSON text).
func resultTypeValue(v []byte, escaped bool, quoted []byte) protocol.ResultType {
	if escaped || !utf8.Valid(v) {
		var s string
		_ = json.Unmarshal(quoted, &s)
		return protocol.ResultType(s)
	}
	switch string(v) {
	case string(protocol.ResultTypeComplete):
		return protocol.ResultTypeComplete
	case string(protocol.ResultTypeInputRequired):
		return protocol.ResultTypeInputRequired
	}
	return protocol.ResultType(v)
}

// cacheHintOf returns the caching fields of a decoded cacheable result, or nil.
func cacheHintOf(result any) *protocol.CacheHint {
	switch r := result.(type) {
	case *protocol.ListToolsResult:
		return &r.CacheHint
	case *protocol.ListPromptsResult:
		return &r.CacheHint
	case *protocol.ListResourcesResult:
		return &r.CacheHint
	case *protocol.ListResourceTemplatesResult:
		return &r.CacheHint
	case *protocol.ReadResourceResult:
		return &r.CacheHint
	case *protocol.DiscoverResult:
		return &r.CacheHint
	}
	return nil
}

// Discover asks a stateless server for its supported versions, capabilities and
// instructions (server/discover), answering from the cache while the last answer
// is fresh. On a legacy session it returns ErrStatelessOnly.
func (cs *ClientSession) Discover(ctx context.Context, opts ...RequestOption) (*protocol.DiscoverResult, error) {
	if cs.stateless == nil {
		return nil, ErrStatelessOnly
	}
	p := &protocol.DiscoverParams{}
	var res protocol.DiscoverResult
	out := &outgoing{method: protocol.MethodServerDiscover, params: p, meta: &p.Meta, cacheKey: cacheKey(protocol.MethodServerDiscover, "")}
	if err := cs.request(ctx, out, &res, opts); err != nil {
		return nil, err
	}
	return &res, nil
}

// plainParams reports whether params is one of the protocol's own params types,
// whose _meta field, empty, is left out of their encoding: they can carry the
// session's envelope encoded ahead of their members (rpcconn.Enveloped).
func plainParams(params any) bool {
	switch params.(type) {
	case *protocol.CallToolParams, *protocol.GetPromptParams, *protocol.ReadResourceParams,
		*protocol.CompleteParams, *protocol.PaginatedParams, *protocol.DiscoverParams:
		return true
	}
	return false
}
