package llm

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// MaxToolNameLen is the longest tool name OpenAI and Anthropic accept.
const MaxToolNameLen = 64

// ToolNameSeparator joins a server's name and its tool's name in the names
// ToolNames gives.
const ToolNameSeparator = "__"

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

// ToolRef is one tool (or prompt) of one server. An empty Server stands for
// a tool offered under its own name.
type ToolRef struct {
	Server string
	Name   string
}

// hashLens are the lengths, in hex digits, of the suffixes a name may get: a
// name first gets none (when it can do without), then longer ones while it
// still collides. 63 digits of SHA-256 (252 bits) leave room for the "_".
var hashLens = []int{0, 8, 12, 16, 24, 32, 48, 63}

// ToolNames gives each ref a name for models (and MCP clients):
// "<server>__<name>" (just the name when Server is empty), made of
// [a-zA-Z0-9_-]: letters with accents lose them ("ü" becomes "u"; Unicode
// compatibility decomposition), and every other character becomes "_".
//
// A name is stable: a ref gets the same name whatever other refs there are.
// So a name that had to change (a character replaced, or cut because it is
// too long), and one whose split into server and name is ambiguous (a server
// name that contains "__" or ends with "_"), always ends with "_" and the
// first 8 hex digits of a SHA-256 of the server and name: two tools that
// read the same once cleaned never share a name, and neither has to change
// when the other appears. A name that needed no change is kept as it is.
// Only a name built to collide (a clean name equal to another's suffixed
// one) makes the suffixes grow longer, and then the ref whose name needed no
// change keeps it.
//
// Every name is valid (ValidToolName), the names are distinct, and the result
// depends only on the set of refs (not on their order).
func ToolNames(refs []ToolRef) map[ToolRef]string {
	level := make(map[ToolRef]int, len(refs))
	for _, r := range refs {
		if _, dup := level[r]; dup {
			continue
		}
		if n := r.nameAt(0); ValidToolName(n) && n == r.joined() && !ambiguousServer(r.Server) {
			level[r] = 0
		} else {
			level[r] = 1 // a suffix from the start: the name is stable
		}
	}
	names := make(map[ToolRef]string, len(level))
	for {
		byName := make(map[string][]ToolRef, len(level))
		for r, l := range level {
			n := r.nameAt(l)
			names[r] = n
			byName[n] = append(byName[n], r)
		}
		clash := false
		for _, group := range byName {
			if len(group) < 2 {
				continue
			}
			// The one ref of the group whose name is its own, unchanged,
			// keeps it; with none, or several, every ref moves on.
			var owner *ToolRef
			owners := 0
			for i, r := range group {
				if level[r] == 0 && names[r] == r.joined() {
					owner, owners = &group[i], owners+1
				}
			}
			for _, r := range group {
				if owners == 1 && r == *owner {
					continue
				}
				if level[r] < len(hashLens)-1 {
					level[r]++
					clash = true
				}
			}
		}
		if !clash {
			// Either every name is distinct, or 252-bit prefixes of SHA-256
			// collided, which does not happen.
			return names
		}
	}
}

// ModelToolNames returns, for each of names, a name models accept: the name
// ToolNames gives a ref with no server. A valid name is kept; any other is
// sanitized, and hashed when too long or when it would equal another name.
// Duplicates in names get the same name, and the result depends on the set
// of names only, not on their order.
func ModelToolNames(names []string) []string {
	refs := make([]ToolRef, len(names))
	for i, n := range names {
		refs[i] = ToolRef{Name: n}
	}
	assigned := ToolNames(refs)
	out := make([]string, len(names))
	for i, r := range refs {
		out[i] = assigned[r]
	}
	return out
}

// joined is the ref's name before any change.
func (r ToolRef) joined() string {
	if r.Server == "" {
		return r.Name
	}
	return r.Server + ToolNameSeparator + r.Name
}

// nameAt returns r's name at level l: sanitized, with the suffix of that
// level (none at level 0, where the name may be too long).
func (r ToolRef) nameAt(l int) string {
	base := sanitize(r.Name)
	if r.Server != "" {
		base = sanitize(r.Server) + ToolNameSeparator + base
	}
	k := hashLens[l]
	if k == 0 {
		return base
	}
	if keep := MaxToolNameLen - 1 - k; len(base) > keep {
		base = base[:keep]
	}
	return base + "_" + r.hash()[:k]
}

// hash is the hex SHA-256 of r, its two parts length-prefixed so that no two
// refs share an input.
func (r ToolRef) hash() string {
	var buf []byte
	buf = binary.AppendUvarint(buf, uint64(len(r.Server)))
	buf = append(buf, r.Server...)
	buf = append(buf, r.Name...)
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:])
}

// ambiguousServer reports whether a server name could make "<server>__<name>"
// read as another server's: one that contains the separator or ends with "_".
func ambiguousServer(server string) bool {
	return strings.Contains(server, ToolNameSeparator) || strings.HasSuffix(server, "_")
}

// sanitize returns s in [a-zA-Z0-9_-]: a character outside is replaced by its
// compatibility decomposition (NFKD) without combining marks ("ü" → "u",
// "ﬁ" → "fi", full-width letters → ASCII) when that is ASCII, and by "_"
// otherwise (one per character, not per byte).
func sanitize(s string) string {
	ok := true
	for i := 0; i < len(s); i++ {
		if !nameByte(s[i]) {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	var b strings.Builder
	var dec [32]byte
	for _, c := range s {
		switch {
		case c < 0x80 && nameByte(byte(c)):
			b.WriteRune(c)
		case c >= 0x80:
			writeFolded(&b, norm.NFKD.AppendString(dec[:0], string(c)))
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// writeFolded writes the decomposition d of one character: its name bytes,
// with combining marks dropped; "_" when nothing of it is left.
func writeFolded(b *strings.Builder, d []byte) {
	wrote := false
	for _, c := range string(d) {
		switch {
		case c < 0x80 && nameByte(byte(c)):
			b.WriteRune(c)
			wrote = true
		case unicode.Is(unicode.Mn, c):
		default:
			b.WriteByte('_')
			wrote = true
		}
	}
	if !wrote {
		b.WriteByte('_')
	}
}
