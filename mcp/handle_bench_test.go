package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/mcpkit/mcpkit/internal/rpcconn"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
)

// benchEchoIn is the echo tool's input, as in the transport benchmarks.
type benchEchoIn struct {
	Message string `json:"message"`
}

// benchEchoServer returns a server with the typed echo tool the transport
// benchmarks use.
func benchEchoServer(tb testing.TB) *Server {
	tb.Helper()
	srv := NewServer(protocol.Implementation{Name: "bench", Version: "1"}, nil)
	err := AddTool(srv, &protocol.Tool{Name: "echo"}, func(ctx context.Context, req *ToolRequest, in benchEchoIn) (string, error) {
		return "hello " + in.Message, nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return srv
}

// encodeResult encodes a handler's result as rpcconn.Conn.respond does: an
// appender writes straight into the buffer, anything else goes through
// encoding/json.
func encodeResult(b []byte, res any) ([]byte, error) {
	if a, ok := res.(rpcconn.JSONAppender); ok {
		return a.AppendJSON(b)
	}
	data, err := json.Marshal(res)
	if err != nil {
		return b, err
	}
	return append(b, data...), nil
}

// benchToolCalls are the tools/call requests measured by BenchmarkHandleToolCall,
// by era: a legacy session call, then 2026-07-28 calls with the minimal _meta
// the HTTP benchmarks send, with the _meta mcpkit's gateway sends its servers
// (capabilities that carry an extension's settings), and with the _meta a real
// client sends (identity, capabilities, a progress token).
var benchToolCalls = []struct {
	name, params string
	legacy       bool
}{
	{"legacy", `{"name":"echo","arguments":{"message":"world"}}`, true},
	{"stateless", `{"name":"echo","arguments":{"message":"world"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`, false},
	{"stateless-gateway", `{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}},"roots":{},"sampling":{"tools":{}},"elicitation":{"form":{},"url":{}}},"io.modelcontextprotocol/clientInfo":{"name":"mcpkit-gateway","version":"0"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"echo","arguments":{"message":"world"}}`, false},
	{"stateless-full", `{"name":"echo","arguments":{"message":"world"},"_meta":{"progressToken":7,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}},"sampling":{}},"io.modelcontextprotocol/clientInfo":{"name":"bench-client","version":"1.0.0"}}}`, false},
}

// BenchmarkHandleToolCall measures the server's MCP layer alone for one echo
// tools/call: ServerSession.Handle on a decoded message (dispatch, _meta,
// params, schema validation, the typed handler, result stamping) and the
// result's encoding into a reused buffer. No transport, no JSON-RPC framing.
func BenchmarkHandleToolCall(b *testing.B) {
	for _, bc := range benchToolCalls {
		b.Run(bc.name, func(b *testing.B) {
			benchHandle(b, benchEchoServer(b), bc.legacy, protocol.MethodToolsCall, bc.params, `"text":"hello world"`)
		})
	}
	// A server with middleware (a gateway has two) takes the general path.
	for _, bc := range benchToolCalls {
		b.Run(bc.name+"/middleware", func(b *testing.B) {
			srv := benchEchoServer(b)
			pass := func(next Invoker) Invoker { return next }
			srv.opts.Middleware = []Middleware{pass}
			srv.legacyChain, srv.statelessChain = chain(srv.opts.Middleware, invokeLegacy), chain(srv.opts.Middleware, invokeStateless)
			benchHandle(b, srv, bc.legacy, protocol.MethodToolsCall, bc.params, `"text":"hello world"`)
		})
	}
}

// benchHandle measures ServerSession.Handle of one request on a new session
// of srv (initialized first when legacy) and the encoding of its result,
// which must contain want.
func benchHandle(b *testing.B, srv *Server, legacy bool, method, params, want string, setup ...func(*ServerSession)) {
	ctx := context.Background()
	ss := newServerSession(srv, nil)
	for _, f := range setup {
		f(ss)
	}
	if legacy {
		init := &jsonrpc.Message{ID: jsonrpc.Int64ID(1), Method: protocol.MethodInitialize,
			Params: json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}`)}
		if _, err := ss.Handle(ctx, init); err != nil {
			b.Fatal(err)
		}
	}
	msg := &jsonrpc.Message{ID: jsonrpc.Int64ID(2), Method: method, Params: json.RawMessage(params)}
	buf := make([]byte, 0, 8192)
	b.ReportAllocs()
	for b.Loop() {
		res, err := ss.Handle(ctx, msg)
		if err != nil {
			b.Fatal(err)
		}
		if buf, err = encodeResult(buf[:0], res); err != nil {
			b.Fatal(err)
		}
	}
	if !bytes.Contains(buf, []byte(want)) {
		b.Fatalf("result = %s", buf)
	}
}

// BenchmarkHandleListTools measures the server's MCP layer alone for one
// tools/list of a page of twenty tools, in each era: the page, each tool for
// the version, the stateless stamping, and the result's encoding.
func BenchmarkHandleListTools(b *testing.B) {
	srv := NewServer(protocol.Implementation{Name: "bench", Version: "1"}, nil)
	for i := range 20 {
		err := AddTool(srv, &protocol.Tool{Name: fmt.Sprintf("echo%02d", i), Description: "Echoes the message."},
			func(ctx context.Context, req *ToolRequest, in benchEchoIn) (string, error) { return in.Message, nil })
		if err != nil {
			b.Fatal(err)
		}
	}
	b.Run("legacy", func(b *testing.B) {
		benchHandle(b, srv, true, protocol.MethodToolsList, `{}`, `"name":"echo19"`)
	})
	b.Run("stateless", func(b *testing.B) {
		benchHandle(b, srv, false, protocol.MethodToolsList,
			`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`, `"name":"echo19"`)
	})
	// Under a VisibleFunc a registered legacy session also records its view
	// (visibility.go): the fingerprint and the listing request's context.
	visible := NewServer(protocol.Implementation{Name: "bench", Version: "1"}, &ServerOptions{
		Visible: func(context.Context, *Request, FeatureKind, string) bool { return true },
	})
	visible.tools = srv.tools
	b.Run("legacy-visible", func(b *testing.B) {
		benchHandle(b, visible, true, protocol.MethodToolsList, `{}`, `"name":"echo19"`, func(ss *ServerSession) { ss.tracked = true })
	})
}
