package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
)

// readJSON reads the next message and decodes it.
func readJSON(t *testing.T, c transport.Conn) map[string]any {
	t.Helper()
	var m map[string]any
	raw := readRaw(t, c)
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func subscriptionID(m map[string]any) any {
	p, _ := m["params"].(map[string]any)
	meta, _ := p["_meta"].(map[string]any)
	return meta["io.modelcontextprotocol/subscriptionId"]
}

func TestListenDeliversRequestedChanges(t *testing.T) {
	srv := echoServer(t, nil)
	must(t, srv.AddResource(&protocol.Resource{URI: "demo://a", Name: "a"}, func(ctx context.Context, r *mcp.ResourceRequest) (*protocol.ReadResourceResult, error) {
		return &protocol.ReadResourceResult{}, nil
	}))
	c := rawConn(t, srv)
	ctx := testkit.Context(t)
	must(t, c.Write(ctx, []byte(`{"jsonrpc":"2.0","id":"sub-1","method":"subscriptions/listen","params":{"_meta":`+statelessMeta(`{}`)+
		`,"notifications":{"toolsListChanged":true,"resourceSubscriptions":["demo://a"]}}}`)))
	ack := readJSON(t, c)
	if ack["method"] != "notifications/subscriptions/acknowledged" || subscriptionID(ack) != "sub-1" {
		t.Fatalf("first message = %v", ack)
	}
	if n := ack["params"].(map[string]any)["notifications"].(map[string]any); n["toolsListChanged"] != true {
		t.Errorf("acknowledged filter = %v", n)
	}

	// A prompt change was not asked for; a tool change and an update of demo://a were.
	must(t, srv.AddPrompt(&protocol.Prompt{Name: "p"}, func(ctx context.Context, r *mcp.PromptRequest) (*protocol.GetPromptResult, error) {
		return &protocol.GetPromptResult{}, nil
	}))
	srv.NotifyResourceUpdated(ctx, "demo://other")
	srv.RemoveTools("echo")
	tools := readJSON(t, c)
	if tools["method"] != "notifications/tools/list_changed" || subscriptionID(tools) != "sub-1" {
		t.Fatalf("want tools/list_changed tagged sub-1, got %v", tools)
	}
	srv.NotifyResourceUpdated(ctx, "demo://a")
	upd := readJSON(t, c)
	if upd["method"] != "notifications/resources/updated" || upd["params"].(map[string]any)["uri"] != "demo://a" || subscriptionID(upd) != "sub-1" {
		t.Fatalf("want resources/updated for demo://a, got %v", upd)
	}

	// A graceful end answers the listen request itself.
	srv.EndSubscriptions()
	end := readJSON(t, c)
	res, _ := end["result"].(map[string]any)
	if end["id"] != "sub-1" || res["resultType"] != "complete" {
		t.Fatalf("graceful end = %v", end)
	}
	if meta, _ := res["_meta"].(map[string]any); meta["io.modelcontextprotocol/subscriptionId"] != "sub-1" {
		t.Errorf("final result _meta = %v", res["_meta"])
	}
}

func TestListenCancelledByClient(t *testing.T) {
	srv := echoServer(t, nil)
	c := rawConn(t, srv)
	ctx := testkit.Context(t)
	must(t, c.Write(ctx, []byte(`{"jsonrpc":"2.0","id":7,"method":"subscriptions/listen","params":{"_meta":`+statelessMeta(`{}`)+`,"notifications":{"toolsListChanged":true}}}`)))
	if ack := readJSON(t, c); ack["method"] != "notifications/subscriptions/acknowledged" {
		t.Fatalf("first message = %v", ack)
	}
	must(t, c.Write(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`)))
	// The connection handles messages in order, so once this answer is back the
	// cancellation has been applied.
	if resp := statelessCall(t, c, 8, "tools/list", `{"_meta":`+statelessMeta(`{}`)+`}`); resp["id"] != float64(8) {
		t.Fatalf("after cancelling the listen stream got %v", resp)
	}
	// The stream is gone: a change produces nothing, so the next message is the
	// answer to the next request.
	srv.RemoveTools("echo")
	if resp := statelessCall(t, c, 9, "tools/list", `{"_meta":`+statelessMeta(`{}`)+`}`); resp["id"] != float64(9) {
		t.Fatalf("a change after cancelling the listen stream produced %v", resp)
	}
}

// countingFeed is a ChangeFeed that records publications, standing in for a
// shared bus.
type countingFeed struct {
	mcp.ChangeFeed
	mu        sync.Mutex
	published []mcp.Change
}

func (f *countingFeed) Publish(ctx context.Context, c mcp.Change) error {
	f.mu.Lock()
	f.published = append(f.published, c)
	f.mu.Unlock()
	return f.ChangeFeed.Publish(ctx, c)
}

func TestListenSharedFeedAcrossServers(t *testing.T) {
	feed := &countingFeed{ChangeFeed: mcp.NewMemoryChangeFeed()}
	a := echoServer(t, &mcp.ServerOptions{Changes: feed})
	b := echoServer(t, &mcp.ServerOptions{Changes: feed})
	c := rawConn(t, b)
	must(t, c.Write(testkit.Context(t), []byte(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"_meta":`+statelessMeta(`{}`)+`,"notifications":{"toolsListChanged":true}}}`)))
	readJSON(t, c)        // ack
	a.RemoveTools("echo") // a change on replica a ...
	got := readJSON(t, c) // ... reaches the stream held by replica b
	if got["method"] != "notifications/tools/list_changed" {
		t.Fatalf("got %v", got)
	}
	feed.mu.Lock()
	defer feed.mu.Unlock()
	if len(feed.published) == 0 || feed.published[len(feed.published)-1].Kind != mcp.ToolsChanged {
		t.Errorf("published = %v", feed.published)
	}
}

func TestListenFilterHonoursDeclaredCapabilities(t *testing.T) {
	srv := newServer(t, &mcp.ServerOptions{Capabilities: &protocol.ServerCapabilities{Tools: &protocol.ToolsCapability{}}})
	c := rawConn(t, srv)
	must(t, c.Write(testkit.Context(t), []byte(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"_meta":`+statelessMeta(`{}`)+
		`,"notifications":{"toolsListChanged":true,"promptsListChanged":true,"resourceSubscriptions":["x://y"]}}}`)))
	ack := readJSON(t, c)
	n := ack["params"].(map[string]any)["notifications"].(map[string]any)
	if len(n) != 0 {
		t.Errorf("a server without listChanged/subscribe acknowledged %v", n)
	}
	if !strings.Contains(ack["method"].(string), "acknowledged") {
		t.Errorf("ack = %v", ack)
	}
}
