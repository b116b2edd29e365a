package schema

import (
	"slices"
	"strconv"

	"github.com/mcpkit/mcpkit/internal/jsonscan"
)

// scanner walks one JSON text without allocating, using the shared scanner
// (package jsonscan) for tokens; it adds the fast path's checks (fast.go) and
// the search for oversized numbers. Callers treat a scanning error as "cannot
// tell" and leave the verdict to the full validator.
type scanner struct {
	jsonscan.Scanner
}

// maxExponent bounds the exponent of numbers that Validate accepts. It is far
// beyond float64's range (about 1e308), so no Go number type loses a value
// it could decode; it exists because the library evaluates numbers with
// math/big, where 1e999999 costs tens of milliseconds (and 1e1000001 makes
// it panic), so a few bytes of arguments could otherwise buy a lot of CPU.
const maxExponent = 1000

// maxScanDepth bounds nesting so that hostile input cannot exhaust the stack.
// It is tighter than jsonscan.MaxDepth: skipValue starts jsonscan's depth
// count at depthBias so that both limits fall at the same level.
const (
	maxScanDepth = 1000
	depthBias    = jsonscan.MaxDepth - maxScanDepth
)

// next skips white space and returns the next byte (0 at the end).
func (s *scanner) next() byte {
	s.SkipSpace()
	return s.Peek()
}

// skipValue consumes one value of any kind at nesting level depth, checking
// its syntax. Like jsonscan's SkipValue (and so that it is inlined), it starts
// at s.Pos exactly: callers skip white space first. It reports false on an
// error, including nesting deeper than maxScanDepth.
func (s *scanner) skipValue(depth int) bool {
	return s.SkipValue(depth+depthBias) == nil
}

// exponentTooLarge reports whether the explicit exponent of a number literal
// exceeds maxExponent in magnitude.
func exponentTooLarge(lit []byte) bool {
	s := jsonscan.Scanner{Data: lit, MaxExponent: maxExponent}
	_, err := s.Number()
	return err == jsonscan.ErrExponent
}

// findHugeNumber returns the location and literal of the first number in
// data, which must be valid JSON, whose exponent exceeds maxExponent.
func findHugeNumber(data []byte) (path string, lit []byte, found bool) {
	s := scanner{jsonscan.Scanner{Data: data}}
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
		s.Pos++
		if s.next() == '}' {
			s.Pos++
			return nil, nil, false
		}
		for {
			s.next()
			raw, escaped, _ := s.String()
			s.next()
			s.Pos++ // ':'
			if lit, reversed, found = s.hugeNumber(); found {
				key := string(raw)
				if escaped {
					key, _ = keyOf(raw)
				}
				return lit, append(reversed, key), true
			}
			c := s.next()
			s.Pos++
			if c != ',' {
				return nil, nil, false
			}
		}
	case '[':
		s.Pos++
		if s.next() == ']' {
			s.Pos++
			return nil, nil, false
		}
		for i := 0; ; i++ {
			if lit, reversed, found = s.hugeNumber(); found {
				return lit, append(reversed, strconv.Itoa(i)), true
			}
			c := s.next()
			s.Pos++
			if c != ',' {
				return nil, nil, false
			}
		}
	case '"':
		_, _, _ = s.String()
	case 't', 'n':
		s.Pos += 4
	case 'f':
		s.Pos += 5
	default:
		lit, _ := s.Number()
		if exponentTooLarge(lit) {
			return lit, nil, true
		}
	}
	return nil, nil, false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// validNumber reports whether b is exactly one JSON number.
func validNumber(b []byte) bool {
	s := jsonscan.Scanner{Data: b}
	_, err := s.Number()
	return err == nil && s.Pos == len(b)
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
