package upstream

import (
	"errors"
	"strings"
	"testing"
)

// AddServer adds an entry to each shape of file, keeping comments and other
// members, and the result is a configuration Parse reads with the entry in it.
func TestAddServer(t *testing.T) {
	entry := map[string]any{"command": "npx", "args": []string{"-y", "pkg@1.0.0"}}
	for _, c := range []struct{ name, list, in, want string }{
		{"new file", "mcpServers", "", "{\n  \"mcpServers\": {\n    \"w\": {\n      \"args\": [\n        \"-y\",\n        \"pkg@1.0.0\"\n      ],\n      \"command\": \"npx\"\n    }\n  }\n}\n"},
		{"empty object", "servers", "{}", ""},
		{"other members", "mcpServers", "{\n  \"globalShortcut\": \"Ctrl+Space\"\n}\n", ""},
		{"empty list", "mcpServers", "{\"mcpServers\": {}}", ""},
		{"after entries, comments kept", "servers", "{\n  // mine\n  \"servers\": {\n    \"a\": {\"type\": \"stdio\", \"command\": \"a\"}, // a\n  },\n}\n", ""},
	} {
		out, err := AddServer("f.json", []byte(c.in), c.list, "w", entry, false)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if c.want != "" && string(out) != c.want {
			t.Errorf("%s: got\n%s\nwant\n%s", c.name, out, c.want)
		}
		if strings.Contains(c.in, "//") && (!strings.Contains(string(out), "// mine") || !strings.Contains(string(out), "// a")) {
			t.Errorf("%s: comments lost:\n%s", c.name, out)
		}
		cfg, err := Parse("f.json", out, func(string) (string, bool) { return "", false })
		if err != nil {
			t.Errorf("%s: the result does not parse: %v\n%s", c.name, err, out)
			continue
		}
		if s := cfg.Servers["w"]; s == nil || s.Command != "npx" || len(s.Args) != 2 {
			t.Errorf("%s: entry not there:\n%s", c.name, out)
		}
		if strings.Contains(c.in, `"a"`) && cfg.Servers["a"] == nil {
			t.Errorf("%s: the other entry is gone:\n%s", c.name, out)
		}
	}
	in := []byte(`{"mcpServers": {"w": {"command": "old"}, "x": {"command": "x"}}}`)
	if _, err := AddServer("f.json", in, "mcpServers", "w", entry, false); !errors.Is(err, ErrServerExists) {
		t.Fatalf("a duplicate: %v", err)
	}
	out, err := AddServer("f.json", in, "mcpServers", "w", entry, true)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := Parse("f.json", out, func(string) (string, bool) { return "", false })
	if err != nil || cfg.Servers["w"].Command != "npx" || cfg.Servers["x"] == nil {
		t.Fatalf("replace: %v\n%s", err, out)
	}
	// A file the reader refuses is refused with the reader's words: the
	// server added would not be read.
	for in, want := range map[string]string{
		`{"mcpServers": []}`:            `field "mcpServers": want an object of servers by name, got an array`,
		`{"mcp": 0}`:                    `field "mcp": want an object, got a number`,
		`{"servers": "x"}`:              `field "servers": want an object of servers by name, got a string`,
		`{"mcp": {"mcpServers": true}}`: `field "mcp.mcpServers": want an object of servers by name, got a boolean`,
	} {
		if _, err := AddServer("f.json", []byte(in), "mcpServers", "w", entry, false); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("AddServer(%s) = %v, want %q", in, err, want)
		}
	}
	if _, err := AddServer("f.json", []byte(`[1]`), "mcpServers", "w", entry, false); err == nil {
		t.Fatal("a file that is not an object was accepted")
	}
}
