package jsonrpc

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"unicode/utf8"
)

// scanner is a small validating JSON scanner. It never builds a tree: it checks syntax
// and reports where values start and end, so the decoder can keep params and results
// as sub-slices of the input without copying them.
type scanner struct {
	data []byte
	pos  int
}

var (
	errSyntax = errors.New("invalid JSON")
	errDepth  = errors.New("JSON nested too deeply")
)

// maxDepth bounds nesting so a hostile message cannot exhaust the stack.
const maxDepth = 10000

func (s *scanner) skipSpace() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *scanner) peek() byte {
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

// skipValue validates and skips one JSON value starting at s.pos (no leading space).
func (s *scanner) skipValue(depth int) error {
	if depth > maxDepth {
		return errDepth
	}
	switch c := s.peek(); c {
	case '{':
		s.pos++
		s.skipSpace()
		if s.peek() == '}' {
			s.pos++
			return nil
		}
		for {
			if s.peek() != '"' {
				return errSyntax
			}
			if _, _, err := s.str(); err != nil {
				return err
			}
			s.skipSpace()
			if s.peek() != ':' {
				return errSyntax
			}
			s.pos++
			s.skipSpace()
			if err := s.skipValue(depth + 1); err != nil {
				return err
			}
			s.skipSpace()
			switch s.peek() {
			case ',':
				s.pos++
				s.skipSpace()
			case '}':
				s.pos++
				return nil
			default:
				return errSyntax
			}
		}
	case '[':
		s.pos++
		s.skipSpace()
		if s.peek() == ']' {
			s.pos++
			return nil
		}
		for {
			if err := s.skipValue(depth + 1); err != nil {
				return err
			}
			s.skipSpace()
			switch s.peek() {
			case ',':
				s.pos++
				s.skipSpace()
			case ']':
				s.pos++
				return nil
			default:
				return errSyntax
			}
		}
	case '"':
		_, _, err := s.str()
		return err
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			_, err := s.number()
			return err
		}
		return errSyntax
	}
}

func (s *scanner) literal(lit string) error {
	if len(s.data)-s.pos < len(lit) || string(s.data[s.pos:s.pos+len(lit)]) != lit {
		return errSyntax
	}
	s.pos += len(lit)
	return nil
}

// str scans a string starting at the opening quote. It returns the raw bytes between
// the quotes and whether they contain escapes.
func (s *scanner) str() (raw []byte, escaped bool, err error) {
	s.pos++ // opening quote
	start := s.pos
	for s.pos < len(s.data) {
		c := s.data[s.pos]
		switch {
		case c == '"':
			raw = s.data[start:s.pos]
			s.pos++
			return raw, escaped, nil
		case c == '\\':
			escaped = true
			s.pos++
			if s.pos >= len(s.data) {
				return nil, false, errSyntax
			}
			switch s.data[s.pos] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.pos++
			case 'u':
				if len(s.data)-s.pos < 5 {
					return nil, false, errSyntax
				}
				for _, h := range s.data[s.pos+1 : s.pos+5] {
					if !isHex(h) {
						return nil, false, errSyntax
					}
				}
				s.pos += 5
			default:
				return nil, false, errSyntax
			}
		case c < 0x20:
			return nil, false, errSyntax
		default:
			s.pos++
		}
	}
	return nil, false, errSyntax
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// number scans a JSON number and returns its text.
func (s *scanner) number() ([]byte, error) {
	start := s.pos
	if s.peek() == '-' {
		s.pos++
	}
	switch c := s.peek(); {
	case c == '0':
		s.pos++
	case c >= '1' && c <= '9':
		for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
			s.pos++
		}
	default:
		return nil, errSyntax
	}
	if s.peek() == '.' {
		s.pos++
		if !s.digits() {
			return nil, errSyntax
		}
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.pos++
		if c := s.peek(); c == '+' || c == '-' {
			s.pos++
		}
		if !s.digits() {
			return nil, errSyntax
		}
	}
	return s.data[start:s.pos], nil
}

func (s *scanner) digits() bool {
	start := s.pos
	for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
		s.pos++
	}
	return s.pos > start
}

// errBadID marks an id that is valid JSON but not a string, integer or null.
var errBadID = errors.New("id must be a string, an integer or null")

// id scans an id value: a string, an integer (an integral number in any notation) or null.
func (s *scanner) id() (ID, error) {
	switch c := s.peek(); {
	case c == '"':
		raw, escaped, err := s.str()
		if err != nil {
			return ID{}, err
		}
		return StringID(decodeString(raw, escaped)), nil
	case c == 'n':
		if err := s.literal("null"); err != nil {
			return ID{}, err
		}
		return NullID(), nil
	case c == '-' || (c >= '0' && c <= '9'):
		text, err := s.number()
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
		if err := s.skipValue(0); err != nil {
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
	s := scanner{data: prefix}
	s.skipSpace()
	if s.peek() != '{' {
		return ID{}, false
	}
	s.pos++
	for {
		s.skipSpace()
		if s.peek() != '"' {
			return id, isResponse
		}
		raw, escaped, err := s.str()
		if err != nil {
			return id, isResponse
		}
		key := decodeString(raw, escaped)
		s.skipSpace()
		if s.peek() != ':' {
			return id, isResponse
		}
		s.pos++
		s.skipSpace()
		switch key {
		case "id":
			v, err := s.id()
			if err != nil {
				return ID{}, isResponse
			}
			id = v
		case "result", "error":
			return id, true // the value is what made the message too large
		default:
			if s.skipValue(0) != nil {
				return id, isResponse
			}
		}
		s.skipSpace()
		if s.peek() != ',' {
			return id, isResponse
		}
		s.pos++
	}
}
