package auth

import (
	"net/url"
	"slices"
	"testing"
)

func TestResourceAllowed(t *testing.T) {
	tests := []struct {
		resource, server string
		want             bool
	}{
		{"http://localhost:1/mcp", "http://localhost:1/mcp", true},
		{"http://localhost:1", "http://localhost:1/mcp", true},
		{"http://localhost:1/", "http://localhost:1/mcp", true},
		{"HTTP://LOCALHOST:1/mcp", "http://localhost:1/mcp/", true},
		{"https://a.example/", "https://a.example:443/mcp", true},
		{"http://localhost:1/mc", "http://localhost:1/mcp", false},
		{"http://localhost:1/mcp/x", "http://localhost:1/mcp", false},
		{"https://evil.example.com/mcp", "http://localhost:1/mcp", false},
		{"http://localhost:2/mcp", "http://localhost:1/mcp", false},
		{"https://localhost:1/mcp", "http://localhost:1/mcp", false},
		{"::", "http://localhost:1/mcp", false},
	}
	for _, tt := range tests {
		if got := ResourceAllowed(tt.resource, tt.server); got != tt.want {
			t.Errorf("ResourceAllowed(%q, %q) = %v", tt.resource, tt.server, got)
		}
	}
}

func TestCanonicalResource(t *testing.T) {
	for in, want := range map[string]string{
		"HTTPS://MCP.Example.com/mcp/": "https://mcp.example.com/mcp",
		"https://mcp.example.com":      "https://mcp.example.com",
		"https://mcp.example.com/":     "https://mcp.example.com/",
		"http://h:8080/a/b?x=1#frag":   "http://h:8080/a/b",
	} {
		if got, err := CanonicalResource(in); err != nil || got != want {
			t.Errorf("CanonicalResource(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := CanonicalResource("/relative"); err == nil {
		t.Error("a relative URL was accepted")
	}
}

func TestWellKnownOrders(t *testing.T) {
	u, _ := url.Parse("http://h:1/mcp/")
	if got := protectedResourceURLs(u); !slices.Equal(got, []string{"http://h:1/.well-known/oauth-protected-resource/mcp", "http://h:1/.well-known/oauth-protected-resource"}) {
		t.Errorf("protected resource URLs = %v", got)
	}
	u, _ = url.Parse("http://h:1")
	if got := protectedResourceURLs(u); !slices.Equal(got, []string{"http://h:1/.well-known/oauth-protected-resource"}) {
		t.Errorf("protected resource URLs without a path = %v", got)
	}
	got, _ := serverMetadataURLs("http://a:2/tenant1")
	want := []string{
		"http://a:2/.well-known/oauth-authorization-server/tenant1",
		"http://a:2/.well-known/openid-configuration/tenant1",
		"http://a:2/tenant1/.well-known/openid-configuration",
	}
	if !slices.Equal(got, want) {
		t.Errorf("server metadata URLs = %v", got)
	}
	got, _ = serverMetadataURLs("http://a:2/")
	if !slices.Equal(got, []string{"http://a:2/.well-known/oauth-authorization-server", "http://a:2/.well-known/openid-configuration"}) {
		t.Errorf("server metadata URLs without a path = %v", got)
	}
}

func TestParseMetadataRejects(t *testing.T) {
	for _, doc := range []string{
		`{}`, `{"resource":"/mcp"}`, `{"resource":"ftp://x/mcp"}`, `{"resource":"https://x/mcp#f"}`,
		`{"resource":"https://x/mcp","authorization_servers":["not a url"]}`, `[]`, `{"resource":1}`,
	} {
		if _, err := ParseProtectedResourceMetadata([]byte(doc)); err == nil {
			t.Errorf("protected resource metadata %s was accepted", doc)
		}
	}
	for _, doc := range []string{
		`{}`, `{"issuer":"https://as/?q=1"}`, `{"issuer":"https://as","token_endpoint":"/token"}`,
		`{"issuer":"https://as","authorization_endpoint":"javascript:alert(1)"}`,
	} {
		if _, err := ParseServerMetadata([]byte(doc)); err == nil {
			t.Errorf("server metadata %s was accepted", doc)
		}
	}
	m, err := ParseServerMetadata([]byte(`{"issuer":"https://as/t","token_endpoint":"https://as/t/token","code_challenge_methods_supported":["S256"],"authorization_response_iss_parameter_supported":true,"extra":{"x":1}}`))
	if err != nil || m.Issuer != "https://as/t" || !m.AuthorizationResponseIssParameterSupported || !supports(m.CodeChallengeMethodsSupported, "S256") {
		t.Errorf("ParseServerMetadata = %+v, %v", m, err)
	}
}

// checkURL fails t unless s is an absolute http(s) URL without a fragment.
func checkURL(t *testing.T, s string) {
	if err := checkHTTPURL(s, "url"); err != nil {
		t.Fatalf("decoded URL %q: %v", s, err)
	}
}

func FuzzParseProtectedResourceMetadata(f *testing.F) {
	f.Add([]byte(`{"resource":"http://localhost:1/mcp","authorization_servers":["http://localhost:2/tenant1"],"scopes_supported":["a"]}`))
	f.Add([]byte(`{"resource":"https://x","authorization_servers":[]}`))
	f.Add([]byte(`{"resource":"https://x#","authorization_servers":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseProtectedResourceMetadata(data)
		if err != nil {
			return
		}
		checkURL(t, m.Resource)
		for _, as := range m.AuthorizationServers {
			checkURL(t, as)
		}
		// A resource always allows itself.
		if !ResourceAllowed(m.Resource, m.Resource) {
			t.Fatalf("resource %q does not allow itself", m.Resource)
		}
	})
}

func FuzzParseServerMetadata(f *testing.F) {
	f.Add([]byte(`{"issuer":"http://localhost:2/tenant1","authorization_endpoint":"http://localhost:2/tenant1/authorize","token_endpoint":"http://localhost:2/tenant1/token","code_challenge_methods_supported":["S256"]}`))
	f.Add([]byte(`{"issuer":"https://as?x","token_endpoint":""}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseServerMetadata(data)
		if err != nil {
			return
		}
		checkURL(t, m.Issuer)
		for _, e := range []string{m.AuthorizationEndpoint, m.TokenEndpoint, m.RegistrationEndpoint, m.JWKSURI} {
			if e != "" {
				checkURL(t, e)
			}
		}
		if _, err := serverMetadataURLs(m.Issuer); err != nil {
			t.Fatalf("no discovery URLs for issuer %q: %v", m.Issuer, err)
		}
	})
}
