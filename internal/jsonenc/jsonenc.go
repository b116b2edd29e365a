// Package jsonenc encodes the dynamic values a program builds for JSON — a
// map[string]any of strings, float64s (and the other float and integer
// kinds), booleans, nils, json.Numbers, nested map[string]any and []any — by
// hand, appended to the caller's buffer, byte for byte as encoding/json's
// Marshal writes them, without reflection and without allocating (a map of
// more than 16 members allocates its sorted member list).
//
// Values of any other type (structs, pointers, [json.Marshaler]s including
// json.RawMessage, named types, other maps and slices), and values nested
// deeper than 32 maps and slices, are handed to json.Marshal, and a value
// json.Marshal refuses (a NaN, an invalid json.Number, a cycle) makes [Append]
// return the error json.Marshal returns for the whole value: the outcome is
// always the one json.Marshal gives.
package jsonenc

import (
	"cmp"
	"encoding/json"
	"math"
	"slices"
	"strconv"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// maxDepth is how many maps and slices deep the encoder goes by itself;
// deeper values are handed to json.Marshal, which detects cycles (a map that
// holds itself) and reports them as errors.
const maxDepth = 32

// stackKeys is how many members of a map are sorted without allocating.
const stackKeys = 16

// errFallback says that a value needs json.Marshal's verdict: an error
// (NaN, an invalid json.Number) that json.Marshal words.
var errFallback = &json.UnsupportedValueError{Str: "jsonenc: handed to encoding/json"}

// Append appends v encoded as json.Marshal(v) encodes it. When json.Marshal
// fails, Append returns b unchanged and json.Marshal's error.
func Append(b []byte, v any) ([]byte, error) {
	n := len(b)
	out, err := appendValue(b, v, 0)
	if err == nil {
		return out, nil
	}
	// The cold path: json.Marshal words the error (or, should it succeed
	// where this encoder gave up, writes the value).
	raw, err := json.Marshal(v)
	if err != nil {
		return b[:n], err
	}
	return append(out[:n], raw...), nil
}

// appendValue appends v, at the given depth of maps and slices.
func appendValue(b []byte, v any, depth int) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return jsonrpc.AppendString(b, x), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case float64:
		return appendFloat(b, x, 64)
	case float32:
		return appendFloat(b, float64(x), 32)
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case int32:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int16:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int8:
		return strconv.AppendInt(b, int64(x), 10), nil
	case uint:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case uint64:
		return strconv.AppendUint(b, x, 10), nil
	case uint32:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case uint16:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case uint8:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case uintptr:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case json.Number:
		return appendNumber(b, x)
	case json.RawMessage:
		if x == nil {
			return append(b, "null"...), nil
		}
		// encoding/json compacts and HTML-escapes it (and refuses invalid
		// JSON): it writes it.
	case map[string]any:
		if depth < maxDepth {
			return appendMap(b, x, depth+1)
		}
	case []any:
		if depth < maxDepth {
			return appendSlice(b, x, depth+1)
		}
	}
	// Any other type, a raw message, or a value too deep: encoding/json
	// writes it.
	raw, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	return append(b, raw...), nil
}

// member is one member of a map, for sorting.
type member struct {
	key string
	val any
}

// appendMap appends m with its keys sorted, as encoding/json does.
func appendMap(b []byte, m map[string]any, depth int) ([]byte, error) {
	if m == nil {
		return append(b, "null"...), nil
	}
	if len(m) == 1 { // nothing to sort
		for k, v := range m {
			b, err := appendValue(append(jsonrpc.AppendString(append(b, '{'), k), ':'), v, depth)
			if err != nil {
				return b, err
			}
			return append(b, '}'), nil
		}
	}
	var stack [stackKeys]member
	ms := stack[:0]
	if len(m) > stackKeys {
		ms = make([]member, 0, len(m))
	}
	for k, v := range m {
		ms = append(ms, member{k, v})
	}
	if len(ms) > 1 {
		slices.SortFunc(ms, func(x, y member) int { return cmp.Compare(x.key, y.key) })
	}
	b = append(b, '{')
	var err error
	for i, mb := range ms {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(jsonrpc.AppendString(b, mb.key), ':')
		if b, err = appendValue(b, mb.val, depth); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// appendSlice appends s as a JSON array.
func appendSlice(b []byte, s []any, depth int) ([]byte, error) {
	if s == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	var err error
	for i, v := range s {
		if i > 0 {
			b = append(b, ',')
		}
		if b, err = appendValue(b, v, depth); err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

// appendFloat appends f as encoding/json writes a float of the given bits:
// the shortest form that reads back, in 'f' form for magnitudes in [1e-6,
// 1e21) (and zero) and in 'e' form outside, with a one-digit negative
// exponent written without its leading zero (1e-7, not 1e-07). NaN and the
// infinities are errors.
func appendFloat(b []byte, f float64, bits int) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, errFallback
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 {
		if bits == 64 && (abs < 1e-6 || abs >= 1e21) ||
			bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21) {
			format = 'e'
		}
	}
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

// appendNumber appends a json.Number as it is (the empty one as 0); one that
// is not a JSON number is an error.
func appendNumber(b []byte, n json.Number) ([]byte, error) {
	if n == "" {
		return append(b, '0'), nil
	}
	if !isNumber(string(n)) {
		return b, errFallback
	}
	return append(b, n...), nil
}

// isNumber reports whether s is a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func isNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		i = digits(s, i)
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		if j := digits(s, i+1); j > i+1 {
			i = j
		} else {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := digits(s, i)
		if j == i {
			return false
		}
		i = j
	}
	return i == len(s)
}

// digits returns the index past the run of digits in s starting at i.
func digits(s string, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}
