package protocol

import (
	"encoding/base64"
	"encoding/json"
	"strconv"

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

// appendRawField appends `"key":raw`, writing def when raw is empty.
func appendRawField(b []byte, key string, raw json.RawMessage, def string) ([]byte, error) {
	b = appendKey(b, key)
	if len(raw) == 0 {
		return append(b, def...), nil
	}
	if !json.Valid(raw) {
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
