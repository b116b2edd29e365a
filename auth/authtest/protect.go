package authtest

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpkit/mcpkit/auth"
	"github.com/mcpkit/mcpkit/auth/resource"
)

// Protect serves h on a new loopback server as a resource protected by this
// authorization server: h gets every request to /mcp and below that
// resource.Middleware lets through (o.Verifier and o.ResourceMetadataURL are
// filled in when empty: a JWT verifier for this server's tokens), and the
// Protected Resource Metadata is served at its well-known path (prm, if not
// nil, may change it). It returns the MCP endpoint's URL; the server stops when
// the test ends.
func (s *Server) Protect(tb testing.TB, h http.Handler, o resource.Options, prm func(*auth.ProtectedResourceMetadata)) string {
	tb.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	tb.Cleanup(srv.Close)
	url := srv.URL + "/mcp"
	md := &auth.ProtectedResourceMetadata{Resource: url, AuthorizationServers: []string{s.Issuer}, ScopesSupported: o.Scopes}
	if prm != nil {
		prm(md)
	}
	mdPath, err := resource.MetadataPath(url)
	if err != nil {
		tb.Fatal(err)
	}
	if o.Verifier == nil {
		o.Verifier = &resource.JWTVerifier{Issuer: s.Issuer, Audience: url, JWKSURL: s.Issuer + "/jwks"}
	}
	if o.ResourceMetadataURL == "" {
		o.ResourceMetadataURL = srv.URL + mdPath
	}
	protected := resource.Middleware(o)(h)
	mux.Handle(mdPath, resource.MetadataHandler(md))
	mux.Handle("/mcp", protected)
	mux.Handle("/mcp/", protected)
	return url
}
