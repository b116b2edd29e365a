package gateway

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strings"
)

// Separator joins a server's name and a tool's or prompt's name.
const Separator = "__"

// MaxNameLen is the longest name OpenAI and Anthropic accept for a tool.
const MaxNameLen = 64

// Ref is one tool (or prompt) of one server.
type Ref struct {
	Server string
	Name   string
}

// hashLens are the lengths, in hex digits, of the suffixes a name may get: a
// name first gets none (when it can do without), then longer ones while it
// still collides. 63 digits of SHA-256 (252 bits) leave room for the "_".
var hashLens = []int{0, 8, 12, 16, 24, 32, 48, 63}

// AssignNames gives each ref a name for clients and models: "<server>__<name>"
// when that is already made of [a-zA-Z0-9_-], is at most 64 characters and no
// other ref wants it; otherwise the same with every other character replaced
// by "_", cut to fit, and ended by "_" and the first hex digits of a SHA-256 of
// the server and name. Refs that would share a name all get suffixes, made
// longer until the names differ.
//
// Every name matches ^[a-zA-Z0-9_-]{1,64}$, the names are distinct, and the
// result depends only on the set of refs (not on their order): a ref keeps
// its name as long as no new ref collides with it.
func AssignNames(refs []Ref) map[Ref]string {
	level := make(map[Ref]int, len(refs))
	for _, r := range refs {
		if _, dup := level[r]; dup {
			continue
		}
		if cleanName(r) == "" {
			level[r] = 1 // needs a suffix from the start
		} else {
			level[r] = 0
		}
	}
	names := make(map[Ref]string, len(level))
	for {
		byName := make(map[string][]Ref, len(level))
		for r, l := range level {
			n := nameAt(r, l)
			names[r] = n
			byName[n] = append(byName[n], r)
		}
		clash := false
		for _, group := range byName {
			if len(group) < 2 {
				continue
			}
			for _, r := range group {
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

// cleanName returns "<server>__<name>" if it needs no change, else "".
func cleanName(r Ref) string {
	n := r.Server + Separator + r.Name
	if len(n) > MaxNameLen || sanitize(n) != n {
		return ""
	}
	return n
}

// nameAt returns r's name with the suffix of level l (none at level 0).
func nameAt(r Ref, l int) string {
	k := hashLens[l]
	if k == 0 {
		return r.Server + Separator + r.Name
	}
	base := sanitize(r.Server) + Separator + sanitize(r.Name)
	if keep := MaxNameLen - 1 - k; len(base) > keep {
		base = base[:keep]
	}
	return base + "_" + refHash(r)[:k]
}

// refHash is the hex SHA-256 of r, its two parts length-prefixed so that no two
// refs share an input.
func refHash(r Ref) string {
	var buf []byte
	buf = binary.AppendUvarint(buf, uint64(len(r.Server)))
	buf = append(buf, r.Server...)
	buf = append(buf, r.Name...)
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:])
}

// sanitize replaces every character outside [a-zA-Z0-9_-] with "_" (one per
// character, not per byte).
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
	for _, c := range s {
		if c < 0x80 && nameByte(byte(c)) {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

func nameByte(c byte) bool {
	return c == '_' || c == '-' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}
