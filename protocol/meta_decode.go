package protocol

import (
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
)

// A request's _meta usually holds a progress token and, in 2026-07-28, a few
// io.modelcontextprotocol/* keys: decodeMetaFast reads it in one pass, with the
// well-known keys interned (no allocation for the key) and each value decoded by
// decodeMetaValue, as the general path does. It reports false — leaving the
// object to the general path, which gives encoding/json's outcome — for
// anything unusual: escaped or invalid-UTF-8 keys, syntax errors, a value that
// does not decode.
func decodeMetaFast(data []byte) (Meta, bool) {
	s := jsonscan.Scanner{Data: data}
	s.SkipSpace()
	if s.Peek() != '{' {
		return nil, false
	}
	s.Pos++
	out := make(Meta, 4)
	s.SkipSpace()
	if s.Peek() == '}' {
		s.Pos++
		return out, atEnd(&s)
	}
	for {
		s.SkipSpace()
		if s.Peek() != '"' {
			return nil, false
		}
		rawKey, escaped, err := s.String()
		if err != nil || escaped || !utf8.Valid(rawKey) {
			return nil, false
		}
		s.SkipSpace()
		if s.Peek() != ':' {
			return nil, false
		}
		s.Pos++
		s.SkipSpace()
		start := s.Pos
		if err := s.SkipValue(0); err != nil {
			return nil, false
		}
		key := internMetaKey(rawKey)
		v, err := decodeMetaValue(key, data[start:s.Pos])
		if err != nil {
			return nil, false
		}
		out[key] = v
		s.SkipSpace()
		switch s.Peek() {
		case ',':
			s.Pos++
		case '}':
			s.Pos++
			return out, atEnd(&s)
		default:
			return nil, false
		}
	}
}

// internMetaKey returns the key as a string, without allocating for the keys
// the protocol defines.
func internMetaKey(k []byte) string {
	switch string(k) { // the compiler does not allocate for these comparisons
	case MetaKeyProgressToken:
		return MetaKeyProgressToken
	case MetaKeyProtocolVersion:
		return MetaKeyProtocolVersion
	case MetaKeyClientCapabilities:
		return MetaKeyClientCapabilities
	case MetaKeyClientInfo:
		return MetaKeyClientInfo
	case MetaKeyLogLevel:
		return MetaKeyLogLevel
	case MetaKeyServerInfo:
		return MetaKeyServerInfo
	case MetaKeySubscriptionID:
		return MetaKeySubscriptionID
	case MetaKeyRelatedTask:
		return MetaKeyRelatedTask
	case "traceparent":
		return "traceparent"
	case "tracestate":
		return "tracestate"
	}
	return string(k)
}
