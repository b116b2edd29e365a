package upstream

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func envOf(vars map[string]string) LookupEnv {
	return func(name string) (string, bool) {
		v, ok := vars[name]
		return v, ok
	}
}

func TestParseClaudeDesktop(t *testing.T) {
	data := `{
	  "mcpServers": {
	    "everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"], "env": {"TOKEN": "${env:SECRET}"}},
	    "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${API_KEY:-none}"}, "timeout": 90},
	    "old": {"type": "sse", "url": "http://127.0.0.1:9000/sse", "timeout": "2m", "excludedTools": ["delete_*"]},
	    "off": {"command": "x", "disabled": true, "allowedTools": ["read_?", "list"]}
	  },
	  "globalShortcut": "Ctrl+Space"
	}`
	cfg, err := Parse("claude_desktop_config.json", []byte(data), envOf(map[string]string{"SECRET": "s3"}))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cfg.Names(), []string{"everything", "off", "old", "remote"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	e := cfg.Servers["everything"]
	if e.Transport != TransportStdio || e.Command != "npx" || !reflect.DeepEqual(e.Args, []string{"-y", "@modelcontextprotocol/server-everything"}) || e.Env["TOKEN"] != "s3" {
		t.Errorf("everything = %+v", e)
	}
	r := cfg.Servers["remote"]
	if r.Transport != TransportHTTP || r.Headers["Authorization"] != "Bearer none" || r.Timeout != 90*time.Second {
		t.Errorf("remote = %+v", r)
	}
	o := cfg.Servers["old"]
	if o.Transport != TransportSSE || o.Timeout != 2*time.Minute || o.ToolAllowed("delete_all") || !o.ToolAllowed("read") {
		t.Errorf("old = %+v", o)
	}
	off := cfg.Servers["off"]
	if !off.Disabled || !off.ToolAllowed("read_a") || off.ToolAllowed("read_ab") || !off.ToolAllowed("list") || off.ToolAllowed("write") {
		t.Errorf("off = %+v", off)
	}
}

func TestParseVSCodeFormats(t *testing.T) {
	mcpJSON := `{
	  // VS Code's mcp.json: comments and trailing commas
	  "servers": {
	    "fs": {"type": "stdio", "command": "node", "args": ["fs.js",], "cwd": "srv"},
	    "api": {"type": "http", "url": "http://127.0.0.1:8080/mcp", /* inline */ },
	  },
	  "inputs": [],
	}`
	cfg, err := Parse("/home/u/.config/Code/User/mcp.json", []byte(mcpJSON), nil)
	if err != nil {
		t.Fatal(err)
	}
	if fs := cfg.Servers["fs"]; fs.Transport != TransportStdio || fs.Cwd != "/home/u/.config/Code/User/srv" {
		t.Errorf("fs = %+v (cwd is relative to the file)", fs)
	}
	if api := cfg.Servers["api"]; api.Transport != TransportHTTP || api.URL != "http://127.0.0.1:8080/mcp" {
		t.Errorf("api = %+v", api)
	}

	settings := `{"editor.fontSize": 14, "mcp": {"servers": {"gh": {"type": "streamable-http", "url": "https://api.example.com/mcp"}}}}`
	cfg, err = Parse("settings.json", []byte(settings), nil)
	if err != nil {
		t.Fatal(err)
	}
	if gh := cfg.Servers["gh"]; gh == nil || gh.Transport != TransportHTTP {
		t.Errorf("gh = %+v, want an http server from mcp.servers", gh)
	}
}

func TestParseEnvFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("# comment\nA=1\nexport B=\"two words\"\n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Parse(filepath.Join(dir, "mcp.json"), []byte(`{"servers": {"s": {"command": "x", "envFile": ".env", "env": {"A": "override"}}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cfg.Servers["s"].Env, map[string]string{"A": "override", "B": "two words"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Env = %v, want %v", got, want)
	}
}

// TestParseErrors checks that every mistake is reported with the file, the
// server and the field it is in.
func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, data string
		want       []string // substrings of the message, in any order
	}{
		{"syntax", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n  oops\n}", []string{"bad.json: line 5, column 3"}},
		{"no servers", `{"other": 1}`, []string{`bad.json: no servers`, `"mcpServers"`}},
		{"servers not an object", `{"mcpServers": []}`, []string{`bad.json: field "mcpServers": want an object of servers by name, got an array`}},
		{"args type", `{"mcpServers": {"gh": {"command": "x", "args": "--flag"}}}`, []string{`bad.json: server "gh": field "args": want an array of strings, got a string`}},
		{"env value type", `{"mcpServers": {"gh": {"command": "x", "env": {"N": 1}}}}`, []string{`bad.json: server "gh": field "env.N": want a string, got a number`}},
		{"missing command", `{"mcpServers": {"gh": {"args": []}}}`, []string{`bad.json: server "gh": field "command": missing`}},
		{"both", `{"mcpServers": {"gh": {"command": "x", "url": "http://h/mcp"}}}`, []string{`server "gh": field "url": a server has either`}},
		{"bad type", `{"servers": {"gh": {"type": "websocket", "url": "ws://h"}}}`, []string{`server "gh": field "type": unknown transport "websocket"`}},
		{"bad url", `{"servers": {"gh": {"type": "http", "url": "ftp://h/x"}}}`, []string{`server "gh": field "url": "ftp://h/x" is not an http:// or https:// URL`}},
		{"unset var", `{"mcpServers": {"gh": {"url": "https://h/mcp", "headers": {"Authorization": "Bearer ${env:GH_TOKEN}"}}}}`,
			[]string{`server "gh": field "headers.Authorization": ${env:GH_TOKEN}: the environment variable GH_TOKEN is not set`}},
		{"vs code input", `{"servers": {"gh": {"command": "x", "args": ["${input:token}"]}}}`, []string{`server "gh": field "args[0]": ${input:token}: unsupported variable`}},
		{"timeout", `{"mcpServers": {"gh": {"command": "x", "timeout": "soon"}}}`, []string{`server "gh": field "timeout": want a number of seconds or a duration such as "30s", got "soon"`}},
		{"negative timeout", `{"mcpServers": {"gh": {"command": "x", "timeout": -1}}}`, []string{`field "timeout": want a positive number of seconds`}},
		{"empty glob", `{"mcpServers": {"gh": {"command": "x", "excludedTools": ["a", ""]}}}`, []string{`server "gh": field "excludedTools[1]": an empty pattern`}},
		{"protocol", `{"mcpServers": {"gh": {"command": "x", "protocolVersion": "1999-01-01"}}}`, []string{`server "gh": field "protocolVersion": "1999-01-01" is not a version`}},
		{"twice", `{"mcpServers": {"a": {"command": "x"}}, "mcp": {"servers": {"a": {"command": "y"}}}}`, []string{`server "a": defined twice (under "mcpServers" and again under "mcp.servers")`}},
		{"several at once", `{"mcpServers": {"a": {"command": "x", "timeout": "?"}, "b": {"url": "nope"}}}`,
			[]string{`server "a": field "timeout"`, `server "b": field "url"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("bad.json", []byte(c.data), nil)
			if err == nil {
				t.Fatal("Parse succeeded, want an error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
		})
	}
}

// TestParseErrorsOncePerField: a value whose variable is not set is reported
// once, not again by the checks of the empty value that is left.
func TestParseErrorsOncePerField(t *testing.T) {
	for _, c := range []struct{ name, data, want string }{
		{"url", `{"servers": {"api": {"type": "http", "url": "https://${HOST}/mcp"}}}`,
			`bad.json: server "api": field "url": ${HOST}: the environment variable HOST is not set (give a default with ${HOST:-value})`},
		{"url, VS Code variable", `{"servers": {"api": {"url": "${workspaceFolder}/mcp"}}}`,
			`bad.json: server "api": field "url": ${workspaceFolder}: a VS Code variable, which only VS Code fills in`},
		{"envFile", `{"servers": {"fs": {"command": "x", "envFile": "${workspaceFolder}/.env"}}}`,
			`bad.json: server "fs": field "envFile": ${workspaceFolder}: a VS Code variable, which only VS Code fills in`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("bad.json", []byte(c.data), nil)
			if err == nil {
				t.Fatal("Parse succeeded, want an error")
			}
			if lines := strings.Split(err.Error(), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], c.want) {
				t.Errorf("error:\n%v\nwant one line starting with\n%s", err, c.want)
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "none.json"))
	if err == nil || !strings.Contains(err.Error(), "none.json") {
		t.Fatalf("Load of a missing file: %v, want an error naming it", err)
	}
}

func TestExpand(t *testing.T) {
	env := envOf(map[string]string{"A": "1", "EMPTY": "", "HOME": "/home/u"})
	cases := []struct{ in, want, err string }{
		{"plain", "plain", ""},
		{"${A}-${env:A}", "1-1", ""},
		{"${B:-dflt}", "dflt", ""},
		{"${env:EMPTY:-d}", "d", ""},
		{"${EMPTY}", "", ""},
		{"$$A ${A}$", "$$A 1$", ""},
		{"$${A} $${A:-x}", "${A} ${A:-x}", ""},
		{"${userHome}/x", "/home/u/x", ""},
		{"${B}", "", "B is not set"},
		{"${workspaceFolder}/x", "", "${workspaceFolder}: a VS Code variable, which only VS Code fills in"},
		{"${fileDirname}", "", "${fileDirname}: a VS Code variable"},
		{"${input:x}", "", "unsupported variable"},
		{"${1A}", "", "not an environment variable name"},
		{"${A", "", "without its closing }"},
	}
	// A VS Code variable the environment sets is read from it, as ${NAME} is.
	if got, err := expand("${workspaceFolder}/x", envOf(map[string]string{"workspaceFolder": "/w"}), nil); err != nil || got != "/w/x" {
		t.Errorf("${workspaceFolder} set in the environment: %q, %v", got, err)
	}
	for _, c := range cases {
		got, err := expand(c.in, env, nil)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("expand(%q) = %q, %v; want an error containing %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("expand(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestGlobMatch(t *testing.T) {
	cases := []struct {
		pattern, name string
		want          bool
	}{
		{"*", "", true},
		{"*", "anything", true},
		{"read_*", "read_file", true},
		{"read_*", "write_file", false},
		{"*_file", "read_file", true},
		{"r?ad", "read", true},
		{"r?ad", "rad", false},
		{"a*b*c", "aXXbYYc", true},
		{"a*b*c", "aXXbYY", false},
		{"exact", "exact", true},
		{"exact", "exactly", false},
		{"é?", "éé", true},
	}
	for _, c := range cases {
		if got := globMatch(c.pattern, c.name); got != c.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", c.pattern, c.name, got, c.want)
		}
	}
}

func TestStripJSONCKeepsStringsAndOffsets(t *testing.T) {
	in := "{\"a\": \"// not a comment, /* nor this */\", // but this\n\"b\": [1, 2,], /* x\ny */ \"c\": \"\\\"\",}"
	out := stripJSONC([]byte(in))
	if len(out) != len(in) || strings.Count(string(out), "\n") != strings.Count(in, "\n") {
		t.Fatalf("length or line breaks changed: %q", out)
	}
	want := "{\"a\": \"// not a comment, /* nor this */\",            \n\"b\": [1, 2 ],     \n     \"c\": \"\\\"\" }"
	if string(out) != want {
		t.Errorf("stripJSONC =\n%q\nwant\n%q", out, want)
	}
}

func TestBackoff(t *testing.T) {
	got := []time.Duration{}
	for n := 1; n <= 8; n++ {
		got = append(got, backoff(500*time.Millisecond, 5*time.Second, n))
	}
	want := []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second, 5 * time.Second, 5 * time.Second}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("backoff = %v, want %v", got, want)
	}
}

// A file saved with a UTF-8 byte order mark (Notepad does) is read by Parse
// and LocateServers alike, with the offsets of the file as it is.
func TestParseByteOrderMark(t *testing.T) {
	data := []byte("\xef\xbb\xbf{\"mcpServers\": {\"demo\": {\"command\": \"mcpkit\", \"args\": [\"serve\"]}}}")
	cfg, err := Parse("bom.json", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := cfg.Servers["demo"]; d == nil || d.Command != "mcpkit" {
		t.Fatalf("demo = %+v", d)
	}
	spans, err := LocateServers("bom.json", data)
	if err != nil || len(spans) != 1 || data[spans[0].Value.Start] != '{' || data[spans[0].Value.End-1] != '}' {
		t.Fatalf("LocateServers: %v %+v", err, spans)
	}
	if _, err := Parse("bad.json", []byte("\xef\xbb{}"), nil); err == nil {
		t.Error("a cut byte order mark was accepted")
	}
}
