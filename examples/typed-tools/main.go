// Command typed-tools is an MCP server with two typed tools, served on
// standard input and output: the program an MCP client (Claude Desktop, VS
// Code, the client example, `mcpkit call`) starts as a subprocess.
//
//	go run ./examples/typed-tools          # serve on stdio
//	go run ./examples/typed-tools -demo    # call both tools in-process and print the results
//
// A typed tool is a Go function from an input struct to an output value.
// mcp.AddTool infers the tool's input schema from the struct (descriptions and
// constraints come from struct tags), validates every call's arguments
// against it before the function runs, and turns the output into the result:
// a string becomes text, a struct becomes structured content with an output
// schema that clients can rely on.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/transport/memory"
)

// GreetInput is the input of the greet tool. The json tag names a property;
// a jsonschema tag that is plain prose is its description (the form the
// official go-sdk uses), and key=value items add constraints.
type GreetInput struct {
	Name     string `json:"name" jsonschema:"Who to greet."`
	Language string `json:"language,omitempty" jsonschema:"description=Language of the greeting,enum=en|fr|es,default=en"`
}

// StatsInput is the input of the stats tool.
type StatsInput struct {
	Numbers []float64 `json:"numbers" jsonschema:"description=The numbers to summarise,minItems=1"`
}

// Stats is the stats tool's output. Because it is a struct, the tool declares
// an output schema inferred from it, and each result carries it as
// structuredContent (plus the same JSON as text, for older clients).
type Stats struct {
	Count int     `json:"count" jsonschema:"How many numbers there were."`
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
	Mean  float64 `json:"mean"`
}

// newServer returns the server with its two tools.
func newServer() (*mcp.Server, error) {
	srv := mcp.NewServer(mcp.Implementation{Name: "typed-tools", Version: "1.0.0"}, nil)

	greetings := map[string]string{"en": "Hello", "fr": "Bonjour", "es": "Hola"}
	err := mcp.AddTool(srv, &mcp.Tool{Name: "greet", Description: "Greets someone in their language"},
		func(ctx context.Context, req *mcp.ToolRequest, in GreetInput) (string, error) {
			if in.Language == "" {
				in.Language = "en" // the default is documented in the schema; filling it in is ours to do
			}
			return greetings[in.Language] + ", " + in.Name + "!", nil
		})
	if err != nil {
		return nil, err
	}

	err = mcp.AddTool(srv, &mcp.Tool{Name: "stats", Description: "Count, minimum, maximum and mean of some numbers"},
		func(ctx context.Context, req *mcp.ToolRequest, in StatsInput) (Stats, error) {
			// The schema guarantees at least one number (minItems=1): a call
			// without any is answered with an error before this runs.
			sum := 0.0
			for _, n := range in.Numbers {
				sum += n
			}
			return Stats{
				Count: len(in.Numbers),
				Min:   slices.Min(in.Numbers),
				Max:   slices.Max(in.Numbers),
				Mean:  sum / float64(len(in.Numbers)),
			}, nil
		})
	if err != nil {
		return nil, err
	}
	return srv, nil
}

func main() {
	demo := flag.Bool("demo", false, "call the tools with an in-process client, print the results and exit")
	flag.Parse()

	// Stop when the client goes away, or on Ctrl-C / SIGTERM.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	srv, err := newServer()
	if err != nil {
		log.Fatal(err)
	}
	if *demo {
		if err := runDemo(ctx, srv); err != nil {
			log.Fatal(err)
		}
		return
	}
	// Standard output now carries protocol messages: log only to standard
	// error (the log package's default).
	if err := mcpkit.ServeStdio(ctx, srv); err != nil {
		log.Fatal(err)
	}
}

// runDemo connects a client to srv in-process (a transport/memory pair: the
// same messages stdio would carry, without a subprocess) and calls each tool.
func runDemo(ctx context.Context, srv *mcp.Server) error {
	clientEnd, serverEnd := memory.NewPair()
	if _, err := srv.Connect(ctx, serverEnd); err != nil {
		return err
	}
	client := mcp.NewClient(mcp.Implementation{Name: "typed-tools-demo", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, clientEnd)
	if err != nil {
		return err
	}
	defer cs.Close()

	for tool, err := range cs.Tools(ctx) {
		if err != nil {
			return err
		}
		fmt.Printf("tool %s: input %s\n", tool.Name, tool.InputSchema)
		if tool.OutputSchema != nil {
			fmt.Printf("tool %s: output %s\n", tool.Name, tool.OutputSchema)
		}
	}

	res, err := cs.CallTool(ctx, "greet", GreetInput{Name: "Ada", Language: "fr"})
	if err != nil {
		return err
	}
	fmt.Println("greet:", res.Content[0].Text)

	stats, _, err := mcp.CallToolAs[Stats](ctx, cs, "stats", StatsInput{Numbers: []float64{3, 1, 4, 1, 5}})
	if err != nil {
		return err
	}
	fmt.Printf("stats: %+v\n", stats)

	// Arguments that break the schema never reach the handler: the tool
	// answers with an error the model can read (isError), not a crash.
	res, err = cs.CallTool(ctx, "stats", StatsInput{Numbers: []float64{}})
	if err != nil {
		return err
	}
	fmt.Printf("stats with no numbers: isError=%v: %s\n", res.IsError, res.Content[0].Text)
	return nil
}
