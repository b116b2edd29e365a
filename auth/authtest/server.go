// Package authtest is a small OAuth 2.1 authorization server for tests: metadata
// (RFC 8414), a JWKS with key rotation, Dynamic Client Registration (RFC 7591),
// an authorization endpoint that approves at once (it redirects to the client
// without a login page), PKCE (S256) and resource indicators (RFC 8707), and a
// token endpoint for the authorization code, refresh token and client
// credentials grants that issues JWT access tokens (RFC 9068) signed with ES256
// (or opaque ones), and token introspection (RFC 7662). It listens on 127.0.0.1
// only. It is not for production.
package authtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Options configure a Server.
type Options struct {
	// ScopesSupported is advertised in the metadata.
	ScopesSupported []string
	// AuthMethods is token_endpoint_auth_methods_supported (default: none,
	// client_secret_basic, client_secret_post).
	AuthMethods []string
	// NoIssParameter stops the server from adding iss to its redirects (RFC 9207)
	// and from advertising it.
	NoIssParameter bool
	// TokenTTL is the lifetime of access tokens (default one hour).
	TokenTTL time.Duration
	// RefreshTokens makes the token endpoint issue refresh tokens.
	RefreshTokens bool
	// Clients are pre-registered clients: id → secret ("" for a public client).
	Clients map[string]string
	// OpaqueTokens makes the token endpoint issue random strings rather than
	// JWTs: only the introspection endpoint tells what they grant.
	OpaqueTokens bool
	// DPoP makes the server accept DPoP proofs at the token endpoint (RFC
	// 9449) and bind the tokens it then issues to the proof's key (cnf.jkt,
	// token_type DPoP).
	DPoP bool
}

// Server is a running test authorization server.
type Server struct {
	// Issuer is the server's issuer identifier (its URL).
	Issuer string
	srv    *httptest.Server
	opts   Options

	mu       sync.Mutex
	keys     []*signingKey // keys[len-1] signs
	clients  map[string]client
	codes    map[string]grant
	refresh  map[string]grant
	opaque   map[string]opaqueToken
	counts   map[string]int
	requests []url.Values // authorization requests, in order
	seq      int
}

type signingKey struct {
	kid string
	key *ecdsa.PrivateKey
}

type client struct {
	secret   string
	redirect []string
}

type grant struct {
	clientID, scope, resource, challenge, redirect string
}

// New starts a server; it stops when the test ends.
func New(tb testing.TB, opts Options) *Server {
	tb.Helper()
	s := &Server{opts: opts, clients: map[string]client{}, codes: map[string]grant{}, refresh: map[string]grant{}, opaque: map[string]opaqueToken{}, counts: map[string]int{}}
	if s.opts.TokenTTL == 0 {
		s.opts.TokenTTL = time.Hour
	}
	if s.opts.AuthMethods == nil {
		s.opts.AuthMethods = []string{"none", "client_secret_basic", "client_secret_post"}
	}
	for id, secret := range opts.Clients {
		s.clients[id] = client{secret: secret}
	}
	if err := s.Rotate(false); err != nil {
		tb.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", s.count("metadata", s.metadata))
	mux.HandleFunc("GET /jwks", s.count("jwks", s.jwks))
	mux.HandleFunc("POST /register", s.count("register", s.register))
	mux.HandleFunc("GET /authorize", s.count("authorize", s.authorize))
	mux.HandleFunc("POST /token", s.count("token", s.token))
	mux.HandleFunc("POST /introspect", s.count("introspect", s.introspect))
	// The issuer is known before the server starts: handlers read it.
	s.srv = httptest.NewUnstartedServer(mux)
	s.Issuer = "http://" + s.srv.Listener.Addr().String()
	s.srv.Start()
	tb.Cleanup(s.srv.Close)
	return s
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Count returns how many requests the endpoint (metadata, jwks, register,
// authorize, token, introspect) has served.
func (s *Server) Count(endpoint string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[endpoint]
}

// AuthorizationRequests returns the query of every authorization request so far.
func (s *Server) AuthorizationRequests() []url.Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

func (s *Server) count(name string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.counts[name]++
		s.mu.Unlock()
		h(w, r)
	}
}

// Rotate adds a new signing key that signs from now on; dropOld removes the
// previous keys from the JWKS (tokens they signed stop validating).
func (s *Server) Rotate(dropOld bool) error {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	sk := &signingKey{kid: fmt.Sprintf("key-%d", s.seq), key: k}
	if dropOld {
		s.keys = nil
	}
	s.keys = append(s.keys, sk)
	return nil
}

// Key returns the current signing key, for tests that forge tokens.
func (s *Server) Key() (kid string, key *ecdsa.PrivateKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := s.keys[len(s.keys)-1]
	return k.kid, k.key
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func oauthError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

func (s *Server) metadata(w http.ResponseWriter, _ *http.Request) {
	m := map[string]any{
		"issuer":                                s.Issuer,
		"authorization_endpoint":                s.Issuer + "/authorize",
		"token_endpoint":                        s.Issuer + "/token",
		"registration_endpoint":                 s.Issuer + "/register",
		"jwks_uri":                              s.Issuer + "/jwks",
		"introspection_endpoint":                s.Issuer + "/introspect",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token", "client_credentials"},
		"code_challenge_methods_supported":      []string{"S256"},
		"token_endpoint_auth_methods_supported": s.opts.AuthMethods,
	}
	if s.opts.ScopesSupported != nil {
		m["scopes_supported"] = s.opts.ScopesSupported
	}
	if !s.opts.NoIssParameter {
		m["authorization_response_iss_parameter_supported"] = true
	}
	if s.opts.DPoP {
		m["dpop_signing_alg_values_supported"] = []string{"ES256", "RS256", "EdDSA"}
	}
	writeJSON(w, http.StatusOK, m)
}

func (s *Server) jwks(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	var set jose.JSONWebKeySet
	for _, k := range s.keys {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: &k.key.PublicKey, KeyID: k.kid, Algorithm: string(jose.ES256), Use: "sig"})
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, set)
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var md struct {
		RedirectURIs []string `json:"redirect_uris"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
	}
	if err := json.NewDecoder(r.Body).Decode(&md); err != nil || len(md.RedirectURIs) == 0 {
		oauthError(w, http.StatusBadRequest, "invalid_client_metadata", "redirect_uris are required")
		return
	}
	if md.AuthMethod == "" {
		md.AuthMethod = "client_secret_basic"
	}
	s.mu.Lock()
	s.seq++
	id := fmt.Sprintf("client-%d", s.seq)
	c := client{redirect: md.RedirectURIs}
	if md.AuthMethod != "none" {
		c.secret = fmt.Sprintf("secret-%d", s.seq)
	}
	s.clients[id] = c
	s.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{
		"client_id": id, "client_secret": c.secret, "redirect_uris": md.RedirectURIs,
		"token_endpoint_auth_method": md.AuthMethod,
	})
}

func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	s.mu.Lock()
	s.requests = append(s.requests, q)
	c, ok := s.clients[q.Get("client_id")]
	s.mu.Unlock()
	redirect := q.Get("redirect_uri")
	switch {
	case !ok:
		oauthError(w, http.StatusBadRequest, "invalid_client", "unknown client")
		return
	case c.redirect != nil && !slices.Contains(c.redirect, redirect):
		oauthError(w, http.StatusBadRequest, "invalid_request", "redirect_uri not registered")
		return
	case q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
		oauthError(w, http.StatusBadRequest, "invalid_request", "response_type=code and PKCE S256 are required")
		return
	}
	code := randomID()
	s.mu.Lock()
	s.codes[code] = grant{clientID: q.Get("client_id"), scope: q.Get("scope"), resource: q.Get("resource"), challenge: q.Get("code_challenge"), redirect: redirect}
	s.mu.Unlock()
	back := url.Values{"code": {code}, "state": {q.Get("state")}}
	if !s.opts.NoIssParameter {
		back.Set("iss", s.Issuer)
	}
	sep := "?"
	if strings.Contains(redirect, "?") {
		sep = "&"
	}
	http.Redirect(w, r, redirect+sep+back.Encode(), http.StatusFound)
}

// authenticate checks the client's credentials on a token request and returns
// its id.
func (s *Server) authenticate(r *http.Request) (string, bool) {
	id, secret, basic := r.BasicAuth()
	if basic {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	s.mu.Lock()
	c, ok := s.clients[id]
	s.mu.Unlock()
	return id, ok && c.secret == secret
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	id, ok := s.authenticate(r)
	if !ok {
		oauthError(w, http.StatusUnauthorized, "invalid_client", "client authentication failed")
		return
	}
	var g grant
	switch r.PostForm.Get("grant_type") {
	case "authorization_code":
		s.mu.Lock()
		g, ok = s.codes[r.PostForm.Get("code")]
		delete(s.codes, r.PostForm.Get("code"))
		s.mu.Unlock()
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		switch {
		case !ok || g.clientID != id || g.redirect != r.PostForm.Get("redirect_uri"):
			oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown code")
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
			oauthError(w, http.StatusBadRequest, "invalid_grant", "PKCE verification failed")
			return
		case r.PostForm.Get("resource") != g.resource:
			oauthError(w, http.StatusBadRequest, "invalid_target", "resource differs from the authorization request")
			return
		}
	case "refresh_token":
		s.mu.Lock()
		g, ok = s.refresh[r.PostForm.Get("refresh_token")]
		delete(s.refresh, r.PostForm.Get("refresh_token")) // rotation
		s.mu.Unlock()
		if !ok || g.clientID != id {
			oauthError(w, http.StatusBadRequest, "invalid_grant", "unknown refresh token")
			return
		}
	case "client_credentials":
		g = grant{clientID: id, scope: r.PostForm.Get("scope"), resource: r.PostForm.Get("resource")}
	default:
		oauthError(w, http.StatusBadRequest, "unsupported_grant_type", r.PostForm.Get("grant_type"))
		return
	}
	jkt, ok := s.dpopKey(w, r)
	if !ok {
		return
	}
	issue := s.Issue
	if s.opts.OpaqueTokens {
		issue = s.IssueOpaque
	}
	at, err := issue(Claims{Subject: "user-" + g.clientID, ClientID: g.clientID, Audience: g.resource, Scope: g.scope, TTL: s.opts.TokenTTL, JKT: jkt})
	if err != nil {
		oauthError(w, http.StatusInternalServerError, "server_error", err.Error())
		return
	}
	tokenType := "Bearer"
	if jkt != "" {
		tokenType = "DPoP"
	}
	resp := map[string]any{"access_token": at, "token_type": tokenType, "expires_in": int(s.opts.TokenTTL / time.Second)}
	if g.scope != "" {
		resp["scope"] = g.scope
	}
	if s.opts.RefreshTokens && r.PostForm.Get("grant_type") != "client_credentials" {
		rt := randomID()
		s.mu.Lock()
		s.refresh[rt] = g
		s.mu.Unlock()
		resp["refresh_token"] = rt
	}
	writeJSON(w, http.StatusOK, resp)
}

// Claims describe an access token to issue.
type Claims struct {
	Subject, ClientID, Audience, Scope string
	// Issuer overrides the server's issuer.
	Issuer string
	// TTL is the lifetime; negative issues an expired token.
	TTL time.Duration
	// Key, when set, signs instead of the server's current key (a forged token).
	Key *ecdsa.PrivateKey
	// JKT, when set, binds the token to the DPoP key with this thumbprint
	// (cnf.jkt).
	JKT string
}

// Issue signs an RFC 9068 JWT access token.
func (s *Server) Issue(c Claims) (string, error) {
	kid, key := s.Key()
	if c.Key != nil {
		key = c.Key
	}
	if c.Issuer == "" {
		c.Issuer = s.Issuer
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", kid))
	if err != nil {
		return "", err
	}
	now := time.Now()
	claims := map[string]any{
		"iss": c.Issuer, "sub": c.Subject, "aud": c.Audience, "client_id": c.ClientID,
		"iat": now.Unix(), "exp": now.Add(c.TTL).Unix(), "jti": randomID(),
	}
	if c.Scope != "" {
		claims["scope"] = c.Scope
	}
	if c.JKT != "" {
		claims["cnf"] = map[string]string{"jkt": c.JKT}
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		return "", err
	}
	return jws.CompactSerialize()
}

func randomID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}
