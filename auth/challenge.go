package auth

import (
	"net/http"
	"strings"
)

// Challenge is one challenge of a WWW-Authenticate header (RFC 9110 §11.6.1).
type Challenge struct {
	// Scheme is the authentication scheme as sent ("Bearer", "DPoP", ...). Compare
	// it case-insensitively (strings.EqualFold).
	Scheme string
	// Token68 is the scheme's single token68 value, when it has one instead of
	// parameters.
	Token68 string
	// Params holds the auth-params, keyed by lower-cased name, with quoted values
	// unquoted. A parameter that appears twice keeps its first value.
	Params map[string]string
}

// Param returns the value of the named parameter (names are case-insensitive).
func (c Challenge) Param(name string) string {
	return c.Params[strings.ToLower(name)]
}

// Is reports whether the challenge's scheme is scheme, ignoring case.
func (c Challenge) Is(scheme string) bool { return strings.EqualFold(c.Scheme, scheme) }

// ParseChallenges parses every challenge of the WWW-Authenticate header values
// (a response may send several values, each with several challenges). It never
// fails: what cannot be parsed ends the value it is in, and the challenges read
// before it are returned.
func ParseChallenges(values []string) []Challenge {
	var out []Challenge
	for _, v := range values {
		out = parseChallengeList(v, out)
	}
	return out
}

// ChallengesOf parses the WWW-Authenticate challenges of a response.
func ChallengesOf(resp *http.Response) []Challenge {
	if resp == nil {
		return nil
	}
	return ParseChallenges(resp.Header.Values("WWW-Authenticate"))
}

// isTchar reports whether c may appear in an RFC 9110 token.
func isTchar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// isToken68 reports whether c may appear in a token68 before its trailing '='s.
func isToken68(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~+/", c) >= 0
}

// scanner walks one header value.
type scanner struct {
	s string
	i int
}

func (p *scanner) skipSpace() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

// skipCommas skips whitespace and empty list elements.
func (p *scanner) skipCommas() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == ',') {
		p.i++
	}
}

func (p *scanner) token() string {
	start := p.i
	for p.i < len(p.s) && isTchar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

func (p *scanner) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

// quoted reads a quoted-string starting at the opening quote; ok is false when it
// is not closed.
func (p *scanner) quoted() (string, bool) {
	p.i++ // the opening quote
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch c {
		case '"':
			p.i++
			return b.String(), true
		case '\\':
			if p.i+1 >= len(p.s) {
				return "", false
			}
			p.i++
			c = p.s[p.i]
		}
		b.WriteByte(c)
		p.i++
	}
	return "", false
}

// paramAhead reports whether an auth-param (token BWS "=" BWS value) starts at
// the current position, without consuming anything.
func (p *scanner) paramAhead() bool {
	save := p.i
	defer func() { p.i = save }()
	if p.token() == "" {
		return false
	}
	p.skipSpace()
	if p.peek() != '=' {
		return false
	}
	p.i++
	p.skipSpace()
	c := p.peek()
	return c == '"' || (c != '=' && isTchar(c))
}

// parseChallengeList appends the challenges of one header value to out.
func parseChallengeList(v string, out []Challenge) []Challenge {
	p := &scanner{s: v}
	for {
		p.skipCommas()
		if p.i >= len(p.s) {
			return out
		}
		scheme := p.token()
		if scheme == "" {
			return out
		}
		c := Challenge{Scheme: scheme, Params: map[string]string{}}
		p.skipSpace()
		if !p.paramAhead() && p.peek() != ',' && p.i < len(p.s) {
			start := p.i
			for p.i < len(p.s) && isToken68(p.s[p.i]) {
				p.i++
			}
			for p.i < len(p.s) && p.s[p.i] == '=' {
				p.i++
			}
			c.Token68 = p.s[start:p.i]
			p.skipSpace()
			if c.Token68 == "" || (p.i < len(p.s) && p.s[p.i] != ',') {
				return append(out, c)
			}
			out = append(out, c)
			continue
		}
		// auth-params, up to the next challenge.
		for {
			p.skipCommas()
			if !p.paramAhead() {
				break
			}
			name := strings.ToLower(p.token())
			p.skipSpace()
			p.i++ // '='
			p.skipSpace()
			var val string
			if p.peek() == '"' {
				q, ok := p.quoted()
				if !ok {
					return append(out, c)
				}
				val = q
			} else {
				val = p.token()
			}
			if _, dup := c.Params[name]; !dup {
				c.Params[name] = val
			}
			p.skipSpace()
			if p.i < len(p.s) && p.s[p.i] != ',' {
				return append(out, c)
			}
		}
		out = append(out, c)
	}
}

// challengeFor returns the first challenge whose scheme is one of schemes.
func challengeFor(cs []Challenge, schemes ...string) (Challenge, bool) {
	for _, c := range cs {
		for _, s := range schemes {
			if c.Is(s) {
				return c, true
			}
		}
	}
	return Challenge{}, false
}
