package resource

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// claims are the access token claims the verifier reads.
type claims struct {
	iss, sub, scope, clientID, azp string
	aud                            []string
	hasAud                         bool // aud was present (null included)
	exp, nbf                       float64
	hasExp, hasNbf                 bool
	scp                            []string
	jkt                            string // cnf.jkt
}

// claimsJSON is the claims as encoding/json reads them: the reference the
// hand-written decoder (parseClaims) must agree with.
type claimsJSON struct {
	Iss      string          `json:"iss"`
	Sub      string          `json:"sub"`
	Aud      json.RawMessage `json:"aud"`
	Exp      *float64        `json:"exp"`
	Nbf      *float64        `json:"nbf"`
	Scope    string          `json:"scope"`
	Scp      []string        `json:"scp"`
	ClientID string          `json:"client_id"`
	Azp      string          `json:"azp"`
	Cnf      *struct {
		Jkt string `json:"jkt"`
	} `json:"cnf"`
}

// decodeClaims reads a token's claims with encoding/json.
func decodeClaims(payload []byte) (claims, error) {
	var j claimsJSON
	if err := json.Unmarshal(payload, &j); err != nil {
		return claims{}, invalid("the claims are not a JSON object of the standard claim types", err)
	}
	c := claims{iss: j.Iss, sub: j.Sub, scope: j.Scope, clientID: j.ClientID, azp: j.Azp, scp: j.Scp, hasAud: len(j.Aud) > 0}
	if j.Exp != nil {
		c.exp, c.hasExp = *j.Exp, true
	}
	if j.Nbf != nil {
		c.nbf, c.hasNbf = *j.Nbf, true
	}
	if j.Cnf != nil {
		c.jkt = j.Cnf.Jkt
	}
	if c.hasAud {
		var err error
		if c.aud, err = audience(j.Aud); err != nil {
			return claims{}, invalid(errAudienceType, err)
		}
	}
	return c, nil
}

// errAudienceType is the reason given for an aud claim of the wrong type.
const errAudienceType = "the audience (aud) is neither a string nor an array of strings"

// audience reads aud, a string or an array of strings (or null).
func audience(raw json.RawMessage) ([]string, error) {
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("audience: %w", err)
		}
		return []string{s}, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("audience: %w", err)
	}
	return list, nil
}

// parseClaims reads the claims of the common shape by hand, as substrings of p
// (the payload, valid JSON). ok is false for anything encoding/json must decide:
// not an object; a member name with an escape or a non-ASCII byte, or one that
// matches a claim only case-insensitively (encoding/json's matching); a claim
// repeated, null, of another type, or a string with an escape; cnf; a number
// strconv refuses.
func parseClaims(p string) (c claims, ok bool) {
	i := skipSpace(p, 0)
	if i >= len(p) || p[i] != '{' {
		return c, false
	}
	i = skipSpace(p, i+1)
	if p[i] == '}' {
		return c, true
	}
	var seen uint16
	for {
		name, next, plain := jsonString(p, i)
		if !plain || !isASCII(name) {
			return c, false
		}
		i = skipSpace(p, skipSpace(p, next)+1) // past the colon
		bit, known := claimBit(name)
		if !known {
			if foldsToClaim(name) {
				return c, false
			}
			i = skipValue(p, i)
		} else {
			if seen&bit != 0 {
				return c, false
			}
			seen |= bit
			if i, ok = c.set(name, p, i); !ok {
				return c, false
			}
		}
		i = skipSpace(p, i)
		if p[i] == '}' {
			return c, true
		}
		i = skipSpace(p, i+1) // past the comma
	}
}

// claimNames are the claims read, in the order of their bits in parseClaims.
var claimNames = [...]string{"iss", "sub", "aud", "exp", "nbf", "scope", "scp", "client_id", "azp", "cnf"}

func claimBit(name string) (uint16, bool) {
	for k, n := range claimNames {
		if n == name {
			return 1 << k, true
		}
	}
	return 0, false
}

// foldsToClaim reports whether name matches a claim case-insensitively (but
// not exactly): encoding/json would take it for that claim.
func foldsToClaim(name string) bool {
	for _, n := range claimNames {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

// set reads the value at p[i] into the claim name and returns the index after
// it; ok is false when the value is not of the plain form parseClaims handles.
func (c *claims) set(name, p string, i int) (int, bool) {
	switch name {
	case "iss", "sub", "scope", "client_id", "azp":
		s, next, ok := plainString(p, i)
		if !ok {
			return 0, false
		}
		switch name {
		case "iss":
			c.iss = s
		case "sub":
			c.sub = s
		case "scope":
			c.scope = s
		case "client_id":
			c.clientID = s
		default:
			c.azp = s
		}
		return next, true
	case "exp", "nbf":
		end := skipValue(p, i)
		if p[i] != '-' && (p[i] < '0' || p[i] > '9') {
			return 0, false
		}
		f, err := strconv.ParseFloat(p[i:end], 64)
		if err != nil {
			return 0, false
		}
		if name == "exp" {
			c.exp, c.hasExp = f, true
		} else {
			c.nbf, c.hasNbf = f, true
		}
		return end, true
	case "aud":
		c.hasAud = true
		if p[i] == '"' {
			s, next, ok := plainString(p, i)
			if !ok {
				return 0, false
			}
			c.aud = []string{s}
			return next, true
		}
		list, next, ok := plainStrings(p, i)
		c.aud = list
		return next, ok
	case "scp":
		list, next, ok := plainStrings(p, i)
		c.scp = list
		return next, ok
	}
	return 0, false // cnf: rare (DPoP-bound tokens), left to encoding/json
}

// plainString reads the string at p[i] when it has no escape and is valid
// UTF-8 (encoding/json would replace bad bytes).
func plainString(p string, i int) (string, int, bool) {
	if p[i] != '"' {
		return "", 0, false
	}
	s, next, plain := jsonString(p, i)
	return s, next, plain && utf8.ValidString(s)
}

// plainStrings reads an array of plain strings at p[i] (never nil, as
// encoding/json makes it).
func plainStrings(p string, i int) ([]string, int, bool) {
	if p[i] != '[' {
		return nil, 0, false
	}
	n := 0 // count first, to allocate once
	for j := skipSpace(p, i+1); p[j] != ']'; {
		_, next, ok := plainString(p, j)
		if !ok {
			return nil, 0, false
		}
		n++
		j = skipSpace(p, next)
		if p[j] == ',' {
			j = skipSpace(p, j+1)
		}
	}
	out := make([]string, 0, n)
	j := skipSpace(p, i+1)
	for p[j] != ']' {
		s, next, _ := plainString(p, j)
		out = append(out, s)
		j = skipSpace(p, next)
		if p[j] == ',' {
			j = skipSpace(p, j+1)
		}
	}
	return out, j + 1, true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// The scanning helpers below walk JSON already known to be valid (json.Valid),
// as a string or as bytes.

// jsonString returns the content of the JSON string starting at b[i] (a
// quote) and the index after it; plain is false when it holds an escape.
func jsonString[T ~string | ~[]byte](b T, i int) (s T, next int, plain bool) {
	plain = true
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			plain = false
			j++
		case '"':
			return b[i+1 : j], j + 1, plain
		}
	}
	return b[:0], len(b), false // unreachable for valid JSON
}

// skipValue returns the index after the JSON value starting at b[i].
func skipValue[T ~string | ~[]byte](b T, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			_, i, _ = jsonString(b, i)
			if depth == 0 {
				return i
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i // the end of a scalar that ends its container
			}
			if depth--; depth == 0 {
				return i + 1
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
		}
		i++
	}
	return i
}

func skipSpace[T ~string | ~[]byte](b T, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
