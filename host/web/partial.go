package web

import (
	"encoding/json"
)

// maxPartial bounds the streamed arguments the host recovers partial views
// of (ui/notifications/tool-input-partial): past it the view waits for the
// complete ones.
const maxPartial = 8 << 10

// maxPartialDepth bounds the nesting closeJSON follows.
const maxPartialDepth = 64

// closeJSON recovers a JSON object from the beginning of one, as a model
// streams it: what is complete is kept, an unfinished string value is
// closed, an unfinished key, number or literal is dropped, and the open
// arrays and objects are closed. ok is false when prefix does not start an
// object, is longer than maxPartial or nests deeper than maxPartialDepth.
// The result is always valid JSON.
func closeJSON(prefix string) (out json.RawMessage, ok bool) {
	if len(prefix) > maxPartial {
		return nil, false
	}
	// safe is the longest prefix that is complete once closed: its length
	// and the closers it needs then.
	var (
		stack     []byte // the closers of the open containers, innermost last
		inString  bool
		escaped   bool
		isKey     bool // the string being read is a key
		expectKey bool // in an object, where a key (or its end) comes next
		safeLen   int
		safeStk   string
		started   bool
	)
	mark := func(i int) { safeLen, safeStk = i, string(stack) }
	for i := 0; i < len(prefix); i++ {
		c := prefix[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
				if !isKey {
					mark(i + 1)
				}
			}
			continue
		}
		switch c {
		case ' ', '\t', '\n', '\r':
		case '{', '[':
			if !started && c != '{' {
				return nil, false
			}
			started = true
			if len(stack) >= maxPartialDepth {
				return nil, false
			}
			if c == '{' {
				stack = append(stack, '}')
				expectKey = true
			} else {
				stack = append(stack, ']')
				expectKey = false
			}
			mark(i + 1)
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1] != c {
				return nil, false
			}
			stack = stack[:len(stack)-1]
			expectKey = false
			mark(i + 1)
			if len(stack) == 0 {
				return finish(prefix[:i+1], "")
			}
		case '"':
			if !started {
				return nil, false
			}
			inString, isKey = true, expectKey
			expectKey = false
		case ',':
			if len(stack) == 0 {
				return nil, false
			}
			expectKey = stack[len(stack)-1] == '}'
		case ':':
			expectKey = false
		default: // a number or a literal: complete when what follows ends it
			if !started {
				return nil, false
			}
			j := i
			for j < len(prefix) && !endsScalar(prefix[j]) {
				j++
			}
			if j < len(prefix) {
				mark(j)
			}
			i = j - 1
		}
	}
	if !started {
		return nil, false
	}
	// An unfinished string value is shown as far as it goes.
	if inString && !isKey {
		s := prefix
		if escaped {
			s = s[:len(s)-1]
		}
		if out, ok := finish(s+`"`, string(stack)); ok {
			return out, true
		}
	}
	return finish(prefix[:safeLen], safeStk)
}

// endsScalar says c ends a number or a literal.
func endsScalar(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// finish closes s with the closers of stk (innermost last), dropping a
// trailing comma or a key without its value; ok only for valid JSON.
func finish(s, stk string) (json.RawMessage, bool) {
	b := make([]byte, 0, len(s)+len(stk))
	b = append(b, s...)
	for i := len(stk) - 1; i >= 0; i-- {
		b = append(b, stk[i])
	}
	if !json.Valid(b) {
		return nil, false
	}
	return b, true
}
