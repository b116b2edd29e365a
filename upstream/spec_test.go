package upstream

import (
	"strings"
	"testing"
)

// TestParseServerSpec: names, quoting and the two kinds of server.
func TestParseServerSpec(t *testing.T) {
	cases := []struct {
		spec, name, url string
		cmd             []string
	}{
		{"mcpkit serve", "mcpkit", "", []string{"mcpkit", "serve"}},
		{`fs=npx -y "@scope/server files" 'a b' c\ d`, "fs", "", []string{"npx", "-y", "@scope/server files", "a b", "c d"}},
		{"/usr/local/bin/my.server.py --x", "my_server", "", []string{"/usr/local/bin/my.server.py", "--x"}},
		{"https://mcp.example.com/mcp", "mcp_example_com", "https://mcp.example.com/mcp", nil},
		{"gh=http://127.0.0.1:8080/mcp", "gh", "http://127.0.0.1:8080/mcp", nil},
	}
	for _, c := range cases {
		sc, err := ParseServerSpec(c.spec)
		if err != nil {
			t.Errorf("%q: %v", c.spec, err)
			continue
		}
		var cmd []string
		if sc.Command != "" {
			cmd = append([]string{sc.Command}, sc.Args...)
		}
		if sc.Name != c.name || sc.URL != c.url || strings.Join(cmd, "|") != strings.Join(c.cmd, "|") {
			t.Errorf("%q: %q %q %q", c.spec, sc.Name, cmd, sc.URL)
		}
	}
}

// TestParseServerSpecRefuses: an unterminated quote and an empty command.
func TestParseServerSpecRefuses(t *testing.T) {
	for spec, want := range map[string]string{`a 'b`: "unterminated single quote", `a "b`: "unterminated double quote", "  ": "no command"} {
		if _, err := ParseServerSpec(spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", spec, err, want)
		}
	}
}
