package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/memory"
)

// A client detects the era of the server it connects to: a stateless server
// (2026-07-28) answers its server/discover probe, a legacy one is initialized.
// Input the server asks for in the middle of a call goes to the same handlers in
// both eras.
func ExampleClient_Connect() {
	ctx := context.Background()
	srv := mcp.NewServer(protocol.Implementation{Name: "greeter", Version: "1"}, nil)
	_ = srv.AddRawTool(&protocol.Tool{Name: "greet"}, func(ctx context.Context, r *mcp.ToolRequest) (*protocol.CallToolResult, error) {
		answer, err := r.Elicit(ctx, &protocol.ElicitParams{Message: "Your name?",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
		if err != nil {
			return nil, err // in the stateless era: the client answers, then calls again
		}
		return protocol.NewToolResultText(fmt.Sprintf("Hello, %v!", answer.Content["name"])), nil
	})
	for _, version := range []string{"", protocol.Version20251125} { // detect; force a legacy session
		c, s := memory.NewPair()
		ss, _ := srv.Connect(ctx, s)
		cs, err := mcp.NewClient(protocol.Implementation{Name: "example", Version: "1"}, &mcp.ClientOptions{
			ProtocolVersion: version,
			ElicitationHandler: func(ctx context.Context, _ *mcp.ClientSession, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
				return &protocol.ElicitResult{Action: protocol.ElicitActionAccept, Content: map[string]any{"name": "Ada"}}, nil
			},
		}).Connect(ctx, c)
		if err != nil {
			fmt.Println(err)
			return
		}
		res, err := cs.CallTool(ctx, "greet", nil)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s stateless=%v: %s\n", cs.ProtocolVersion(), cs.IsStateless(), res.Content[0].Text)
		_ = cs.Close()
		_ = ss.Close()
	}
	// Output:
	// 2026-07-28 stateless=true: Hello, Ada!
	// 2025-11-25 stateless=false: Hello, Ada!
}

// CallTool takes the arguments as a Go value (a struct or a map, encoded for
// you), or as raw JSON.
func ExampleClientSession_CallTool() {
	ctx := context.Background()
	srv := mcp.NewServer(protocol.Implementation{Name: "greeter", Version: "1"}, nil)
	_ = mcp.AddTool(srv, &protocol.Tool{Name: "greet"}, func(ctx context.Context, req *mcp.ToolRequest, in GreetInput) (string, error) {
		return "hello " + in.Name, nil
	})
	cs, err := connectInMemory(ctx, srv)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()

	for _, args := range []any{
		GreetInput{Name: "Ada"},
		map[string]any{"name": "Grace"},
		json.RawMessage(`{"name":"Edsger"}`),
	} {
		res, err := cs.CallTool(ctx, "greet", args)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(res.Content[0].Text)
	}
	// A tool that runs and fails is a result with IsError set, not an error.
	res, _ := cs.CallTool(ctx, "greet", nil)
	fmt.Println("isError:", res.IsError)
	// Output:
	// hello Ada
	// hello Grace
	// hello Edsger
	// isError: true
}

// Weather is the output of the weather tool in the CallToolAs example.
type Weather struct {
	City    string  `json:"city"`
	Celsius float64 `json:"celsius"`
}

// CallToolAs decodes a tool's structured output into a Go value, and turns a
// tool's reported failure into a *mcp.ToolError.
func ExampleCallToolAs() {
	ctx := context.Background()
	srv := mcp.NewServer(protocol.Implementation{Name: "weather", Version: "1"}, nil)
	type weatherIn struct {
		City string `json:"city" jsonschema:"The city to report on"`
	}
	_ = mcp.AddTool(srv, &protocol.Tool{Name: "weather"}, func(ctx context.Context, req *mcp.ToolRequest, in weatherIn) (Weather, error) {
		if in.City == "Atlantis" {
			return Weather{}, fmt.Errorf("no station in %s", in.City)
		}
		return Weather{City: in.City, Celsius: 19.5}, nil
	})
	cs, err := connectInMemory(ctx, srv)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer cs.Close()

	w, _, err := mcp.CallToolAs[Weather](ctx, cs, "weather", weatherIn{City: "Lisbon"})
	fmt.Printf("%+v %v\n", w, err)

	_, _, err = mcp.CallToolAs[Weather](ctx, cs, "weather", weatherIn{City: "Atlantis"})
	var te *mcp.ToolError
	if errors.As(err, &te) {
		fmt.Printf("the tool %s failed: %s\n", te.Tool, te.Text)
	}
	// Output:
	// {City:Lisbon Celsius:19.5} <nil>
	// the tool weather failed: no station in Atlantis
}

// connectInMemory connects a client to srv over an in-memory pair, as the
// examples do (stdio and HTTP work the same way). Closing the client's
// session ends the server's too.
func connectInMemory(ctx context.Context, srv *mcp.Server) (*mcp.ClientSession, error) {
	c, s := memory.NewPair()
	if _, err := srv.Connect(ctx, s); err != nil {
		return nil, err
	}
	return mcp.NewClient(protocol.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, c)
}
