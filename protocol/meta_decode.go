package protocol

import (
	"bytes"
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
	if m, ok := sharedMeta(data); ok {
		return m, true
	}
	m, ok := scanMeta(data)
	if ok {
		keepMeta(data, m)
	}
	return m, ok
}

// scanMeta is decodeMetaFast's scan of the object.
func scanMeta(data []byte) (Meta, bool) {
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
		v, err := decodeMetaEntry(key, data[start:s.Pos])
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

// decodeMetaEntry decodes the value of one _meta key: a shared value when the
// key has them (meta_shared.go), else by decodeMetaValueFast or, when that
// cannot, decodeMetaValue.
func decodeMetaEntry(key string, raw []byte) (any, error) {
	if v, ok, err := decodeShared(key, raw); ok {
		return v, err
	}
	if v, ok := decodeMetaValueFast(key, raw); ok {
		return v, nil
	}
	return decodeMetaValue(key, raw)
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

// Values stored once in interfaces, so that decoding the well-known ones does
// not box a new copy every time.
var (
	boxedVersions = [...]any{Version20260728, Version20251125, Version20250618, Version20250326, Version20241105}
	boxedLevels   = [...]any{LevelDebug, LevelInfo, LevelNotice, LevelWarning, LevelError, LevelCritical, LevelAlert, LevelEmergency}
)

// decodeMetaValueFast decodes the value of a well-known _meta key in its common
// forms without encoding/json — a known protocol version or log level (already
// boxed), empty client capabilities, an implementation of plain strings, a
// plain string progress token — giving what decodeMetaValue would. It reports
// false for anything else, which decodeMetaValue then decodes. raw is one
// valid JSON value.
func decodeMetaValueFast(key string, raw []byte) (any, bool) {
	switch key {
	case MetaKeyProtocolVersion:
		if v, ok := plainStringBytes(raw); ok {
			for _, b := range boxedVersions {
				if string(v) == b.(string) {
					return b, true
				}
			}
		}
	case MetaKeyLogLevel:
		if v, ok := plainStringBytes(raw); ok {
			for _, b := range boxedLevels {
				if string(v) == string(b.(LoggingLevel)) {
					return b, true
				}
			}
		}
	case MetaKeyClientCapabilities:
		c := new(ClientCapabilities)
		if isEmptyObject(raw) || c.decodeFast(raw) {
			return c, true
		}
	case MetaKeyClientInfo, MetaKeyServerInfo:
		impl := new(Implementation)
		if impl.decodeFast(raw) {
			return impl, true
		}
	case MetaKeyProgressToken, MetaKeySubscriptionID:
		if v, ok := plainString(raw); ok {
			return v, true
		}
	}
	return nil, false
}

// plainStringBytes returns the contents of a JSON string without escapes whose
// bytes are valid UTF-8, without copying them.
func plainStringBytes(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') >= 0 || !utf8.Valid(inner) {
		return nil, false
	}
	return inner, true
}

// isEmptyObject reports whether raw is {} (white space allowed inside).
func isEmptyObject(raw []byte) bool {
	if len(raw) < 2 || raw[0] != '{' || raw[len(raw)-1] != '}' {
		return false
	}
	for _, c := range raw[1 : len(raw)-1] {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

// implementationFields are the JSON names of Implementation's fields.
var implementationFields = [...]string{"name", "title", "version", "description", "websiteUrl", "icons"}

// decodeFast decodes an implementation whose members are plain strings (or
// null), as encoding/json would into a zero Implementation; it reports false
// for anything else (icons, escapes, a key matching a field only up to case).
// raw is one valid JSON value.
func (impl *Implementation) decodeFast(raw []byte) bool {
	return jsonscan.EachPlainMember(raw, func(key, value []byte) bool {
		if string(value) == "null" {
			return string(key) != "icons" || impl.Icons == nil
		}
		var dst *string
		switch string(key) {
		case "name":
			dst = &impl.Name
		case "title":
			dst = &impl.Title
		case "version":
			dst = &impl.Version
		case "description":
			dst = &impl.Description
		case "websiteUrl":
			dst = &impl.WebsiteURL
		default:
			return !jsonscan.FoldsToAny(key, implementationFields[:])
		}
		v, ok := plainStringBytes(value)
		*dst = internName(v) // a client sends the same identity every request
		return ok
	})
}

// clientCapabilitiesFields are the JSON names of ClientCapabilities' fields.
var clientCapabilitiesFields = []string{"experimental", "extensions", "roots", "sampling", "elicitation", "tasks"}

// decodeFast decodes capabilities made of the common members — roots,
// sampling, elicitation, and experimental or extensions entries that are {}
// or null — as encoding/json would into c, duplicates merged as it merges
// them. It reports false for anything else (tasks, settings inside an
// extension, a key matching a field only up to case, a value of the wrong
// type). raw is one valid JSON value.
func (c *ClientCapabilities) decodeFast(raw []byte) bool {
	return jsonscan.EachPlainMember(raw, func(key, value []byte) bool {
		switch string(key) {
		case "roots":
			return decodeCapability(value, &c.Roots, func(r *RootsCapability, key, value []byte) bool {
				if string(key) == "listChanged" {
					return decodeBool(value, &r.ListChanged)
				}
				return !jsonscan.FoldsToAny(key, []string{"listChanged"})
			})
		case "sampling":
			return decodeCapability(value, &c.Sampling, func(sc *SamplingCapability, key, value []byte) bool {
				switch string(key) {
				case "context":
					return decodeSupported(value, &sc.Context)
				case "tools":
					return decodeSupported(value, &sc.Tools)
				}
				return !jsonscan.FoldsToAny(key, []string{"context", "tools"})
			})
		case "elicitation":
			return decodeCapability(value, &c.Elicitation, func(e *ElicitationCapability, key, value []byte) bool {
				switch string(key) {
				case "form":
					return decodeSupported(value, &e.Form)
				case "url":
					return decodeSupported(value, &e.URL)
				}
				return !jsonscan.FoldsToAny(key, []string{"form", "url"})
			})
		case "extensions":
			return decodeEmptySettings(value, &c.Extensions)
		case "experimental":
			return decodeEmptySettings(value, &c.Experimental)
		case "tasks":
			return false
		}
		return !jsonscan.FoldsToAny(key, clientCapabilitiesFields)
	})
}

// decodeCapability decodes an optional capability object into *dst as
// encoding/json would: null sets it to nil, an object is decoded member by
// member into the existing value (made when nil).
func decodeCapability[T any](value []byte, dst **T, member func(v *T, key, value []byte) bool) bool {
	switch value[0] {
	case 'n':
		*dst = nil
		return true
	case '{':
		if *dst == nil {
			*dst = new(T)
		}
		v := *dst
		return jsonscan.EachPlainMember(value, func(key, value []byte) bool { return member(v, key, value) })
	}
	return false
}

// decodeSupported decodes a presence marker ({} with any members, or null).
func decodeSupported(value []byte, dst **Supported) bool {
	switch value[0] {
	case 'n':
		*dst = nil
		return true
	case '{':
		if *dst == nil {
			*dst = &Supported{}
		}
		return true
	}
	return false
}

// decodeBool decodes a boolean; null leaves it as it is.
func decodeBool(value []byte, dst *bool) bool {
	switch string(value) {
	case "true":
		*dst = true
	case "false":
		*dst = false
	case "null":
	default:
		return false
	}
	return true
}

// decodeEmptySettings decodes a map of settings objects whose entries are all
// {} or null (most declarations carry no settings); any other entry reports
// false.
func decodeEmptySettings(value []byte, dst *map[string]map[string]any) bool {
	switch value[0] {
	case 'n':
		*dst = nil
		return true
	case '{':
		if *dst == nil {
			*dst = make(map[string]map[string]any) // even for {}: encoding/json makes it
		}
	default:
		return false
	}
	return jsonscan.EachPlainMember(value, func(key, v []byte) bool {
		var entry map[string]any
		switch {
		case string(v) == "null":
		case isEmptyObject(v):
			entry = map[string]any{}
		default:
			return false
		}
		(*dst)[string(key)] = entry
		return true
	})
}
