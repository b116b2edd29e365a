package upstream

import (
	"cmp"
	"net/url"
	"slices"
	"strings"
)

// Redacted replaces a secret in what Redact returns.
const Redacted = "[redacted]"

// minSecretLen is the length below which a value is not redacted: shorter
// values ("1", "true", "debug") are settings rather than credentials, and
// blanking them would blank common words in error messages.
const minSecretLen = 6

// Redact returns text with every value of the server's configuration that may
// be a secret replaced by Redacted: the values of env and headers (and the
// words after the first of a header's value, such as the token of
// "Bearer <token>"), the
// password and the query values of url, and every value Parse substituted for
// a variable (but ${userHome}). Values shorter than six characters are left.
//
// The supervisor applies it to what it keeps and reports of a server — its
// last error, its stderr lines, its log lines — so that a status page or a
// message to a client never shows a credential the configuration holds, even
// when a server prints its own environment.
func (s *ServerConfig) Redact(text string) string {
	return s.redactor().Replace(text)
}

// redactor returns the Replacer that Redact applies (the runner keeps one).
func (s *ServerConfig) redactor() *strings.Replacer {
	secrets := s.secretValues()
	pairs := make([]string, 0, 2*len(secrets))
	for _, v := range secrets {
		pairs = append(pairs, v, Redacted)
	}
	return strings.NewReplacer(pairs...)
}

// secretValues lists the values Redact replaces, longest first (a Replacer
// tries them in order: a secret that contains another is replaced whole).
func (s *ServerConfig) secretValues() []string {
	var out []string
	add := func(v string) {
		if len(v) >= minSecretLen && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	for _, v := range s.Env {
		add(v)
	}
	for _, v := range s.Headers {
		add(v)
		if words := strings.Fields(v); len(words) > 1 {
			for _, word := range words[1:] { // after the scheme of "Bearer <token>"
				add(word)
			}
		}
	}
	if u, err := url.Parse(s.URL); err == nil && s.URL != "" {
		if p, ok := u.User.Password(); ok {
			add(p)
			add(url.QueryEscape(p))
		}
		for _, vs := range u.Query() {
			for _, v := range vs {
				add(v)
				add(url.QueryEscape(v))
			}
		}
	}
	for _, v := range s.secrets {
		add(v)
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return out
}
