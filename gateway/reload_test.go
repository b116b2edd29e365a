package gateway

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/upstream"
)

// Reload withdraws a removed server's tools at once, offers a changed one's
// again under its new entry (here a new tool filter), adds a new server's,
// and tells the client each time its tools changed.
func TestGatewayReload(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	gw := startGateway(t, nil, testServer("keep", "demo"), testServer("gone", "demo"), testServer("edit", "demo"))
	changed := make(chan struct{}, 1)
	cs := connectClient(t, gw, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ClientSession) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}})
	if cs.IsStateless() { // list_changed comes on a subscriptions/listen stream
		sub, err := cs.Listen(ctx, protocol.SubscriptionFilter{ToolsListChanged: true})
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Close()
	}
	tools := func() []string { return names(t, cs.Tools(ctx), func(x protocol.Tool) string { return x.Name }) }
	if got := tools(); !slices.Contains(got, "gone__echo") || !slices.Contains(got, "edit__add") {
		t.Fatalf("tools before = %v", got)
	}

	edit := testServer("edit", "demo")
	edit.AllowedTools = []string{"echo"}
	next := &upstream.Config{Servers: map[string]*upstream.ServerConfig{
		"keep": testServer("keep", "demo"), "edit": edit, "fresh": testServer("fresh", "demo"),
	}}
	change, err := gw.Reload(ctx, next)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(change.Added, []string{"fresh"}) || !slices.Equal(change.Removed, []string{"gone"}) || !slices.Equal(change.Changed, []string{"edit"}) {
		t.Fatalf("Reload = %+v", change)
	}
	if slices.ContainsFunc(gw.Entries(), func(e Entry) bool { return e.Server == "gone" }) {
		t.Error("the removed server's entries outlive Reload")
	}
	for {
		got := tools()
		if slices.Contains(got, "fresh__echo") && slices.Contains(got, "edit__echo") && !slices.Contains(got, "edit__add") &&
			!slices.Contains(got, "gone__echo") && slices.Contains(got, "keep__add") {
			break
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("tools after Reload = %v; status %+v", got, gw.Status())
		}
	}
	if got := call(ctx, t, cs, "edit__echo", map[string]any{"message": "x"}); got != "hello x" {
		t.Errorf("edit__echo = %q", got)
	}
	if got := call(ctx, t, cs, "keep__echo", map[string]any{"message": "y"}); got != "hello y" {
		t.Errorf("keep__echo = %q", got)
	}
	if _, ok := gw.Supervisor().Status("gone"); ok {
		t.Error("the removed server is still supervised")
	}
}

// lockedBuffer is a log destination safe for concurrent writers.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// After Reload the gateway's own log lines (and its server's) redact the
// secrets of a server the reload added, not only the first configuration's.
func TestGatewayReloadRedactsNewSecrets(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var logs lockedBuffer
	gw := startGatewayLogged(t, slog.New(slog.NewTextHandler(&logs, nil)), testServer("keep", "demo"))
	const secret = "reloaded-secret-7777"
	fresh := testServer("fresh", "demo")
	fresh.Env["API_KEY"] = secret
	if _, err := gw.Reload(ctx, &upstream.Config{Servers: map[string]*upstream.ServerConfig{"keep": testServer("keep", "demo"), "fresh": fresh}}); err != nil {
		t.Fatal(err)
	}
	gw.log.Warn("gateway: a line about fresh", "error", errors.New("fresh printed API_KEY="+secret))
	if out := logs.String(); strings.Contains(out, secret) || !strings.Contains(out, "API_KEY="+upstream.Redacted) {
		t.Errorf("the gateway's log after Reload:\n%s", out)
	}
}
