package upstream

import (
	"strings"
	"testing"
)

// TestEditsKeepTheRestOfTheFile: a command gets args added when it had none,
// a serverUrl is replaced, Edited shows an entry as ApplyEdits leaves it, and
// comments and other members stay as written.
func TestEditsKeepTheRestOfTheFile(t *testing.T) {
	data := []byte(`{
  // mine
  "mcpServers": {
    "a": {"command": "srv", "env": {"K": "v"}},
    "b": {"serverUrl": "https://x.example/mcp", /* remote */ "headers": {}}
  }
}`)
	spans, err := LocateServers("mcp.json", data)
	if err != nil || len(spans) != 2 {
		t.Fatalf("%v %v", spans, err)
	}
	cmd, args, u := spans[0].Launch()
	if cmd != "srv" || args != nil || u != "" {
		t.Errorf("a launches %q %q %q", cmd, args, u)
	}
	if _, _, u := spans[1].Launch(); u != "https://x.example/mcp" {
		t.Errorf("b's url %q", u)
	}
	before := string(data)
	ea := spans[0].CommandEdits("/bin/wrap", []string{"--", "srv"})
	eb := []Edit{spans[1].URLEdit("http://127.0.0.1:9/mcp")}
	out := string(ApplyEdits(data, append(ea, eb...)))
	for _, want := range []string{`"a": {"command": "/bin/wrap", "args": ["--","srv"], "env": {"K": "v"}}`, `"serverUrl": "http://127.0.0.1:9/mcp", /* remote */`, "// mine"} {
		if !strings.Contains(out, want) {
			t.Errorf("%q missing from\n%s", want, out)
		}
	}
	if got := spans[0].Edited(data, ea); got != `{"command": "/bin/wrap", "args": ["--","srv"], "env": {"K": "v"}}` {
		t.Errorf("Edited = %s", got)
	}
	if string(data) != before {
		t.Error("ApplyEdits changed its input")
	}
}
