package jsonscan

import "bytes"

// ContainsAround reports whether s contains sep, as bytes.Contains does. It
// looks for sep[at], a byte the caller picks because JSON text seldom holds
// it (a '/' or '_' of a key), where bytes.Contains stops at every occurrence
// of sep's first byte — often a '"', which every string of the text holds.
// It panics if at is not an index of sep.
func ContainsAround(s []byte, sep string, at int) bool {
	anchor, after := sep[at], len(sep)-at
	for i := at; i <= len(s)-after; i++ {
		j := bytes.IndexByte(s[i:len(s)-after+1], anchor)
		if j < 0 {
			return false
		}
		i += j
		if string(s[i-at:i+after]) == sep {
			return true
		}
	}
	return false
}
