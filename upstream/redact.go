package upstream

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
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

// RedactHandler returns a handler that passes what it handles to h with every
// secret of c's servers (what ServerConfig.Redact replaces, for all of them)
// replaced by Redacted: in the message and in every attribute, at every
// level, whatever logged it (the supervisor, the SDK's clients and
// transports under it, a gateway, the program). Errors, Stringers and other
// values whose text holds a secret become their redacted text. h itself is
// returned when the configuration holds no secret, or when h already redacts
// c's secrets.
//
// NewSupervisor applies it to its logger, so that no line of a server's
// stderr, of a failed probe or of a transport error shows a credential of
// the configuration.
//
// It redacts c's secrets only: a program whose configuration is reloaded
// logs through a [Redactor] instead, which follows it.
func (c *Config) RedactHandler(h slog.Handler) slog.Handler {
	if rh, ok := h.(*redactHandler); ok && rh.cfg == c {
		return h
	}
	secrets := c.secretValues(nil)
	if len(secrets) == 0 {
		return h
	}
	return &redactHandler{inner: h, cfg: c, static: replacerOf(secrets)}
}

// secretValues appends to list the secrets of c's servers it lacks.
func (c *Config) secretValues(list []string) []string {
	for _, sc := range c.Servers {
		for _, v := range sc.secretValues() {
			if !slices.Contains(list, v) {
				list = append(list, v)
			}
		}
	}
	return list
}

// replacerOf returns the Replacer of secrets, longest first (a secret that
// contains another is replaced whole).
func replacerOf(secrets []string) *strings.Replacer {
	sorted := slices.Clone(secrets)
	slices.SortFunc(sorted, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	pairs := make([]string, 0, 2*len(sorted))
	for _, v := range sorted {
		pairs = append(pairs, v, Redacted)
	}
	return strings.NewReplacer(pairs...)
}

// redactHandler is the handler of RedactHandler (static: one configuration's
// secrets) and of Redactor.Handler (live: the redactor's, as of each line).
type redactHandler struct {
	inner  slog.Handler
	cfg    *Config
	static *strings.Replacer
	live   *Redactor
}

// replace returns text with the secrets replaced.
func (h *redactHandler) replace(text string) string {
	r := h.static
	if h.live != nil {
		if r = h.live.r.Load(); r == nil {
			return text
		}
	}
	return r.Replace(text)
}

func (h *redactHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *redactHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, h.replace(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.inner.Handle(ctx, out)
}

func (h *redactHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		red[i] = h.attr(a)
	}
	return &redactHandler{inner: h.inner.WithAttrs(red), cfg: h.cfg, static: h.static, live: h.live}
}

func (h *redactHandler) WithGroup(name string) slog.Handler {
	return &redactHandler{inner: h.inner.WithGroup(name), cfg: h.cfg, static: h.static, live: h.live}
}

// attr returns a with its secrets replaced; a value whose text holds none is
// kept as it is.
func (h *redactHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.replace(v.String()))
	case slog.KindGroup:
		group := v.Group()
		red := make([]slog.Attr, len(group))
		for i, g := range group {
			red[i] = h.attr(g)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(red...)}
	case slog.KindAny:
		var text string
		switch x := v.Any().(type) {
		case error:
			text = x.Error()
		case fmt.Stringer:
			text = x.String()
		case []byte:
			text = string(x)
		default:
			text = fmt.Sprintf("%+v", x)
		}
		if red := h.replace(text); red != text {
			return slog.String(a.Key, red)
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
