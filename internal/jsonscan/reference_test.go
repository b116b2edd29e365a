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
