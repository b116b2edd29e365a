package tap

import (
	"bytes"
	"net/url"
	"strings"
)

// Redacted replaces a secret in what the tap records.
const Redacted = "[REDACTED]"

// isSecretName reports whether a header, query parameter, flag or JSON member with
// this name carries a secret: credentials, tokens, keys, signatures, passwords.
// Session ids are not secrets here: the capture needs them to tell sessions apart.
func isSecretName(name string) bool {
	name = strings.TrimLeft(name, "-")
	var buf [64]byte
	if len(name) > len(buf) {
		return isSecretLower([]byte(strings.ToLower(name)))
	}
	n := buf[:len(name)]
	for i := range len(name) {
		n[i] = lower(name[i])
	}
	return isSecretLower(n)
}

// isSecretLower is isSecretName of a lower-case name.
func isSecretLower(n []byte) bool {
	switch string(n) {
	case "authorization", "proxy-authorization", "cookie", "set-cookie",
		"code", "key", "sig", "signature", "auth", "x-auth", "password", "passwd", "pwd", "pass", "secret",
		"token", "bearer", "apikey", "jwt", "credential", "credentials", "assertion", "client_assertion":
		return true
	}
	// The suffixes catch vendors' prefixed names: X-Amz-Signature and
	// X-Amz-Credential of a presigned URL are bearer credentials until they expire.
	for _, s := range [...]string{"token", "_key", "-key", ".key", "signature", "credential"} {
		if bytes.HasSuffix(n, []byte(s)) {
			return true
		}
	}
	for _, s := range [...]string{"secret", "password", "apikey", "api_key", "api-key", "private"} {
		if bytes.Contains(n, []byte(s)) {
			return true
		}
	}
	return false
}

// redactHeaderValue returns the recorded form of a secret header's value: the
// authentication scheme and cookie names and attributes stay visible (they tell
// what was sent), the secret parts do not.
func redactHeaderValue(name, value string) string {
	switch strings.ToLower(name) {
	case "authorization", "proxy-authorization":
		if scheme, _, ok := strings.Cut(value, " "); ok && scheme != "" {
			return scheme + " " + Redacted
		}
	case "cookie":
		parts := strings.Split(value, ";")
		for i, p := range parts {
			if name, _, ok := strings.Cut(p, "="); ok {
				parts[i] = name + "=" + Redacted
			}
		}
		return strings.Join(parts, ";")
	case "set-cookie":
		// "name=value; Path=/; HttpOnly": only the value is secret.
		first, attrs, _ := strings.Cut(value, ";")
		if name, _, ok := strings.Cut(first, "="); ok {
			if attrs != "" {
				return name + "=" + Redacted + ";" + attrs
			}
			return name + "=" + Redacted
		}
	}
	return Redacted
}

// redactTarget returns a request target (path and query) with the values of
// secret query parameters replaced; the rest is kept as sent.
func redactTarget(target string) string {
	path, query, ok := strings.Cut(target, "?")
	if !ok {
		return target
	}
	return path + "?" + redactQuery(query)
}

// redactQuery replaces the values of secret parameters in a raw query.
func redactQuery(query string) string {
	if query == "" {
		return query
	}
	var b strings.Builder
	for i, p := range strings.Split(query, "&") {
		if i > 0 {
			b.WriteByte('&')
		}
		name, _, hasValue := strings.Cut(p, "=")
		if plain, err := url.QueryUnescape(name); err == nil {
			name = plain
		}
		if hasValue && isSecretName(name) {
			b.WriteString(p[:strings.IndexByte(p, '=')+1])
			b.WriteString(Redacted)
			continue
		}
		b.WriteString(p)
	}
	return b.String()
}

// RedactURL returns a URL with its password and the values of its secret query
// parameters (access_token, key, code, ...) replaced. Text that does not parse as
// a URL is returned as is.
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" {
		return s
	}
	if u.User != nil {
		if _, has := u.User.Password(); has {
			u.User = url.UserPassword(u.User.Username(), "REDACTED")
		}
	}
	u.RawQuery = redactQuery(u.RawQuery)
	return u.String()
}

// RedactArgs returns a command line with secrets replaced: the value of a flag
// named like a secret (--api-key VALUE, --token=VALUE), NAME=VALUE arguments with
// such names, and passwords and secret parameters in URLs.
func RedactArgs(args []string) []string {
	out := make([]string, len(args))
	secretNext := false
	for i, a := range args {
		switch {
		case secretNext:
			out[i] = Redacted
			secretNext = false
		case strings.HasPrefix(a, "-"):
			name, _, hasValue := strings.Cut(a, "=")
			switch {
			case !isSecretName(name):
				out[i] = a
			case hasValue:
				out[i] = name + "=" + Redacted
			default:
				out[i] = a
				secretNext = true
			}
		case strings.Contains(a, "://"):
			out[i] = RedactURL(a)
		default:
			if name, _, ok := strings.Cut(a, "="); ok && isSecretName(name) {
				out[i] = name + "=" + Redacted
			} else {
				out[i] = a
			}
		}
	}
	return out
}
