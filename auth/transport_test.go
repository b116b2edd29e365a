package auth_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/mcpkit/mcpkit/auth"
	"github.com/mcpkit/mcpkit/auth/authtest"
	"github.com/mcpkit/mcpkit/auth/resource"
)

// scriptedRS is a resource server of the authorization server issuer whose
// answer to each request is chosen by answer, given the request's number (from
// 1); answer returns false to let the request succeed (200).
func scriptedRS(t *testing.T, issuer string, answer func(n int, r *http.Request, w http.ResponseWriter) bool) string {
	var mu sync.Mutex
	n := 0
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/.well-known/oauth-protected-resource") {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"resource":%q,"authorization_servers":[%q]}`, srv.URL+"/mcp", issuer)
			return
		}
		mu.Lock()
		n++
		i := n
		mu.Unlock()
		if !answer(i, r, w) {
			w.WriteHeader(http.StatusOK)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// Step-up stops after MaxStepUps re-authorizations of one request, and skips
// re-authorizing when the challenge asks for nothing new.
func TestStepUpLimit(t *testing.T) {
	as := authtest.New(t, authtest.Options{})
	url := scriptedRS(t, as.Issuer, func(n int, r *http.Request, w http.ResponseWriter) bool {
		if r.Header.Get("Authorization") == "" {
			w.Header().Set("WWW-Authenticate", `Bearer scope="s0"`)
			w.WriteHeader(http.StatusUnauthorized)
			return true
		}
		// Every tokened request wants one more scope.
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope="s%d"`, n))
		w.WriteHeader(http.StatusForbidden)
		return true
	})
	tr := newTransport(nil)
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(`{}`))
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("status %d, want the last 403", resp.StatusCode)
	}
	reqs := as.AuthorizationRequests()
	if len(reqs) != 1+auth.DefaultMaxStepUps {
		t.Fatalf("%d authorization requests, want %d", len(reqs), 1+auth.DefaultMaxStepUps)
	}
	// Each step-up asks for what was asked before plus the challenge.
	if got := reqs[2].Get("scope"); got != "s0 s2 s3" {
		t.Errorf("last step-up asked for %q, want the union %q", got, "s0 s2 s3")
	}

	// A challenge for scopes already asked for does not re-authorize.
	as2 := authtest.New(t, authtest.Options{})
	url2 := scriptedRS(t, as2.Issuer, func(n int, r *http.Request, w http.ResponseWriter) bool {
		if r.Header.Get("Authorization") == "" {
			w.Header().Set("WWW-Authenticate", `Bearer scope="admin"`)
			w.WriteHeader(http.StatusUnauthorized)
			return true
		}
		w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="admin"`)
		w.WriteHeader(http.StatusForbidden)
		return true
	})
	req, _ = http.NewRequestWithContext(t.Context(), http.MethodPost, url2, strings.NewReader(`{}`))
	if resp, err = newTransport(nil).RoundTrip(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if n := len(as2.AuthorizationRequests()); n != 1 {
		t.Errorf("%d authorization requests, want 1", n)
	}
}

// With an authorization server that takes DPoP, token requests and resource
// requests carry fresh proofs (typ dpop+jwt, a public jwk, htm, htu without the
// query, ath, unique jti), and the nonces both servers demand are used, with
// one retry each.
func TestDPoP(t *testing.T) {
	as := authtest.New(t, authtest.Options{NoIssParameter: true})
	var mu sync.Mutex
	var tokenProofs, rsProofs []string
	var asFront *httptest.Server
	asFront = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/oauth-authorization-server":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"issuer":%q,"authorization_endpoint":%q,"token_endpoint":%q,"registration_endpoint":%q,"code_challenge_methods_supported":["S256"],"dpop_signing_alg_values_supported":["ES256"]}`,
				asFront.URL, as.Issuer+"/authorize", asFront.URL+"/token", as.Issuer+"/register")
			return
		case "/token":
			mu.Lock()
			tokenProofs = append(tokenProofs, r.Header.Get("DPoP"))
			first := len(tokenProofs) == 1
			mu.Unlock()
			if first {
				w.Header().Set("DPoP-Nonce", "as-nonce")
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"error":"use_dpop_nonce"}`))
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"access_token":"dpop-bound","token_type":"DPoP","expires_in":3600}`))
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(asFront.Close)
	rsURL := scriptedRS(t, asFront.URL, func(_ int, r *http.Request, w http.ResponseWriter) bool {
		if r.Header.Get("Authorization") == "" {
			w.Header().Set("WWW-Authenticate", `DPoP algs="ES256"`)
			w.WriteHeader(http.StatusUnauthorized)
			return true
		}
		mu.Lock()
		rsProofs = append(rsProofs, r.Header.Get("DPoP"))
		first := len(rsProofs) == 1
		mu.Unlock()
		if r.Header.Get("Authorization") != "DPoP dpop-bound" {
			w.WriteHeader(http.StatusBadRequest)
			return true
		}
		if first {
			w.Header().Set("DPoP-Nonce", "rs-nonce")
			w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce"`)
			w.WriteHeader(http.StatusUnauthorized)
			return true
		}
		return false
	})

	tr := newTransport(nil)
	for range 2 {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, rsURL+"?x=1", strings.NewReader(`{}`))
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
	}
	if len(tokenProofs) != 2 || len(rsProofs) != 3 {
		t.Fatalf("%d token proofs (want 2: the nonce retry), %d resource proofs (want 3)", len(tokenProofs), len(rsProofs))
	}
	seen := map[string]bool{}
	var thumb string
	check := func(proof, htu, nonce, token string) {
		t.Helper()
		jws, err := jose.ParseSigned(proof, []jose.SignatureAlgorithm{jose.ES256})
		if err != nil {
			t.Fatal(err)
		}
		h := jws.Signatures[0].Header
		if h.ExtraHeaders[jose.HeaderType] != "dpop+jwt" || h.JSONWebKey == nil || !h.JSONWebKey.IsPublic() {
			t.Errorf("proof header %+v: want typ dpop+jwt and a public jwk", h)
		}
		tp, _ := h.JSONWebKey.Thumbprint(0x5) // crypto.SHA256
		if thumb == "" {
			thumb = string(tp)
		} else if string(tp) != thumb {
			t.Error("proofs use different keys")
		}
		payload, err := jws.Verify(h.JSONWebKey)
		if err != nil {
			t.Fatal(err)
		}
		var c map[string]any
		_ = json.Unmarshal(payload, &c)
		jti, _ := c["jti"].(string)
		if jti == "" || seen[jti] {
			t.Errorf("jti %q missing or reused", jti)
		}
		seen[jti] = true
		if c["htm"] != "POST" || c["htu"] != htu {
			t.Errorf("htm %v htu %v, want POST %s", c["htm"], c["htu"], htu)
		}
		if n, _ := c["nonce"].(string); n != nonce {
			t.Errorf("nonce %q, want %q", n, nonce)
		}
		if token != "" {
			sum := sha256.Sum256([]byte(token))
			if c["ath"] != base64.RawURLEncoding.EncodeToString(sum[:]) {
				t.Errorf("ath %v does not hash the token", c["ath"])
			}
		}
	}
	check(tokenProofs[0], asFront.URL+"/token", "", "")
	check(tokenProofs[1], asFront.URL+"/token", "as-nonce", "")
	check(rsProofs[0], rsURL, "", "dpop-bound")
	check(rsProofs[1], rsURL, "rs-nonce", "dpop-bound")
	check(rsProofs[2], rsURL, "rs-nonce", "dpop-bound")
}

// A request body is sent whole again after the challenge, whether the request
// can make copies of it (GetBody) or the Transport has to keep one; the
// caller's request is left as it was.
func TestTransportResendsTheBody(t *testing.T) {
	as := authtest.New(t, authtest.Options{})
	url := as.Protect(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(w, r.Body)
	}), resource.Options{}, nil)
	const body = `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for _, copies := range []bool{true, false} {
		tr := newTransport(nil)
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if !copies {
			req.Body, req.GetBody = io.NopCloser(strings.NewReader(body)), nil
		}
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(got) != body {
			t.Errorf("GetBody %v: %d %q, want the body echoed after the authorization", copies, resp.StatusCode, got)
		}
		if req.Header.Get("Authorization") != "" {
			t.Errorf("GetBody %v: the caller's request got an Authorization header", copies)
		}
	}
}
