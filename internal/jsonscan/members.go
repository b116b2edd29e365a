package jsonscan

import (
	"bytes"
	"errors"
	"unicode/utf8"
)

// ErrStopped is returned by Members when its callback stopped the walk.
var ErrStopped = errors.New("jsonscan: stopped by the caller")

// Members walks the JSON object at s.Pos (which must be its '{'), calling member
// with each member in order: its key as it appears between the quotes (escaped
// reports whether it holds escape sequences) and its value, validated, as raw
// JSON. It leaves s just after the closing '}'. depth is the nesting depth of
// the object, as for SkipValue. It returns ErrSyntax (or the scanner's error)
// for a malformed object, and ErrStopped as soon as member returns false.
// (SkipValue keeps its own loop over an object's members: going through
// Members' callback made it, and so every JSON-RPC message's validation, 28 %
// slower.)
func (s *Scanner) Members(depth int, member func(key []byte, escaped bool, value []byte) bool) error {
	if s.Peek() != '{' {
		return ErrSyntax
	}
	s.Pos++
	s.SkipSpace()
	if s.Peek() == '}' {
		s.Pos++
		return nil
	}
	for {
		if s.Peek() != '"' {
			return ErrSyntax
		}
		end, escaped := stringEnd(s.Data, s.Pos)
		if end < 0 {
			return ErrSyntax
		}
		key := s.Data[s.Pos+1 : end-1]
		s.Pos = end
		s.SkipSpace()
		if s.Peek() != ':' {
			return ErrSyntax
		}
		s.Pos++
		s.SkipSpace()
		start := s.Pos
		var err error
		if isMetaKey(key) {
			s.Pos, err = skipMeta(s.Data, s.Pos, depth+1, s.MaxExponent)
		} else {
			err = s.SkipValue(depth + 1)
		}
		if err != nil {
			return err
		}
		if !member(key, escaped, s.Data[start:s.Pos]) {
			return ErrStopped
		}
		s.SkipSpace()
		switch s.Peek() {
		case ',':
			s.Pos++
			s.SkipSpace()
		case '}':
			s.Pos++
			return nil
		default:
			return ErrSyntax
		}
	}
}

// EachMember walks data, which must be one JSON object (space around it
// allowed), as Members does, and reports whether the whole walk succeeded.
func EachMember(data []byte, member func(key []byte, escaped bool, value []byte) bool) bool {
	s := Scanner{Data: data}
	s.SkipSpace()
	if s.Members(0, member) != nil {
		return false
	}
	s.SkipSpace()
	return s.Pos == len(data)
}

// IsASCII reports whether b holds only ASCII bytes.
func IsASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// EachPlainMember is EachMember for decoders that match keys as encoding/json
// does only for plain keys: member gets the raw key and value, and the walk
// fails on a key with escapes or bytes outside ASCII (whose matching
// encoding/json folds in ways not worth copying), as it does when member
// returns false.
func EachPlainMember(data []byte, member func(key, value []byte) bool) bool {
	return EachMember(data, func(key []byte, escaped bool, value []byte) bool {
		return !escaped && IsASCII(key) && member(key, value)
	})
}

// FoldsToAny reports whether the ASCII key equals one of names up to case:
// how encoding/json matches a key that names no field exactly.
func FoldsToAny(key []byte, names []string) bool {
	for _, n := range names {
		if bytes.EqualFold(key, []byte(n)) {
			return true
		}
	}
	return false
}

// EscapesASCII reports whether the JSON text b escapes a character that can be
// part of a plain name (a key, a keyword) and so hide it from a search of the
// raw bytes: a \u escape of an ASCII character (\u0000 to \u007f), or \/ (a
// solidus, as in "io.modelcontextprotocol\/serverInfo"). Escapes of other
// characters (é as \u00e9) and the short escapes of characters no name holds
// (\" \\ \n …) cannot. An escaped backslash followed by such text counts too:
// the answer may be a false positive, never a false negative.
func EscapesASCII(b []byte) bool {
	for {
		i := bytes.IndexByte(b, '\\')
		if i < 0 || i+1 >= len(b) {
			return false
		}
		b = b[i+1:]
		switch {
		case b[0] == '/':
			return true
		case len(b) >= 4 && b[0] == 'u' && b[1] == '0' && b[2] == '0' && b[3] >= '0' && b[3] <= '7':
			return true
		}
	}
}
