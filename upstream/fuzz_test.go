package upstream

import (
	"bytes"
	"testing"
)

// FuzzParse feeds configuration files (a peer's: a cloned repository's
// .vscode/mcp.json) to the one configuration reader: Parse, LocateServers
// (what `tap install` edits in place) and stripJSONC under them must never
// panic; stripJSONC keeps the length and the line breaks, and every span
// LocateServers returns lies in the file and encloses an object.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"mcpServers": {"demo": {"command": "mcpkit", "args": ["serve"], "env": {"K": "${env:HOME}"}}}}`,
		"\xef\xbb\xbf{\"servers\": {\"a\": {\"type\": \"http\", \"url\": \"http://127.0.0.1:1/mcp\", /* c */ },}}",
		`{"mcp": {"servers": {"x": {"command": "a", "allowedTools": ["*"], "timeout": "30s"}}}} // end`,
		`{"mcpServers": {"a": {"command": "a"}, "a": {"url": "u"}}, "mcpServers": {}}`,
		`{"mcpServers": {"../../x": {"command": "$(id)", "disabled": true}}}`,
		`{"mcpServers": {"s": {"command": "a", "args": ["\u00e9", "\"", "\\"]}}`, `[`, `{"a": /*`, `"`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		clean := stripJSONC(data)
		if len(clean) != len(data) || bytes.Count(clean, []byte("\n")) != bytes.Count(data, []byte("\n")) {
			t.Fatalf("stripJSONC changed the length or the lines of %q: %q", data, clean)
		}
		_, _ = Parse("fuzz.json", data, func(string) (string, bool) { return "v", true })
		spans, err := LocateServers("fuzz.json", data)
		if err != nil {
			return
		}
		for _, s := range spans {
			v := s.Value
			if v.Start < 0 || v.End > len(data) || v.Start >= v.End || data[v.Start] != '{' || data[v.End-1] != '}' {
				t.Fatalf("span %+v of %q in %q", v, s.Name, data)
			}
			for name, m := range s.Members {
				if m.Start < v.Start || m.End > v.End || m.Start > m.End {
					t.Fatalf("member %q span %+v outside its entry %+v in %q", name, m, v, data)
				}
			}
		}
	})
}

// FuzzAddServer: whatever the file, AddServer refuses it or returns a file
// whose servers include the new one.
func FuzzAddServer(f *testing.F) {
	for _, s := range []string{"", "{}", `{"mcpServers": {}}`, `{"servers": {"a": {"command": "a"}}}`, "{\n // c\n \"mcpServers\": {\"a\": {\"command\": \"a\"},},\n}", `{"x": 1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := AddServer("f.json", data, "mcpServers", "new", map[string]any{"command": "c"}, true)
		if err != nil {
			return
		}
		entries, err := ServerEntries("f.json", out)
		if err != nil {
			t.Fatalf("AddServer made a file that does not read: %v\n%q\n→\n%q", err, data, out)
		}
		if _, ok := entries["new"]; !ok {
			t.Fatalf("the new server is not in the file:\n%q\n→\n%q", data, out)
		}
	})
}
