package streamable_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// An MCP client talks to a Streamable HTTP server through a ClientConn. The server
// here is a stand-in that answers in JSON; a real one would be mounted with the
// package's handler or run elsewhere.
func ExampleNewClientConn() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		msg, err := jsonrpc.Decode(body)
		if r.Method != http.MethodPost || err != nil || !msg.IsRequest() {
			w.WriteHeader(http.StatusAccepted) // notifications; GET and DELETE too, for brevity
			return
		}
		result := `{}`
		switch msg.Method {
		case "initialize":
			w.Header().Set(streamable.HeaderSessionID, "session-42")
			result = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"demo","version":"1"}}`
		case "tools/list":
			result = `{"tools":[{"name":"greet","inputSchema":{"type":"object"}}]}`
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(jsonrpc.AppendResult(nil, msg.ID, []byte(result)))
	}))
	defer srv.Close()

	ctx := context.Background()
	conn, err := streamable.NewClientConn(ctx, srv.URL, &streamable.ClientOptions{
		Header: http.Header{"Authorization": {"Bearer example-token"}},
	})
	if err != nil {
		panic(err)
	}
	cs, err := mcp.NewClient(protocol.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, conn)
	if err != nil {
		panic(err)
	}
	defer cs.Close()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(tools.Tools[0].Name, conn.SessionID(), conn.ProtocolVersion())
	// Output: greet session-42 2025-06-18
}
