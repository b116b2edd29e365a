package main

import (
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
)

// TestCompletionOfServerNames: through cobra's __complete (what the shell
// scripts call), call, get and read complete with the --url server's tools,
// prompts and resources, filtered by the prefix typed and described; --header
// reaches the server; without a server nothing is offered, and after "--" the
// server's own command line is left to the shell's file completion.
func TestCompletionOfServerNames(t *testing.T) {
	base, err := url.Parse(serveHTTPForTest(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(base)
	front := testkit.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "complete-key" {
			http.Error(w, "missing API key", http.StatusUnauthorized)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	u := front.URL + "/mcp"
	complete := func(args ...string) (names []string, directive string) {
		t.Helper()
		out, errOut, code := runCLI(t, nil, append([]string{"__complete"}, args...)...)
		if code != 0 {
			t.Fatalf("__complete %v: exit %d\n%s", args, code, errOut)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		return lines[:len(lines)-1], lines[len(lines)-1]
	}
	key := []string{"--header", "X-Api-Key: complete-key"}
	for _, c := range []struct {
		args []string
		want string // one completion, "name\tdescription"
		not  string // a name that must not be offered
	}{
		{append([]string{"call", "--url", u}, append(key, "ec")...), "echo\tEchoes the message back to the client.", "add"},
		{append([]string{"call", "--url", u}, append(key, "")...), "add\t", ""},
		{append([]string{"get", "--url", u}, append(key, "")...), "greet\t", ""},
		{append([]string{"read", "--url", u}, append(key, "")...), "demo://", ""},
	} {
		names, directive := complete(c.args...)
		found := false
		for _, n := range names {
			found = found || strings.HasPrefix(n, c.want)
			if c.not != "" && strings.HasPrefix(n, c.not+"\t") {
				t.Errorf("%v: %q offered", c.args, n)
			}
		}
		if !found || directive != ":4" {
			t.Errorf("%v: %q, directive %s; want %q and :4 (no files)", c.args, names, directive, c.want)
		}
	}
	if names, _ := complete("call", "--url", u, ""); len(names) != 0 {
		t.Errorf("without the header: %q", names)
	}
	if names, directive := complete("call", ""); len(names) != 0 || directive != ":4" {
		t.Errorf("no server: %q %s", names, directive)
	}
	if names, directive := complete("call", "--", "mcpkit", ""); len(names) != 0 || directive != ":0" {
		t.Errorf("after --: %q %s; want the shell's default", names, directive)
	}
}

// TestHelpGroupsCommands: mcpkit --help lists the commands under four groups.
func TestHelpGroupsCommands(t *testing.T) {
	out, _, code := runCLI(t, nil, "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	at := -1
	for _, want := range []string{"Talk to a server:", "  call ", "  tools ", "Run:", "  serve ", "Inspect:", "  tap ", "Set up:", "  auth ", "  version "} {
		i := strings.Index(out, want)
		if i < at {
			t.Errorf("%q is missing or out of its group:\n%s", want, out)
		}
		at = i
	}
	if strings.Contains(out, "Additional Commands") || strings.Contains(out, "Available Commands") {
		t.Errorf("commands outside the groups:\n%s", out)
	}
}
