package requeststate

import (
	"crypto/sha256"
	"encoding/binary"
)

// Binding identifies the call a state belongs to. Seal records it inside the
// sealed state and Open refuses a state whose binding differs, so a state
// issued for one call cannot be replayed on another.
type Binding struct {
	// Method is the JSON-RPC method: "tools/call", "prompts/get" or
	// "resources/read".
	Method string
	// Name is the tool or prompt name, or the resource URI.
	Name string
	// ArgumentsDigest is DigestArguments of the call's arguments (the zero
	// value is not the digest of "no arguments"; use NewBinding or
	// DigestArguments(nil)).
	ArgumentsDigest [sha256.Size]byte
	// Principal is the authenticated caller (for example the OAuth subject),
	// or "" when the transport has none. It must come from authentication,
	// never from the request body.
	Principal string
}

// NewBinding builds a Binding, digesting arguments (the raw JSON of the
// request's "arguments" member; nil when absent) with DigestArguments.
func NewBinding(method, name string, arguments []byte, principal string) (Binding, error) {
	d, err := DigestArguments(arguments)
	if err != nil {
		return Binding{}, err
	}
	return Binding{Method: method, Name: name, ArgumentsDigest: d, Principal: principal}, nil
}

// bindingDomain separates binding digests from any other SHA-256 use.
const bindingDomain = "mcpkit/requeststate binding v1\x00"

// digest is the value sealed with the state. Each string is length-prefixed,
// so no two different bindings encode to the same bytes.
func (b Binding) digest() [sha256.Size]byte {
	var stack [256]byte
	buf := append(stack[:0], bindingDomain...)
	buf = appendString(buf, b.Method)
	buf = appendString(buf, b.Name)
	buf = append(buf, b.ArgumentsDigest[:]...)
	buf = appendString(buf, b.Principal)
	return sha256.Sum256(buf)
}

func appendString(buf []byte, s string) []byte {
	buf = binary.AppendUvarint(buf, uint64(len(s)))
	return append(buf, s...)
}
