package gateway

import (
	"testing"

	"github.com/yosida95/uritemplate/v3"

	"github.com/mcpkit/mcpkit/protocol"
)

// TestURIRewriting: the URIs of a server whose resources were namespaced are
// namespaced in its results too, and turned back on the way to it.
func TestURIRewriting(t *testing.T) {
	u := &upServer{name: "my server"}
	plain := []protocol.Content{{Type: "resource_link", URI: "demo://readme"}}
	u.rewriteContent(plain)
	if plain[0].URI != "demo://readme" {
		t.Errorf("a server with nothing namespaced: %q changed", plain[0].URI)
	}

	prefix := namespacedURI("my server", "")
	if prefix != "mcpkit-gateway://my%20server/" {
		t.Fatalf("prefix = %q", prefix)
	}
	u.renames.Store(&uriRenames{
		prefix:    prefix,
		static:    map[string]string{"demo://readme": prefix + "demo://readme"},
		templates: []*uritemplate.Template{uritemplate.MustNew("demo://items/{id}")},
	})
	content := []protocol.Content{
		{Type: "resource_link", URI: "demo://readme"},
		{Type: "resource", Resource: &protocol.ResourceContents{URI: "demo://items/42"}},
		{Type: "resource_link", URI: "other://x"},
		{Type: "resource_link", URI: "mcpkit-gateway://inner/demo://readme"},
		{Type: "text", Text: "demo://readme"},
	}
	u.rewriteContent(content)
	want := []string{prefix + "demo://readme", prefix + "demo://items/42", "other://x", prefix + "mcpkit-gateway://inner/demo://readme"}
	got := []string{content[0].URI, content[1].Resource.URI, content[2].URI, content[3].URI}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("block %d: %q, want %q", i, got[i], want[i])
		}
	}
	if content[4].Text != "demo://readme" {
		t.Errorf("a text block changed: %q", content[4].Text)
	}
	for _, uri := range []string{"demo://readme", "demo://items/42", "mcpkit-gateway://inner/demo://readme"} {
		if back := u.upstreamURI(u.gatewayURI(uri)); back != uri {
			t.Errorf("%q → %q → %q", uri, u.gatewayURI(uri), back)
		}
	}
	if got := u.upstreamURI("mcpkit-gateway://other/demo://readme"); got != "mcpkit-gateway://other/demo://readme" {
		t.Errorf("another server's URI was stripped: %q", got)
	}
}
