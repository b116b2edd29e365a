package legacysse_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
	"github.com/mcpkit/mcpkit/transport/legacysse"
)

// BenchmarkToolCall measures one tools/call round trip through NewClientConn and the handler:
// a POST to the handler, the demo server's echo tool, and the reply on the stream.
func BenchmarkToolCall(b *testing.B) {
	url, _ := serveDemo(b, nil)
	cs, _ := connectClient(b, url)
	p := &protocol.CallToolParams{Name: "echo", Arguments: json.RawMessage(`{"message":"hi"}`)}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.CallToolParams(ctx, p)
		if err != nil || res.Content[0].Text != "hello hi" {
			b.Fatalf("%+v %v", res, err)
		}
	}
}

// BenchmarkRawRoundTrip measures the transport alone: a request written on the
// client Conn, read by the server Conn, answered, and read back by the client.
func BenchmarkRawRoundTrip(b *testing.B) {
	srv := &acceptServer{conns: make(chan transport.Conn, 1)}
	h := legacysse.NewHandler(srv, &legacysse.HandlerOptions{Logger: quiet})
	ts := httptest.NewServer(h)
	defer ts.Close()
	conn, err := legacysse.NewClientConn(context.Background(), ts.URL+"/sse", &legacysse.ClientOptions{Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	server := <-srv.conns
	ctx := context.Background()
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`)
	reply := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello hi"}]}}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := conn.Write(ctx, req); err != nil {
			b.Fatal(err)
		}
		if _, err := server.Read(ctx); err != nil {
			b.Fatal(err)
		}
		if err := server.Write(ctx, reply); err != nil {
			b.Fatal(err)
		}
		got, err := conn.Read(ctx)
		if err != nil || !strings.Contains(string(got), "hello hi") {
			b.Fatalf("%q %v", got, err)
		}
	}
	b.StopTimer()
	_ = conn.Close()
	_ = h.Close()
}
