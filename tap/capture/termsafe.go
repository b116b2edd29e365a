package capture

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// TermSafe returns s fit to print on a terminal. Every character that is not
// printable — C0 and C1 controls (ESC, BEL, CR, LF, …), DEL, format characters
// such as the bidirectional overrides, bytes that are not UTF-8 — is replaced by
// its Go escape (\x1b, \u202e), so that a string a peer chose (a method name, a
// session id, a path, an error text) cannot move the cursor, clear the screen,
// retitle the window or write the clipboard. A string with nothing to escape is
// returned as it is, without allocating. Every place that prints peer strings
// for a person (the tap's exit summary, tap stats, the CLI) goes through it.
func TermSafe(s string) string {
	for i := 0; i < len(s); {
		if c := s[i]; c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || !unicode.IsPrint(r) {
			return escapeFrom(s, i)
		}
		i += n
	}
	return s
}

// escapeFrom is TermSafe for a string whose first character to escape is at i.
func escapeFrom(s string, i int) string {
	b := make([]byte, 0, len(s)+16)
	b = append(b, s[:i]...)
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b = fmt.Appendf(b, `\x%02x`, s[i])
		case r >= 0x20 && r < 0x7f, r >= 0x80 && unicode.IsPrint(r):
			b = append(b, s[i:i+n]...)
		case r < 0x80:
			b = fmt.Appendf(b, `\x%02x`, r)
		case r <= 0xffff:
			b = fmt.Appendf(b, `\u%04x`, r)
		default:
			b = fmt.Appendf(b, `\U%08x`, r)
		}
		i += n
	}
	return string(b)
}
