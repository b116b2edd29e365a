package redisstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/sse"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/store/redisstore"
	"github.com/mcpkit/mcpkit/store/redistest"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// relayed is one replica whose Streamable HTTP handler shares sessions,
// events and a relay on Redis.
type relayed struct {
	replica
	relay  *redisstore.Relay
	server *mcp.Server
	h      *streamable.Handler
}

// newRelayed starts replica id on its own client; configure adds tools.
func newRelayed(t *testing.T, srv *redistest.Server, id string, configure func(*mcp.Server)) *relayed {
	t.Helper()
	return newRelayedOn(t, open(t, srv), id, 0, configure)
}

// newRelayedOn is newRelayed on client c, with the relay's TTL (0: the default).
func newRelayedOn(t *testing.T, c *redisstore.Client, id string, ttl time.Duration, configure func(*mcp.Server)) *relayed {
	t.Helper()
	rl, err := redisstore.NewRelay(testkit.Context(t), c, &redisstore.RelayOptions{Replica: id, TTL: ttl, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	subscribed := make(chan struct{}, 1)
	feed := redisstore.NewChangeFeed(c, &redisstore.ChangeFeedOptions{Logger: slog.New(slog.DiscardHandler), OnSubscribed: func() {
		select {
		case subscribed <- struct{}{}:
		default:
		}
	}})
	t.Cleanup(feed.Close)
	testkit.Receive(t, subscribed)
	s := mcp.NewServer(protocol.Implementation{Name: "r", Version: "1"}, &mcp.ServerOptions{Logger: slog.New(slog.DiscardHandler), Changes: feed})
	if err := mcp.AddTool(s, &protocol.Tool{Name: "who"}, func(ctx context.Context, req *mcp.ToolRequest, _ struct{}) (string, error) {
		return "client=" + req.Session.ClientInfo().Name, nil
	}); err != nil {
		t.Fatal(err)
	}
	if configure != nil {
		configure(s)
	}
	h := streamable.NewHandler(s, &streamable.HandlerOptions{
		Sessions:             redisstore.NewSessionStore(c),
		EventStore:           redisstore.NewEventStore(c, nil),
		Relay:                rl,
		SessionCheckInterval: -1,
		Logger:               slog.New(slog.DiscardHandler),
	})
	hs := httptest.NewServer(h)
	t.Cleanup(func() { _ = h.Close(); hs.Close(); rl.Close() })
	return &relayed{replica: replica{c: c, url: hs.URL}, relay: rl, server: s, h: h}
}

// startSession initializes a session on a (with init, an initialize
// request) and sends notifications/initialized to b; it returns the id.
func startSession(t *testing.T, a, b *replica, init string) string {
	t.Helper()
	resp, body := a.post(t, "", init)
	sid := resp.Header.Get(streamable.HeaderSessionID)
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	if resp, body := b.post(t, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", resp.StatusCode, body)
	}
	return sid
}

// rootsTool lists the client's roots (a request to the client) and returns
// the first root's URI.
func rootsTool(t *testing.T) func(*mcp.Server) {
	return func(s *mcp.Server) {
		if err := mcp.AddTool(s, &protocol.Tool{Name: "roots"}, func(ctx context.Context, req *mcp.ToolRequest, _ struct{}) (string, error) {
			res, err := req.Session.ListRoots(ctx)
			if err != nil {
				return "", err
			}
			if len(res.Roots) == 0 {
				return "no roots", nil
			}
			return "root=" + res.Roots[0].URI, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
}

// openStream POSTs body in session sid and returns the SSE decoder of the
// answer (the response is closed when the test ends).
func openStream(t *testing.T, url, sid, body string) *sse.Decoder {
	t.Helper()
	resp := sseExchange(t, t.Context(), http.MethodPost, url, sid, "", body)
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("POST %s: %d %s", body, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return sse.NewDecoder(resp.Body)
}

// nextMessage returns the next JSON-RPC message of an SSE stream.
func nextMessage(t *testing.T, d *sse.Decoder) *jsonrpc.Message {
	t.Helper()
	_, m := nextEvent(t, d)
	return m
}

// TestServerRequestAnsweredOnAnotherReplica: a tool on replica A lists the
// client's roots; the request's id names A, and the client's answer, posted
// to replica B, reaches A's waiting handler (B answers 202). An answer naming
// a replica that is gone is dropped with 202 too.
func TestServerRequestAnsweredOnAnotherReplica(t *testing.T) {
	srv := redistest.Start(t)
	a := newRelayed(t, srv, "A", rootsTool(t))
	b := newRelayed(t, srv, "B", rootsTool(t))
	sid := startSession(t, &a.replica, &b.replica, initBody)
	for i, pair := range [][2]*relayed{{a, b}, {b, a}} {
		stream := openStream(t, pair[0].url, sid, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"roots","arguments":{}}}`)
		req := nextMessage(t, stream)
		if !req.IsRequest() || req.Method != "roots/list" {
			t.Fatalf("round %d: first message %+v; want roots/list", i, req)
		}
		id, _ := req.ID.Raw().(string)
		if !strings.HasPrefix(id, pair[0].relay.Replica()+".") {
			t.Fatalf("round %d: request id %v does not name replica %s", i, req.ID.Raw(), pair[0].relay.Replica())
		}
		answer := `{"jsonrpc":"2.0","id":` + string(req.ID.AppendJSON(nil)) + `,"result":{"roots":[{"uri":"file:///relayed"}]}}`
		if resp, body := pair[1].post(t, sid, answer); resp.StatusCode != http.StatusAccepted {
			t.Fatalf("round %d: the answer posted to the other replica: %d %s", i, resp.StatusCode, body)
		}
		res := nextMessage(t, stream)
		var out protocol.CallToolResult
		if !res.IsResponse() || json.Unmarshal(res.Result, &out) != nil || len(out.Content) != 1 || !strings.Contains(string(res.Result), "root=file:///relayed") {
			t.Fatalf("round %d: tool result %s %v", i, res.Result, res.Error)
		}
	}
	if resp, body := b.post(t, sid, `{"jsonrpc":"2.0","id":"GONE.1","result":{}}`); resp.StatusCode != http.StatusAccepted {
		t.Errorf("an answer for a replica that is gone: %d %s", resp.StatusCode, body)
	}
}

// TestRelayedRoundTrips counts the Redis round trips of a replica with a
// relay: a warm tools/call with no server-to-client traffic costs what it
// costs without one (the session check, on a replica that checks every
// request), and forwarding an answer to another replica adds one PUBLISH.
// Garbage published to a replica's inbox is ignored.
func TestRelayedRoundTrips(t *testing.T) {
	srv := redistest.Start(t)
	counted := open(t, srv)
	n := redisstore.CountRoundTrips(counted)
	b := newRelayedOn(t, counted, "B", time.Hour, rootsTool(t)) // no heartbeat while counting
	a := newRelayed(t, srv, "A", rootsTool(t))
	sid := startSession(t, &a.replica, &b.replica, initBody)
	for i := range 3 {
		before := n.Load()
		if resp, body := b.post(t, sid, callBody(30+i)); resp.StatusCode != http.StatusOK {
			t.Fatalf("call %d: %d %s", i, resp.StatusCode, body)
		}
		if got := n.Load() - before; got != 1 {
			t.Errorf("warm tools/call %d with a relay: %d round trips, want 1 (the session check)", i, got)
		}
	}
	for round := range 2 { // the first runs the script once more (EVALSHA, NOSCRIPT, EVAL)
		stream := openStream(t, a.url, sid, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"roots","arguments":{}}}`, 50+round))
		req := nextMessage(t, stream)
		before := n.Load()
		if resp, body := b.post(t, sid, `{"jsonrpc":"2.0","id":`+string(req.ID.AppendJSON(nil))+`,"result":{"roots":[]}}`); resp.StatusCode != http.StatusAccepted {
			t.Fatalf("forwarded answer: %d %s", resp.StatusCode, body)
		}
		if got := n.Load() - before; round == 1 && got != 2 {
			t.Errorf("an answer forwarded to another replica: %d round trips, want 2 (session check, PUBLISH)", got)
		}
		if res := nextMessage(t, stream); !strings.Contains(string(res.Result), "no roots") {
			t.Fatalf("tool result: %s", res.Result)
		}
	}
	for _, garbage := range []string{"no topic", "streamable\nnot json", "streamable\n{\"k\":\"a\",\"s\":\"" + sid + "\",\"m\":\"x\"}", "legacysse\n[]"} {
		write(t, counted, []string{"PUBLISH", "mcp:r:" + a.relay.Replica(), garbage})
	}
	if resp, body := a.post(t, sid, callBody(40)); resp.StatusCode != http.StatusOK {
		t.Fatalf("a call after garbage in the inbox: %d %s", resp.StatusCode, body)
	}
}
