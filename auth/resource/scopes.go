package resource

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
)

// The scopes a request needs beyond Options.Scopes come from what the server
// will run, so they are read from the body exactly as the server reads it:
//
//   - never from the Mcp-Method and Mcp-Name headers, which only the stateless
//     protocol checks against the body (a legacy session never does);
//   - message members by exact name, as the JSON-RPC decoder matches them
//     (escapes decoded), and a tools/call's "name" up to case, as
//     encoding/json matches it (protocol.CallToolParams falls back to it);
//   - every message of a batch, whose needs add up.
//
// A body the server could read in two ways is refused with 400 rather than
// guessed at: a message with two "method" or two "params" members, or one whose
// key equals "method" or "params" only up to case (some decoders would take
// it), and a tools/call with two members that name the tool. A body that is not
// JSON is refused with 400 as well: the server would run nothing of it (it
// answers a parse error), and no scope can be worked out for it.

var (
	errNotJSON   = errors.New("the body is not JSON")
	errAmbiguous = errors.New(`a message has a duplicate or case-variant "method", "params" or tool "name" member`)
	errTooLarge  = errors.New("request body too large")
)

// requestScopes returns the scopes a request needs: Options.Scopes and, for a
// POST, those of the methods and tool names of the messages in its body (see
// above). The body is put back for the next handler.
func (o *Options) requestScopes(r *http.Request) ([]string, error) {
	need := o.Scopes[:len(o.Scopes):len(o.Scopes)] // appending copies
	if r.Method != http.MethodPost || r.Body == nil {
		return need, nil
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, o.MaxBodySize+1))
	r.Body.Close()
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > o.MaxBodySize {
		return nil, errTooLarge
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	if err := o.bodyScopes(data, &need); err != nil {
		return nil, err
	}
	return need, nil
}

// bodyScopes adds to need the scopes the messages of a request body need: one
// message, or a batch of them (rare, and only in 2025-03-26 sessions: it is
// split with encoding/json).
func (o *Options) bodyScopes(data []byte, need *[]string) error {
	s := jsonscan.Scanner{Data: data}
	s.SkipSpace()
	if s.Peek() == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(data, &batch) != nil {
			return errNotJSON
		}
		for _, msg := range batch {
			if err := o.messageScopes(msg, need); err != nil {
				return err
			}
		}
		return nil
	}
	start := s.Pos
	if s.SkipValue(0) != nil {
		return errNotJSON
	}
	end := s.Pos
	if s.SkipSpace(); s.Pos != len(data) {
		return errNotJSON
	}
	return o.messageScopes(data[start:end], need)
}

// messageScopes adds to need the scopes msg, a valid JSON value, needs if it is
// a request: those of its method and, for tools/call, of the tool. A value that
// is no request needs none (the server runs nothing for it).
func (o *Options) messageScopes(msg []byte, need *[]string) error {
	if msg[0] != '{' {
		return nil
	}
	var method, params []byte
	methods, paramsSeen, variant := 0, 0, false
	jsonscan.EachMember(msg, func(key []byte, escaped bool, value []byte) bool {
		k := decodedKey(key, escaped)
		switch {
		case string(k) == "method":
			method = value
			methods++
		case string(k) == "params":
			params = value
			paramsSeen++
		case bytes.EqualFold(k, []byte("method")) || bytes.EqualFold(k, []byte("params")):
			variant = true
		}
		return true
	})
	if methods > 1 || paramsSeen > 1 || variant {
		return errAmbiguous
	}
	name, ok := stringValue(method)
	if !ok {
		return nil // no method: a response, or an invalid request
	}
	addScopes(need, o.MethodScopes[string(name)])
	if string(name) != "tools/call" || len(o.ToolScopes) == 0 {
		return nil
	}
	tool, err := toolName(params)
	if err != nil {
		return err
	}
	addScopes(need, o.ToolScopes[string(tool)])
	return nil
}

// toolName returns the tool a tools/call's params name, as encoding/json would
// decode it into protocol.CallToolParams (none when params name none, or name
// it with something else than a string, which the server refuses).
func toolName(params []byte) ([]byte, error) {
	if len(params) == 0 || params[0] != '{' {
		return nil, nil
	}
	var name []byte
	names := 0
	jsonscan.EachMember(params, func(key []byte, escaped bool, value []byte) bool {
		if bytes.EqualFold(decodedKey(key, escaped), []byte("name")) {
			name = value
			names++
		}
		return true
	})
	if names > 1 {
		return nil, errAmbiguous
	}
	tool, _ := stringValue(name)
	return tool, nil
}

// decodedKey returns a member's key with its escapes decoded (invalid UTF-8
// replaced, as encoding/json does).
func decodedKey(raw []byte, escaped bool) []byte {
	if !escaped && utf8.Valid(raw) {
		return raw
	}
	quoted := make([]byte, 0, len(raw)+2)
	quoted = append(append(append(quoted, '"'), raw...), '"')
	var s string
	if json.Unmarshal(quoted, &s) != nil {
		return raw // unreachable: the scanner checked the escapes
	}
	return []byte(s)
}

// stringValue returns the value of a JSON string value (escapes decoded,
// invalid UTF-8 replaced, as the JSON-RPC decoder and encoding/json do): the
// bytes inside the quotes when they decode to themselves, as they nearly always
// do, so that the common case allocates nothing. It returns false for anything
// but a string.
func stringValue(value []byte) ([]byte, bool) {
	if len(value) < 2 || value[0] != '"' {
		return nil, false
	}
	inner := value[1 : len(value)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return inner, true
	}
	var s string
	if json.Unmarshal(value, &s) != nil {
		return nil, false
	}
	return []byte(s), true
}

// addScopes appends to need the scopes of add it lacks.
func addScopes(need *[]string, add []string) {
	for _, s := range add {
		if !slices.Contains(*need, s) {
			*need = append(*need, s)
		}
	}
}
