package schema

import (
	"bytes"
	"slices"
	"strconv"
)

// scanner walks one JSON text without allocating. Every method checks the
// syntax of what it consumes and reports false on an error; callers treat
// false as "cannot tell" and leave the verdict to the full validator.
type scanner struct {
	data []byte
	pos  int
	// limitExponent makes readNumber reject numbers whose exponent exceeds
	// maxExponent (see Validator.Validate).
	limitExponent bool
}

// maxExponent bounds the exponent of numbers that Validate accepts. It is far
// beyond float64's range (about 1e308), so no Go number type loses a value
// it could decode; it exists because the library evaluates numbers with
// math/big, where 1e999999 costs tens of milliseconds (and 1e1000001 makes
// it panic), so a few bytes of arguments could otherwise buy a lot of CPU.
const maxExponent = 1000

// maxScanDepth bounds nesting so that hostile input cannot exhaust the stack.
const maxScanDepth = 1000

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

// next skips white space and returns the next byte (0 at the end).
func (s *scanner) next() byte {
	s.skipSpace()
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

// readString reads the string starting at s.pos (a '"') and returns its raw
// content between the quotes, and whether it contains escapes.
func (s *scanner) readString() (raw []byte, escaped, ok bool) {
	start := s.pos + 1
	for i := start; i < len(s.data); i++ {
		c := s.data[i]
		switch {
		case c == '"':
			s.pos = i + 1
			return s.data[start:i], escaped, true
		case c == '\\':
			escaped = true
			i++
			if i >= len(s.data) {
				return nil, false, false
			}
			switch s.data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(s.data) {
					return nil, false, false
				}
				for _, h := range s.data[i+1 : i+5] {
					if !isHex(h) {
						return nil, false, false
					}
				}
				i += 4
			default:
				return nil, false, false
			}
		case c < 0x20:
			return nil, false, false
		}
	}
	return nil, false, false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// readNumber reads the number starting at s.pos:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) readNumber() (lit []byte, ok bool) {
	d, i := s.data, s.pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	default:
		return nil, false
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || !isDigit(d[i]) {
			return nil, false
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || !isDigit(d[i]) {
			return nil, false
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	lit = d[s.pos:i]
	if s.limitExponent && exponentTooLarge(lit) {
		return nil, false
	}
	s.pos = i
	return lit, true
}

// exponentTooLarge reports whether the explicit exponent of a number literal
// exceeds maxExponent in magnitude.
func exponentTooLarge(lit []byte) bool {
	i := bytes.IndexAny(lit, "eE")
	if i < 0 {
		return false
	}
	exp := 0
	for _, c := range lit[i+1:] {
		if isDigit(c) {
			exp = exp*10 + int(c-'0')
			if exp > maxExponent {
				return true
			}
		}
	}
	return false
}

// findHugeNumber returns the location and literal of the first number in
// data, which must be valid JSON, whose exponent exceeds maxExponent.
func findHugeNumber(data []byte) (path string, lit []byte, found bool) {
	s := scanner{data: data}
	lit, reversed, found := s.hugeNumber()
	if !found {
		return "", nil, false
	}
	slices.Reverse(reversed)
	return pointer(reversed), lit, true
}

// hugeNumber walks one value of valid JSON looking for a number with an
// oversized exponent; it returns the path to it, innermost token first.
func (s *scanner) hugeNumber() (lit []byte, reversed []string, found bool) {
	switch s.next() {
	case '{':
		s.pos++
		if s.next() == '}' {
			s.pos++
			return nil, nil, false
		}
		for {
			s.next()
			raw, escaped, _ := s.readString()
			s.next()
			s.pos++ // ':'
			if lit, reversed, found = s.hugeNumber(); found {
				key := string(raw)
				if escaped {
					key, _ = keyOf(raw)
				}
				return lit, append(reversed, key), true
			}
			c := s.next()
			s.pos++
			if c != ',' {
				return nil, nil, false
			}
		}
	case '[':
		s.pos++
		if s.next() == ']' {
			s.pos++
			return nil, nil, false
		}
		for i := 0; ; i++ {
			if lit, reversed, found = s.hugeNumber(); found {
				return lit, append(reversed, strconv.Itoa(i)), true
			}
			c := s.next()
			s.pos++
			if c != ',' {
				return nil, nil, false
			}
		}
	case '"':
		s.readString()
	case 't', 'n':
		s.pos += 4
	case 'f':
		s.pos += 5
	default:
		lit, _ := s.readNumber()
		if exponentTooLarge(lit) {
			return lit, nil, true
		}
	}
	return nil, nil, false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// readLiteral consumes word (true, false or null) at s.pos.
func (s *scanner) readLiteral(word string) bool {
	if len(s.data)-s.pos < len(word) || string(s.data[s.pos:s.pos+len(word)]) != word {
		return false
	}
	s.pos += len(word)
	return true
}

// skipValue consumes one value of any kind, checking its syntax.
func (s *scanner) skipValue(depth int) bool {
	if depth > maxScanDepth {
		return false
	}
	switch s.next() {
	case '{':
		s.pos++
		if s.next() == '}' {
			s.pos++
			return true
		}
		for {
			if s.next() != '"' {
				return false
			}
			if _, _, ok := s.readString(); !ok {
				return false
			}
			if s.next() != ':' {
				return false
			}
			s.pos++
			if !s.skipValue(depth + 1) {
				return false
			}
			switch s.next() {
			case ',':
				s.pos++
			case '}':
				s.pos++
				return true
			default:
				return false
			}
		}
	case '[':
		s.pos++
		if s.next() == ']' {
			s.pos++
			return true
		}
		for {
			if !s.skipValue(depth + 1) {
				return false
			}
			switch s.next() {
			case ',':
				s.pos++
			case ']':
				s.pos++
				return true
			default:
				return false
			}
		}
	case '"':
		_, _, ok := s.readString()
		return ok
	case 't':
		return s.readLiteral("true")
	case 'f':
		return s.readLiteral("false")
	case 'n':
		return s.readLiteral("null")
	default:
		_, ok := s.readNumber()
		return ok
	}
}

// validNumber reports whether b is exactly one JSON number.
func validNumber(b []byte) bool {
	s := scanner{data: b}
	_, ok := s.readNumber()
	return ok && s.pos == len(b)
}

// numberIsInteger reports whether a JSON number literal denotes an integer
// ("1.0" and "1e3" do, "1.5" does not), exactly, without floating point.
func numberIsInteger(lit []byte) bool {
	i := 0
	if lit[0] == '-' {
		i++
	}
	intStart := i
	for i < len(lit) && isDigit(lit[i]) {
		i++
	}
	intPart := lit[intStart:i]
	var frac []byte
	if i < len(lit) && lit[i] == '.' {
		i++
		start := i
		for i < len(lit) && isDigit(lit[i]) {
			i++
		}
		frac = lit[start:i]
	}
	exp := 0
	if i < len(lit) {
		i++ // 'e' or 'E'
		neg := false
		if lit[i] == '+' || lit[i] == '-' {
			neg = lit[i] == '-'
			i++
		}
		for ; i < len(lit); i++ {
			if exp < 1e9 { // saturate: the digit count is far smaller
				exp = exp*10 + int(lit[i]-'0')
			}
		}
		if neg {
			exp = -exp
		}
	}
	// value = digits(intPart frac) × 10^(exp-len(frac)); drop trailing zeros.
	scale := exp - len(frac)
	allZero := true
	for j := len(frac) - 1; j >= 0 && frac[j] == '0'; j-- {
		scale++
		frac = frac[:j]
	}
	if len(frac) == 0 {
		for j := len(intPart) - 1; j >= 0 && intPart[j] == '0'; j-- {
			scale++
			intPart = intPart[:j]
		}
	}
	for _, c := range intPart {
		if c != '0' {
			allZero = false
		}
	}
	for _, c := range frac {
		if c != '0' {
			allZero = false
		}
	}
	return allZero || scale >= 0
}
