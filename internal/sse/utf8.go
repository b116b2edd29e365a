package sse

import "unicode/utf8"

const replacementChar = "\uFFFD"

// appendValidUTF8 appends src to dst with every ill-formed UTF-8 sequence replaced by
// U+FFFD exactly as the WHATWG Encoding Standard's UTF-8 decoder does: one replacement
// per maximal subpart of an ill-formed sequence (so the truncated sequence E2 82
// becomes a single U+FFFD, where decoding rune by rune would give two). Event streams
// are defined as UTF-8 decoded this way. Valid input is copied unchanged.
//
// Decoding each field value on its own gives the same text as decoding the whole
// stream first, because the bytes the parser looks for (CR, LF and colon) are ASCII,
// and an ASCII byte always ends an ill-formed sequence and is then read by itself.
func appendValidUTF8(dst, src []byte) []byte {
	if utf8.Valid(src) {
		return append(dst, src...)
	}
	var (
		needed, seen int  // continuation bytes the current sequence needs, and has
		start        int  // index of the current sequence's first byte
		lower, upper byte = 0x80, 0xBF
	)
	for i := 0; i < len(src); {
		b := src[i]
		if needed == 0 {
			switch {
			case b < 0x80:
				dst = append(dst, b)
			case b >= 0xC2 && b <= 0xDF:
				needed = 1
			case b >= 0xE0 && b <= 0xEF:
				if b == 0xE0 {
					lower = 0xA0 // no overlong forms
				} else if b == 0xED {
					upper = 0x9F // no surrogates
				}
				needed = 2
			case b >= 0xF0 && b <= 0xF4:
				if b == 0xF0 {
					lower = 0x90 // no overlong forms
				} else if b == 0xF4 {
					upper = 0x8F // nothing above U+10FFFF
				}
				needed = 3
			default:
				dst = append(dst, replacementChar...)
			}
			start = i
			i++
			continue
		}
		if b < lower || b > upper {
			// The sequence is cut short: replace it and read b again on its own.
			needed, seen, lower, upper = 0, 0, 0x80, 0xBF
			dst = append(dst, replacementChar...)
			continue
		}
		lower, upper = 0x80, 0xBF
		seen++
		i++
		if seen == needed {
			dst = append(dst, src[start:i]...)
			needed, seen = 0, 0
		}
	}
	if needed != 0 {
		dst = append(dst, replacementChar...) // truncated at the end
	}
	return dst
}

// validString returns b as a string with ill-formed UTF-8 replaced (see appendValidUTF8).
func validString(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return string(appendValidUTF8(make([]byte, 0, len(b)+8), b))
}
