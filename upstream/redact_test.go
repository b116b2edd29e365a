package upstream

import "testing"

// TestRedact: the values of env and headers, the URL's password and query
// values, and what variables brought in are replaced; short values, the
// header's scheme and ${userHome} are not.
func TestRedact(t *testing.T) {
	data := `{"mcpServers": {
		"api": {"url": "https://user:pa55word@h/mcp?key=${env:KEY}&v=2", "headers": {"Authorization": "Bearer tok-123456", "X-Org": "${ORG}"}},
		"cli": {"command": "${userHome}/bin/srv", "args": ["--api-key", "${API_KEY:-dev-key-1}"], "env": {"DEBUG": "1", "DB_PASSWORD": "hunter22"}}
	}}`
	env := envOf(map[string]string{"KEY": "q-secret-9", "ORG": "acme-corp", "HOME": "/home/someone"})
	cfg, err := Parse("mcp.json", []byte(data), env)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ server, in, want string }{
		{"api", `Post "https://user:pa55word@h/mcp?key=q-secret-9&v=2": refused`, `Post "https://user:[redacted]@h/mcp?key=[redacted]&v=2": refused`},
		{"api", "401: token tok-123456 expired; org acme-corp", "401: token [redacted] expired; org [redacted]"},
		{"api", "Authorization: Bearer tok-123456", "Authorization: [redacted]"},
		{"cli", "exec /home/someone/bin/srv --api-key dev-key-1: DEBUG=1 DB_PASSWORD=hunter22", "exec /home/someone/bin/srv --api-key [redacted]: DEBUG=1 DB_PASSWORD=[redacted]"},
	} {
		if got := cfg.Servers[c.server].Redact(c.in); got != c.want {
			t.Errorf("%s: Redact(%q)\n got %q\nwant %q", c.server, c.in, got, c.want)
		}
	}
	if got := (&ServerConfig{Name: "plain"}).Redact("nothing to hide"); got != "nothing to hide" {
		t.Errorf("a server without secrets: %q", got)
	}
}
