package legacysse_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/mcpkit/mcpkit/demo"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/legacysse"
)

// ExampleNewHandler serves an MCP server over the 2024-11-05 HTTP+SSE transport,
// mounted under /mcp/: clients open the stream at /mcp/sse and post to the URL the
// endpoint event gives them, /mcp/messages?sessionId=....
func ExampleNewHandler() {
	srv, err := demo.NewServer(nil)
	if err != nil {
		log.Fatal(err)
	}
	h := legacysse.NewHandler(srv, &legacysse.HandlerOptions{PathPrefix: "/mcp"})
	mux := http.NewServeMux()
	mux.Handle("/mcp/", http.StripPrefix("/mcp", h))
	ts := httptest.NewServer(mux) // in production: mcpkit.NewHTTPServer and mcpkit.LimitListener (timeouts, a connection cap)
	defer ts.Close()
	defer h.Close() // ends every stream before the server shuts down

	resp, err := http.Get(ts.URL + "/mcp/sse")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	fmt.Println(resp.Header.Get("Content-Type"))
	// Output: text/event-stream
}

// ExampleDial connects an MCP client to a server that speaks the old HTTP+SSE
// transport and calls a tool.
func ExampleDial() {
	srv, err := demo.NewServer(nil)
	if err != nil {
		log.Fatal(err)
	}
	h := legacysse.NewHandler(srv, nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()

	ctx := context.Background()
	conn, err := legacysse.Dial(ctx, ts.URL+"/sse", nil)
	if err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(protocol.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, conn)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, "echo", map[string]any{"message": "hi"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].Text)
	// Output: hello hi
}
