package protocol

import (
	"bytes"
	"encoding/json"
	"hash/maphash"
	"sync/atomic"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
)

// tools/call params arrive with every tool call, so they are decoded without
// reflection: one pass over the object keeps arguments as a sub-slice of the
// input and decodes only the members present. Anything the fast path does not
// handle exactly as encoding/json would (a key that matches only up to case, a
// member of the wrong type, an escaped or invalid-UTF-8 name) is left to
// encoding/json, so the outcome — value or error — is always encoding/json's.

// callToolParamsWire has CallToolParams' fields without its methods.
type callToolParamsWire CallToolParams

// UnmarshalJSON decodes tools/call params.
func (p *CallToolParams) UnmarshalJSON(data []byte) error {
	// The fast path writes into p as it goes (a temporary would escape to the
	// heap); when it gives up, p is restored, so encoding/json starts from what
	// the caller passed in, as it would have.
	saved := *p
	if p.decodeFast(data) {
		return nil
	}
	*p = saved
	return json.Unmarshal(data, (*callToolParamsWire)(p))
}

// decodeFast decodes data into p, or reports false when encoding/json must.
func (p *CallToolParams) decodeFast(data []byte) bool {
	return jsonscan.EachMember(data, func(key []byte, escaped bool, value []byte) bool {
		return !escaped && p.member(key, value)
	})
}

// member stores one member; false sends the whole object to encoding/json.
func (p *CallToolParams) member(key, value []byte) bool {
	null := string(value) == "null"
	switch string(key) {
	case "name":
		if null {
			return true
		}
		name, ok := plainStringBytes(value)
		if !ok {
			return false
		}
		p.Name = internName(name)
	case "arguments":
		// A sub-slice of the input, as the message's params already are; null is
		// kept as the literal, as json.RawMessage.UnmarshalJSON keeps it.
		p.Arguments = json.RawMessage(value)
	case "requestState":
		if null {
			return true
		}
		st, ok := plainString(value)
		if !ok {
			return false
		}
		p.RequestState = st
	case "_meta":
		// value is valid JSON (the scanner checked it), so Meta's decoder can
		// have it directly: encoding/json would check it again and then hand it
		// over unchanged, null included.
		return p.Meta.UnmarshalJSON(value) == nil
	case "task":
		return json.Unmarshal(value, &p.Task) == nil
	case "inputResponses":
		return json.Unmarshal(value, &p.InputResponses) == nil
	default:
		// An unknown member is skipped, unless it matches a field's name up to
		// case: encoding/json would decode it into that field. Its folding of
		// non-ASCII letters is its own, so such keys are left to it.
		if !jsonscan.IsASCII(key) {
			return false
		}
		for _, f := range callToolFields {
			if bytes.EqualFold(key, []byte(f)) {
				return false
			}
		}
	}
	return true
}

// plainString returns the value of a JSON string without escapes whose bytes are
// valid UTF-8 (which encoding/json would return unchanged).
func plainString(value []byte) (string, bool) {
	if len(value) < 2 || value[0] != '"' || bytes.IndexByte(value[1:len(value)-1], '\\') >= 0 {
		return "", false
	}
	inner := value[1 : len(value)-1]
	if !utf8.Valid(inner) {
		return "", false
	}
	return string(inner), true
}

// atEnd reports whether only white space follows.
func atEnd(s *jsonscan.Scanner) bool {
	s.SkipSpace()
	return s.Pos == len(s.Data)
}

// A server hears the same few tool names, and the same client identities in
// stateless requests' _meta, on every call: recently decoded names are kept in
// a small table, and a name found there is returned without allocating. A name
// hashes to a set of two slots, the most recently added first, so that two
// names a client repeats on every request stay together even when they hash
// to the same set (with one slot per set they would evict each other on every
// request, as a test found once in 64 runs). A miss allocates, as if there
// were no table, so unusual traffic costs nothing but the miss.
var (
	internedNames [32][2]atomic.Pointer[string]
	internSeed    = maphash.MakeSeed()
)

// internName returns name as a string, from the table when it is there.
func internName(name []byte) string {
	if len(name) > 128 {
		return string(name)
	}
	set := &internedNames[maphash.Bytes(internSeed, name)%uint64(len(internedNames))]
	for i := range set {
		if p := set[i].Load(); p != nil && *p == string(name) {
			return *p
		}
	}
	s := string(name)
	// Concurrent misses may lose a name here: the table only saves allocations.
	set[1].Store(set[0].Load())
	set[0].Store(&s)
	return s
}

// ToolCallName returns the name that decoding params as CallToolParams would
// give ("" when there is none), without decoding the other members: what a
// middleware that only needs the name reads on every call. A name seen
// recently is returned without allocating. Params the quick scan cannot
// settle exactly as encoding/json would (an escaped or case-variant key, an
// escaped name) are decoded in full, so the answer is always the decoder's.
func ToolCallName(params []byte) string {
	var name []byte
	ok := jsonscan.EachMember(params, func(key []byte, escaped bool, value []byte) bool {
		if escaped || !jsonscan.IsASCII(key) {
			return false
		}
		if string(key) == "name" {
			if string(value) == "null" {
				return true
			}
			n, plain := plainStringBytes(value)
			name = n
			return plain
		}
		for _, f := range callToolFields {
			if string(key) != f && bytes.EqualFold(key, []byte(f)) {
				return false
			}
		}
		return true
	})
	if ok {
		if name == nil {
			return ""
		}
		return internName(name)
	}
	var p CallToolParams
	_ = json.Unmarshal(params, &p)
	return p.Name
}

// callToolFields are the JSON names of CallToolParams' fields.
var callToolFields = [...]string{"name", "arguments", "requestState", "_meta", "task", "inputResponses"}
