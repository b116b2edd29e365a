package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/memory"
	"github.com/mcpkit/mcpkit/transport/stdio"
)

// BenchmarkInProcessToolCall measures one echo tools/call round trip through the
// whole stack, client and server, over the in-memory transport: encode, decode,
// dispatch, schema validation, the handler, and the result back — in a legacy
// session (goal: ≤10 KB and ≤60 allocations per call) and as a stateless
// 2026-07-28 request (per-request _meta, resultType, serverInfo).
func BenchmarkInProcessToolCall(b *testing.B) {
	for _, era := range []struct{ name, version string }{{"legacy", protocol.LatestLegacy}, {"stateless", protocol.Version20260728}} {
		b.Run(era.name, func(b *testing.B) {
			srv := mcp.NewServer(protocol.Implementation{Name: "bench", Version: "1"}, nil)
			if err := mcp.AddTool(srv, &protocol.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.ToolRequest, in echoIn) (string, error) {
				return "hello " + in.Message, nil
			}); err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			c, s := memory.NewPair()
			ss, _ := srv.Connect(ctx, s)
			defer ss.Close()
			cs, err := mcp.NewClient(protocol.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: era.version}).Connect(ctx, c)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			params := &protocol.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"message":"world"}`)}
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallToolParams(ctx, params)
				if err != nil || res.Content[0].Text != "hello world" {
					b.Fatal(res, err)
				}
			}
		})
	}
}

// BenchmarkStdioToolCall measures the same round trip over the stdio transport's
// newline-delimited framing, through OS pipes, as between a client and a server
// subprocess (without the process boundary), in the legacy era.
func BenchmarkStdioToolCall(b *testing.B) { benchStdioToolCall(b, protocol.LatestLegacy, false) }

// BenchmarkStdioToolCall2026 is BenchmarkStdioToolCall in the 2026-07-28 era,
// as mcpkit's gateway speaks to a stdio server: every request carries the
// client's envelope in _meta and every result the server's identity.
func BenchmarkStdioToolCall2026(b *testing.B) { benchStdioToolCall(b, protocol.Version20260728, false) }

// BenchmarkStdioToolCallConcurrent is BenchmarkStdioToolCall2026 with 16 calls
// in flight per P on the one connection, as a gateway's clients put them on the
// pipe to its server. Run with -cpu 1, its ns/op is the CPU that both ends
// spend per call on one core, as the gateway and its server share one in
// bench/'s pinned harness (without the process boundary).
func BenchmarkStdioToolCallConcurrent(b *testing.B) {
	benchStdioToolCall(b, protocol.Version20260728, true)
}

func benchStdioToolCall(b *testing.B, version string, concurrent bool) {
	srv := mcp.NewServer(protocol.Implementation{Name: "bench", Version: "1"}, nil)
	if err := mcp.AddTool(srv, &protocol.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.ToolRequest, in echoIn) (string, error) {
		return "hello " + in.Message, nil
	}); err != nil {
		b.Fatal(err)
	}
	toServerR, toServerW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	toClientR, toClientW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	ss, _ := srv.Connect(ctx, stdio.NewServerConn(toServerR, toClientW, nil))
	defer ss.Close()
	cs, err := mcp.NewClient(protocol.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: version}).Connect(ctx, stdio.NewServerConn(toClientR, toServerW, nil))
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	params := &protocol.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"message":"world"}`)}
	b.ReportAllocs()
	if concurrent {
		b.SetParallelism(16)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				res, err := cs.CallToolParams(ctx, params)
				if err != nil || res.Content[0].Text != "hello world" {
					b.Error(res, err)
					return
				}
			}
		})
		return
	}
	for b.Loop() {
		res, err := cs.CallToolParams(ctx, params)
		if err != nil || res.Content[0].Text != "hello world" {
			b.Fatal(res, err)
		}
	}
}
