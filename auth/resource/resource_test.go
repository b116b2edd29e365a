package resource_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/mcpkit/mcpkit/auth"
	"github.com/mcpkit/mcpkit/auth/authtest"
	"github.com/mcpkit/mcpkit/auth/resource"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/transport"
)

const audience = "http://127.0.0.1:1/mcp"

// fixture is a handler behind the middleware that echoes the principal.
type fixture struct {
	as *authtest.Server
	h  http.Handler
	v  *resource.JWTVerifier
}

func newFixture(t *testing.T) *fixture {
	as := authtest.New(t, authtest.Options{})
	v := &resource.JWTVerifier{Issuer: as.Issuer, Audience: audience, JWKSURL: as.Issuer + "/jwks", MinRefetch: time.Nanosecond}
	mw := resource.Middleware(resource.Options{
		Verifier:            v,
		ResourceMetadataURL: "http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp",
		Scopes:              []string{"mcp:read"},
		MethodScopes:        map[string][]string{"resources/read": {"files:read"}},
		ToolScopes:          map[string][]string{"delete": {"mcp:write"}},
	})
	return &fixture{as: as, v: v, h: mw(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		_, _ = io.WriteString(w, transport.PrincipalFrom(r.Context())+"|"+resource.TokenInfoFrom(r.Context()).ClientID+"|"+string(body))
	}))}
}

func (f *fixture) token(t *testing.T, c authtest.Claims) string {
	t.Helper()
	if c.Audience == "" {
		c.Audience = audience
	}
	if c.Subject == "" {
		c.Subject = "alice"
	}
	if c.TTL == 0 {
		c.TTL = time.Hour
	}
	if c.Scope == "" {
		c.Scope = "mcp:read"
	}
	c.ClientID = "app"
	tok, err := f.as.Issue(c)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func (f *fixture) do(t *testing.T, token, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/mcp", strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, req)
	return rec
}

func TestMiddleware(t *testing.T) {
	f := newFixture(t)
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	const listTools = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	const prm = `resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp"`
	tests := []struct {
		name      string
		token     string
		body      string
		status    int
		challenge []string // substrings of WWW-Authenticate
	}{
		{"valid", f.token(t, authtest.Claims{}), listTools, 200, nil},
		{"no token", "", listTools, 401, []string{`Bearer scope="mcp:read", ` + prm}},
		{"expired", f.token(t, authtest.Claims{TTL: -time.Hour}), listTools, 401, []string{`error="invalid_token"`, "expired", prm}},
		{"wrong audience", f.token(t, authtest.Claims{Audience: "http://127.0.0.1:2/mcp"}), listTools, 401, []string{`error="invalid_token"`, prm}},
		{"wrong issuer", f.token(t, authtest.Claims{Issuer: "https://evil.example"}), listTools, 401, []string{`error="invalid_token"`, "issuer"}},
		{"bad signature", f.token(t, authtest.Claims{Key: other}), listTools, 401, []string{`error="invalid_token"`}},
		{"garbage", "not.a.jwt", listTools, 401, []string{`error="invalid_token"`}},
		{"missing scope for a tool", f.token(t, authtest.Claims{}), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delete"}}`, 403,
			[]string{`Bearer error="insufficient_scope"`, `scope="mcp:read mcp:write"`, prm}},
		{"scope for the tool", f.token(t, authtest.Claims{Scope: "mcp:read mcp:write"}), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delete"}}`, 200, nil},
		{"missing scope for a method", f.token(t, authtest.Claims{Scope: "mcp:read mcp:write"}), `{"jsonrpc":"2.0","id":3,"method":"resources/read"}`, 403,
			[]string{`error="insufficient_scope"`, `scope="mcp:read files:read"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := f.do(t, tt.token, tt.body)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d (%s)", rec.Code, tt.status, rec.Header().Get("WWW-Authenticate"))
			}
			h := rec.Header().Get("WWW-Authenticate")
			for _, want := range tt.challenge {
				if !strings.Contains(h, want) {
					t.Errorf("WWW-Authenticate %q lacks %q", h, want)
				}
			}
			if tt.status == 200 {
				if want := f.as.Issuer + "#alice|app|" + tt.body; rec.Body.String() != want {
					t.Errorf("handler saw %q, want %q (principal, client, the body intact)", rec.Body.String(), want)
				}
			}
			// The challenge parses back with the client's parser.
			if h != "" {
				cs := auth.ParseChallenges([]string{h})
				if len(cs) != 1 || !cs[0].Is("Bearer") || cs[0].Param("resource_metadata") == "" {
					t.Errorf("challenge %q parses as %+v", h, cs)
				}
			}
		})
	}
}

// A token signed by a key the authorization server rotated in is accepted (the
// key set is fetched again for the unknown key id); once a key is removed and
// the set is fetched again, its tokens are refused, even ones verified before.
func TestKeyRotation(t *testing.T) {
	f := newFixture(t)
	old := f.token(t, authtest.Claims{})
	if rec := f.do(t, old, "{}"); rec.Code != 200 {
		t.Fatalf("old key: %d", rec.Code)
	}
	fetches := f.as.Count("jwks")
	if err := f.as.Rotate(false); err != nil {
		t.Fatal(err)
	}
	rotated := f.token(t, authtest.Claims{})
	if rec := f.do(t, rotated, "{}"); rec.Code != 200 {
		t.Fatalf("rotated-in key: %d %s", rec.Code, rec.Header().Get("WWW-Authenticate"))
	}
	if f.as.Count("jwks") != fetches+1 {
		t.Errorf("JWKS fetched %d times after the rotation, want once more", f.as.Count("jwks")-fetches)
	}
	if rec := f.do(t, old, "{}"); rec.Code != 200 {
		t.Errorf("old key still published: %d", rec.Code)
	}
	if err := f.as.Rotate(true); err != nil { // drops both earlier keys
		t.Fatal(err)
	}
	newest := f.token(t, authtest.Claims{})
	if rec := f.do(t, newest, "{}"); rec.Code != 200 {
		t.Fatalf("newest key: %d", rec.Code)
	}
	if rec := f.do(t, old, "{}"); rec.Code != 401 {
		t.Errorf("a token of a removed key: %d, want 401", rec.Code)
	}
}

// The verifier fetches the key set once and then serves repeated tokens from
// its cache.
func TestVerifierCaches(t *testing.T) {
	f := newFixture(t)
	tok := f.token(t, authtest.Claims{})
	for range 5 {
		if _, err := f.v.Verify(t.Context(), tok); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.as.Count("jwks"); n != 1 {
		t.Errorf("JWKS fetched %d times, want 1", n)
	}
	info, err := f.v.Verify(t.Context(), tok)
	if err != nil || info.Subject != "alice" || info.ClientID != "app" || !info.HasScopes([]string{"mcp:read"}) || info.Expiration.IsZero() {
		t.Errorf("info = %+v, %v", info, err)
	}
}

func TestMetadataHandler(t *testing.T) {
	md := &auth.ProtectedResourceMetadata{Resource: audience, AuthorizationServers: []string{"https://as.example"}, ScopesSupported: []string{"mcp:read"}}
	h := resource.MetadataHandler(md)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/.well-known/oauth-protected-resource/mcp", nil))
	if rec.Code != 200 || rec.Header().Get("Access-Control-Allow-Origin") != "*" || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("GET: %d %v", rec.Code, rec.Header())
	}
	got, err := auth.ParseProtectedResourceMetadata(rec.Body.Bytes())
	if err != nil || got.Resource != audience || got.AuthorizationServers[0] != "https://as.example" {
		t.Errorf("served %s: %v", rec.Body.String(), err)
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", rec.Code)
	}
	if p, _ := resource.MetadataPath("https://h.example/a/mcp/"); p != "/.well-known/oauth-protected-resource/a/mcp" {
		t.Errorf("MetadataPath = %q", p)
	}
	var v map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &v)
}

// BenchmarkVerify measures a request's token check: "cached" is a token seen
// before (the common case: a client reuses its token), "first" a token verified
// from scratch (signature check with the cached key set).
func BenchmarkVerify(b *testing.B) {
	as := authtest.New(b, authtest.Options{})
	v := &resource.JWTVerifier{Issuer: as.Issuer, Audience: audience, JWKSURL: as.Issuer + "/jwks"}
	tok, err := as.Issue(authtest.Claims{Subject: "alice", ClientID: "app", Audience: audience, Scope: "mcp:read mcp:write", TTL: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	if _, err := v.Verify(ctx, tok); err != nil {
		b.Fatal(err)
	}
	nocache := &resource.JWTVerifier{Issuer: as.Issuer, Audience: audience, JWKSURL: as.Issuer + "/jwks", CacheSize: -1}
	for _, c := range []struct {
		name string
		v    *resource.JWTVerifier
	}{{"cached", v}, {"first", nocache}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			testkit.LoopCPU(b, func() {
				if _, err := c.v.Verify(ctx, tok); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

func TestDiscoverVerifier(t *testing.T) {
	f := newFixture(t)
	v, err := resource.DiscoverVerifier(t.Context(), nil, f.as.Issuer, audience)
	if err != nil {
		t.Fatal(err)
	}
	if v.JWKSURL != f.as.Issuer+"/jwks" || v.Issuer != f.as.Issuer {
		t.Errorf("verifier %+v", v)
	}
	if _, err := v.Verify(t.Context(), f.token(t, authtest.Claims{})); err != nil {
		t.Error(err)
	}
	if _, err := resource.DiscoverVerifier(t.Context(), nil, f.as.Issuer+"/other", audience); err == nil {
		t.Error("an issuer without metadata gave a verifier")
	}
}

// Refused tokens are described in plain words: no Go type names, no
// go-jose wording, nothing a decoder said (the server logs that); and a
// request without a token gets no error code in its body either.
func TestRefusalsInPlainWords(t *testing.T) {
	f := newFixture(t)
	kid, key := f.as.Key()
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", kid))
	if err != nil {
		t.Fatal(err)
	}
	sign := func(claims string) string {
		jws, err := signer.Sign([]byte(claims))
		if err != nil {
			t.Fatal(err)
		}
		tok, _ := jws.CompactSerialize()
		return tok
	}
	exp := time.Now().Add(time.Hour).Unix()
	for _, c := range []struct {
		name, token, want string
	}{
		{"scope as an array", sign(`{"iss":"` + f.as.Issuer + `","aud":"` + audience + `","sub":"a","exp":` + strconv.FormatInt(exp, 10) + `,"scope":["mcp:read"]}`), "the claims are not a JSON object of the standard claim types"},
		{"audience as a number", sign(`{"iss":"` + f.as.Issuer + `","aud":7,"sub":"a","exp":` + strconv.FormatInt(exp, 10) + `}`), "the audience (aud) is neither a string nor an array of strings"},
		{"protected header go-jose refuses", "e30.e30.e30", "not a signed JWT of an accepted algorithm"},
		{"not a JWS", "eyJhbGciOiJFUzI1NiJ9.!!!.e30", "not a compact JWS"},
		{"unknown key", f.token(t, authtest.Claims{Key: mustKey(t)}) + "", ""},
	} {
		rec := f.do(t, c.token, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		h, body := rec.Header().Get("WWW-Authenticate"), rec.Body.String()
		if rec.Code != 401 || !strings.Contains(h, `error="invalid_token"`) || !strings.Contains(h, c.want) || !strings.Contains(body, c.want) {
			t.Errorf("%s: %d\n%s\n%s", c.name, rec.Code, h, body)
		}
		for _, internal := range []string{"json:", "Go struct", "go-jose", "illegal base64", "claimsJSON", "unmarshal"} {
			if strings.Contains(h, internal) || strings.Contains(body, internal) {
				t.Errorf("%s: the refusal shows %q:\n%s\n%s", c.name, internal, h, body)
			}
		}
	}
	rec := f.do(t, "", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if body := rec.Body.String(); rec.Code != 401 || strings.Contains(body, `"error"`) || !strings.Contains(body, "needs an access token") {
		t.Errorf("no token: %d %s", rec.Code, body)
	}
}

func mustKey(t *testing.T) *ecdsa.PrivateKey {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}
