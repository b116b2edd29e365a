package legacysse_test

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/legacysse"
)

// echoServer is a server with one tool, echo, that answers "hello " and its
// message.
func echoServer() *mcp.Server {
	srv := mcp.NewServer(mcp.Implementation{Name: "echo", Version: "1"}, nil)
	type echoIn struct {
		Message string `json:"message" jsonschema:"the text to echo back"`
	}
	err := mcp.AddTool(srv, &mcp.Tool{Name: "echo", Description: "Echoes a message."}, func(ctx context.Context, req *mcp.ToolRequest, in echoIn) (string, error) {
		return "hello " + in.Message, nil
	})
	if err != nil {
		log.Fatal(err)
	}
	return srv
}

// ExampleNewHandler serves an MCP server over the 2024-11-05 HTTP+SSE transport,
// mounted under /mcp/: clients open the stream at /mcp/sse and post to the URL the
// endpoint event gives them, /mcp/messages?sessionId=....
func ExampleNewHandler() {
	srv := echoServer()
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

// ExampleNewClientConn connects an MCP client to a server that speaks the old
// HTTP+SSE transport and calls a tool.
func ExampleNewClientConn() {
	srv := echoServer()
	h := legacysse.NewHandler(srv, nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close()

	ctx := context.Background()
	conn, err := legacysse.NewClientConn(ctx, ts.URL+"/sse", nil)
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
