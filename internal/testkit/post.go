package testkit

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
)

// PostMCP sends one MCP POST (JSON body, accepting JSON and SSE) to url with
// the headers of hdr, and returns the response with its body read and
// closed. It fails the test if the request cannot be made.
func PostMCP(t testing.TB, ctx context.Context, url string, hdr map[string]string, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the answer of POST %s: %v", url, err)
	}
	return resp, string(b)
}
