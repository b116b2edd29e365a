package gateway

import (
	"net/http/httptest"
	"testing"

	"github.com/mcpkit/mcpkit/internal/demo"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/streamable"
	"github.com/mcpkit/mcpkit/upstream"
)

// BenchmarkGatewayHop measures the gateway's own work for one tools/call, in
// one process: a client over an in-memory connection calls demo__echo through
// the gateway. allocs/op and a CPU profile of it show what the hop costs
// (go test -run '^$' -bench GatewayHop -benchmem -cpuprofile cpu.out ./gateway/).
//
//   - http: the client in the 2026-07-28 era; the gateway's upstream is the
//     demo server over Streamable HTTP on 127.0.0.1, also in this process
//     (client, gateway and server are all counted);
//   - stdio: the client in the legacy era (2025-06-18, as mcpbench's load
//     generator); the upstream is the demo server over stdio in a child
//     process (the test binary), so what is counted is the gateway and the
//     client's in-memory legacy session only: the shape of `mcpkit gateway`
//     with stdio servers;
//   - stdio-progress: the same with a progress token on each call, which the
//     gateway's request to the server carries too (its own token).
func BenchmarkGatewayHop(b *testing.B) {
	b.Run("http", func(b *testing.B) {
		srv, err := demo.NewServer(nil)
		if err != nil {
			b.Fatal(err)
		}
		ts := httptest.NewServer(streamable.NewHandler(srv, nil))
		b.Cleanup(ts.Close)
		sc := &upstream.ServerConfig{Name: "demo", Transport: upstream.TransportHTTP, URL: ts.URL}
		gw := startGateway(b, nil, sc)
		benchHop(b, connectClient(b, gw, nil))
	})
	b.Run("stdio", func(b *testing.B) {
		gw := startGateway(b, nil, testServer("demo", "demo"))
		benchHop(b, connectClient(b, gw, &mcp.ClientOptions{ProtocolVersion: protocol.Version20250618}))
	})
	b.Run("stdio-progress", func(b *testing.B) { // the client asks for progress: the gateway does too
		gw := startGateway(b, nil, testServer("demo", "demo"))
		benchHop(b, connectClient(b, gw, &mcp.ClientOptions{ProtocolVersion: protocol.Version20250618}),
			mcp.WithProgress(func(*protocol.ProgressParams) {}))
	})
}

func benchHop(b *testing.B, cs *mcp.ClientSession, opts ...mcp.RequestOption) {
	ctx := b.Context()
	args := map[string]any{"message": "hi"}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := cs.CallTool(ctx, "demo__echo", args, opts...)
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}
