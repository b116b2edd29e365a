package gateway

import (
	"context"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// A stateless client's subscriptions/listen reaches the servers: a
// stateless server ("s") through a listen stream of the gateway's, a legacy
// one ("l") through resources/subscribe; their resources/updated comes back on
// the client's stream under the gateway's URIs. Two clients listening to the
// same resource share one subscription upstream, and when both streams have
// closed the servers no longer report to the gateway.
func TestGatewayStatelessListenReachesServers(t *testing.T) {
	legacy := testServer("l", "demo")
	legacy.ProtocolVersion = protocol.LatestLegacy
	gw := startGateway(t, nil, testServer("s", "demo"), legacy)
	if up, err := gw.Supervisor().Session(testkit.Context(t), "s"); err != nil || !up.IsStateless() {
		t.Fatalf("server s: %v; want a stateless session", err)
	}
	const sURI, lURI = "mcpkit-gateway://s/demo://readme", "mcpkit-gateway://l/demo://readme"
	clients := make([]chan string, 2)
	subs := make([]*mcp.Subscription, 2)
	var first *mcp.ClientSession
	for i := range clients {
		ch := make(chan string, 8)
		clients[i] = ch
		cs := connectClient(t, gw, &mcp.ClientOptions{
			ResourceUpdatedHandler: func(ctx context.Context, cs *mcp.ClientSession, p *protocol.ResourceUpdatedParams) { ch <- p.URI },
		})
		if !cs.IsStateless() {
			t.Fatal("the client speaks a legacy version")
		}
		sub, err := cs.Listen(testkit.Context(t), protocol.SubscriptionFilter{ResourceSubscriptions: []string{sURI, lURI}})
		if err != nil {
			t.Fatal(err)
		}
		if ack := sub.Acknowledged(); len(ack.ResourceSubscriptions) != 2 {
			t.Fatalf("acknowledged %+v", ack)
		}
		subs[i] = sub
		if first == nil {
			first = cs
		}
	}
	ctx := testkit.Context(t)
	dropped := make(chan string, 2)
	gw.subs.mu.Lock()
	n, shared := len(gw.subs.byURI), gw.subs.byURI["s\x00demo://readme"].count
	gw.subs.dropped = dropped
	gw.subs.mu.Unlock()
	if n != 2 || shared != 2 {
		t.Errorf("upstream subscriptions: %d, the stateless server's held by %d; want 2, each held by both clients", n, shared)
	}
	for _, c := range []struct{ tool, want string }{{"s__touch", sURI}, {"l__touch", lURI}} {
		call(ctx, t, first, c.tool, map[string]any{"uri": "demo://readme"})
		for i, ch := range clients {
			if got := testkit.Receive(t, (<-chan string)(ch)); got != c.want {
				t.Errorf("client %d: resources/updated for %q, want %q", i, got, c.want)
			}
		}
	}
	// The streams close: the gateway unsubscribes from both servers.
	for _, s := range subs {
		s.Close()
	}
	got := map[string]bool{testkit.Receive(t, (<-chan string)(dropped)): true, testkit.Receive(t, (<-chan string)(dropped)): true}
	if !got["s\x00demo://readme"] || !got["l\x00demo://readme"] {
		t.Errorf("subscriptions ended upstream: %v", got)
	}
	gw.subs.mu.Lock()
	left := len(gw.subs.byURI)
	gw.subs.mu.Unlock()
	if left != 0 {
		t.Errorf("%d upstream subscriptions left after the streams closed", left)
	}
}
