package resource

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"
)

// StaticToken is a bearer token fixed in a server's configuration, for small
// setups without an authorization server. Name identifies its holder: the
// verified token's Subject, so its principal is "token#"+Name.
type StaticToken struct {
	Name, Token string
	// Scopes are what the token grants.
	Scopes []string
}

// StaticIssuer is the Issuer of the TokenInfo a StaticVerifier returns.
const StaticIssuer = "token"

// StaticVerifier accepts the tokens it was made with. Each presented token is
// compared with every configured one in constant time (digests of equal
// length, all of them compared), so neither timing nor the length of a near
// miss says which part matched. It keeps digests only.
type StaticVerifier struct {
	entries []staticEntry
}

type staticEntry struct {
	digest [32]byte
	info   *TokenInfo
}

// minStaticTokenLen is the shortest static token accepted: a guessable token
// is no protection.
const minStaticTokenLen = 16

// NewStaticVerifier returns a verifier of tokens. Names must be unique and
// non-empty, tokens unique and at least 16 characters of token68 (RFC 6750).
func NewStaticVerifier(tokens []StaticToken) (*StaticVerifier, error) {
	v := &StaticVerifier{}
	names := map[string]bool{}
	digests := map[[32]byte]bool{}
	for i, t := range tokens {
		switch {
		case t.Name == "" || strings.ContainsAny(t.Name, " \t\r\n:,#"):
			return nil, fmt.Errorf("static token %d: the name %q must be non-empty, without spaces, ':', ',' or '#'", i+1, t.Name)
		case names[t.Name]:
			return nil, fmt.Errorf("static token %q: the name is used twice", t.Name)
		case len(t.Token) < minStaticTokenLen:
			return nil, fmt.Errorf("static token %q: shorter than %d characters", t.Name, minStaticTokenLen)
		case !isToken68(t.Token):
			return nil, fmt.Errorf("static token %q: only letters, digits and -._~+/= may appear in a bearer token", t.Name)
		}
		d := sha256.Sum256([]byte(t.Token))
		if digests[d] {
			return nil, fmt.Errorf("static token %q: the same token as another name", t.Name)
		}
		names[t.Name], digests[d] = true, true
		v.entries = append(v.entries, staticEntry{digest: d, info: &TokenInfo{
			Issuer: StaticIssuer, Subject: t.Name, ClientID: t.Name, Scopes: t.Scopes,
		}})
	}
	return v, nil
}

// ErrUnknownStaticToken is the error of a token no StaticVerifier entry has.
var ErrUnknownStaticToken = fmt.Errorf("%w: not a configured token", ErrInvalidToken)

// Verify implements TokenVerifier.
func (v *StaticVerifier) Verify(_ context.Context, token string) (*TokenInfo, error) {
	d := sha256.Sum256([]byte(token))
	var found *TokenInfo
	for i := range v.entries {
		if subtle.ConstantTimeCompare(d[:], v.entries[i].digest[:]) == 1 {
			found = v.entries[i].info
		}
	}
	if found == nil {
		return nil, ErrUnknownStaticToken
	}
	return found, nil
}

func isToken68(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~+/=", c) >= 0
		if !ok {
			return false
		}
	}
	return true
}

// ParseStaticTokens reads static tokens from text: one per line (or separated
// by commas), as NAME:TOKEN followed by the scopes it grants, separated by
// spaces; blank lines and lines beginning with # are skipped. A token without
// scopes grants defaultScopes. Errors never quote a token.
func ParseStaticTokens(text string, defaultScopes []string) ([]StaticToken, error) {
	var out []StaticToken
	for n, line := range strings.Split(strings.ReplaceAll(text, ",", "\n"), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		name, token, ok := strings.Cut(fields[0], ":")
		if !ok || name == "" || token == "" {
			return nil, fmt.Errorf("entry %d: want NAME:TOKEN [SCOPE ...]", n+1)
		}
		scopes := fields[1:]
		if len(scopes) == 0 {
			scopes = defaultScopes
		}
		out = append(out, StaticToken{Name: name, Token: token, Scopes: scopes})
	}
	if len(out) == 0 {
		return nil, errors.New("no tokens")
	}
	return out, nil
}

// FirstOf returns a verifier that tries each of vs in turn and accepts the
// first verification that succeeds (static tokens before JWTs, for example).
// When all fail, the error is the last verifier's.
func FirstOf(vs ...TokenVerifier) TokenVerifier {
	if len(vs) == 1 {
		return vs[0]
	}
	return firstOf(vs)
}

type firstOf []TokenVerifier

func (f firstOf) Verify(ctx context.Context, token string) (*TokenInfo, error) {
	var err error
	for _, v := range f {
		var info *TokenInfo
		if info, err = v.Verify(ctx, token); err == nil {
			return info, nil
		}
	}
	return nil, err
}
