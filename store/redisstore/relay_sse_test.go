package redisstore_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/store/redisstore"
	"github.com/mcpkit/mcpkit/store/redistest"
	"github.com/mcpkit/mcpkit/transport/legacysse"
)

// roundRobin sends every POST to the next of its hosts, in turn, as a
// balancer without stickiness would, and counts where they went.
type roundRobin struct {
	hosts []string
	mu    sync.Mutex
	next  int
	sent  map[string]int
}

func (rr *roundRobin) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost {
		rr.mu.Lock()
		host := rr.hosts[rr.next%len(rr.hosts)]
		rr.next++
		rr.sent[host]++
		rr.mu.Unlock()
		req = req.Clone(req.Context())
		req.URL.Host, req.Host = host, host
	}
	return http.DefaultTransport.RoundTrip(req)
}

// sseReplica is an HTTP+SSE handler (with an echo tool) relaying on Redis.
func sseReplica(t *testing.T, srv *redistest.Server, id string) *httptest.Server {
	t.Helper()
	rl, err := redisstore.NewRelay(testkit.Context(t), open(t, srv), &redisstore.RelayOptions{Replica: id, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(protocol.Implementation{Name: "sse-" + id, Version: "1"}, &mcp.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	if err := mcp.AddTool(s, &protocol.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.ToolRequest, in struct {
		Message string `json:"message"`
	}) (string, error) {
		return "echo " + in.Message, nil
	}); err != nil {
		t.Fatal(err)
	}
	h := legacysse.NewHandler(s, &legacysse.HandlerOptions{Relay: rl, Logger: slog.New(slog.DiscardHandler)})
	hs := httptest.NewServer(h)
	t.Cleanup(func() { _ = h.Close(); hs.Close(); rl.Close() })
	return hs
}

// TestLegacySSEAcrossReplicas: an HTTP+SSE session whose stream is on
// replica A is served through POSTs spread over A, B and C; a POST naming no
// session gets 404 everywhere, and 503 with Retry-After on a replica that
// does not hold it while Redis is down.
func TestLegacySSEAcrossReplicas(t *testing.T) {
	srv := redistest.Start(t)
	var hosts []string
	var urls []string
	for _, id := range []string{"A", "B", "C"} {
		hs := sseReplica(t, srv, id)
		u, _ := url.Parse(hs.URL)
		hosts, urls = append(hosts, u.Host), append(urls, hs.URL)
	}
	rr := &roundRobin{hosts: hosts, sent: map[string]int{}}
	ctx := testkit.Context(t)
	conn, err := legacysse.NewClientConn(ctx, urls[0]+"/sse", &legacysse.ClientOptions{HTTPClient: &http.Client{Transport: rr}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(protocol.Implementation{Name: "sse-client", Version: "1"}, nil).Connect(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for i := range 30 {
		msg := fmt.Sprint("m", i)
		res, err := cs.CallTool(ctx, "echo", map[string]any{"message": msg})
		if err != nil || res.IsError || len(res.Content) != 1 || !strings.Contains(fmt.Sprint(res.Content[0]), "echo "+msg) {
			t.Fatalf("call %d: %v %+v", i, err, res)
		}
	}
	rr.mu.Lock()
	for _, h := range hosts {
		if rr.sent[h] < 10 {
			t.Errorf("replica %s got %d POSTs; want the round robin to reach every replica", h, rr.sent[h])
		}
	}
	rr.mu.Unlock()
	for i, u := range urls {
		resp, body := testkit.PostMCP(t, ctx, u+"/messages?sessionId=NOSUCHSESSION", nil, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("replica %d, an unknown session: %d %s", i, resp.StatusCode, body)
		}
	}
	srv.Stop()
	resp, body := testkit.PostMCP(t, ctx, urls[1]+"/messages?sessionId=NOSUCHSESSION", nil, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a POST with Redis down: %d %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, urls[1]+"/sse", nil)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a new stream with Redis down: %v %+v", err, resp)
	} else {
		resp.Body.Close()
	}
}
