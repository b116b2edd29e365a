package protocol

import (
	"encoding/base64"
	"encoding/json"
	"strconv"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
	"github.com/mcpkit/mcpkit/jsonrpc"
)

// This file holds the small append-based JSON writers used by the hand-written
// MarshalJSON methods on the hot path (content blocks, tool results).

// appendString appends s as a JSON string, escaped as encoding/json does.
func appendString(b []byte, s string) []byte { return jsonrpc.AppendString(b, s) }

// appendKey appends `,"key":` (or `"key":` right after an opening brace).
// key must not need escaping.
func appendKey(b []byte, key string) []byte {
	if n := len(b); n > 0 && b[n-1] != '{' && b[n-1] != '[' {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

// appendStringField appends `"key":"value"`.
func appendStringField(b []byte, key, value string) []byte {
	return appendString(appendKey(b, key), value)
}

// appendBase64Field appends `"key":"<base64 of data>"` with standard padding.
func appendBase64Field(b []byte, key string, data []byte) []byte {
	b = appendKey(b, key)
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, data)
	return append(b, '"')
}

// appendBoolField appends `"key":true|false`.
func appendBoolField(b []byte, key string, v bool) []byte {
	return strconv.AppendBool(appendKey(b, key), v)
}

// appendIntField appends `"key":n`.
func appendIntField(b []byte, key string, n int64) []byte {
	return strconv.AppendInt(appendKey(b, key), n, 10)
}

// appendValueField appends `"key":<json of v>` using encoding/json; it is for
// the rarely set, structurally open fields (annotations, _meta, icons).
func appendValueField(b []byte, key string, v any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	return append(appendKey(b, key), data...), nil
}

// appendMetaField appends `"key":<json of m>` exactly as encoding/json encodes
// the map (keys sorted, values as json.Marshal writes them), without its
// reflection for the usual values: strings, and json.RawMessage that is already
// compact and needs no escaping (the server's identity in every stateless
// result). Anything else is encoded by encoding/json.
func appendMetaField(b []byte, key string, m Meta) ([]byte, error) {
	const maxKeys = 8
	if len(m) > maxKeys {
		return appendValueField(b, key, m)
	}
	var keys [maxKeys]string
	n := 0
	for k := range m {
		keys[n] = k
		n++
	}
	sorted := keys[:n]
	for i := 1; i < len(sorted); i++ { // insertion sort: a handful of keys
		for j := i; j > 0 && sorted[j] < sorted[j-1]; j-- {
			sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
		}
	}
	start := len(b)
	b = append(appendKey(b, key), '{')
	for i, k := range sorted {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendString(b, k), ':')
		switch v := m[k].(type) {
		case nil:
			b = append(b, "null"...)
		case string:
			b = appendString(b, v)
		case *Implementation:
			if v == nil {
				b = append(b, "null"...)
				continue
			}
			var err error
			if b, err = v.appendJSON(b); err != nil {
				return appendValueField(b[:start], key, m)
			}
		case json.RawMessage:
			if v != nil && isCompactJSON(v) {
				b = append(b, v...)
				continue
			}
			data, err := json.Marshal(v)
			if err != nil {
				return appendValueField(b[:start], key, m) // encoding/json's error for the whole map
			}
			b = append(b, data...)
		default:
			data, err := json.Marshal(v)
			if err != nil {
				return appendValueField(b[:start], key, m)
			}
			b = append(b, data...)
		}
	}
	return append(b, '}'), nil
}

// appendJSON appends impl as encoding/json encodes it (Implementation has no
// MarshalJSON of its own): the server's identity, in every stateless result.
func (impl *Implementation) appendJSON(b []byte) ([]byte, error) {
	b = appendStringField(append(b, '{'), "name", impl.Name)
	if impl.Title != "" {
		b = appendStringField(b, "title", impl.Title)
	}
	b = appendStringField(b, "version", impl.Version)
	if impl.Description != "" {
		b = appendStringField(b, "description", impl.Description)
	}
	if impl.WebsiteURL != "" {
		b = appendStringField(b, "websiteUrl", impl.WebsiteURL)
	}
	if len(impl.Icons) > 0 {
		var err error
		if b, err = appendValueField(b, "icons", impl.Icons); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// isCompactJSON reports whether raw is valid JSON that encoding/json would
// write unchanged: no white space outside strings and nothing it escapes
// (<, >, & and the line separators U+2028 and U+2029).
func isCompactJSON(raw []byte) bool {
	inString, escaped := false, false
	for i, c := range raw {
		switch {
		case c == '<' || c == '>' || c == '&':
			return false
		case c == 0xE2 && i+2 < len(raw) && raw[i+1] == 0x80 && (raw[i+2] == 0xA8 || raw[i+2] == 0xA9):
			return false
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			return false
		}
	}
	return jsonscan.Valid(raw)
}

// appendRawField appends `"key":raw`, writing def when raw is empty.
func appendRawField(b []byte, key string, raw json.RawMessage, def string) ([]byte, error) {
	b = appendKey(b, key)
	if len(raw) == 0 {
		return append(b, def...), nil
	}
	if !jsonscan.Valid(raw) {
		return b, &json.UnsupportedValueError{Str: "invalid JSON in " + key}
	}
	return append(b, raw...), nil
}

// AppendJSON appends the JSON encoding of v to b. For the hot-path types
// (*CallToolResult, *Content, *ResourceContents and their values) it writes
// directly into b, skipping the validation pass encoding/json runs over every
// MarshalJSON result (an order of magnitude faster); any other value is
// encoded with json.Marshal. Transports and the JSON-RPC layer can use it to
// encode results into a reused buffer.
func AppendJSON(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case *CallToolResult:
		if x != nil {
			return x.AppendJSON(b)
		}
	case CallToolResult:
		return x.AppendJSON(b)
	case *Content:
		if x != nil {
			return x.AppendJSON(b)
		}
	case Content:
		return x.AppendJSON(b)
	case *ResourceContents:
		if x != nil {
			return x.AppendJSON(b)
		}
	case ResourceContents:
		return x.AppendJSON(b)
	case json.RawMessage:
		if x != nil {
			return append(b, x...), nil
		}
	}
	data, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	return append(b, data...), nil
}
