package resource_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/mcpkit/mcpkit/auth/authtest"
	"github.com/mcpkit/mcpkit/auth/resource"
)

// dpopKey makes proofs with one P-256 key.
type dpopKey struct {
	signer jose.Signer
	jkt    string
}

func newDPoPKey(t *testing.T) *dpopKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: k}, (&jose.SignerOptions{EmbedJWK: true}).WithType("dpop+jwt"))
	if err != nil {
		t.Fatal(err)
	}
	tp, err := (&jose.JSONWebKey{Key: &k.PublicKey}).Thumbprint(crypto.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	return &dpopKey{signer: s, jkt: base64.RawURLEncoding.EncodeToString(tp)}
}

// proof signs a proof; edit may change the claims first.
func (k *dpopKey) proof(t *testing.T, method, htu, token string, edit func(map[string]any)) string {
	t.Helper()
	sum := sha256.Sum256([]byte(token))
	c := map[string]any{"jti": base64.RawURLEncoding.EncodeToString(sum[:8]) + time.Now().String(), "htm": method, "htu": htu,
		"iat": time.Now().Unix(), "ath": base64.RawURLEncoding.EncodeToString(sum[:])}
	if edit != nil {
		edit(c)
	}
	payload, _ := json.Marshal(c)
	jws, err := k.signer.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := jws.CompactSerialize()
	return s
}

// The middleware with DPoP: a bound token passes with a proof of its key for
// this request, and nothing else does.
func TestMiddlewareDPoP(t *testing.T) {
	as := authtest.New(t, authtest.Options{})
	key, other := newDPoPKey(t), newDPoPKey(t)
	const htu = "http://127.0.0.1:1/mcp"
	opts := resource.Options{
		Verifier:            &resource.JWTVerifier{Issuer: as.Issuer, Audience: audience, JWKSURL: as.Issuer + "/jwks"},
		ResourceMetadataURL: "http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp",
		DPoP:                true,
	}
	h := resource.Middleware(opts)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(resource.TokenInfoFrom(r.Context()).Confirmation))
	}))
	issue := func(jkt string) string {
		tok, err := as.Issue(authtest.Claims{Subject: "alice", ClientID: "app", Audience: audience, TTL: time.Hour, JKT: jkt})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	bound, plain := issue(key.jkt), issue("")
	do := func(scheme, token string, proofs ...string) *httptest.ResponseRecorder {
		req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/mcp", strings.NewReader("{}"))
		if token != "" {
			req.Header.Set("Authorization", scheme+" "+token)
		}
		for _, p := range proofs {
			req.Header.Add("DPoP", p)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}

	good := key.proof(t, "POST", htu, bound, nil)
	if rec := do("DPoP", bound, good); rec.Code != 200 || rec.Body.String() != key.jkt {
		t.Fatalf("a valid proof: %d %q %v", rec.Code, rec.Body.String(), rec.Header().Values("WWW-Authenticate"))
	}
	if rec := do("Bearer", plain); rec.Code != 200 {
		t.Errorf("an unbound bearer token: %d", rec.Code)
	}
	tests := []struct {
		name, scheme, token string
		proofs              []string
		want                string // in the challenge
	}{
		{"replayed proof", "DPoP", bound, []string{good}, `DPoP error="invalid_dpop_proof", error_description="invalid DPoP proof: jti replayed"`},
		{"bound token as Bearer", "Bearer", bound, nil, `DPoP error="invalid_token"`},
		{"no proof", "DPoP", bound, nil, `error="invalid_dpop_proof"`},
		{"two proofs", "DPoP", bound, []string{key.proof(t, "POST", htu, bound, nil), key.proof(t, "POST", htu, bound, nil)}, `error="invalid_dpop_proof"`},
		{"another key", "DPoP", bound, []string{other.proof(t, "POST", htu, bound, nil)}, "not the one the token is bound to"},
		{"wrong method", "DPoP", bound, []string{key.proof(t, "GET", htu, bound, nil)}, "htm"},
		{"wrong URL", "DPoP", bound, []string{key.proof(t, "POST", "http://127.0.0.1:1/other", bound, nil)}, "htu"},
		{"other token", "DPoP", bound, []string{key.proof(t, "POST", htu, plain, nil)}, "ath"},
		{"old proof", "DPoP", bound, []string{key.proof(t, "POST", htu, bound, func(c map[string]any) { c["iat"] = time.Now().Add(-time.Hour).Unix() })}, "iat"},
		{"unbound token as DPoP", "DPoP", plain, []string{key.proof(t, "POST", htu, plain, nil)}, "not DPoP-bound"},
		{"no token", "", "", nil, `Bearer resource_metadata=`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := do(tt.scheme, tt.token, tt.proofs...)
			got := strings.Join(rec.Header().Values("WWW-Authenticate"), " | ")
			if rec.Code != 401 || !strings.Contains(got, tt.want) {
				t.Errorf("%d %q, want 401 with %q", rec.Code, got, tt.want)
			}
			if tt.token == "" && !strings.Contains(got, `| DPoP algs="ES256`) {
				t.Errorf("no token: %q lacks the DPoP challenge", got)
			}
		})
	}

	// Without DPoP, bound tokens are refused.
	opts.DPoP = false
	strict := resource.Middleware(opts)(http.NotFoundHandler())
	req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "/mcp", strings.NewReader("{}"))
	req.Header.Set("Authorization", "DPoP "+bound)
	req.Header.Set("DPoP", key.proof(t, "POST", htu, bound, nil))
	rec := httptest.NewRecorder()
	strict.ServeHTTP(rec, req)
	if rec.Code != 401 || !strings.Contains(rec.Header().Get("WWW-Authenticate"), "sender-constrained tokens are not accepted") {
		t.Errorf("DPoP off: %d %q", rec.Code, rec.Header().Get("WWW-Authenticate"))
	}
}

// mcpkit's client with DPoP gets a bound token from the test authorization
// server and uses it, with proofs, against a resource server that checks them.
func TestDPoPEndToEnd(t *testing.T) {
	as := authtest.New(t, authtest.Options{DPoP: true})
	h := whoamiHandler(t, func(i *resource.TokenInfo) string { return i.Confirmation })
	url := as.Protect(t, h, resource.Options{DPoP: true, Scopes: []string{"mcp:read"}}, nil)
	got, tr := callWhoami(t, url, true, 2) // the second call needs a fresh proof too (no replay)
	for _, answer := range got {
		principal, jkt, _ := strings.Cut(answer, " ")
		if !strings.HasPrefix(principal, as.Issuer+"#user-client-") || jkt == "" {
			t.Errorf("whoami = %q, want the principal and the key thumbprint", answer)
		}
	}
	if typ := tr.Token().Type(); typ != "DPoP" {
		t.Errorf("token type %q, want DPoP", typ)
	}
}
