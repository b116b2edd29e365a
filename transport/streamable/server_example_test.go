package streamable_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// An MCP server served over Streamable HTTP. A real program mounts the handler on its
// own mux, serves it with the recommended timeouts and connection cap
// (mcpkit.NewHTTPServer and mcpkit.LimitListener, or mcpkit.ListenAndServe for both
// HTTP transports at once), and calls Shutdown or Close when it stops.
func ExampleNewHandler() {
	srv := mcp.NewServer(protocol.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	type in struct {
		Name string `json:"name"`
	}
	_ = mcp.AddTool(srv, &protocol.Tool{Name: "greet"}, func(ctx context.Context, req *mcp.ToolRequest, in in) (string, error) {
		return "hello " + in.Name, nil
	})
	h := streamable.NewHandler(srv, nil)
	defer h.Close()
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ts := httptest.NewServer(mux)
	defer ts.Close()

	post := func(session, body string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		if session != "" {
			req.Header.Set(streamable.HeaderSessionID, session)
			req.Header.Set(streamable.HeaderProtocolVersion, "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		return resp
	}
	resp := post("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"example","version":"1"}}}`)
	resp.Body.Close()
	session := resp.Header.Get(streamable.HeaderSessionID)
	fmt.Println("initialize:", resp.StatusCode, "session issued:", session != "")

	resp = post(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()
	fmt.Println("initialized:", resp.StatusCode)

	resp = post(session, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}}`)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.Header.Get("Content-Type"), string(body))
	// Output:
	// initialize: 200 session issued: true
	// initialized: 202
	// application/json {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hello Ada"}]}}
}

// A 2026-07-28 client needs no initialize and no session: every request is a POST
// of its own carrying its version and capabilities in _meta, mirrored by standard
// headers the handler checks. The same handler serves session-based clients.
func ExampleNewHandler_stateless2026() {
	srv := mcp.NewServer(protocol.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	type in struct {
		Name string `json:"name"`
	}
	_ = mcp.AddTool(srv, &protocol.Tool{Name: "greet"}, func(ctx context.Context, req *mcp.ToolRequest, in in) (string, error) {
		return "hello " + in.Name, nil
	})
	h := streamable.NewHandler(srv, nil)
	defer h.Close()
	ts := httptest.NewServer(h)
	defer ts.Close()

	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	post := func(method, name, body string) {
		req, _ := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(body))
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(streamable.HeaderProtocolVersion, "2026-07-28")
		req.Header.Set(protocol.HeaderMethod, method)
		if name != "" {
			req.Header.Set(protocol.HeaderName, protocol.EncodeHeaderValue(name))
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(method, resp.StatusCode, strings.Contains(string(data), "hello Ada"), resp.Header.Get(streamable.HeaderSessionID) == "")
	}
	post("tools/call", "greet", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"},`+meta+`}}`)
	post("tools/call", "other", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"},`+meta+`}}`)
	post("ping", "", `{"jsonrpc":"2.0","id":3,"method":"ping","params":{`+meta+`}}`)
	// Output:
	// tools/call 200 true true
	// tools/call 400 false true
	// ping 404 false true
}
