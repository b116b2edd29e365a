// Command gateway embeds an MCP gateway in a Go program: several MCP servers,
// each started and supervised as a subprocess, offered to clients as one
// server over HTTP, their tools named "<server>__<tool>".
//
//	go run ./examples/gateway -demo     # serve, call through the gateway once, stop
//	go run ./examples/gateway           # serve on 127.0.0.1:8080 until Ctrl-C
//
// The configured servers are this same program started with -serve NAME (a
// real program lists real commands or URLs, or reads a Claude Desktop / VS Code
// configuration with upstream.Load). gateway.New takes the configuration,
// Start runs the supervisor (restarts with backoff, pings, reconnects), and
// Server is an ordinary *mcp.Server to serve any way mcpkit serves one.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/gateway"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/upstream"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to serve the gateway on (port 0: any free port)")
	demo := flag.Bool("demo", false, "call two tools through the gateway, then stop")
	serve := flag.String("serve", "", "run as the stdio server `NAME` (what the gateway starts)")
	flag.Parse()
	if *serve != "" {
		if err := mcpkit.ServeStdio(context.Background(), backend(*serve)); err != nil {
			log.Fatal(err)
		}
		return
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	self, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	cfg := &upstream.Config{Servers: map[string]*upstream.ServerConfig{}}
	for _, name := range []string{"weather", "clock"} {
		cfg.Servers[name] = &upstream.ServerConfig{Name: name, Transport: upstream.TransportStdio, Command: self, Args: []string{"-serve", name}}
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	gw := gateway.New(cfg, &gateway.Options{Info: mcp.Implementation{Name: "example-gateway", Version: "1"}, Logger: logger})
	gw.Start(ctx)
	defer gw.Close()
	startCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := gw.WaitStarted(startCtx); err != nil { // every server connected once
		log.Fatal(err)
	}
	for _, e := range gw.Entries() {
		fmt.Printf("%s %s → %s of %s\n", e.Kind, e.Name, e.Original, e.Server)
	}

	ln, err := mcpkit.Listen(*addr)
	if err != nil {
		log.Fatal(err)
	}
	url := "http://" + ln.Addr().String() + "/mcp"
	fmt.Println("gateway at", url)
	served := make(chan error, 1)
	go func() { served <- mcpkit.Serve(ctx, ln, gw.Server(), &mcpkit.HTTPOptions{Logger: logger}) }()

	if *demo {
		err := callThrough(ctx, url)
		stop()
		if err != nil {
			log.Fatal(err)
		}
	}
	if err := <-served; err != nil {
		log.Fatal(err)
	}
}

// callThrough connects to the gateway like any MCP client and calls one tool
// of each server.
func callThrough(ctx context.Context, url string) error {
	cs, err := mcpkit.ConnectURL(ctx, mcp.NewClient(mcp.Implementation{Name: "example-client", Version: "1"}, nil), url, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	fmt.Printf("instructions: %.60s...\n", cs.InitializeResult().Instructions)
	for _, call := range []struct {
		tool string
		args map[string]any
	}{{"weather__forecast", map[string]any{"city": "Lisbon"}}, {"clock__zone", map[string]any{"city": "Tokyo"}}} {
		res, err := cs.CallTool(ctx, call.tool, call.args)
		if err != nil {
			return fmt.Errorf("calling %s: %w", call.tool, err)
		}
		fmt.Printf("%s: %s\n", call.tool, res.Content[0].Text)
	}
	return nil
}

// backend is the server NAME the gateway starts: each has one tool.
func backend(name string) *mcp.Server {
	srv := mcp.NewServer(mcp.Implementation{Name: name, Version: "1"}, &mcp.ServerOptions{Instructions: "The " + name + " server."})
	type cityIn struct {
		City string `json:"city" jsonschema:"a city name"`
	}
	var err error
	switch name {
	case "weather":
		err = mcp.AddTool(srv, &mcp.Tool{Name: "forecast", Description: "Tomorrow's weather in a city."},
			func(ctx context.Context, req *mcp.ToolRequest, in cityIn) (string, error) {
				return "sunny in " + in.City, nil
			})
	default:
		err = mcp.AddTool(srv, &mcp.Tool{Name: "zone", Description: "The time zone of a city."},
			func(ctx context.Context, req *mcp.ToolRequest, in cityIn) (string, error) {
				if in.City == "Tokyo" {
					return "Asia/Tokyo", nil
				}
				return "unknown", nil
			})
	}
	if err != nil {
		log.Fatal(err)
	}
	return srv
}
