//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/tap/capture"
	"github.com/mcpkit/mcpkit/tap/replay"
)

// recordThroughTap runs a client command (args, before "--") against
// `mcpkit tap --out FILE -- mcpkit serve` and returns the capture's path.
func recordThroughTap(t *testing.T, name string, client ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	args := append(client, "--", mcpkitBin, "tap", "--out", path, "--", mcpkitBin, "serve")
	if out, errOut, code := runCLI(t, nil, args...); code != 0 {
		t.Fatalf("recording %v: exit %d\n%s\n%s", client, code, out, errOut)
	}
	return path
}

// TestTapReplayServerStdio: a capture recorded by a real tap around mcpkit serve
// is served back to the mcpkit client, legacy and stateless, with progress
// notifications under the new request's token; other arguments get an error
// naming the method and the closest recorded params.
func TestTapReplayServerStdio(t *testing.T) {
	for _, proto := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(proto, func(t *testing.T) {
			path := recordThroughTap(t, "count.jsonl", "--protocol", proto, "call", "count", `{"n":3}`)
			out, errOut, code := runCLI(t, nil, "--protocol", proto, "call", "count", `{ "n" : 3 }`, "--", mcpkitBin, "tap", "replay-server", path)
			want := "progress 0/3 Step 0 of 3\nprogress 1/3 Step 1 of 3\nprogress 2/3 Step 2 of 3\n"
			if code != 0 || strings.TrimSpace(out) != "3" || !strings.Contains(errOut, want) {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 3 and the recorded progress", code, out, errOut)
			}
			_, errOut, code = runCLI(t, nil, "--protocol", proto, "call", "count", `{"n":4}`, "--", mcpkitBin, "tap", "replay-server", path)
			if code == 0 || !strings.Contains(errOut, "no recorded tools/call request has these params") || !strings.Contains(errOut, `{"arguments":{"n":3},"name":"count"}`) {
				t.Fatalf("exit %d, stderr %q; want the no-match error with the closest params", code, errOut)
			}
		})
	}
}

// TestTapReplayServerHTTP: the same capture served over Streamable HTTP.
func TestTapReplayServerHTTP(t *testing.T) {
	path := recordThroughTap(t, "echo.jsonl", "--protocol", "2025-11-25", "call", "echo", `{"message":"hi"}`)
	base := startHTTPForTest(t, "tap", "replay-server", "--http", "127.0.0.1:0", path)
	for _, proto := range []string{"2025-11-25", "2026-07-28"} {
		out, errOut, code := runURL(t, base+"/mcp", "--protocol", proto, "call", "echo", `{"message":"hi"}`)
		if code != 0 || out != "hello hi\n" {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", proto, code, out, errOut)
		}
	}
	if out, errOut, code := runURL(t, base+"/mcp", "ping"); code != 0 {
		t.Fatalf("ping: exit %d %q %q", code, out, errOut)
	}
}

// TestTapReplayAgainstServers: replaying a capture against the server it was
// recorded from finds no difference (exit 0); against a server whose tools
// changed (the capture edited, served by replay-server) it names each change
// (exit 1); a server that cannot be started is exit 2.
func TestTapReplayAgainstServers(t *testing.T) {
	path := recordThroughTap(t, "tools.jsonl", "--protocol", "2025-11-25", "tools")
	out, errOut, code := runCLI(t, nil, "tap", "replay", path, "--", mcpkitBin, "serve")
	if code != 0 || !strings.Contains(out, "no differences") {
		t.Fatalf("same server: exit %d\n%s%s", code, out, errOut)
	}

	changed := editToolsList(t, path, func(tools []map[string]any) []map[string]any {
		var keep []map[string]any
		for _, tool := range tools {
			switch tool["name"] {
			case "add":
				continue // removed
			case "echo":
				tool["description"] = "Echoes, differently."
			case "count":
				tool["inputSchema"] = map[string]any{"type": "object"}
			}
			keep = append(keep, tool)
		}
		return keep
	})
	out, errOut, code = runCLI(t, nil, "tap", "replay", path, "--", mcpkitBin, "tap", "replay-server", changed)
	for _, want := range []string{`: tool "add" removed`, `tool "count" changed: inputSchema.additionalProperties, inputSchema.properties, inputSchema.required`, `tool "echo" changed: description: recorded "Echoes the message back to the client.", live "Echoes, differently."`, "3 difference(s)"} {
		if code != 1 || !strings.Contains(out, want) {
			t.Fatalf("changed server: exit %d, want %q in\n%s%s", code, want, out, errOut)
		}
	}
	jsonOut, _, code := runCLI(t, nil, "tap", "replay", "--json", path, "--", mcpkitBin, "tap", "replay-server", changed)
	var rep replay.Report
	if err := json.Unmarshal([]byte(jsonOut), &rep); err != nil || code != 1 || len(rep.Differences) != 3 || rep.Differences[0].Kind != replay.KindRemoved {
		t.Fatalf("--json: exit %d, %v\n%s", code, err, jsonOut)
	}
	again, _, _ := runCLI(t, nil, "tap", "replay", "--json", path, "--", mcpkitBin, "tap", "replay-server", changed)
	if again != jsonOut {
		t.Errorf("the report is not stable from run to run:\n%s\n%s", jsonOut, again)
	}
	// --ignore hides a path.
	out, _, code = runCLI(t, nil, "tap", "replay", "--ignore", "tools.*.description", "--ignore", "tools.*.inputSchema", path, "--", mcpkitBin, "tap", "replay-server", changed)
	if code != 1 || strings.Contains(out, `"echo" changed`) || !strings.Contains(out, "1 difference(s)") {
		t.Errorf("--ignore: exit %d\n%s", code, out)
	}

	if _, errOut, code := runCLI(t, nil, "tap", "replay", path, "--", filepath.Join(t.TempDir(), "no-such-server")); code != 2 || !strings.Contains(errOut, "tap replay") {
		t.Errorf("missing server: exit %d, stderr %q; want 2", code, errOut)
	}
}

// editToolsList writes a copy of the capture at path with the tools of its
// tools/list result changed by edit, and returns the copy's path.
func editToolsList(t *testing.T, path string, edit func([]map[string]any) []map[string]any) string {
	t.Helper()
	h, recs, err := capture.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	_ = enc.Encode(h)
	edited := false
	for _, r := range recs {
		var m struct {
			JSONRPC string         `json:"jsonrpc"`
			ID      any            `json:"id"`
			Result  map[string]any `json:"result"`
		}
		if r.Dir == capture.ServerToClient && json.Unmarshal(r.Msg, &m) == nil && m.Result["tools"] != nil {
			raw, _ := json.Marshal(m.Result["tools"])
			var tools []map[string]any
			_ = json.Unmarshal(raw, &tools)
			m.Result["tools"] = edit(tools)
			c := *r
			c.Msg, _ = json.Marshal(m)
			r, edited = &c, true
		}
		_ = enc.Encode(r)
	}
	if !edited {
		t.Fatal("the capture has no tools/list result")
	}
	out := filepath.Join(t.TempDir(), "edited.jsonl")
	if err := os.WriteFile(out, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTapReplayURLReachesLikeTheClientCommands: `tap replay --url` reaches its
// server as `mcpkit call --url` does: an HTTP+SSE-only endpoint through the
// fallback, and a server that wants a header with --header (its value from the
// environment, never printed).
func TestTapReplayURLReachesLikeTheClientCommands(t *testing.T) {
	path := recordThroughTap(t, "tools.jsonl", "--protocol", "2025-11-25", "tools")
	base := serveHTTPForTest(t)

	out, errOut, code := runCLI(t, nil, "tap", "replay", path, "--url", base+"/sse")
	if code != 0 || !strings.Contains(out, "no differences") {
		t.Fatalf("HTTP+SSE only: exit %d\n%s%s", code, out, errOut)
	}

	backend, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(backend)
	var refused atomic.Int32
	front := testkit.NewServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "replay-s3cret" {
			refused.Add(1)
			http.Error(w, "missing API key", http.StatusUnauthorized)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	env := []string{"TEST_REPLAY_KEY=replay-s3cret"}
	out, errOut, code = runCLI(t, env, "tap", "replay", path, "--url", front.URL+"/mcp", "--header", "X-Api-Key: ${env:TEST_REPLAY_KEY}")
	if code != 0 || !strings.Contains(out, "no differences") || strings.Contains(out+errOut, "replay-s3cret") {
		t.Fatalf("with --header: exit %d\n%s%s", code, out, errOut)
	}
	before := refused.Load()
	if _, errOut, code := runCLI(t, env, "tap", "replay", path, "--url", front.URL+"/mcp"); code != 2 || refused.Load() == before {
		t.Fatalf("without --header: exit %d, refused %d times; want exit 2 and a refusal\n%s", code, refused.Load()-before, errOut)
	}
}

// TestTapReplaySealedState: a stateless capture holding an input-required
// round (ask_name elicits, the client retries with the server's sealed
// requestState) replays without a false difference against a server with
// another sealing key: the replay sends the state the live server sealed in
// the same round, not the recorded one it cannot open.
func TestTapReplaySealedState(t *testing.T) {
	dir := t.TempDir()
	answers := filepath.Join(dir, "answers.json")
	if err := os.WriteFile(answers, []byte(`{"name":"Ada"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "ask.jsonl")
	key := "MCPKIT_STATE_KEYS=k1:MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="
	args := []string{"--protocol", "2026-07-28", "call", "ask_name", "--elicit-answers", answers, "--", mcpkitBin, "tap", "--out", path, "--", mcpkitBin, "serve"}
	if out, errOut, code := runCLI(t, []string{key}, args...); code != 0 || !strings.Contains(out, "Ada") {
		t.Fatalf("recording: exit %d\n%s\n%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(path); !bytes.Contains(b, []byte(`"requestState"`)) {
		t.Fatalf("the capture holds no input-required round:\n%s", b)
	}
	out, errOut, code := runCLI(t, nil, "tap", "replay", path, "--", mcpkitBin, "serve")
	if code != 0 || !strings.Contains(out, "no differences") {
		t.Errorf("replay against a server with its own key: exit %d\n%s\n%s", code, out, errOut)
	}
}
