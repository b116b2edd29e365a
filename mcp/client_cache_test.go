package mcp_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/internal/testkit/mcptest"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// connectClock connects a client whose cache runs on a fake clock.
func connectClock(t *testing.T, srv *mcp.Server, opts *mcp.ClientOptions) (*mcp.ClientSession, *testkit.Clock) {
	t.Helper()
	clock := testkit.NewClock(time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC))
	client := mcptest.NewClient(opts)
	mcp.SetClientClock(client, clock.Now)
	cs, _ := mcptest.Connect(t, srv, client, nil)
	if !cs.IsStateless() {
		t.Fatal("want a stateless session")
	}
	return cs, clock
}

func TestClientCachesResultsForTheirTTL(t *testing.T) {
	var rec recorder
	srv := echoServer(t, &mcp.ServerOptions{Middleware: []mcp.Middleware{rec.middleware},
		Cache: mcp.CacheOptions{Tools: mcp.CacheHint{TTL: time.Minute}, Discover: mcp.CacheHint{TTL: time.Hour}}})
	cs, clock := connectClock(t, srv, nil)
	ctx := testkit.Context(t)

	first, err := cs.ListTools(ctx, nil)
	must(t, err)
	first.Tools[0].Name = "scribbled" // the caller owns what it got
	second, err := cs.ListTools(ctx, nil)
	must(t, err)
	if n := rec.count(protocol.MethodToolsList); n != 1 {
		t.Fatalf("the server saw %d tools/list for two calls within the TTL, want 1", n)
	}
	if second.Tools[0].Name != "echo" || *second.TTLMs != 60000 {
		t.Errorf("cached answer = %+v", second)
	}
	clock.Advance(59 * time.Second)
	_, err = cs.ListTools(ctx, nil)
	must(t, err)
	if n := rec.count(protocol.MethodToolsList); n != 1 {
		t.Errorf("refetched before the TTL ran out (%d)", n)
	}
	clock.Advance(time.Second)
	_, err = cs.ListTools(ctx, nil)
	must(t, err)
	if n := rec.count(protocol.MethodToolsList); n != 2 {
		t.Errorf("the server saw %d tools/list after the TTL ran out, want 2", n)
	}

	// No ttlMs (the server's default is 0): never kept.
	for range 2 {
		_, err := cs.ListPrompts(ctx, nil)
		must(t, err)
	}
	if n := rec.count(protocol.MethodPromptsList); n != 2 {
		t.Errorf("prompts/list with ttlMs 0 reached the server %d times, want 2", n)
	}

	// Discover is cacheable; Ping is not (it asks the server every time).
	for range 2 {
		_, err := cs.Discover(ctx)
		must(t, err)
	}
	must(t, cs.Ping(ctx))
	if n := rec.count(protocol.MethodServerDiscover); n != 3 {
		t.Errorf("server/discover reached the server %d times (probe, one Discover, Ping), want 3", n)
	}
}

func TestClientCacheCanBeDisabled(t *testing.T) {
	var rec recorder
	srv := echoServer(t, &mcp.ServerOptions{Middleware: []mcp.Middleware{rec.middleware},
		Cache: mcp.CacheOptions{Tools: mcp.CacheHint{TTL: time.Hour}}})
	cs, _ := connectClock(t, srv, &mcp.ClientOptions{DisableCache: true})
	for range 2 {
		_, err := cs.ListTools(testkit.Context(t), nil)
		must(t, err)
	}
	if n := rec.count(protocol.MethodToolsList); n != 2 {
		t.Errorf("with DisableCache the server saw %d tools/list, want 2", n)
	}
}

func TestClientListChangedInvalidatesTheCache(t *testing.T) {
	var rec recorder
	srv := echoServer(t, &mcp.ServerOptions{Middleware: []mcp.Middleware{rec.middleware},
		Cache: mcp.CacheOptions{Tools: mcp.CacheHint{TTL: time.Hour}, Read: mcp.CacheHint{TTL: time.Hour}}})
	must(t, srv.AddResource(&protocol.Resource{URI: "demo://a", Name: "a"}, func(ctx context.Context, r *mcp.ResourceRequest) (*protocol.ReadResourceResult, error) {
		return &protocol.ReadResourceResult{Contents: []*protocol.ResourceContents{{URI: "demo://a", Text: "v"}}}, nil
	}))
	changed := make(chan struct{}, 1)
	updated := make(chan string, 1)
	cs, _ := connectClock(t, srv, &mcp.ClientOptions{
		ToolListChangedHandler: func(ctx context.Context, _ *mcp.ClientSession) { changed <- struct{}{} },
		ResourceUpdatedHandler: func(ctx context.Context, _ *mcp.ClientSession, p *protocol.ResourceUpdatedParams) { updated <- p.URI },
	})
	ctx := testkit.Context(t)
	sub, err := cs.Listen(ctx, protocol.SubscriptionFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"demo://a"}})
	must(t, err)
	defer sub.Close()
	if ack := sub.Acknowledged(); !ack.ToolsListChanged || len(ack.ResourceSubscriptions) != 1 {
		t.Errorf("acknowledged filter = %+v", ack)
	}

	_, err = cs.ListTools(ctx, nil)
	must(t, err)
	_, err = cs.ReadResource(ctx, "demo://a")
	must(t, err)
	must(t, srv.AddRawTool(&protocol.Tool{Name: "late"}, func(ctx context.Context, r *mcp.ToolRequest) (*protocol.CallToolResult, error) {
		return protocol.NewToolResultText("x"), nil
	}))
	testkit.Receive(t, changed)
	res, err := cs.ListTools(ctx, nil)
	must(t, err)
	if n := rec.count(protocol.MethodToolsList); n != 2 || len(res.Tools) != 2 {
		t.Errorf("after tools/list_changed: %d tools/list reached the server, %d tools listed; want 2 and 2", n, len(res.Tools))
	}

	srv.NotifyResourceUpdated(ctx, "demo://a")
	if got := testkit.Receive(t, updated); got != "demo://a" {
		t.Errorf("updated %q", got)
	}
	_, err = cs.ReadResource(ctx, "demo://a")
	must(t, err)
	if n := rec.count(protocol.MethodResourcesRead); n != 2 {
		t.Errorf("after resources/updated the server saw %d resources/read, want 2", n)
	}
}

func TestClientNeverCachesInputRetries(t *testing.T) {
	var rec recorder
	srv := newServer(t, &mcp.ServerOptions{Middleware: []mcp.Middleware{rec.middleware},
		Cache: mcp.CacheOptions{Read: mcp.CacheHint{TTL: time.Hour}}})
	must(t, srv.AddResource(&protocol.Resource{URI: "demo://secret", Name: "s"}, func(ctx context.Context, r *mcp.ResourceRequest) (*protocol.ReadResourceResult, error) {
		el, err := r.Elicit(ctx, &protocol.ElicitParams{Message: "password?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
		if err != nil {
			return nil, err
		}
		return &protocol.ReadResourceResult{Contents: []*protocol.ResourceContents{{URI: "demo://secret", Text: el.Content["name"].(string)}}}, nil
	}))
	var elicits, samples atomic.Int32
	cs, _ := connectClock(t, srv, answering(&elicits, &samples))
	for range 2 {
		res, err := cs.ReadResource(testkit.Context(t), "demo://secret")
		must(t, err)
		if res.Contents[0].Text != "ada" {
			t.Errorf("contents %q", res.Contents[0].Text)
		}
	}
	if elicits.Load() != 2 || rec.count(protocol.MethodResourcesRead) != 4 {
		t.Errorf("elicited %d times, %d resources/read; a result that needed input must not be cached (want 2 and 4)",
			elicits.Load(), rec.count(protocol.MethodResourcesRead))
	}
}

func TestClientListenEnds(t *testing.T) {
	srv := echoServer(t, nil)
	cs, err := connectAuto(t, srv, nil)
	must(t, err)
	ctx := testkit.Context(t)

	closed, err := cs.Listen(ctx, protocol.SubscriptionFilter{PromptsListChanged: true})
	must(t, err)
	closed.Close()
	if closed.Err() != nil {
		t.Errorf("closed subscription: Err %v", closed.Err())
	}

	ended, err := cs.Listen(ctx, protocol.SubscriptionFilter{ToolsListChanged: true})
	must(t, err)
	srv.EndSubscriptions()
	testkit.Receive(t, ended.Done())
	if ended.Err() != nil {
		t.Errorf("gracefully ended subscription: Err %v", ended.Err())
	}
	// The session goes on.
	must(t, cs.Ping(ctx))
}
