package streamable

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
)

// BenchmarkClientRoundTrip measures one request through ClientConn: Write (a POST)
// and Read of the response, against a server answering in JSON or with an SSE
// stream. The server does as little as possible, so the figures are the client's
// cost plus net/http's (client and server); "baseline" is the same exchange with
// net/http alone.
func BenchmarkClientRoundTrip(b *testing.B) {
	for _, mode := range []string{"json", "sse", "baseline"} {
		b.Run(mode, func(b *testing.B) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				m, err := jsonrpc.Decode(body)
				if err != nil || !m.IsRequest() {
					w.WriteHeader(http.StatusAccepted)
					return
				}
				if m.Method == "initialize" {
					w.Header().Set(HeaderSessionID, clientTestSession)
				}
				resp := jsonrpc.AppendResult(nil, m.ID, []byte(`{"protocolVersion":"2025-06-18"}`))
				if mode != "sse" {
					w.Header().Set("Content-Type", "application/json")
					_, _ = w.Write(resp)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = w.Write(append(append([]byte("data: "), resp...), "\n\n"...))
			}))
			defer srv.Close()
			ctx := context.Background()
			if mode == "baseline" { // the same POST with net/http alone, for comparison
				b.ReportAllocs()
				for i := range b.N {
					body := jsonrpc.AppendRequest(nil, jsonrpc.Int64ID(int64(i+2)), "ping", nil)
					req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, bytes.NewReader(body))
					req.Header.Set("Content-Type", "application/json")
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					_, _ = io.ReadAll(resp.Body)
					resp.Body.Close()
				}
				return
			}
			c, err := NewClientConn(ctx, srv.URL, &ClientOptions{DisableStandaloneStream: true})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			clientHandshake(b, ctx, c)
			var buf []byte
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				buf = jsonrpc.AppendRequest(buf[:0], jsonrpc.Int64ID(int64(i+2)), "ping", nil)
				if err := c.Write(ctx, buf); err != nil {
					b.Fatal(err)
				}
				if _, err := c.Read(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
