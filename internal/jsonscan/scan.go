// Package jsonscan is a small validating JSON scanner shared by mcpkit's codecs.
//
// A Scanner never builds a tree and never allocates: it checks the syntax of what
// it consumes and reports where tokens start and end, so callers can keep values
// as sub-slices of the input. Callers drive it token by token (SkipSpace, Peek,
// String, Number, Literal) and hand whole values they do not care about to
// SkipValue. White space is never skipped implicitly: every method starts at Pos
// exactly, and callers call SkipSpace between tokens.
//
// The grammar is RFC 8259's, exactly as strict as encoding/json.Valid: a text
// SkipValue accepts (followed only by white space) is one json.Valid accepts,
// and the other way round, up to the nesting limit MaxDepth. Like json.Valid, the
// scanner does not check that strings are valid UTF-8.
package jsonscan

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// Scanner reads one JSON text. The zero value scans an empty text; set Data (and
// Pos, to start elsewhere than at the beginning) before use. A Scanner is a plain
// value: copying it saves a position to come back to.
type Scanner struct {
	// Data is the JSON text being scanned. The scanner never modifies it, and
	// the slices it returns alias it.
	Data []byte
	// Pos is the offset in Data of the next byte to read.
	Pos int
	// MaxExponent, when positive, makes Number (and so SkipValue) refuse, with
	// ErrExponent, a number whose explicit exponent exceeds it in magnitude
	// ("1e400" when MaxExponent is 300). Zero means no limit.
	MaxExponent int
}

// Errors the scanner reports. It returns them unwrapped, so callers may compare
// with == as well as errors.Is.
var (
	// ErrSyntax reports that the input is not valid JSON where the scanner was.
	ErrSyntax = errors.New("invalid JSON")
	// ErrDepth reports arrays and objects nested more than MaxDepth deep.
	ErrDepth = errors.New("JSON nested too deeply")
	// ErrExponent reports a number whose exponent exceeds Scanner.MaxExponent.
	ErrExponent = errors.New("JSON number exponent out of range")
)

// MaxDepth is the deepest nesting level SkipValue accepts (a top-level value is
// at level 0, its elements at level 1, and so on), so that a hostile text
// cannot exhaust the stack. A caller with a tighter budget starts SkipValue's
// depth count higher (see SkipValue).
const MaxDepth = 10000

// SkipSpace advances Pos past JSON white space (space, tab, newline, carriage
// return).
func (s *Scanner) SkipSpace() {
	for s.Pos < len(s.Data) {
		// Most calls find no space at all: one test says so for every byte
		// above ' '.
		if c := s.Data[s.Pos]; c > ' ' || c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return
		}
		s.Pos++
	}
}

// Peek returns the byte at Pos without consuming it, or 0 at the end of Data.
func (s *Scanner) Peek() byte {
	if s.Pos < len(s.Data) {
		return s.Data[s.Pos]
	}
	return 0
}

// Literal consumes word, one of true, false and null, at Pos. It returns
// ErrSyntax, leaving Pos unchanged, if Data does not hold word there.
func (s *Scanner) Literal(word string) error {
	if len(s.Data)-s.Pos < len(word) || string(s.Data[s.Pos:s.Pos+len(word)]) != word {
		return ErrSyntax
	}
	s.Pos += len(word)
	return nil
}

// String consumes the string whose opening quote is at Pos; the caller has
// checked that it is one (with Peek), and String does not look again, since on
// the hot paths that would be a second test of the same byte. It returns the
// raw bytes between the quotes, still escaped, and whether they contain any
// escape sequence; a caller that finds escaped false may use raw as the
// string's value (once it has checked it is valid UTF-8, if that matters). On a
// syntax error it returns ErrSyntax and leaves Pos unchanged.
func (s *Scanner) String() (raw []byte, escaped bool, err error) {
	d := s.Data
	start := s.Pos + 1
	i := start
	for {
		// Find the next byte that does not stand for itself: eight bytes per
		// test while eight are left, then one by one.
		for i+8 <= len(d) {
			if m := specialBytes(binary.LittleEndian.Uint64(d[i : i+8])); m != 0 {
				i += bits.TrailingZeros64(m) / 8
				goto special
			}
			i += 8
		}
		for i < len(d) && plain[d[i]] {
			i++
		}
		if i >= len(d) {
			return nil, false, ErrSyntax
		}
	special:
		switch d[i] {
		case '"':
			s.Pos = i + 1
			return d[start:i], escaped, nil
		case '\\':
			escaped = true
			if i = escapeEnd(d, i+1); i < 0 {
				return nil, false, ErrSyntax
			}
		default: // a control character
			return nil, false, ErrSyntax
		}
	}
}

// escapeEnd checks the escape sequence whose backslash is at i-1 and returns
// the index just after it, or -1 if it is not a valid one.
func escapeEnd(d []byte, i int) int {
	if i >= len(d) {
		return -1
	}
	switch d[i] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return i + 1
	case 'u':
		if len(d)-i < 5 {
			return -1
		}
		for _, h := range d[i+1 : i+5] {
			if !isHex(h) {
				return -1
			}
		}
		return i + 5
	}
	return -1
}

// plain[c] reports whether the byte c stands for itself inside a string: it
// is neither the closing quote, nor a backslash, nor a control character.
var plain = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 0x20 && c != '"' && c != '\\'
	}
	return t
}()

// Repeated bytes for specialBytes' word-at-a-time tests.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// specialBytes marks the bytes of w (eight bytes of a string, read
// little-endian) that do not stand for themselves: '"', '\\' and those below
// 0x20. It returns a word with the high bit set in each such byte; only the
// lowest set bit is exact (past the first such byte, borrows may mark plain
// bytes too), which is all String needs, and zero means all eight are plain.
// (x-ones)&^x&highs is the classic test for a zero byte in x, and w-0x20*ones
// the same for a byte below 0x20; the high bit of w^('"'*ones) and of
// w^('\\'*ones) is w's own, so one &^w serves all three.
func specialBytes(w uint64) uint64 {
	quote := w ^ '"'*ones
	backslash := w ^ '\\'*ones
	return ((w - 0x20*ones) | (quote - ones) | (backslash - ones)) &^ w & highs
}

// Number consumes the number at Pos, -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?,
// and returns its text. On a syntax error it returns ErrSyntax, and for an
// exponent beyond MaxExponent ErrExponent, leaving Pos unchanged.
func (s *Scanner) Number() ([]byte, error) {
	d, i := s.Data, s.Pos
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		i++
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	default:
		return nil, ErrSyntax
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || !isDigit(d[i]) {
			return nil, ErrSyntax
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
			return nil, ErrSyntax
		}
		expStart := i
		for i < len(d) && isDigit(d[i]) {
			i++
		}
		if s.MaxExponent > 0 && exceeds(d[expStart:i], s.MaxExponent) {
			return nil, ErrExponent
		}
	}
	lit := d[s.Pos:i]
	s.Pos = i
	return lit, nil
}

// exceeds reports whether the decimal digits denote a number above limit
// (which is positive), without overflowing however many digits there are.
func exceeds(digits []byte, limit int) bool {
	n := 0
	for _, c := range digits {
		d := int(c - '0')
		if n > limit/10 || n*10 > limit-d {
			return true
		}
		n = n*10 + d
	}
	return false
}

// SkipValue consumes one value of any kind at Pos (which must not be white
// space), checking its syntax; it returns ErrSyntax, ErrDepth or ErrExponent if
// the value is not acceptable. On error Pos is somewhere inside the value.
//
// depth is the nesting level of the value; SkipValue fails with ErrDepth when a
// level beyond MaxDepth is reached. Pass 0 for a top-level value. A caller that
// wants a tighter limit L passes its own depth plus MaxDepth-L.
func (s *Scanner) SkipValue(depth int) error {
	if depth > MaxDepth {
		return ErrDepth
	}
	switch c := s.Peek(); c {
	case '{':
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
			if _, _, err := s.String(); err != nil {
				return err
			}
			s.SkipSpace()
			if s.Peek() != ':' {
				return ErrSyntax
			}
			s.Pos++
			s.SkipSpace()
			if err := s.SkipValue(depth + 1); err != nil {
				return err
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
	case '[':
		s.Pos++
		s.SkipSpace()
		if s.Peek() == ']' {
			s.Pos++
			return nil
		}
		for {
			if err := s.SkipValue(depth + 1); err != nil {
				return err
			}
			s.SkipSpace()
			switch s.Peek() {
			case ',':
				s.Pos++
				s.SkipSpace()
			case ']':
				s.Pos++
				return nil
			default:
				return ErrSyntax
			}
		}
	case '"':
		_, _, err := s.String()
		return err
	case 't':
		return s.Literal("true")
	case 'f':
		return s.Literal("false")
	case 'n':
		return s.Literal("null")
	default:
		if c == '-' || isDigit(c) {
			_, err := s.Number()
			return err
		}
		return ErrSyntax
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
