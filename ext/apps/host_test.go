package apps

import (
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/protocol"
)

// TestContentSecurityPolicy: with nothing declared a view gets no network,
// frames or remote scripts; declared domains land in their directives; a
// value that could add a directive or a keyword is dropped.
func TestContentSecurityPolicy(t *testing.T) {
	def := ContentSecurityPolicy(nil)
	for _, want := range []string{"default-src 'none'", "connect-src 'none'", "frame-src 'none'", "script-src 'unsafe-inline';", "form-action 'none'"} {
		if !strings.Contains(def, want) {
			t.Errorf("default policy %q lacks %q", def, want)
		}
	}
	if empty := ContentSecurityPolicy(&CSP{}); empty != def {
		t.Errorf("an empty CSP gives %q, nil gives %q", empty, def)
	}
	got := ContentSecurityPolicy(&CSP{
		ResourceDomains: []string{"https://unpkg.com", "https://evil.example; script-src *", "'unsafe-eval'", "*"},
		ConnectDomains:  []string{"https://api.example.com:8443", "wss://*.example.org"},
	})
	if !strings.Contains(got, "script-src 'unsafe-inline' https://unpkg.com;") {
		t.Errorf("policy %q: resource domain not in script-src", got)
	}
	if !strings.Contains(got, "connect-src https://api.example.com:8443 wss://*.example.org;") {
		t.Errorf("policy %q: connect domains", got)
	}
	if strings.Contains(got, "evil") || strings.Contains(got, "unsafe-eval") || strings.Contains(got, " *;") {
		t.Errorf("policy %q took an injected source", got)
	}
}

// TestApprovedCSP: a host tells the view exactly the domains its policy
// grants: the valid declared ones, in their order.
func TestApprovedCSP(t *testing.T) {
	if got := ApprovedCSP(nil); got.ConnectDomains != nil || got.ResourceDomains != nil || got.FrameDomains != nil || got.BaseURIDomains != nil {
		t.Errorf("nothing declared: %+v", got)
	}
	got := ApprovedCSP(&CSP{
		ResourceDomains: []string{"https://unpkg.com", "https://evil.example; script-src *", "*"},
		ConnectDomains:  []string{"'self'", "wss://*.example.org"},
		FrameDomains:    []string{"https://www.youtube.com"},
	})
	if strings.Join(got.ResourceDomains, " ") != "https://unpkg.com" || strings.Join(got.ConnectDomains, " ") != "wss://*.example.org" ||
		strings.Join(got.FrameDomains, " ") != "https://www.youtube.com" || got.BaseURIDomains != nil {
		t.Errorf("approved %+v", got)
	}
	for _, d := range got.ResourceDomains {
		if !strings.Contains(ContentSecurityPolicy(&got), " "+d) {
			t.Errorf("%s approved but not in the policy", d)
		}
	}
}

// FuzzContentSecurityPolicy: whatever a server declares, the policy keeps its
// eleven directives (no ';' or ',' smuggled in) and never grants a keyword.
func FuzzContentSecurityPolicy(f *testing.F) {
	f.Add("https://unpkg.com", "https://a.example; script-src *")
	f.Add("'unsafe-eval'", "wss://*.example.org:1")
	def := ContentSecurityPolicy(nil)
	f.Fuzz(func(t *testing.T, a, b string) {
		got := ContentSecurityPolicy(&CSP{ResourceDomains: []string{a, b}, ConnectDomains: []string{b},
			FrameDomains: []string{a}, BaseURIDomains: []string{a, b}})
		if n := strings.Count(got, ";"); n != 10 || strings.Contains(got, ",") {
			t.Fatalf("policy %q has %d directives", got, n+1)
		}
		// Declared sources may only replace 'none' (of connect-src,
		// frame-src and base-uri): never add a quoted keyword.
		if strings.Count(got, "'") > strings.Count(def, "'") {
			t.Fatalf("policy %q grants a keyword", got)
		}
	})
}

// TestToolViewAndIsView: a tool's view is read from _meta.ui (as decoded
// from JSON) or the flat legacy key, never from a URI of another scheme; a
// view's content is recognised by its profile, whatever the spelling.
func TestToolViewAndIsView(t *testing.T) {
	for _, c := range []struct {
		meta protocol.Meta
		want string
	}{
		{protocol.Meta{"ui": map[string]any{"resourceUri": "ui://a/v.html"}}, "ui://a/v.html"},
		{protocol.Meta{"ui": ToolMeta{ResourceURI: "ui://b"}}, "ui://b"},
		{protocol.Meta{LegacyResourceURIKey: "ui://legacy"}, "ui://legacy"},
		{protocol.Meta{"ui": map[string]any{"resourceUri": "https://x"}}, ""},
		{protocol.Meta{"ui": "nonsense"}, ""},
		{nil, ""},
	} {
		if got := ToolView(&protocol.Tool{Name: "t", Meta: c.meta}); got != c.want {
			t.Errorf("ToolView(%v) = %q, want %q", c.meta, got, c.want)
		}
	}
	for _, c := range []struct {
		uri, mime string
		want      bool
	}{
		{"ui://v", MIMEType, true},
		{"ui://v", "Text/HTML; charset=utf-8; profile=MCP-App", true},
		{"ui://v", "text/html", false},
		{"ui://v", "text/plain;profile=mcp-app", false},
		{"https://v", MIMEType, false},
		{"ui://v", "text/html;profile=", false},
	} {
		if got := IsView(&protocol.ResourceContents{URI: c.uri, MimeType: c.mime}); got != c.want {
			t.Errorf("IsView(%q, %q) = %v", c.uri, c.mime, got)
		}
	}
}
