package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// reloadGateway is a `mcpkit gateway --http` process whose stderr lines the
// test reads as they come.
type reloadGateway struct {
	cmd   *exec.Cmd
	base  string
	lines chan string // every stderr line after the address
}

// startReloadGateway starts the gateway on config with extra flags; it is
// stopped (by its PID) when the test ends.
func startReloadGateway(t *testing.T, config string, extra ...string) *reloadGateway {
	t.Helper()
	args := append([]string{"gateway", "--config", config, "--http", "127.0.0.1:0"}, extra...)
	cmd := exec.Command(mcpkitBin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	g := &reloadGateway{cmd: cmd, lines: make(chan string, 1024)}
	announced := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		seen := false
		for sc.Scan() {
			line := sc.Text()
			if i := strings.Index(line, "at http://"); i >= 0 && !seen {
				seen = true
				announced <- strings.TrimSuffix(strings.Fields(line[i+3:])[0], "/mcp")
				continue
			}
			select {
			case g.lines <- line:
			default: // nobody waits for that many lines
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		<-done
	})
	select {
	case g.base = <-announced:
	case <-time.After(60 * time.Second):
		t.Fatal("the gateway did not announce its address")
	}
	return g
}

// waitLine waits (30 s at most) for a stderr line containing every one of
// parts, and returns it.
func (g *reloadGateway) waitLine(t *testing.T, parts ...string) string {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case line := <-g.lines:
			if !slices.ContainsFunc(parts, func(p string) bool { return !strings.Contains(line, p) }) {
				return line
			}
		case <-timeout:
			t.Fatalf("no log line with %q within 30s", parts)
		}
	}
}

// writeReloadConfig writes servers (name → extra env, nil for none) as the
// demo server over stdio, atomically (a rename), as an editor does.
func writeReloadConfig(t *testing.T, path string, servers map[string]map[string]string) {
	t.Helper()
	entries := map[string]any{}
	for name, env := range servers {
		entries[name] = map[string]any{"command": mcpkitBin, "args": []string{"serve"}, "env": env}
	}
	data, err := json.Marshal(map[string]any{"mcpServers": entries})
	if err != nil {
		t.Fatal(err)
	}
	writeFileAtomic(t, path, data)
}

func writeFileAtomic(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// reloadClient is mcpkit's client on the gateway, told of tool list changes.
type reloadClient struct {
	cs      *mcp.ClientSession
	changed chan struct{}
}

func connectReloadClient(t *testing.T, ctx context.Context, base string) *reloadClient {
	t.Helper()
	c := &reloadClient{changed: make(chan struct{}, 1)}
	client := mcp.NewClient(protocol.Implementation{Name: "reload-test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ClientSession) {
			select {
			case c.changed <- struct{}{}:
			default:
			}
		},
	})
	cs, err := mcpkit.ConnectURL(ctx, client, base+"/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	sub, err := cs.Listen(ctx, protocol.SubscriptionFilter{ToolsListChanged: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sub.Close)
	c.cs = cs
	return c
}

// toolNames lists the gateway's tool names.
func (c *reloadClient) toolNames(t *testing.T, ctx context.Context) []string {
	t.Helper()
	var names []string
	for tool, err := range c.cs.Tools(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	return names
}

// waitTools waits (30 s at most, listing again at each list_changed) until
// the gateway's tools satisfy ok.
func (c *reloadClient) waitTools(t *testing.T, ctx context.Context, what string, ok func([]string) bool) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		names := c.toolNames(t, ctx)
		if ok(names) {
			return
		}
		select {
		case <-c.changed:
		case <-timeout:
			t.Fatalf("%s: not within 30s; tools %v", what, names)
		}
	}
}

// gatewayStatusOf returns the /status entry of the server called name.
func gatewayStatusOf(t *testing.T, base, name string) map[string]any {
	t.Helper()
	code, body := fetch(t, base+"/status", "")
	if code != 200 {
		t.Fatalf("/status: %d %s", code, body)
	}
	var st struct {
		Servers []map[string]any `json:"servers"`
	}
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatal(err)
	}
	for _, s := range st.Servers {
		if s["name"] == name {
			return s
		}
	}
	return nil
}

// A soak of calls to an untouched server across a SIGHUP reload that adds,
// removes and changes servers: not one call fails, the untouched server keeps
// its process, the added server's tools appear and the removed one's go. A
// broken file then keeps the running configuration, said in one log line.
func TestGatewayReloadSoak(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	config := filepath.Join(t.TempDir(), "mcp.json")
	writeReloadConfig(t, config, map[string]map[string]string{"keep": nil, "gone": nil, "edit": nil})
	g := startReloadGateway(t, config, "--watch", "0")
	c := connectReloadClient(t, ctx, g.base)
	c.waitTools(t, ctx, "the first servers' tools", func(names []string) bool {
		return slices.Contains(names, "keep__echo") && slices.Contains(names, "gone__echo") && slices.Contains(names, "edit__echo")
	})
	keepBefore := gatewayStatusOf(t, g.base, "keep")
	editBefore := gatewayStatusOf(t, g.base, "edit")

	// The soak: calls to keep__echo one after the other until stopped.
	var ok, failed atomic.Int64
	var firstErr atomic.Value
	progress := make(chan struct{}, 1) // a call succeeded
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				res, err := c.cs.CallTool(ctx, "keep__echo", map[string]any{"message": "soak"})
				if err == nil && res.IsError {
					err = errString("tool error: " + string(mustJSON(res.Content)))
				}
				if err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				ok.Add(1)
				select {
				case progress <- struct{}{}:
				default:
				}
			}
		}()
	}
	waitCalls := func(n int64) {
		t.Helper()
		target := ok.Load() + n
		timeout := time.After(30 * time.Second)
		for ok.Load() < target {
			select {
			case <-progress:
			case <-timeout:
				t.Fatalf("the soak made no progress (%d ok, %d failed)", ok.Load(), failed.Load())
			}
		}
	}
	waitCalls(20)

	// A call in flight across the reload: keep__ask_name waits for this
	// client's answer to its elicitation, given only after the reload.
	asked, release := make(chan struct{}), make(chan struct{})
	asker, err := mcpkit.ConnectURL(ctx, mcp.NewClient(protocol.Implementation{Name: "reload-asker", Version: "1"}, &mcp.ClientOptions{
		ProtocolVersion: "2025-11-25", // a legacy session: the call stays open while the gateway asks
		ElicitationHandler: func(ctx context.Context, _ *mcp.ClientSession, _ *protocol.ElicitParams) (*protocol.ElicitResult, error) {
			close(asked)
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &protocol.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
	}), g.base+"/mcp", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer asker.Close()
	askDone := make(chan string, 1)
	go func() {
		res, err := asker.CallTool(ctx, "keep__ask_name", nil)
		switch {
		case err != nil:
			askDone <- "error: " + err.Error()
		case res.IsError || len(res.Content) == 0:
			askDone <- "tool error: " + string(mustJSON(res))
		default:
			askDone <- res.Content[0].Text
		}
	}()
	select {
	case <-asked:
	case <-time.After(30 * time.Second):
		t.Fatal("keep__ask_name did not reach the elicitation")
	}

	writeReloadConfig(t, config, map[string]map[string]string{"keep": nil, "edit": {"RELOAD_TEST": "1"}, "fresh": nil})
	if err := g.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	line := g.waitLine(t, "gateway: configuration reloaded")
	for _, want := range []string{"trigger=SIGHUP", "added=[fresh]", "removed=[gone]", "changed=[edit]"} {
		if !strings.Contains(line, want) {
			t.Errorf("reload line %q lacks %q", line, want)
		}
	}
	c.waitTools(t, ctx, "fresh's tools in, gone's out", func(names []string) bool {
		return slices.Contains(names, "fresh__echo") && !slices.Contains(names, "gone__echo") &&
			slices.Contains(names, "keep__echo") && slices.Contains(names, "edit__echo")
	})
	waitCalls(20)
	if res, err := c.cs.CallTool(ctx, "fresh__echo", map[string]any{"message": "new"}); err != nil || res.IsError {
		t.Errorf("calling the added server: %v %v", res, err)
	}
	if res, err := c.cs.CallTool(ctx, "gone__echo", map[string]any{"message": "old"}); err == nil && !res.IsError {
		t.Errorf("the removed server's tool still answers: %v", res)
	}
	keepAfter, editAfter := gatewayStatusOf(t, g.base, "keep"), gatewayStatusOf(t, g.base, "edit")
	if keepAfter["pid"] != keepBefore["pid"] || keepAfter["restarts"] != keepBefore["restarts"] {
		t.Errorf("the untouched server was restarted: before %v after %v", keepBefore, keepAfter)
	}
	if editAfter["pid"] == editBefore["pid"] {
		t.Errorf("the changed server kept its process %v", editAfter["pid"])
	}
	if gatewayStatusOf(t, g.base, "gone") != nil {
		t.Errorf("the removed server is still in /status")
	}
	close(release)
	select {
	case got := <-askDone:
		if got != "hello Ada" {
			t.Errorf("the call in flight across the reload: %s", got)
		}
	case <-time.After(30 * time.Second):
		t.Error("the call in flight across the reload did not end")
	}

	// A broken file: the running configuration stays, said in one line.
	writeFileAtomic(t, config, []byte(`{"mcpServers": {"keep": {"command": `))
	if err := g.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	line = g.waitLine(t, "gateway: configuration not reloaded, keeping the running one")
	if !strings.Contains(line, "level=ERROR") || !strings.Contains(line, "mcp.json") {
		t.Errorf("the refusal does not say why: %q", line)
	}
	waitCalls(20)
	if names := c.toolNames(t, ctx); !slices.Contains(names, "fresh__echo") || !slices.Contains(names, "keep__echo") {
		t.Errorf("after a broken file the tools changed: %v", names)
	}
	close(stop)
	wg.Wait()
	if failed.Load() != 0 {
		t.Errorf("%d of %d calls to the untouched server failed; first: %v", failed.Load(), ok.Load()+failed.Load(), firstErr.Load())
	}
	t.Logf("soak: %d calls to the untouched server, %d failed", ok.Load(), failed.Load())
}

// The file is watched: a change is applied without a signal, and an invalid
// entry is refused (the running configuration kept) until it is fixed.
func TestGatewayReloadWatchesFile(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	config := filepath.Join(t.TempDir(), "mcp.json")
	writeReloadConfig(t, config, map[string]map[string]string{"keep": nil})
	g := startReloadGateway(t, config, "--watch", "50ms")
	c := connectReloadClient(t, ctx, g.base)
	c.waitTools(t, ctx, "keep's tools", func(names []string) bool { return slices.Contains(names, "keep__echo") })

	writeFileAtomic(t, config, []byte(`{"mcpServers": {"keep": {"command": "`+mcpkitBin+`", "args": ["serve"]}, "bad": {"url": 7}}}`))
	line := g.waitLine(t, "gateway: configuration not reloaded, keeping the running one", "trigger=\"file changed\"")
	if !strings.Contains(line, `server \"bad\"`) {
		t.Errorf("the refusal does not name the bad entry: %q", line)
	}
	if res, err := c.cs.CallTool(ctx, "keep__echo", map[string]any{"message": "hi"}); err != nil || res.IsError {
		t.Errorf("calls after a refused file: %v %v", res, err)
	}

	writeReloadConfig(t, config, map[string]map[string]string{"keep": nil, "more": nil})
	line = g.waitLine(t, "gateway: configuration reloaded", "trigger=\"file changed\"")
	if !strings.Contains(line, "added=[more]") || !strings.Contains(line, "removed=-") || !strings.Contains(line, "changed=-") {
		t.Errorf("reload line %q", line)
	}
	c.waitTools(t, ctx, "more's tools", func(names []string) bool { return slices.Contains(names, "more__echo") })
}

type errString string

func (e errString) Error() string { return string(e) }

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
