package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/protocol"
)

// A tool handler that already holds its result as JSON — a gateway passing on
// another server's answer — would pay for decoding it into a
// protocol.CallToolResult only to have the server encode it again.
// ToolRequest.RawResult lets it hand the JSON over instead: the server writes
// it as it is, except for the members the server owns (resultType, and the
// server's identity in _meta), which it writes for the request's era. The raw
// result lives in the ToolRequest, as textResult's does: returning it costs no
// allocation.

// errRawNotObject is RawResult's answer to JSON that is not one object.
var errRawNotObject = errors.New("mcp: a raw tool result must be one JSON object")

// RawResult returns a result that the server sends as result, the tool call's
// result already encoded as a JSON object, instead of encoding one: the
// handler returns it as it is (returning another result, or a string from a
// typed handler, discards it). The server checks only that result is one valid
// JSON object (line breaks between its tokens are removed); its members are
// written as they are, in their order, except for what the server owns:
//   - resultType: dropped, and written as "complete" to a stateless client;
//   - the io.modelcontextprotocol/serverInfo member of _meta: dropped, and the
//     server's own written in its place to a stateless client (a _meta that
//     dropping it leaves empty, or a null one, is then left out).
//
// A client of a version older than result's content may be (one without
// structured output, resource links, audio or the sampling tools' blocks)
// gets it decoded and adapted as any other result; so does a task. The server
// keeps result until the response is written: the caller must not change it.
//
// Middleware sees such a result as a [RawToolResult].
func (req *ToolRequest) RawResult(result json.RawMessage) (*protocol.CallToolResult, error) {
	if !jsonscan.EachMember(result, func([]byte, bool, []byte) bool { return true }) {
		return nil, errRawNotObject
	}
	if bytes.IndexByte(result, '\n') >= 0 || bytes.IndexByte(result, '\r') >= 0 {
		// Framing of stdio is one message per line.
		var buf bytes.Buffer
		if err := json.Compact(&buf, result); err != nil {
			return nil, fmt.Errorf("mcp: raw tool result: %w", err)
		}
		result = buf.Bytes()
	}
	req.out.setRaw(result)
	return &req.out.result, nil
}

// rawAnswer returns what the server sends for a handler's result res: a
// RawToolResult when res is the one RawResult made (adapted to version v by
// decoding it when v needs that), else nil.
func (req *ToolRequest) rawAnswer(res *protocol.CallToolResult, v string) any {
	raw := req.out.raw()
	if raw == nil || !req.ownsResult(res) {
		return nil
	}
	if !rawNeedsAdapting(raw, v) {
		return RawToolResult{req}
	}
	return req.decodeRaw().ForVersion(v)
}

// resolveRaw returns res, or, when res is the one RawResult made, the result
// it holds decoded: for the paths that need a protocol.CallToolResult (tasks).
func (req *ToolRequest) resolveRaw(res *protocol.CallToolResult) *protocol.CallToolResult {
	if req.out.raw() == nil || !req.ownsResult(res) {
		return res
	}
	return req.decodeRaw()
}

// decodeRaw decodes the raw result into req's own result, without the
// members the server owns; a result that does not decode becomes an isError
// result saying so.
func (req *ToolRequest) decodeRaw() *protocol.CallToolResult {
	o := &req.out
	raw := o.raw()
	o.text[0] = protocol.Content{}
	o.result = protocol.CallToolResult{}
	if err := json.Unmarshal(raw, &o.result); err != nil {
		return protocol.NewToolResultError(fmt.Sprintf("tool %q returned an invalid result: %v", req.Params.Name, err))
	}
	if o.result.Content == nil {
		o.result.Content = []protocol.Content{}
	}
	o.result.ResultType = ""
	delete(o.result.Meta, protocol.MetaKeyServerInfo)
	if len(o.result.Meta) == 0 {
		o.result.Meta = nil
	}
	return &o.result
}

// rawNeedsAdapting reports whether a raw result may hold something version v
// lacks and CallToolResult.ForVersion would change (besides resultType, which
// the raw writer handles). Versions before 2025-06-18 always decode; for
// 2025-06-18 only a result that may hold sampling tools' blocks does.
func rawNeedsAdapting(raw []byte, v string) bool {
	if !protocol.HasStructuredOutput(v) || !protocol.HasResourceLinks(v) || !protocol.HasAudio(v) {
		return true
	}
	if !protocol.HasSamplingTools(v) {
		return mentionsToolUseOrResult(raw) || jsonscan.EscapesASCII(raw)
	}
	return false
}

// mentionsToolUseOrResult reports whether raw holds "tool_use" or
// "tool_result" (protocol.ContentTypeToolUse, protocol.ContentTypeToolResult)
// anywhere, as bytes.Contains would find them, searching for their '_', which
// results seldom hold.
func mentionsToolUseOrResult(raw []byte) bool {
	const underscore = len("tool")
	return jsonscan.ContainsAround(raw, protocol.ContentTypeToolUse, underscore) ||
		jsonscan.ContainsAround(raw, protocol.ContentTypeToolResult, underscore)
}

// RawToolResult is a tools/call result a handler returned already encoded
// ([ToolRequest.RawResult]), as middleware sees it. It encodes itself
// (MarshalJSON) exactly as the server sends it. Only the server makes one:
// the zero value holds no result.
type RawToolResult struct{ req *ToolRequest }

// errNoRawResult is the answer of a zero RawToolResult.
var errNoRawResult = errors.New("mcp: a RawToolResult the server did not make holds no result")

// JSON returns the result as the handler gave it (line breaks removed),
// without what the server changes for the request's era.
func (r RawToolResult) JSON() json.RawMessage {
	if r.req == nil {
		return nil
	}
	return r.req.out.raw()
}

// Decode returns the result decoded, without the members the server owns
// (resultType, the serverInfo of _meta).
func (r RawToolResult) Decode() (*protocol.CallToolResult, error) {
	if r.req == nil {
		return nil, errNoRawResult
	}
	var res protocol.CallToolResult
	if err := json.Unmarshal(r.req.out.raw(), &res); err != nil {
		return nil, fmt.Errorf("mcp: decoding a raw tool result: %w", err)
	}
	res.ResultType = ""
	delete(res.Meta, protocol.MetaKeyServerInfo)
	return &res, nil
}

// MarshalJSON encodes the result as the server sends it.
func (r RawToolResult) MarshalJSON() ([]byte, error) { return r.AppendJSON(nil) }

// AppendJSON appends the result as the server sends it to b (the connection
// encodes with it; see rpcconn.JSONAppender).
func (r RawToolResult) AppendJSON(b []byte) ([]byte, error) {
	req := r.req
	if req == nil {
		return b, errNoRawResult
	}
	var info json.RawMessage
	if req.stateless != nil {
		info = req.server().infoJSON
	}
	return appendRawToolResult(b, req.out.raw(), info), nil
}

// Member names the raw writer looks for.
const (
	keyResultType = "resultType"
	keyMeta       = "_meta"
)

// appendRawToolResult appends raw, a valid JSON object without line breaks,
// to b without its resultType members and the serverInfo of its _meta; with
// info (a stateless client) it adds resultType "complete" and info as the
// serverInfo of _meta. A raw object with none of these is appended as it is.
func appendRawToolResult(b, raw, info []byte) []byte {
	if info == nil && !bytes.Contains(raw, []byte(keyResultType)) && !bytes.Contains(raw, []byte(protocol.MetaKeyServerInfo)) && !jsonscan.EscapesASCII(raw) {
		return append(b, raw...)
	}
	b = append(b, '{')
	open := len(b)
	var meta []byte
	jsonscan.EachMember(raw, func(key []byte, escaped bool, value []byte) bool {
		switch {
		case isMember(key, escaped, keyResultType):
		case isMember(key, escaped, keyMeta):
			meta = value // the last one counts, as when decoding
		default:
			b = appendRawMember(b, open, key, value)
		}
		return true
	})
	if info != nil {
		b = appendRawMember(b, open, []byte(keyResultType), []byte(`"`+protocol.ResultTypeComplete+`"`))
	}
	if meta != nil && meta[0] != '{' && (info != nil || string(meta) == "null") {
		meta = nil // not an object: replaced by one with the server's identity, or left out
	}
	if meta != nil && meta[0] != '{' {
		b = appendRawMember(b, open, []byte(keyMeta), meta)
	} else if meta != nil || info != nil {
		b = appendRawMeta(b, open, meta, info)
	}
	return append(b, '}')
}

// appendRawMeta appends the _meta member: meta's members (nil: none) but its
// serverInfo, then info as the serverInfo when set. An empty _meta is left
// out.
func appendRawMeta(b []byte, open int, meta, info []byte) []byte {
	mark := len(b)
	b = appendRawMember(b, open, []byte(keyMeta), nil)
	b = append(b, '{')
	inner := len(b)
	if meta != nil {
		jsonscan.EachMember(meta, func(key []byte, escaped bool, value []byte) bool {
			if !isMember(key, escaped, protocol.MetaKeyServerInfo) {
				b = appendRawMember(b, inner, key, value)
			}
			return true
		})
	}
	if info != nil {
		b = appendRawMember(b, inner, []byte(protocol.MetaKeyServerInfo), info)
	}
	if len(b) == inner {
		return b[:mark] // nothing left in it
	}
	return append(b, '}')
}

// appendRawMember appends "key":value to the object whose members start at
// open in b, preceded by a comma unless it is the first; a nil value appends
// the key and colon only.
func appendRawMember(b []byte, open int, key, value []byte) []byte {
	if len(b) > open {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return append(b, value...)
}

// isMember reports whether a member's raw key is name as a decoder reads it:
// exactly, or, when the key has escape sequences, once unescaped (which
// allocates; no name the writer looks for needs escaping).
func isMember(key []byte, escaped bool, name string) bool {
	if !escaped {
		return string(key) == name
	}
	var s string
	return json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &s) == nil && s == name
}
