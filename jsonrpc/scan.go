package jsonrpc

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
)

// scanner is the shared validating JSON scanner (see package jsonscan) plus the
// readers for the parts of a message this package decodes: ids (id below) and
// whole messages (message, in message.go).
type scanner struct {
	jsonscan.Scanner
}

// newScanner returns a scanner at the start of data.
func newScanner(data []byte) scanner {
	return scanner{jsonscan.Scanner{Data: data}}
}

// errBadID marks an id that is valid JSON but not a string, integer or null.
var errBadID = errors.New("id must be a string, an integer or null")

// id scans an id value: a string, an integer (an integral number in any notation) or null.
// depth is the value's nesting level, as for SkipValue, for a value of another kind.
func (s *scanner) id(depth int) (ID, error) {
	switch c := s.Peek(); {
	case c == '"':
		raw, escaped, err := s.String()
		if err != nil {
			return ID{}, err
		}
		return StringID(decodeString(raw, escaped)), nil
	case c == 'n':
		if err := s.Literal("null"); err != nil {
			return ID{}, err
		}
		return NullID(), nil
	case c == '-' || (c >= '0' && c <= '9'):
		text, err := s.Number()
		if err != nil {
			return ID{}, err
		}
		if n, err := strconv.ParseInt(string(text), 10, 64); err == nil {
			return Int64ID(n), nil
		}
		f, err := strconv.ParseFloat(string(text), 64)
		if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return ID{}, errBadID
		}
		return Int64ID(int64(f)), nil
	default:
		if err := s.SkipValue(depth); err != nil {
			return ID{}, err
		}
		return ID{}, errBadID
	}
}

// decodeString turns the raw bytes of a JSON string into a Go string. Like
// encoding/json, it replaces invalid UTF-8 with U+FFFD.
func decodeString(raw []byte, escaped bool) string {
	if !escaped && utf8.Valid(raw) {
		return string(raw)
	}
	var out string
	quoted := make([]byte, 0, len(raw)+2)
	quoted = append(append(append(quoted, '"'), raw...), '"')
	if err := json.Unmarshal(quoted, &out); err != nil {
		return string(raw) // unreachable: the scanner validated the escapes
	}
	return out
}

// idFromPrefix reads the id of a message from its first bytes, which may end
// anywhere, and reports whether a "result" or "error" member showed it to be a
// response. An id the prefix does not reach is absent.
func idFromPrefix(prefix []byte) (id ID, isResponse bool) {
	s := newScanner(prefix)
	s.SkipSpace()
	if s.Peek() != '{' {
		return ID{}, false
	}
	s.Pos++
	for {
		s.SkipSpace()
		if s.Peek() != '"' {
			return id, isResponse
		}
		raw, escaped, err := s.String()
		if err != nil {
			return id, isResponse
		}
		key := decodeString(raw, escaped)
		s.SkipSpace()
		if s.Peek() != ':' {
			return id, isResponse
		}
		s.Pos++
		s.SkipSpace()
		switch key {
		case "id":
			v, err := s.id(0)
			if err != nil {
				return ID{}, isResponse
			}
			id = v
		case "result", "error":
			return id, true // the value is what made the message too large
		default:
			if s.SkipValue(0) != nil {
				return id, isResponse
			}
		}
		s.SkipSpace()
		if s.Peek() != ',' {
			return id, isResponse
		}
		s.Pos++
	}
}
