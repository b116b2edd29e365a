package llm

import (
	"crypto/sha256"
	"encoding/hex"
)

// MaxToolNameLen is the longest tool name OpenAI and Anthropic accept.
const MaxToolNameLen = 64

// ValidToolName reports whether name is a tool name both OpenAI and Anthropic
// accept: ^[a-zA-Z0-9_-]{1,64}$.
func ValidToolName(name string) bool {
	if name == "" || len(name) > MaxToolNameLen {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !nameByte(name[i]) {
			return false
		}
	}
	return true
}

func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// ModelToolNames returns, for each of names, a name models accept
// (ValidToolName), all of them distinct. A valid name is kept as it is. Any
// other has each byte outside [a-zA-Z0-9_-] replaced with "_"; when that is
// too long, or equals another name, it is cut and ends with "_" and eight hex
// digits of the SHA-256 of the original name. The result depends on the set
// of names only, not on their order (duplicates in names get the same name).
func ModelToolNames(names []string) []string {
	out := make([]string, len(names))
	taken := make(map[string]string, len(names)) // model name → original
	for i, n := range names {
		if ValidToolName(n) {
			out[i] = n
			taken[n] = n
		}
	}
	sanitized := make(map[string]int, len(names)) // how many originals sanitize to it
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		if !ValidToolName(n) && !seen[n] {
			seen[n] = true
			sanitized[sanitize(n)]++
		}
	}
	for i, n := range names {
		if out[i] != "" {
			continue
		}
		s := sanitize(n)
		if _, clash := taken[s]; clash || sanitized[s] > 1 || s == "" || len(s) > MaxToolNameLen {
			s = hashedName(s, n)
		}
		out[i] = s
		taken[s] = n
	}
	return out
}

// sanitize replaces the bytes models refuse in a tool name with "_".
func sanitize(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !nameByte(c) {
			b[i] = '_'
		}
	}
	return string(b)
}

// hashedName cuts s to leave room for a suffix naming original.
func hashedName(s, original string) string {
	sum := sha256.Sum256([]byte(original))
	suffix := "_" + hex.EncodeToString(sum[:4])
	if max := MaxToolNameLen - len(suffix); len(s) > max {
		s = s[:max]
	}
	return s + suffix
}
