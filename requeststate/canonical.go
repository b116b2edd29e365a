package requeststate

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"slices"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// maxArgumentsDepth matches the nesting limit of encoding/json, so arguments
// a server could decode can also be digested.
const maxArgumentsDepth = 10000

// DigestArguments returns the SHA-256 of the canonical form of arguments, a
// JSON value (normally an object). Two encodings of the same value give the
// same digest:
//
//   - insignificant whitespace is dropped;
//   - object members are sorted by key, compared case-insensitively (as
//     bytes.EqualFold); members whose keys differ only in case keep their
//     order, because encoding/json matches struct fields case-insensitively
//     and lets the last of them win, so their order changes the meaning;
//   - strings are re-encoded one way: escapes are decoded, and only '"', '\\'
//     and control characters are escaped again (as \" \\ and \u00XX); other
//     bytes, invalid UTF-8 included, are kept as they are;
//   - numbers are kept exactly as written, so 1, 1.0 and 1e0 differ (a retry
//     echoes the same text, and a false mismatch is safe where a false match
//     would not be);
//   - empty input and null both mean "no arguments" and equal {}.
//
// Values encoding/json would decode differently never share a digest.
// Invalid JSON, trailing data, nesting deeper than encoding/json allows, and
// an object that repeats a key are refused with ErrInvalidArguments.
func DigestArguments(arguments []byte) ([sha256.Size]byte, error) {
	canon, err := canonicalJSON(arguments)
	if err != nil {
		return [sha256.Size]byte{}, err
	}
	return sha256.Sum256(canon), nil
}

// canonicalJSON returns the canonical encoding described on DigestArguments.
func canonicalJSON(data []byte) ([]byte, error) {
	trimmed := bytes.Trim(data, " \t\r\n")
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return []byte("{}"), nil
	}
	c := canonicalizer{in: trimmed, out: make([]byte, 0, len(trimmed))}
	if err := c.value(0); err != nil {
		return nil, err
	}
	if c.pos != len(c.in) {
		return nil, c.fail("data after the JSON value")
	}
	return c.out, nil
}

// canonicalizer validates JSON and writes its canonical form in one pass.
type canonicalizer struct {
	in      []byte
	pos     int
	out     []byte
	members []memberSpan // stack of the open objects' members
	scratch []byte       // reused when an object's members need reordering
	folded  []byte       // case-folded keys of the object being sorted
}

// memberSpan locates one object member already written to out, and its
// case-folded key in folded.
type memberSpan struct {
	keyStart, keyEnd, end int
	foldStart, foldEnd    int
}

func (c *canonicalizer) fail(what string) error {
	return fmt.Errorf("%w: %s at offset %d", ErrInvalidArguments, what, c.pos)
}

func (c *canonicalizer) skipSpace() {
	for c.pos < len(c.in) {
		switch c.in[c.pos] {
		case ' ', '\t', '\n', '\r':
			c.pos++
		default:
			return
		}
	}
}

func (c *canonicalizer) value(depth int) error {
	c.skipSpace()
	if c.pos >= len(c.in) {
		return c.fail("unexpected end of JSON")
	}
	switch ch := c.in[c.pos]; {
	case ch == '{' || ch == '[':
		if depth >= maxArgumentsDepth {
			return c.fail(fmt.Sprintf("nesting deeper than %d", maxArgumentsDepth))
		}
		if ch == '{' {
			return c.object(depth + 1)
		}
		return c.array(depth + 1)
	case ch == '"':
		return c.str()
	case ch == '-' || ch >= '0' && ch <= '9':
		return c.number()
	case ch == 't':
		return c.literal("true")
	case ch == 'f':
		return c.literal("false")
	case ch == 'n':
		return c.literal("null")
	}
	return c.fail(fmt.Sprintf("unexpected character %q", c.in[c.pos]))
}

func (c *canonicalizer) literal(word string) error {
	if !bytes.HasPrefix(c.in[c.pos:], []byte(word)) {
		return c.fail("invalid literal")
	}
	c.pos += len(word)
	c.out = append(c.out, word...)
	return nil
}

func (c *canonicalizer) array(depth int) error {
	c.pos++ // '['
	c.out = append(c.out, '[')
	c.skipSpace()
	if c.pos < len(c.in) && c.in[c.pos] == ']' {
		c.pos++
		c.out = append(c.out, ']')
		return nil
	}
	for {
		if err := c.value(depth); err != nil {
			return err
		}
		c.skipSpace()
		if c.pos >= len(c.in) {
			return c.fail("unexpected end of JSON in array")
		}
		switch c.in[c.pos] {
		case ',':
			c.pos++
			c.out = append(c.out, ',')
		case ']':
			c.pos++
			c.out = append(c.out, ']')
			return nil
		default:
			return c.fail("want ',' or ']'")
		}
	}
}

func (c *canonicalizer) object(depth int) error {
	c.pos++ // '{'
	start := len(c.out)
	c.out = append(c.out, '{')
	base := len(c.members)
	defer func() { c.members = c.members[:base] }()
	c.skipSpace()
	if c.pos < len(c.in) && c.in[c.pos] == '}' {
		c.pos++
		c.out = append(c.out, '}')
		return nil
	}
	for {
		c.skipSpace()
		if c.pos >= len(c.in) || c.in[c.pos] != '"' {
			return c.fail("want an object key")
		}
		span := memberSpan{keyStart: len(c.out)}
		if err := c.str(); err != nil {
			return err
		}
		span.keyEnd = len(c.out)
		c.skipSpace()
		if c.pos >= len(c.in) || c.in[c.pos] != ':' {
			return c.fail("want ':'")
		}
		c.pos++
		c.out = append(c.out, ':')
		if err := c.value(depth); err != nil {
			return err
		}
		span.end = len(c.out)
		c.members = append(c.members, span)
		c.skipSpace()
		if c.pos >= len(c.in) {
			return c.fail("unexpected end of JSON in object")
		}
		if c.in[c.pos] == '}' {
			c.pos++
			break
		}
		if c.in[c.pos] != ',' {
			return c.fail("want ',' or '}'")
		}
		c.pos++
		c.out = append(c.out, ',')
	}
	if err := c.sortMembers(start, c.members[base:]); err != nil {
		return err
	}
	c.out = append(c.out, '}')
	return nil
}

// sortMembers puts the members of the object starting at out[start] in
// order of their case-folded keys, keeping the input order among keys that
// fold alike, and rewrites them in place (the length does not change). It
// refuses a repeated key.
func (c *canonicalizer) sortMembers(start int, members []memberSpan) error {
	c.folded = c.folded[:0]
	for i := range members {
		m := &members[i]
		m.foldStart = len(c.folded)
		c.folded = appendFolded(c.folded, c.out[m.keyStart:m.keyEnd])
		m.foldEnd = len(c.folded)
	}
	key := func(m memberSpan) []byte { return c.out[m.keyStart:m.keyEnd] }
	byFolded := func(a, b memberSpan) int {
		return bytes.Compare(c.folded[a.foldStart:a.foldEnd], c.folded[b.foldStart:b.foldEnd])
	}
	sorted := slices.IsSortedFunc(members, byFolded)
	if !sorted {
		slices.SortStableFunc(members, byFolded)
	}
	// Keys that are equal fold alike, so any repeat lies within a run of
	// equal folded keys; such runs are rare and short.
	for i := 1; i < len(members); i++ {
		for j := i - 1; j >= 0 && byFolded(members[j], members[i]) == 0; j-- {
			if bytes.Equal(key(members[j]), key(members[i])) {
				return c.fail(fmt.Sprintf("duplicate object key %s", key(members[i])))
			}
		}
	}
	if sorted {
		return nil
	}
	body := start + 1
	c.scratch = append(c.scratch[:0], c.out[body:]...)
	c.out = c.out[:body]
	for i, m := range members {
		if i > 0 {
			c.out = append(c.out, ',')
		}
		c.out = append(c.out, c.scratch[m.keyStart-body:m.end-body]...)
	}
	return nil
}

// appendFolded appends key with every character replaced by the smallest
// member of its Unicode simple case-folding orbit, so two keys fold alike
// exactly when bytes.EqualFold reports them equal. Invalid UTF-8 is kept.
func appendFolded(dst, key []byte) []byte {
	for i := 0; i < len(key); {
		ch := key[i]
		if ch < utf8.RuneSelf {
			if 'a' <= ch && ch <= 'z' {
				ch -= 'a' - 'A'
			}
			dst = append(dst, ch)
			i++
			continue
		}
		r, n := utf8.DecodeRune(key[i:])
		if r == utf8.RuneError && n == 1 {
			dst = append(dst, ch)
			i++
			continue
		}
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		dst = utf8.AppendRune(dst, least)
		i += n
	}
	return dst
}

// number validates a JSON number and copies it exactly as written.
func (c *canonicalizer) number() error {
	start := c.pos
	digits := func() int {
		n := 0
		for c.pos < len(c.in) && c.in[c.pos] >= '0' && c.in[c.pos] <= '9' {
			c.pos++
			n++
		}
		return n
	}
	if c.in[c.pos] == '-' {
		c.pos++
	}
	if c.pos < len(c.in) && c.in[c.pos] == '0' {
		c.pos++
	} else if digits() == 0 {
		return c.fail("invalid number")
	}
	if c.pos < len(c.in) && c.in[c.pos] == '.' {
		c.pos++
		if digits() == 0 {
			return c.fail("invalid number")
		}
	}
	if c.pos < len(c.in) && (c.in[c.pos] == 'e' || c.in[c.pos] == 'E') {
		c.pos++
		if c.pos < len(c.in) && (c.in[c.pos] == '+' || c.in[c.pos] == '-') {
			c.pos++
		}
		if digits() == 0 {
			return c.fail("invalid number")
		}
	}
	c.out = append(c.out, c.in[start:c.pos]...)
	return nil
}

// str decodes the string at c.pos and writes it in canonical form.
func (c *canonicalizer) str() error {
	c.pos++ // opening quote
	c.out = append(c.out, '"')
	for c.pos < len(c.in) {
		ch := c.in[c.pos]
		switch {
		case ch == '"':
			c.pos++
			c.out = append(c.out, '"')
			return nil
		case ch < 0x20:
			return c.fail("control character in string")
		case ch != '\\':
			c.pos++
			c.out = append(c.out, ch)
			continue
		}
		if c.pos+1 >= len(c.in) {
			return c.fail("unterminated string")
		}
		esc := c.in[c.pos+1]
		c.pos += 2
		switch esc {
		case '"', '\\', '/':
			c.appendRune(rune(esc))
		case 'b':
			c.appendRune('\b')
		case 'f':
			c.appendRune('\f')
		case 'n':
			c.appendRune('\n')
		case 'r':
			c.appendRune('\r')
		case 't':
			c.appendRune('\t')
		case 'u':
			r, ok := c.hex4()
			if !ok {
				return c.fail("invalid \\u escape")
			}
			if utf16.IsSurrogate(r) {
				r = c.surrogatePair(r)
			}
			c.appendRune(r)
		default:
			return c.fail("invalid escape")
		}
	}
	return c.fail("unterminated string")
}

// hex4 reads the four hex digits after "\u".
func (c *canonicalizer) hex4() (rune, bool) {
	if c.pos+4 > len(c.in) {
		return 0, false
	}
	var r rune
	for _, h := range c.in[c.pos : c.pos+4] {
		switch {
		case h >= '0' && h <= '9':
			h -= '0'
		case h >= 'a' && h <= 'f':
			h -= 'a' - 10
		case h >= 'A' && h <= 'F':
			h -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(h)
	}
	c.pos += 4
	return r, true
}

// surrogatePair completes the UTF-16 surrogate high with the "\uXXXX" escape
// that follows, consuming it only when the two form a valid pair. Anything
// else yields U+FFFD and leaves the next escape to be read on its own, as
// encoding/json does.
func (c *canonicalizer) surrogatePair(high rune) rune {
	save := c.pos
	if c.pos+2 <= len(c.in) && c.in[c.pos] == '\\' && c.in[c.pos+1] == 'u' {
		c.pos += 2
		if low, ok := c.hex4(); ok {
			if r := utf16.DecodeRune(high, low); r != utf8.RuneError {
				return r
			}
		}
	}
	c.pos = save
	return utf8.RuneError
}

// appendRune writes a decoded character, escaping only what JSON requires.
func (c *canonicalizer) appendRune(r rune) {
	const hex = "0123456789abcdef"
	switch {
	case r == '"' || r == '\\':
		c.out = append(c.out, '\\', byte(r))
	case r < 0x20:
		c.out = append(c.out, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xf])
	default:
		c.out = utf8.AppendRune(c.out, r)
	}
}
