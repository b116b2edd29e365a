// Command client starts an MCP server as a subprocess, lists its tools, calls
// one with a Go struct as its arguments and decodes the result into another.
//
//	go run ./examples/client                               # runs the typed-tools example with `go run`
//	go run ./examples/client -- ./bin/typed-tools          # or any server command after --
//	go run ./examples/client -tool greet -args '{"name":"Ada"}' -- npx -y @modelcontextprotocol/server-everything
//
// Without -tool it calls the typed-tools example's stats tool, whose output it
// decodes into a Stats value with mcp.CallToolAs.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"time"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/mcp"
)

// StatsInput and Stats mirror the typed-tools example's stats tool: a client
// declares the shapes it expects, nothing is shared with the server but JSON.
type StatsInput struct {
	Numbers []float64 `json:"numbers"`
}

// Stats is the structured output of the stats tool.
type Stats struct {
	Count int     `json:"count"`
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
	Mean  float64 `json:"mean"`
}

// defaultServer runs the typed-tools example (go run builds it first; this
// works from anywhere inside the mcpkit module).
var defaultServer = []string{"go", "run", "github.com/mcpkit/mcpkit/examples/typed-tools"}

func main() {
	tool := flag.String("tool", "", "call this tool instead of stats (its output is printed as text)")
	args := flag.String("args", "{}", "the -tool's arguments, a JSON object")
	flag.Parse()
	command := flag.Args() // what follows -- (flag stops there)
	if len(command) == 0 {
		command = defaultServer
	}

	// A bound on the whole session, so that a stuck server cannot hang us.
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelTimeout()

	if err := run(ctx, command, *tool, *args); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, command []string, tool, args string) error {
	client := mcp.NewClient(mcp.Implementation{Name: "client-example", Version: "1.0.0"}, nil)
	// ConnectCommand starts the server and speaks MCP over its stdin and
	// stdout; it finds out which protocol era the server speaks. Closing the
	// session stops the server.
	cs, err := mcpkit.ConnectCommand(ctx, client, command[0], command[1:]...)
	if err != nil {
		return err
	}
	defer cs.Close()
	fmt.Println("connected, protocol", cs.ProtocolVersion())

	// Tools is an iterator: it follows the server's pages for us.
	for t, err := range cs.Tools(ctx) {
		if err != nil {
			return err
		}
		fmt.Printf("tool %s: %s\n", t.Name, t.Description)
	}

	if tool != "" {
		// Raw JSON arguments are sent as they are (a json.RawMessage).
		res, err := cs.CallTool(ctx, tool, []byte(args))
		if err != nil {
			return err
		}
		for _, c := range res.Content {
			fmt.Printf("%s (isError=%v): %s\n", tool, res.IsError, c.Text)
		}
		return nil
	}

	// A struct (or a map) is encoded as the arguments; CallToolAs decodes the
	// tool's structured output into Stats, and turns a result that reports a
	// failure (isError) into a *mcp.ToolError.
	stats, _, err := mcp.CallToolAs[Stats](ctx, cs, "stats", StatsInput{Numbers: []float64{2, 7, 1, 8, 2, 8}})
	if err != nil {
		return err
	}
	fmt.Printf("stats: count=%d min=%g max=%g mean=%g\n", stats.Count, stats.Min, stats.Max, stats.Mean)
	return nil
}
