package jsonscan

import (
	"bytes"
	"strings"
	"testing"
)

// referenceString is String as it was before it read eight bytes at a time:
// one byte per step, the obvious transcription of the grammar. The tests below
// hold String to it, result for result and position for position.
func referenceString(d []byte, pos int) (raw []byte, escaped bool, end int, err error) {
	start := pos + 1
	for i := start; i < len(d); i++ {
		switch c := d[i]; {
		case c == '"':
			return d[start:i], escaped, i + 1, nil
		case c == '\\':
			escaped = true
			i++
			if i >= len(d) {
				return nil, false, pos, ErrSyntax
			}
			switch d[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(d)-i < 5 {
					return nil, false, pos, ErrSyntax
				}
				for _, h := range d[i+1 : i+5] {
					if !isHex(h) {
						return nil, false, pos, ErrSyntax
					}
				}
				i += 4
			default:
				return nil, false, pos, ErrSyntax
			}
		case c < 0x20:
			return nil, false, pos, ErrSyntax
		}
	}
	return nil, false, pos, ErrSyntax
}

// sameAsReference fails t unless String, started at every offset of data,
// does exactly what referenceString does.
func sameAsReference(t *testing.T, data []byte) {
	t.Helper()
	for start := range data {
		s := Scanner{Data: data, Pos: start}
		raw, escaped, err := s.String()
		wantRaw, wantEscaped, wantEnd, wantErr := referenceString(data, start)
		if !bytes.Equal(raw, wantRaw) || (raw == nil) != (wantRaw == nil) || escaped != wantEscaped || err != wantErr || s.Pos != wantEnd {
			t.Fatalf("String at %d of %q = %q, %v, %v, Pos %d; the reference says %q, %v, %v, Pos %d",
				start, data, raw, escaped, err, s.Pos, wantRaw, wantEscaped, wantErr, wantEnd)
		}
	}
}

// TestStringEveryByteEveryLane puts each of the 256 byte values at each
// offset of strings long enough for several eight-byte words (and in the
// one-by-one tail), alone and after an escape, and checks String against the
// reference: every lane of the word-at-a-time test sees every byte.
func TestStringEveryByteEveryLane(t *testing.T) {
	for n := 1; n <= 20; n++ {
		for k := 0; k < n; k++ {
			for c := 0; c < 256; c++ {
				body := []byte(strings.Repeat("a", n))
				body[k] = byte(c)
				sameAsReference(t, append(append([]byte(`"`), body...), `"x`...))
				sameAsReference(t, append(append([]byte(`"\n`), body...), '"'))
				sameAsReference(t, append([]byte(`"`), body...)) // never closed
			}
		}
	}
}

// FuzzStringMatchesReference checks String against the byte-at-a-time
// reference on any input, from every starting offset.
func FuzzStringMatchesReference(f *testing.F) {
	for _, s := range []string{
		`"plain key" : "io.modelcontextprotocol/clientCapabilities"`,
		`"The quick brown fox jumps over the \"lazy\" dog.\n\u00e9\uD83D\uDE00 and on"`,
		"\"eight by\x1ftes\"", `"0123456789abcdef\`, `"0123456789abcd\u12"`, `"0123456\q89"`,
		"\"caf\xc3\xa9 \xff\xfe\x80\x7f\"", `""`, `"`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(sameAsReference)
}

// referenceSkipValue is SkipValue as it was before it kept its position in a
// local variable: the same walk through the Scanner's own methods. The tests
// below hold SkipValue to it, error for error and position for position.
func referenceSkipValue(s *Scanner, depth int) error {
	if depth > MaxDepth {
		return ErrDepth
	}
	switch c := s.Peek(); c {
	case '{', '[':
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		s.Pos++
		s.SkipSpace()
		if s.Peek() == closing {
			s.Pos++
			return nil
		}
		for {
			if c == '{' {
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
			}
			if err := referenceSkipValue(s, depth+1); err != nil {
				return err
			}
			s.SkipSpace()
			switch s.Peek() {
			case ',':
				s.Pos++
				s.SkipSpace()
			case closing:
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

// skipSameAsReference fails t unless SkipValue, started at every offset of
// data, with and without an exponent limit, at the top level and near
// MaxDepth, ends where referenceSkipValue ends, with the same error.
func skipSameAsReference(t *testing.T, data []byte) {
	t.Helper()
	for start := range data {
		for _, maxExp := range []int{0, 2} {
			for _, depth := range []int{0, MaxDepth - 2} {
				got := Scanner{Data: data, Pos: start, MaxExponent: maxExp}
				want := got
				err, wantErr := got.SkipValue(depth), referenceSkipValue(&want, depth)
				if err != wantErr || got.Pos != want.Pos {
					t.Fatalf("SkipValue(%d) at %d of %q, MaxExponent %d = %v, Pos %d; the reference says %v, Pos %d",
						depth, start, data, maxExp, err, got.Pos, wantErr, want.Pos)
				}
			}
		}
	}
}

func TestSkipValueMatchesReference(t *testing.T) {
	for _, s := range skipSeeds {
		skipSameAsReference(t, []byte(s))
	}
}

var skipSeeds = []string{
	` { "a" : [ 1 , {"b":null} , "x" ] ,` + "\n\t" + `"c":{}` + "\r} ", `{"a":[1,2]} , "next"`,
	`[[[[1e5]]]]`, `{"a":{"b":{"c":[true,false,null,-0.5e-3]}}}`, `{"a":1,}`, `[1 2]`, `{"a" 1}`, `{"a":}`,
	`{,}`, `[,]`, `{"a\u12":1}`, `tru`, `nulll`, `-`, `1.`, `{"a":1`, `[1`, `{"a"`, `"abc`, `1e999`,
}

// FuzzSkipValueMatchesReference checks SkipValue against the reference on
// any input.
func FuzzSkipValueMatchesReference(f *testing.F) {
	for _, s := range skipSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			t.Skip("quadratic check: long inputs add nothing")
		}
		skipSameAsReference(t, data)
	})
}
