package upstream

import "bytes"

// utf8BOM is the UTF-8 encoding of U+FEFF, the byte order mark.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// stripJSONC returns data with the extensions of "JSON with comments" (the
// format of VS Code's settings.json and mcp.json) blanked out: // and /* */
// comments and commas before a closing bracket or brace become spaces. The
// result has the same length and the same line breaks, so the offsets in a
// decoding error still point into the original file. A leading UTF-8 byte
// order mark (Notepad writes one; VS Code and Claude Desktop read such files)
// is blanked too. Plain JSON comes back unchanged (a copy).
func stripJSONC(data []byte) []byte {
	out := make([]byte, len(data))
	copy(out, data)
	if bytes.HasPrefix(out, utf8BOM) {
		copy(out, "   ")
	}
	inString := false
	lastComma := -1 // offset of a comma not yet followed by anything but blanks
	for i := 0; i < len(out); i++ {
		c := out[i]
		if inString {
			switch c {
			case '\\':
				i++ // the escaped character cannot end the string
			case '"':
				inString = false
			}
			continue
		}
		switch {
		case c == '"':
			inString = true
			lastComma = -1
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			out[i], out[i+1] = ' ', ' '
			for i += 2; i < len(out); i++ {
				if out[i] == '*' && i+1 < len(out) && out[i+1] == '/' {
					out[i], out[i+1] = ' ', ' '
					i++
					break
				}
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
		case c == ',':
			lastComma = i
		case c == '}' || c == ']':
			if lastComma >= 0 {
				out[lastComma] = ' '
			}
			lastComma = -1
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			lastComma = -1
		}
	}
	return out
}

// lineCol returns the 1-based line and column of offset in data.
func lineCol(data []byte, offset int64) (line, col int) {
	line, col = 1, 1
	for i := int64(0); i < offset && i < int64(len(data)); i++ {
		if data[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}
