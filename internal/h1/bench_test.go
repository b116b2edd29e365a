package h1

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// BenchmarkRoundTrip compares a small JSON POST, its reply read whole, through
// this transport (its responses given back with Recycle or not) and through
// net/http's, against the same local server (whose CPU is in the figures too:
// compare them, not the absolute values).
func BenchmarkRoundTrip(b *testing.B) {
	reply := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello world"}]}}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header()["Content-Type"] = []string{"application/json"}
		w.Header()["Mcp-Session-Id"] = []string{"s1"}
		w.Write(reply)
	}))
	defer srv.Close()
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"world"}}}`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h := New(nil)
	for _, c := range []struct {
		name    string
		rt      http.RoundTripper
		recycle bool // give each response back (Recycle), as the Streamable HTTP client does
	}{{"h1", h, false}, {"h1-recycled", h, true}, {"net-http", &http.Transport{}, false}} {
		b.Run(c.name, func(b *testing.B) {
			buf := make([]byte, 0, 512)
			b.ReportAllocs()
			for b.Loop() {
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, bytes.NewReader(body))
				req.Header["Content-Type"] = []string{"application/json"}
				resp, err := c.rt.RoundTrip(req)
				if err != nil {
					b.Fatal(err)
				}
				buf = buf[:0]
				for {
					n, err := resp.Body.Read(buf[len(buf):cap(buf)])
					buf = buf[:len(buf)+n]
					if err != nil {
						break
					}
				}
				resp.Body.Close()
				if len(buf) != len(reply) {
					b.Fatalf("read %d bytes", len(buf))
				}
				if c.recycle {
					Recycle(resp)
				}
			}
		})
	}
}
