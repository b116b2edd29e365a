// Command redis-replicas runs two replicas of one MCP server behind a
// round-robin load balancer, sharing their state through Redis
// (store/redisstore): a client's legacy session, created on one replica, is
// served by the other on its next request, and the client's answer to a
// server-to-client request (an elicitation) reaches the replica waiting for
// it whichever replica the balancer sends it to.
//
//	go run ./examples/redis-replicas -redis redis://127.0.0.1:6379/0
//
// Each replica wires three Redis-backed pieces into mcpkit.HTTPOptions:
// Sessions (the legacy sessions' state), EventStore (the events of SSE
// streams, so a client can resume on any replica) and Relay (messages between
// replicas: here the elicitation's answer). No session affinity is needed.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync/atomic"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/store/redisstore"
)

func main() {
	redisURL := flag.String("redis", "redis://127.0.0.1:6379/0", "the Redis the replicas share")
	flag.Parse()
	if err := run(*redisURL); err != nil {
		log.Fatal(err)
	}
}

func run(redisURL string) error {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	quiet := slog.New(slog.DiscardHandler)
	lb := &roundRobin{}
	served := make(chan error, 2)
	for _, name := range []string{"replica1", "replica2"} {
		c, err := redisstore.Open(ctx, redisURL, nil)
		if err != nil {
			return err
		}
		defer c.Close()
		relay, err := redisstore.NewRelay(ctx, c, &redisstore.RelayOptions{Replica: name, Logger: quiet})
		if err != nil {
			return err
		}
		defer relay.Close()
		opts := &mcpkit.HTTPOptions{
			Sessions:   redisstore.NewSessionStore(c),
			EventStore: redisstore.NewEventStore(c, nil),
			Relay:      relay,
			Logger:     quiet,
		}
		if err := lb.add(ctx, name, newReplica(name), opts, served); err != nil {
			return err
		}
	}
	front, err := mcpkit.Listen("127.0.0.1:0")
	if err != nil {
		return err
	}
	go func() { _ = http.Serve(front, lb) }()
	defer front.Close()

	err = client(ctx, "http://"+front.Addr().String()+"/mcp")
	stop()
	for range 2 {
		if serr := <-served; err == nil {
			err = serr
		}
	}
	return err
}

// newReplica is the server each replica runs: whoami names the replica that
// answers; greet asks the client for a name (elicitation) and greets it.
func newReplica(name string) *mcp.Server {
	srv := mcp.NewServer(mcp.Implementation{Name: "replicated", Version: "1"}, nil)
	type none struct{}
	_ = mcp.AddTool(srv, &mcp.Tool{Name: "whoami", Description: "Names the replica that answers."},
		func(ctx context.Context, req *mcp.ToolRequest, _ none) (string, error) {
			return "answered by " + name, nil
		})
	_ = mcp.AddTool(srv, &mcp.Tool{Name: "greet", Description: "Asks your name, then greets you."},
		func(ctx context.Context, req *mcp.ToolRequest, _ none) (string, error) {
			res, err := req.Elicit(ctx, &protocol.ElicitParams{Message: "What is your name?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)})
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("hello %v (the call waited on %s)", res.Content["name"], name), nil
		})
	return srv
}

// client is a 2025-11-25 client, with a session: every request after the
// first goes to the other replica than the one before.
func client(ctx context.Context, url string) error {
	c := mcp.NewClient(mcp.Implementation{Name: "redis-replicas", Version: "1"}, &mcp.ClientOptions{
		ProtocolVersion: protocol.LatestLegacy,
		ElicitationHandler: func(ctx context.Context, cs *mcp.ClientSession, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
			fmt.Printf("  client: asked %q, answers Ada\n", p.Message)
			return &protocol.ElicitResult{Action: protocol.ElicitActionAccept, Content: map[string]any{"name": "Ada"}}, nil
		},
	})
	cs, err := mcpkit.ConnectURL(ctx, c, url, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	fmt.Println("connected through the balancer, protocol", cs.InitializeResult().ProtocolVersion)
	for _, tool := range []string{"whoami", "whoami", "greet"} {
		res, err := cs.CallTool(ctx, tool, nil)
		if err != nil {
			return fmt.Errorf("calling %s: %w", tool, err)
		}
		fmt.Printf("%s: %s\n", tool, res.Content[0].Text)
	}
	return nil
}

// roundRobin is the load balancer: each POST goes to the next replica,
// whatever session it belongs to (the GET of the session's stream and the
// DELETE that ends it take turns of their own, so that the POSTs' order is
// the same on every run).
type roundRobin struct {
	posts, others atomic.Uint64
	names         []string
	replicas      []*httputil.ReverseProxy
}

func (rr *roundRobin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	turn := &rr.others
	if r.Method == http.MethodPost {
		turn = &rr.posts
	}
	i := (turn.Add(1) - 1) % uint64(len(rr.replicas))
	fmt.Printf("balancer → %s: %s\n", rr.names[i], r.Method)
	rr.replicas[i].ServeHTTP(w, r)
}

// add serves srv with opts on a port of its own until ctx ends, behind rr.
func (rr *roundRobin) add(ctx context.Context, name string, srv *mcp.Server, opts *mcpkit.HTTPOptions, served chan<- error) error {
	ln, err := mcpkit.Listen("127.0.0.1:0")
	if err != nil {
		return err
	}
	go func() { served <- mcpkit.Serve(ctx, ln, srv, opts) }()
	target := &url.URL{Scheme: "http", Host: ln.Addr().String()}
	rr.names = append(rr.names, name)
	rr.replicas = append(rr.replicas, &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(target) },
		FlushInterval: -1, // pass SSE events on as they come
	})
	return nil
}
