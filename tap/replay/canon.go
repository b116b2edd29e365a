package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// Canonical returns raw in a canonical form: object members sorted by key (a
// member repeated keeps its last value, as encoding/json reads it), no
// insignificant white space, strings escaped as encoding/json does, numbers kept as
// written. Two JSON texts that differ only in key order, white space or string
// escaping have the same canonical form. Empty input is canonical "null".
func Canonical(raw []byte) ([]byte, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return []byte("null"), nil
	}
	v, err := decodeAny(raw)
	if err != nil {
		return nil, fmt.Errorf("replay: canonical JSON: %w", err)
	}
	return appendCanonical(nil, v), nil
}

// decodeAny decodes raw keeping numbers as written.
func decodeAny(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return v, nil
}

func appendCanonical(b []byte, v any) []byte {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonrpc.AppendString(b, k)
			b = append(b, ':')
			b = appendCanonical(b, v[k])
		}
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCanonical(b, e)
		}
		return append(b, ']')
	case string:
		return jsonrpc.AppendString(b, v)
	case json.Number:
		return append(b, v...)
	case bool:
		return strconv.AppendBool(b, v)
	default: // nil
		return append(b, "null"...)
	}
}

// MatchKey is what a request is matched by: its params in canonical form without
// the request's own _meta (progress tokens, protocol version, client identity in
// the stateless era), which change from one run to the next. Params that are not
// valid JSON are kept as they are.
func MatchKey(params []byte) string {
	if len(bytes.TrimSpace(params)) == 0 {
		return "{}"
	}
	v, err := decodeAny(params)
	if err != nil {
		return string(params)
	}
	if m, ok := v.(map[string]any); ok {
		delete(m, "_meta")
	}
	if v == nil {
		return "{}" // absent and null params mean the same: none
	}
	return string(appendCanonical(nil, v))
}
