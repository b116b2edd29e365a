package auth_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/auth/authtest"
	"github.com/mcpkit/mcpkit/auth/resource"
	"github.com/mcpkit/mcpkit/internal/testkit"
)

// BenchmarkAuthorizedRequest measures what OAuth adds to a request once a
// token is held: the same POST of a JSON-RPC message to the same handler,
// answered with the same JSON,
//
//   - "authorized": through auth.Transport to the handler behind
//     resource.Middleware (the token's verification cached, as it is after a
//     client's first request);
//   - "by-hand": the same bearer header set by hand on a plain client, to the
//     same protected server (authorized minus by-hand is auth.Transport's
//     share: buffering the body, the clone, the header);
//   - "unprotected": a plain client to the handler served without the
//     middleware.
//
// Client and server share the process: cpu-ns/op is the whole exchange's.
func BenchmarkAuthorizedRequest(b *testing.B) {
	as := authtest.New(b, authtest.Options{})
	answer := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hello"}]}}`)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	})
	protected := as.Protect(b, h, resource.Options{}, nil)
	open := httptest.NewServer(h)
	b.Cleanup(open.Close)

	tr := newTransport(nil)
	client := &http.Client{Transport: tr}
	post(b, client, protected, "") // runs the authorization once
	tok := tr.Token()
	if tok == nil {
		b.Fatal("no token after the first request")
	}
	plain := &http.Client{}
	variants := []struct {
		name, url, authorization string
		client                   *http.Client
	}{
		{"authorized", protected, "", client},
		{"by-hand", protected, "Bearer " + tok.AccessToken, plain},
		{"unprotected", open.URL + "/mcp", "", plain},
	}
	for _, c := range variants {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			testkit.LoopCPU(b, func() { post(b, c.client, c.url, c.authorization) })
		})
	}
	// The three in turn, one request each per iteration, so that a busy
	// machine's load weighs on them alike: the mean time of each.
	b.Run("interleaved", func(b *testing.B) {
		spent := make([]time.Duration, len(variants))
		for b.Loop() {
			for i, c := range variants {
				start := time.Now()
				post(b, c.client, c.url, c.authorization)
				spent[i] += time.Since(start)
			}
		}
		for i, c := range variants {
			b.ReportMetric(float64(spent[i].Nanoseconds())/float64(b.N)/1e3, c.name+"-µs")
		}
	})
}

var message = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`)

// post sends message to url and reads the answer.
func post(b *testing.B, c *http.Client, url, authorization string) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(message))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("status %d", resp.StatusCode)
	}
}
