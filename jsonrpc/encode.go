package jsonrpc

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// AppendRequest appends a request (or, when id is absent, a notification) to b.
// params may be nil.
func AppendRequest(b []byte, id ID, method string, params json.RawMessage) []byte {
	b = append(b, `{"jsonrpc":"2.0",`...)
	if !id.IsAbsent() {
		b = append(b, `"id":`...)
		b = id.AppendJSON(b)
		b = append(b, ',')
	}
	b = append(b, `"method":`...)
	b = AppendString(b, method)
	if len(params) > 0 {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, '}')
}

// AppendNotification appends a notification to b. params may be nil.
func AppendNotification(b []byte, method string, params json.RawMessage) []byte {
	return AppendRequest(b, ID{}, method, params)
}

// AppendResult appends a successful response to b. A nil result is written as {}.
func AppendResult(b []byte, id ID, result json.RawMessage) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = id.AppendJSON(b)
	b = append(b, `,"result":`...)
	if len(result) == 0 {
		b = append(b, "{}"...)
	} else {
		b = append(b, result...)
	}
	return append(b, '}')
}

// AppendError appends an error response to b. An absent id is written as null.
func AppendError(b []byte, id ID, e *Error) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = id.AppendJSON(b)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, e.Code, 10)
	b = append(b, `,"message":`...)
	b = AppendString(b, e.Message)
	if len(e.Data) > 0 {
		b = append(b, `,"data":`...)
		b = append(b, e.Data...)
	}
	return append(b, "}}"...)
}

// AppendMessage appends any message to b, choosing its kind from its fields.
func AppendMessage(b []byte, m *Message) []byte {
	switch {
	case m.Method != "":
		return AppendRequest(b, m.ID, m.Method, m.Params)
	case m.Error != nil:
		return AppendError(b, m.ID, m.Error)
	default:
		return AppendResult(b, m.ID, m.Result)
	}
}

// Encode returns the JSON encoding of one message.
func Encode(m *Message) []byte { return AppendMessage(nil, m) }

// EncodeBatch returns the JSON array of the given messages (a JSON-RPC batch).
func EncodeBatch(msgs []*Message) []byte {
	b := []byte{'['}
	for i, m := range msgs {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendMessage(b, m)
	}
	return append(b, ']')
}

const hexDigits = "0123456789abcdef"

// safeASCII reports, per ASCII byte, whether it can be written unescaped. The
// escaping matches encoding/json's default (HTML-safe) output.
var safeASCII = func() (t [utf8.RuneSelf]bool) {
	for i := 0x20; i < utf8.RuneSelf; i++ {
		t[i] = true
	}
	t['"'], t['\\'], t['<'], t['>'], t['&'] = false, false, false, false, false
	return t
}()

// AppendString appends s as a JSON string, escaped exactly as encoding/json does
// (HTML-safe; invalid UTF-8 becomes U+FFFD). Hand-written encoders share it.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if safeASCII[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
