package resource_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/auth/authtest"
	"github.com/mcpkit/mcpkit/auth/resource"
	"github.com/mcpkit/mcpkit/internal/testkit"
)

// BenchmarkMiddleware measures a validated request: a tools/call POST through
// the middleware with method and tool scopes set (the body read and walked
// for the scopes, the token verified, the principal put in the context), its
// ES256 token verified before ("cached") or on every request ("first-seen",
// no cache), against the same request to the bare handler ("bare"). What the
// middleware adds is the difference from "bare" (httptest's request and
// recorder cost the same in all three).
func BenchmarkMiddleware(b *testing.B) {
	as := authtest.New(b, authtest.Options{})
	tok, err := as.Issue(authtest.Claims{Subject: "alice", ClientID: "app", Audience: audience, Scope: "mcp:read mcp:write", TTL: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete","arguments":{"path":"/tmp/x"}}}`)
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusOK)
	})
	protect := func(cache int) http.Handler {
		return resource.Middleware(resource.Options{
			Verifier:     &resource.JWTVerifier{Issuer: as.Issuer, Audience: audience, JWKSURL: as.Issuer + "/jwks", CacheSize: cache},
			Scopes:       []string{"mcp:read"},
			MethodScopes: map[string][]string{"resources/read": {"files:read"}},
			ToolScopes:   map[string][]string{"delete": {"mcp:write"}},
		})(handler)
	}
	for _, c := range []struct {
		name string
		h    http.Handler
	}{{"bare", handler}, {"cached", protect(0)}, {"first-seen", protect(-1)}} {
		b.Run(c.name, func(b *testing.B) {
			serve := func() {
				req := httptest.NewRequestWithContext(b.Context(), http.MethodPost, "/mcp", bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+tok)
				rec := httptest.NewRecorder()
				c.h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d: %s", rec.Code, rec.Header().Get("WWW-Authenticate"))
				}
			}
			serve() // fetches the key set
			b.ReportAllocs()
			testkit.LoopCPU(b, serve)
		})
	}
}
