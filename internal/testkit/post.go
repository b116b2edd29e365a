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
	resp := doMCP(t, ctx, http.MethodPost, url, hdr, body)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading the answer of POST %s: %v", url, err)
	}
	return resp, string(b)
}

// OpenMCP sends one MCP request (a POST of body, or a GET) to url with the
// headers of hdr, accepting JSON and SSE, and returns the response unread,
// for a stream to be read as it comes; its body is closed when the test
// ends. It fails the test if the request cannot be made.
func OpenMCP(t testing.TB, ctx context.Context, method, url string, hdr map[string]string, body string) *http.Response {
	t.Helper()
	resp := doMCP(t, ctx, method, url, hdr, body)
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// doMCP sends one MCP request and returns its response, unread.
func doMCP(t testing.TB, ctx context.Context, method, url string, hdr map[string]string, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
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
	return resp
}
