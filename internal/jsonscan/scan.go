// Package jsonscan is a small validating JSON scanner shared by mcpkit's codecs.
//
// A Scanner never builds a tree: it checks the syntax of what it consumes and
// reports where tokens start and end, so callers can keep values as sub-slices
// of the input. It allocates only to remember the value of a _meta member that
// it met twice in a row, which a 2026-07-28 peer repeats in every message and
// which it then skips by one comparison (see memo.go). Callers drive it token
// by token (SkipSpace, Peek, String, Number, Literal) and hand whole values
// they do not care about to SkipValue. White space is never skipped
// implicitly: every method starts at Pos exactly, and callers call SkipSpace
// between tokens.
//
// The grammar is RFC 8259's, exactly as strict as encoding/json.Valid: a text
// SkipValue accepts (followed only by white space) is one json.Valid accepts,
// and the other way round, up to the nesting limit MaxDepth. Like json.Valid, the
// scanner does not check that strings are valid UTF-8.
package jsonscan

import (
	"encoding/binary"
	"encoding/json"
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
func (s *Scanner) SkipSpace() { s.Pos = skipSpace(s.Data, s.Pos) }

// skipSpace returns the index of the first byte of d at or after i that is
// not white space (len(d) if there is none).
func skipSpace(d []byte, i int) int {
	// Most calls find no space at all: one test says so for every byte
	// above ' '.
	for i < len(d) && d[i] <= ' ' && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r') {
		i++
	}
	return i
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
	end, err := literalEnd(s.Data, s.Pos, word)
	s.Pos = end
	return err
}

// String consumes the string whose opening quote is at Pos; the caller has
// checked that it is one (with Peek), and String does not look again, since on
// the hot paths that would be a second test of the same byte. It returns the
// raw bytes between the quotes, still escaped, and whether they contain any
// escape sequence; a caller that finds escaped false may use raw as the
// string's value (once it has checked it is valid UTF-8, if that matters). On a
// syntax error it returns ErrSyntax and leaves Pos unchanged.
func (s *Scanner) String() (raw []byte, escaped bool, err error) {
	end, escaped := stringEnd(s.Data, s.Pos)
	if end < 0 {
		return nil, false, ErrSyntax
	}
	raw, s.Pos = s.Data[s.Pos+1:end-1], end
	return raw, escaped, nil
}

// stringEnd returns the index just after the string whose opening quote is
// at pos in d, and whether the string holds escape sequences; or -1 if it is
// not a valid string.
func stringEnd(d []byte, pos int) (end int, escaped bool) {
	i := pos + 1
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
			return -1, false
		}
	special:
		switch d[i] {
		case '"':
			return i + 1, escaped
		case '\\':
			escaped = true
			if i = escapeEnd(d, i+1); i < 0 {
				return -1, false
			}
		default: // a control character
			return -1, false
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
	end, err := numberEnd(s.Data, s.Pos, s.MaxExponent)
	if err != nil {
		return nil, err
	}
	lit := s.Data[s.Pos:end]
	s.Pos = end
	return lit, nil
}

// numberEnd returns the index just after the number that starts at i in d,
// for Number.
func numberEnd(d []byte, i, maxExponent int) (int, error) {
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
		return 0, ErrSyntax
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || !isDigit(d[i]) {
			return 0, ErrSyntax
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
			return 0, ErrSyntax
		}
		expStart := i
		for i < len(d) && isDigit(d[i]) {
			i++
		}
		if maxExponent > 0 && exceeds(d[expStart:i], maxExponent) {
			return 0, ErrExponent
		}
	}
	return i, nil
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
	end, err := skipValue(s.Data, s.Pos, depth, s.MaxExponent)
	s.Pos = end
	return err
}

// skipValue is SkipValue on an index rather than on s.Pos, which keeps the
// position in a register instead of storing and loading it at every token:
// it returns the index after the value, or the one where it failed.
func skipValue(d []byte, i, depth, maxExponent int) (int, error) {
	if depth > MaxDepth {
		return i, ErrDepth
	}
	if i >= len(d) {
		return i, ErrSyntax
	}
	var err error
	switch c := d[i]; c {
	case '{':
		if i = skipSpace(d, i+1); i < len(d) && d[i] == '}' {
			return i + 1, nil
		}
		for {
			if i >= len(d) || d[i] != '"' {
				return i, ErrSyntax
			}
			end, _ := stringEnd(d, i)
			if end < 0 {
				return i, ErrSyntax
			}
			meta := isMetaKey(d[i+1 : end-1])
			if i = skipSpace(d, end); i >= len(d) || d[i] != ':' {
				return i, ErrSyntax
			}
			if i = skipSpace(d, i+1); meta {
				i, err = skipMeta(d, i, depth+1, maxExponent)
			} else {
				i, err = skipValue(d, i, depth+1, maxExponent)
			}
			if err != nil {
				return i, err
			}
			if i = skipSpace(d, i); i >= len(d) {
				return i, ErrSyntax
			}
			switch d[i] {
			case ',':
				i = skipSpace(d, i+1)
			case '}':
				return i + 1, nil
			default:
				return i, ErrSyntax
			}
		}
	case '[':
		if i = skipSpace(d, i+1); i < len(d) && d[i] == ']' {
			return i + 1, nil
		}
		for {
			if i, err = skipValue(d, i, depth+1, maxExponent); err != nil {
				return i, err
			}
			if i = skipSpace(d, i); i >= len(d) {
				return i, ErrSyntax
			}
			switch d[i] {
			case ',':
				i = skipSpace(d, i+1)
			case ']':
				return i + 1, nil
			default:
				return i, ErrSyntax
			}
		}
	case '"':
		end, _ := stringEnd(d, i)
		if end < 0 {
			return i, ErrSyntax
		}
		return end, nil
	case 't':
		return literalEnd(d, i, "true")
	case 'f':
		return literalEnd(d, i, "false")
	case 'n':
		return literalEnd(d, i, "null")
	default:
		if c == '-' || isDigit(c) {
			end, err := numberEnd(d, i, maxExponent)
			if err != nil {
				return i, err
			}
			return end, nil
		}
		return i, ErrSyntax
	}
}

// literalEnd returns the index just after word, which starts at i in d, or i
// and ErrSyntax if it is not there.
func literalEnd(d []byte, i int, word string) (int, error) {
	if len(d)-i < len(word) || string(d[i:i+len(word)]) != word {
		return i, ErrSyntax
	}
	return i + len(word), nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// Valid reports whether data is one JSON value with only white space around it:
// the same answer as encoding/json.Valid, about three times as fast, without
// allocating. Texts nested deeper than encoding/json allows (10,000 arrays and
// objects) are handed to encoding/json.Valid, so the answer is its own there too.
func Valid(data []byte) bool {
	// Start at depth 1: a scalar inside the deepest container encoding/json
	// accepts is then at MaxDepth, and anything deeper fails with ErrDepth.
	end, err := skipValue(data, skipSpace(data, 0), 1, 0)
	switch err {
	case nil:
		return skipSpace(data, end) == len(data)
	case ErrDepth:
		return json.Valid(data)
	default:
		return false
	}
}
