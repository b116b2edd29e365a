// Package resource makes an MCP server an OAuth 2.0 protected resource: a
// middleware that requires a valid access token on every request to the MCP
// endpoint (401 with a WWW-Authenticate challenge that points to the Protected
// Resource Metadata, 403 insufficient_scope for step-up), token verifiers — JWTs
// checked against the authorization server's keys (JWTVerifier), or any token
// by asking its introspection endpoint (IntrospectionVerifier, RFC 7662) — and
// the handler that serves the Protected Resource Metadata (RFC 9728).
//
// It wraps the transports' handlers (streamable.NewHandler, legacysse) and is
// never imported by them. The verified principal reaches handlers through the
// request context: transport.PrincipalFrom and TokenInfoFrom.
package resource

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/transport"
)

// Options configure Middleware.
type Options struct {
	// Verifier checks access tokens. Required.
	Verifier TokenVerifier
	// ResourceMetadataURL is the URL of this resource's Protected Resource
	// Metadata, sent in every challenge.
	ResourceMetadataURL string
	// Scopes are required on every request.
	Scopes []string
	// MethodScopes are required, in addition, for the JSON-RPC methods named
	// ("tools/call", "resources/read", ...).
	//
	// They are read from the body of every POST, as the server reads it (never
	// from the Mcp-Method and Mcp-Name headers), and a batch needs the scopes of
	// all its messages. A body that is not JSON, or that the server could read
	// in two ways (duplicate or case-variant "method", "params" or tool "name"
	// members), is refused with 400 invalid_request.
	MethodScopes map[string][]string
	// ToolScopes are required, in addition, to call the tools named, read as
	// MethodScopes are.
	ToolScopes map[string][]string
	// MaxBodySize bounds the request body read to find the methods and tool
	// names when MethodScopes or ToolScopes are set (default 4 MiB); a longer
	// body is refused with 400.
	MaxBodySize int64
	// NoSessionBinding turns off session binding: by default a legacy session
	// (Mcp-Session-Id, or HTTP+SSE's sessionId) may only be used by the principal
	// whose request created it; another principal gets 403.
	NoSessionBinding bool
	// DPoP accepts DPoP-bound tokens (RFC 9449): a token whose cnf.jkt names a
	// key must come with the DPoP scheme and a valid proof of that key for the
	// request (htm, htu, ath, a fresh iat, a jti not seen before). Without it
	// such tokens are refused, as is the DPoP scheme. The proof's htu is
	// compared with the origin of ResourceMetadataURL (else the request's) and
	// the path the client sent.
	DPoP bool
	// DPoPProofAge is how old a proof may be (default DefaultDPoPProofAge).
	DPoPProofAge time.Duration
	// Logger receives, at debug level, the full reason of each refused token
	// (a decoder's or a library's wording, which the client is not shown).
	// Nil means slog.Default().
	Logger *slog.Logger
}

type tokenInfoKey struct{}

// TokenInfoFrom returns the verified token of the request whose context ctx is,
// or nil. The value is shared: do not modify it.
func TokenInfoFrom(ctx context.Context) *TokenInfo {
	t, _ := ctx.Value(tokenInfoKey{}).(*TokenInfo)
	return t
}

// Principal is the principal a token stands for: its subject, or its client for
// a token without a subject (client credentials).
func (t *TokenInfo) Principal() string {
	if t.Subject != "" {
		return t.Issuer + "#" + t.Subject
	}
	return t.Issuer + "#client:" + t.ClientID
}

// Middleware returns a middleware that lets a request through only with a valid
// bearer token that grants the scopes the request needs. The request's context
// then carries the token (TokenInfoFrom) and the principal (transport.PrincipalFrom).
// CORS preflight requests (OPTIONS) pass without a token.
func Middleware(o Options) func(http.Handler) http.Handler {
	if o.MaxBodySize <= 0 {
		o.MaxBodySize = 4 << 20
	}
	sessions := &sessionTable{}
	jtis := &jtiCache{}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodOptions {
				next.ServeHTTP(w, r)
				return
			}
			need := o.Scopes
			if len(o.MethodScopes) > 0 || len(o.ToolScopes) > 0 {
				var err error
				if need, err = o.requestScopes(r); err != nil {
					o.challenge(w, http.StatusBadRequest, "", "invalid_request", err.Error(), nil)
					return
				}
			}
			token, scheme := bearer(r)
			if token == "" {
				o.challenge(w, http.StatusUnauthorized, "", "", "", need)
				return
			}
			info, err := o.Verifier.Verify(r.Context(), token)
			if err != nil {
				o.logRefusal(r, err)
				o.challenge(w, http.StatusUnauthorized, scheme, "invalid_token", describe(err), need)
				return
			}
			switch {
			case info.Confirmation == "" && scheme == "bearer":
			case !o.DPoP:
				o.challenge(w, http.StatusUnauthorized, scheme, "invalid_token", "sender-constrained tokens are not accepted", need)
				return
			case scheme != "dpop":
				o.challenge(w, http.StatusUnauthorized, "dpop", "invalid_token", "a DPoP-bound token needs the DPoP scheme and a proof", need)
				return
			default:
				if err := o.checkDPoP(r, token, info, jtis); err != nil {
					code := "invalid_token"
					if errors.Is(err, ErrInvalidDPoPProof) {
						code = "invalid_dpop_proof"
					}
					o.logRefusal(r, err)
					o.challenge(w, http.StatusUnauthorized, scheme, code, describe(err), need)
					return
				}
			}
			if !info.HasScopes(need) {
				o.challenge(w, http.StatusForbidden, scheme, "insufficient_scope", "the token lacks a required scope", need)
				return
			}
			principal := info.Principal()
			ctx := context.WithValue(r.Context(), tokenInfoKey{}, info)
			ctx = transport.WithPrincipal(ctx, principal)
			r = r.WithContext(ctx)
			if o.NoSessionBinding {
				next.ServeHTTP(w, r)
				return
			}
			id := sessionOf(r)
			switch {
			case id != "" && !sessions.check(id, principal):
				http.Error(w, "the session belongs to another principal", http.StatusForbidden)
			case id != "" && r.Method == http.MethodDelete:
				next.ServeHTTP(w, r)
				sessions.forget(id)
			case id != "":
				next.ServeHTTP(w, r)
			default:
				next.ServeHTTP(&bindingWriter{ResponseWriter: w, table: sessions, principal: principal, sse: r.Method == http.MethodGet}, r)
			}
		})
	}
}

// bearer returns the token of the Authorization header and its scheme, lower
// case.
func bearer(r *http.Request) (token, scheme string) {
	h := r.Header.Get("Authorization")
	s, t, ok := strings.Cut(h, " ")
	if !ok {
		return "", ""
	}
	t = strings.TrimSpace(t)
	switch {
	case strings.EqualFold(s, "Bearer"):
		return t, "bearer"
	case strings.EqualFold(s, "DPoP"):
		return t, "dpop"
	}
	return "", ""
}

// describe is the error description of a refused token: the verifier's reason
// in plain words, without anything the token said, nor a decoder's or a
// library's wording (logRefusal logs that). The error of a verifier that could
// not decide (an introspection endpoint down) is not shown either.
func describe(err error) string {
	var te *tokenError
	switch {
	case errors.As(err, &te):
		return te.reason
	case errors.Is(err, ErrInvalidDPoPProof):
	case !errors.Is(err, ErrInvalidToken):
		return "the token could not be verified"
	}
	msg := err.Error()
	if errors.Is(err, ErrInvalidToken) {
		msg = strings.TrimPrefix(msg, ErrInvalidToken.Error()+": ")
	}
	if len(msg) > 200 {
		msg = msg[:200]
	}
	return msg
}

// logRefusal logs why a token was refused, in full, at debug level.
func (o *Options) logRefusal(r *http.Request, err error) {
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	log.Debug("resource: refused a token", "path", r.URL.Path, "error", err)
}

// challenge answers with status and a challenge naming the resource metadata
// and the scopes needed (RFC 6750 §3, RFC 9728 §5.1): in the scheme of the
// request's token ("dpop": DPoP, RFC 9449 §7.1, with the accepted algorithms),
// else Bearer, followed by a bare DPoP challenge where DPoP is accepted.
func (o *Options) challenge(w http.ResponseWriter, status int, scheme, code, desc string, scopes []string) {
	var b strings.Builder
	dpop := scheme == "dpop" && o.DPoP
	if dpop {
		b.WriteString("DPoP")
	} else {
		b.WriteString("Bearer")
	}
	sep := " "
	param := func(name, value string) {
		b.WriteString(sep)
		b.WriteString(name)
		b.WriteString(`="`)
		b.WriteString(quoteEscape(value))
		b.WriteByte('"')
		sep = ", "
	}
	if code != "" {
		param("error", code)
	}
	if desc != "" {
		param("error_description", desc)
	}
	if len(scopes) > 0 {
		param("scope", strings.Join(scopes, " "))
	}
	if o.ResourceMetadataURL != "" {
		param("resource_metadata", o.ResourceMetadataURL)
	}
	if dpop {
		param("algs", dpopAlgs())
	}
	h := w.Header()
	h.Set("WWW-Authenticate", b.String())
	if o.DPoP && !dpop && status == http.StatusUnauthorized {
		h.Add("WWW-Authenticate", `DPoP algs="`+dpopAlgs()+`"`)
	}
	h.Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if code == "" {
		// No token (RFC 6750 §3.1: no error code in the challenge): the
		// body says what is missing.
		_ = json.NewEncoder(w).Encode(map[string]string{"error_description": "this resource needs an access token (Authorization: Bearer)"})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
}

// quoteEscape escapes a quoted-string's value and drops control characters.
func quoteEscape(s string) string {
	if !strings.ContainsAny(s, "\"\\") && !hasControl(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func hasControl(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return true
		}
	}
	return false
}
