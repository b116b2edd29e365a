package mcp

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/internal/rpcconn"
	"github.com/mcpkit/mcpkit/protocol"
)

// decodeToolResult decodes the raw result of a tools/call into res. The
// common shape — text blocks, isError, resultType, nothing escaped — is read
// by hand (encoding/json spends 9 allocations on it, most for validating and
// for its reflection state); anything else goes to encoding/json, with its
// errors.
func decodeToolResult(raw json.RawMessage, res *protocol.CallToolResult) error {
	if fastToolResult(raw, res) {
		return nil
	}
	*res = protocol.CallToolResult{}
	return rpcconn.DecodeResult(protocol.MethodToolsCall, raw, res)
}

// toolResultBlock is a result and the backing array of one content block,
// allocated together: most results hold a single block (as the server's
// protocol.NewToolResultText makes them).
type toolResultBlock struct {
	res   protocol.CallToolResult
	block [1]protocol.Content
}

// newToolResult returns a result for decodeToolResult to fill, its Content
// empty with room for one block, which fastToolResult fills in place.
func newToolResult() *protocol.CallToolResult {
	b := new(toolResultBlock)
	b.res.Content = b.block[:0]
	return &b.res
}

// fastToolResult decodes raw into res when it is an object whose members are
// among "content" (an array of objects with exactly the members "type" and
// "text", both strings), "isError", "resultType" and "_meta" (decoded by
// protocol.Meta, as encoding/json would have it do: a 2026-07-28 server puts
// its identity there), each at most once, with no escape sequence in any
// other string and no invalid UTF-8: then encoding/json would produce the
// same value. The blocks go into res.Content's backing array while they fit
// (see newToolResult). It reports whether it did; when it did not, res may be
// partly written.
func fastToolResult(raw []byte, res *protocol.CallToolResult) bool {
	p := fastParser{b: raw}
	if !p.byte('{') {
		return false
	}
	var seenContent, seenError, seenType, seenMeta bool
	if p.peek() == '}' {
		p.i++
		return false // no content member: leave the odd cases to encoding/json
	}
	for {
		key, ok := p.str()
		if !ok || !p.byte(':') {
			return false
		}
		switch string(key) {
		case "content":
			if seenContent || !p.content(res) {
				return false
			}
			seenContent = true
		case "isError":
			if seenError {
				return false
			}
			seenError = true
			switch {
			case p.lit("true"):
				res.IsError = true
			case p.lit("false"):
				res.IsError = false
			default:
				return false
			}
		case "resultType":
			v, ok := p.str()
			if seenType || !ok {
				return false
			}
			seenType = true
			res.ResultType = protocol.ResultType(internResultType(v))
		case "_meta":
			if seenMeta || !p.meta(res) {
				return false
			}
			seenMeta = true
		default:
			return false
		}
		if p.byte(',') {
			continue
		}
		if !p.byte('}') {
			return false
		}
		p.ws()
		return p.i == len(p.b) && seenContent
	}
}

// internResultType returns the known result types without allocating.
func internResultType(v []byte) string {
	switch string(v) {
	case string(protocol.ResultTypeComplete):
		return string(protocol.ResultTypeComplete)
	}
	return string(v)
}

// fastParser reads the few JSON forms fastToolResult accepts.
type fastParser struct {
	b []byte
	i int
}

func (p *fastParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *fastParser) peek() byte {
	p.ws()
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

// byte consumes c (after whitespace) if it comes next.
func (p *fastParser) byte(c byte) bool {
	if p.peek() == c {
		p.i++
		return true
	}
	return false
}

// lit consumes the literal s.
func (p *fastParser) lit(s string) bool {
	p.ws()
	if bytes.HasPrefix(p.b[p.i:], []byte(s)) {
		p.i += len(s)
		return true
	}
	return false
}

// str reads a string with no escapes, no control characters and valid UTF-8,
// returning its bytes (a slice of the input).
func (p *fastParser) str() ([]byte, bool) {
	if !p.byte('"') {
		return nil, false
	}
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			s := p.b[start:p.i]
			p.i++
			return s, utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return nil, false
		}
		p.i++
	}
	return nil, false
}

// meta reads a _meta value into res.Meta with protocol.Meta's decoder.
func (p *fastParser) meta(res *protocol.CallToolResult) bool {
	p.ws()
	s := jsonscan.Scanner{Data: p.b, Pos: p.i}
	if s.SkipValue(0) != nil || res.Meta.UnmarshalJSON(p.b[p.i:s.Pos]) != nil {
		return false
	}
	p.i = s.Pos
	return true
}

// content reads the content array of text blocks into res.Content, in its
// backing array while they fit.
func (p *fastParser) content(res *protocol.CallToolResult) bool {
	if !p.byte('[') {
		return false
	}
	if p.byte(']') {
		res.Content = []protocol.Content{}
		return true
	}
	blocks := res.Content[:0]
	if cap(blocks) == 0 {
		blocks = make([]protocol.Content, 0, 1)
	}
	for {
		if !p.byte('{') {
			return false
		}
		var typ, text []byte
		var seenType, seenText bool
		for range 2 {
			key, ok := p.str()
			if !ok || !p.byte(':') {
				return false
			}
			v, ok := p.str()
			if !ok {
				return false
			}
			switch string(key) {
			case "type":
				if seenType {
					return false
				}
				typ, seenType = v, true
			case "text":
				if seenText {
					return false
				}
				text, seenText = v, true
			default:
				return false
			}
			if !seenType || !seenText {
				if !p.byte(',') {
					return false
				}
			}
		}
		if !p.byte('}') || string(typ) != protocol.ContentTypeText {
			return false
		}
		blocks = append(blocks, protocol.Content{Type: protocol.ContentTypeText, Text: string(text)})
		if p.byte(',') {
			continue
		}
		if !p.byte(']') {
			return false
		}
		res.Content = blocks
		return true
	}
}
