// Command http serves an MCP server over both HTTP transports until it is
// interrupted (Ctrl-C or SIGTERM), then shuts down gracefully:
//
//   - Streamable HTTP at /mcp, for current clients (sessions, sessionless, and
//     stateless 2026-07-28 requests, all on one endpoint);
//   - HTTP+SSE at /sse and /messages, for clients of the 2024-11-05 protocol.
//
// Run it:
//
//	go run ./examples/http                          # http://127.0.0.1:8080/mcp until Ctrl-C
//	go run ./examples/http -addr 127.0.0.1:0 -demo  # start, call itself over both transports, stop
//
// and talk to it with the CLI: `go run ./cmd/mcpkit call echo '{"message":"hi"}' --url http://127.0.0.1:8080/mcp`.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/mcp"
)

// EchoInput is the input of the echo tool.
type EchoInput struct {
	Message string `json:"message" jsonschema:"The text to send back."`
}

// newServer returns a server with one tool; any server works the same way.
func newServer() (*mcp.Server, error) {
	srv := mcp.NewServer(mcp.Implementation{Name: "http-example", Version: "1.0.0"}, nil)
	err := mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Sends the message back"},
		func(ctx context.Context, req *mcp.ToolRequest, in EchoInput) (string, error) {
			return "echo: " + in.Message, nil
		})
	return srv, err
}

// options are the limits that bound what clients can make the server hold.
// These values are the defaults (the zero HTTPOptions means the same); they
// are written out to show the knobs. A client beyond a limit gets an HTTP
// error it can act on (413, 429 or 503 with Retry-After), never a hang.
func options(logger *slog.Logger) *mcpkit.HTTPOptions {
	return &mcpkit.HTTPOptions{
		Logger:               logger,
		MaxConnections:       4096,             // open TCP connections (lowered to fit the descriptor limit)
		MaxBodyBytes:         4 << 20,          // a POST body: 413 beyond
		BodyReadTimeout:      30 * time.Second, // to send a POST body: 408 beyond
		MaxSessions:          10_000,           // sessions of both transports together: 503 beyond
		MaxSessionsPerClient: 1_000,            // sessions of one client address: 429 beyond
		MaxStreams:           1_000,            // SSE streams waiting for messages: 503 beyond
		SessionIdleTimeout:   30 * time.Minute, // a Streamable HTTP session without activity ends
		ShutdownTimeout:      5 * time.Second,  // a graceful stop, then what remains is closed
		// AllowedHosts / AllowedOrigins: a server bound to a public address
		// should name the hosts it is reached by (DNS-rebinding defence).
	}
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on (port 0: any free port)")
	demo := flag.Bool("demo", false, "call the server once over each transport, then stop")
	flag.Parse()

	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	// The context ends on Ctrl-C (SIGINT) or SIGTERM: that starts the
	// graceful shutdown.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	// mcpkit.ListenAndServe(ctx, *addr, srv, opts) does Listen and Serve in
	// one call. They are split here to print the address the system picked
	// when the port is 0.
	srv, err := newServer()
	if err != nil {
		log.Fatal(err)
	}
	ln, err := mcpkit.Listen(*addr)
	if err != nil {
		log.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	fmt.Printf("serving Streamable HTTP at %s/mcp and HTTP+SSE at %s/sse\n", url, url)

	served := make(chan error, 1)
	go func() { served <- mcpkit.Serve(ctx, ln, srv, options(logger)) }()

	if *demo {
		err := callSelf(ctx, url)
		stop() // ends the context: the server shuts down as it would on SIGTERM
		if err != nil {
			log.Fatal(err)
		}
	}
	// Serve returns once the shutdown is done: nil when it finished in time.
	if err := <-served; err != nil {
		log.Fatal(err)
	}
	fmt.Println("shut down cleanly")
}

// callSelf connects to the server over each transport and calls echo.
func callSelf(ctx context.Context, url string) error {
	client := mcp.NewClient(mcp.Implementation{Name: "http-demo", Version: "1.0.0"}, nil)
	for _, endpoint := range []string{"/mcp", "/sse"} {
		cs, err := mcpkit.ConnectURL(ctx, client, url+endpoint, nil)
		if err != nil {
			return err
		}
		res, err := cs.CallTool(ctx, "echo", EchoInput{Message: "hi over " + endpoint})
		cs.Close()
		if err != nil {
			return err
		}
		if res.IsError {
			return errors.New(res.Content[0].Text)
		}
		fmt.Printf("%s (protocol %s): %s\n", endpoint, cs.ProtocolVersion(), res.Content[0].Text)
	}
	return nil
}
