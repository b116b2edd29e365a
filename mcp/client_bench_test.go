package mcp_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/memory"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// benchSession connects a client at version ("" detects the era) to an echo server
// over the in-memory transport.
func benchSession(b *testing.B, version string, cache mcp.CacheOptions) *mcp.ClientSession {
	b.Helper()
	srv := mcp.NewServer(protocol.Implementation{Name: "bench", Version: "1"}, &mcp.ServerOptions{Cache: cache})
	if err := mcp.AddTool(srv, &protocol.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.ToolRequest, in echoIn) (string, error) {
		return "hello " + in.Message, nil
	}); err != nil {
		b.Fatal(err)
	}
	type weather struct {
		City    string  `json:"city"`
		Celsius float64 `json:"celsius"`
	}
	if err := mcp.AddTool(srv, &protocol.Tool{Name: "weather"}, func(ctx context.Context, req *mcp.ToolRequest, in struct {
		City string `json:"city"`
	}) (weather, error) {
		return weather{City: in.City, Celsius: 21.5}, nil
	}); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	c, s := memory.NewPair()
	ss, _ := srv.Connect(ctx, s)
	b.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(protocol.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: version}).Connect(ctx, c)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	return cs
}

// BenchmarkClientToolCallByEra compares one echo tools/call round trip in each era:
// the stateless one adds the per-request _meta (version, capabilities, client
// info) and reads the resultType.
func BenchmarkClientToolCallByEra(b *testing.B) {
	for _, era := range []struct{ name, version string }{{"legacy", protocol.LatestLegacy}, {"stateless", protocol.Version20260728}} {
		b.Run(era.name, func(b *testing.B) {
			cs := benchSession(b, era.version, mcp.CacheOptions{})
			ctx := context.Background()
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

// BenchmarkClientListToolsCached measures a tools/list the stateless session's
// cache answers (the server gave the list a TTL): no round trip, one decode.
func BenchmarkClientListToolsCached(b *testing.B) {
	cs := benchSession(b, "", mcp.CacheOptions{Tools: mcp.CacheHint{TTL: time.Hour}})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.ListTools(ctx, nil)
		if err != nil || len(res.Tools) != 2 { // benchSession's echo and weather
			b.Fatal(res, err)
		}
	}
}

// BenchmarkClientToolCallListed is BenchmarkClientToolCallByEra after the
// session listed the tools, so that the call looks up the tool's output schema:
// "echo" has none (the lookup must not allocate), "weather" has one, and its
// structuredContent is checked against it.
func BenchmarkClientToolCallListed(b *testing.B) {
	for _, era := range []struct{ name, version string }{{"legacy", protocol.LatestLegacy}, {"stateless", protocol.Version20260728}} {
		for _, tool := range []struct{ name, args string }{{"echo", `{"message":"world"}`}, {"weather", `{"city":"Lyon"}`}} {
			b.Run(era.name+"/"+tool.name, func(b *testing.B) {
				cs := benchSession(b, era.version, mcp.CacheOptions{})
				ctx := context.Background()
				if _, err := cs.ListTools(ctx, nil); err != nil {
					b.Fatal(err)
				}
				params := &protocol.CallToolParams{Name: tool.name, Arguments: json.RawMessage(tool.args)}
				b.ReportAllocs()
				for b.Loop() {
					if res, err := cs.CallToolParams(ctx, params); err != nil || len(res.Content) != 1 {
						b.Fatal(res, err)
					}
				}
			})
		}
	}
}

// BenchmarkCallToolHTTPByEra is BenchmarkClientToolCallByEra over Streamable
// HTTP with the real handler (client and server in this process): the
// 2026-07-28 call adds the request metadata headers and, on the server, a
// session per request.
func BenchmarkCallToolHTTPByEra(b *testing.B) {
	srv := mcp.NewServer(protocol.Implementation{Name: "bench", Version: "1"}, nil)
	if err := mcp.AddTool(srv, &protocol.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.ToolRequest, in echoIn) (string, error) {
		return "hello " + in.Message, nil
	}); err != nil {
		b.Fatal(err)
	}
	ts := httptest.NewServer(streamable.NewHandler(srv, nil))
	defer ts.Close()
	for _, era := range []struct{ name, version string }{{"legacy", protocol.LatestLegacy}, {"stateless", protocol.Version20260728}} {
		b.Run(era.name, func(b *testing.B) {
			ctx := context.Background()
			conn, err := streamable.NewClientConn(ctx, ts.URL, &streamable.ClientOptions{DisableStandaloneStream: true})
			if err != nil {
				b.Fatal(err)
			}
			cs, err := mcp.NewClient(protocol.Implementation{Name: "bench", Version: "1"}, &mcp.ClientOptions{ProtocolVersion: era.version}).Connect(ctx, conn)
			if err != nil {
				b.Fatal(err)
			}
			defer cs.Close()
			args := json.RawMessage(`{"message":"world"}`)
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(ctx, "echo", args)
				if err != nil || res.Content[0].Text != "hello world" {
					b.Fatal(res, err)
				}
			}
		})
	}
}
