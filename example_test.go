package mcpkit_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/mcp"
)

// GreetInput is the input of the examples' greet tool.
type GreetInput struct {
	Name string `json:"name" description:"who to greet"`
}

// newGreeter returns the examples' server: one tool, greet.
func newGreeter() *mcp.Server {
	srv := mcp.NewServer(mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	_ = mcp.AddTool(srv, &mcp.Tool{Name: "greet", Description: "Says hello"},
		func(ctx context.Context, req *mcp.ToolRequest, in GreetInput) (string, error) {
			return "hello " + in.Name, nil
		})
	return srv
}

// printTools prints the names of the tools a session's server offers.
func printTools(ctx context.Context, cs *mcp.ClientSession) {
	for tool, err := range cs.Tools(ctx) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("tool:", tool.Name)
	}
}

// A server on standard input and output: the program a client starts.
func ExampleServeStdio() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := mcpkit.ServeStdio(ctx, newGreeter()); err != nil {
		log.Fatal(err)
	}
}

// A server over HTTP, until interrupted: Streamable HTTP at
// http://127.0.0.1:8080/mcp and HTTP+SSE at /sse, with the default limits.
func ExampleListenAndServe() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := mcpkit.ListenAndServe(ctx, ":8080", newGreeter(), nil); err != nil {
		log.Fatal(err)
	}
}

// Serve serves on a listener of your choice (here on a port the system
// picks) until its context ends.
func ExampleServe() {
	ctx, stop := context.WithCancel(context.Background())
	ln, err := mcpkit.Listen("127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- mcpkit.Serve(ctx, ln, newGreeter(), &mcpkit.HTTPOptions{MaxSessions: 100}) }()

	client := mcp.NewClient(mcp.Implementation{Name: "example", Version: "1.0.0"}, nil)
	cs, err := mcpkit.ConnectURL(ctx, client, "http://"+ln.Addr().String()+"/mcp", nil)
	if err != nil {
		log.Fatal(err)
	}
	printTools(ctx, cs)
	cs.Close()

	stop() // the server shuts down gracefully
	fmt.Println("stopped:", <-served)
	// Output:
	// tool: greet
	// stopped: <nil>
}

// The handler mounts both HTTP transports in a server of your own. Shut it
// down before the http.Server, which would otherwise wait for its streams.
func ExampleNewHTTPHandler() {
	ctx := context.Background()
	h := mcpkit.NewHTTPHandler(newGreeter(), nil)
	mux := http.NewServeMux()
	mux.Handle("/", h) // /mcp, /sse and /messages
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") })
	ts := httptest.NewServer(mux)
	defer ts.Close()

	client := mcp.NewClient(mcp.Implementation{Name: "example", Version: "1.0.0"}, nil)
	cs, err := mcpkit.ConnectURL(ctx, client, ts.URL+"/mcp", nil)
	if err != nil {
		log.Fatal(err)
	}
	printTools(ctx, cs)
	cs.Close()
	fmt.Println("shutdown:", h.Shutdown(ctx))
	// Output:
	// tool: greet
	// shutdown: <nil>
}

// An http.Server with the recommended settings, on a listener that caps its
// connections.
func ExampleNewHTTPServer() {
	ctx := context.Background()
	h := mcpkit.NewHTTPHandler(newGreeter(), nil)
	hs := mcpkit.NewHTTPServer("127.0.0.1:0", h)
	ln, err := mcpkit.Listen(hs.Addr)
	if err != nil {
		log.Fatal(err)
	}
	go func() { _ = hs.Serve(mcpkit.LimitListener(ln, 1000)) }()
	fmt.Println(hs.ReadHeaderTimeout, hs.IdleTimeout, hs.WriteTimeout)

	client := mcp.NewClient(mcp.Implementation{Name: "example", Version: "1.0.0"}, nil)
	cs, err := mcpkit.ConnectURL(ctx, client, "http://"+ln.Addr().String()+"/mcp", nil)
	if err != nil {
		log.Fatal(err)
	}
	printTools(ctx, cs)
	cs.Close()
	_ = h.Shutdown(ctx)
	_ = hs.Shutdown(ctx)
	// Output:
	// 10s 1m0s 0s
	// tool: greet
}

// ConnectURL speaks Streamable HTTP, and HTTP+SSE to a server that only
// speaks that: here the same handler's /sse endpoint.
func ExampleConnectURL() {
	ctx := context.Background()
	h := mcpkit.NewHTTPHandler(newGreeter(), nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Shutdown(ctx)

	client := mcp.NewClient(mcp.Implementation{Name: "example", Version: "1.0.0"}, nil)
	for _, endpoint := range []string{"/mcp", "/sse"} {
		cs, err := mcpkit.ConnectURL(ctx, client, ts.URL+endpoint, nil)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(endpoint, cs.ProtocolVersion())
		cs.Close()
	}
	// Output:
	// /mcp 2026-07-28
	// /sse 2025-11-25
}

// ConnectCommand starts a server and connects to it over its standard input
// and output. (The server here is this example's own program, which serves
// the greeter when started with MCPKIT_EXAMPLE_SERVER set: see TestMain.)
func ExampleConnectCommand() {
	ctx := context.Background()
	client := mcp.NewClient(mcp.Implementation{Name: "example", Version: "1.0.0"}, nil)
	cs, err := mcpkit.ConnectCommand(ctx, client, os.Args[0])
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	printTools(ctx, cs)
	res, err := cs.CallTool(ctx, "greet", GreetInput{Name: "Ada"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].Text)
	// Output:
	// tool: greet
	// hello Ada
}
