package mcp_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/memory"
)

// An extension declares itself next to the capabilities the server infers,
// and serves its own methods, which the middleware sees like any other. A
// method that belongs to the extension refuses clients that did not declare it
// (-32021); a client declares extensions in ClientOptions.Extensions and calls
// custom methods with ClientSession.Call, in either era.
func ExampleAddRequestHandler() {
	ctx := context.Background()
	const ext = "com.example/groups"
	srv := mcp.NewServer(protocol.Implementation{Name: "groups", Version: "1"}, nil)
	srv.AddExtension(ext, map[string]any{"maxGroups": 10})

	type listParams struct {
		Prefix string `json:"prefix"`
	}
	type listResult struct {
		Groups []string `json:"groups"`
	}
	mcp.AddRequestHandler(srv, "groups/list", func(ctx context.Context, r *mcp.Request, p *listParams) (*listResult, error) {
		return &listResult{Groups: []string{p.Prefix + "admins", p.Prefix + "users"}}, nil
	}, &mcp.MethodOptions{Extension: ext})

	connect := func(opts *mcp.ClientOptions) *mcp.ClientSession {
		c, s := memory.NewPair()
		if _, err := srv.Connect(ctx, s); err != nil {
			panic(err)
		}
		cs, err := mcp.NewClient(protocol.Implementation{Name: "app", Version: "1"}, opts).Connect(ctx, c)
		if err != nil {
			panic(err)
		}
		return cs
	}

	// A client that declares the extension.
	cs := connect(&mcp.ClientOptions{Extensions: map[string]map[string]any{ext: nil}})
	defer cs.Close()
	settings, _ := cs.ServerExtension(ext)
	fmt.Println("server declares", ext, "with maxGroups", settings["maxGroups"])
	var res listResult
	if err := cs.Call(ctx, "groups/list", &listParams{Prefix: "team-"}, &res); err != nil {
		fmt.Println(err)
	}
	fmt.Println(res.Groups)

	// A client that does not.
	other := connect(nil)
	defer other.Close()
	var je *jsonrpc.Error
	if err := other.Call(ctx, "groups/list", nil, nil); errors.As(err, &je) {
		fmt.Println(je.Code)
	}
	// Output:
	// server declares com.example/groups with maxGroups 10
	// [team-admins team-users]
	// -32021
}
