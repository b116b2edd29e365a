package streamable

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/internal/wirecheck"
	"github.com/mcpkit/mcpkit/transport"
)

// serverCapture is the part of a Streamable HTTP wire capture (package testkit) a server replay
// needs: the client's requests, in order.
type serverCapture struct {
	Exchanges []struct {
		Note    string `json:"note"`
		Request struct {
			Method  string            `json:"method"`
			Headers map[string]string `json:"headers"`
			Body    json.RawMessage   `json:"body"`
		} `json:"request"`
	} `json:"exchanges"`
}

// acceptFunc adapts a function to transport.Server.
type acceptFunc func(ctx context.Context, conn transport.Conn) error

func (f acceptFunc) Accept(ctx context.Context, conn transport.Conn) error { return f(ctx, conn) }

// TestReplayCSharpClientRequests sends the requests of the C# client capture, in
// order, to the demo server behind NewHandler, and checks each answer. Every message
// the server writes is validated against the 2025-06-18 schema.
func TestReplayCSharpClientRequests(t *testing.T) {
	var capt serverCapture
	testkit.LoadWireCapture(t, testkit.CaptureCSharpStreamableHTTP, &capt)
	if len(capt.Exchanges) != 8 {
		t.Fatalf("capture: %d exchanges, want 8", len(capt.Exchanges))
	}
	srv := newDemo(t)
	checked := acceptFunc(func(ctx context.Context, conn transport.Conn) error {
		return srv.Accept(ctx, wirecheck.Wrap(t, conn, wirecheck.Server))
	})
	hs := newHarness(t, checked, nil)
	ctx, cancel := context.WithCancel(testkit.Context(t))
	defer cancel()

	type want struct {
		status int
		ct     string
		check  func(body string) bool
	}
	wants := []want{
		{200, "application/json", func(b string) bool { return strings.Contains(b, `"protocolVersion":"2025-06-18"`) }},
		{202, "", func(b string) bool { return b == "" }},
		{200, "text/event-stream", nil}, // this handler has a GET stream (the C# one answered 405)
		{200, "application/json", func(b string) bool { return strings.Contains(b, `"name":"count"`) && strings.Contains(b, `"id":2`) }},
		{200, "application/json", func(b string) bool { return strings.Contains(b, `hello .NET is awesome!`) }},
		{200, "text/event-stream", func(b string) bool {
			return strings.Count(b, "notifications/progress") == 5 && strings.Contains(b, `"9021fd27304a48e8ada90e35a66bc1dd"`) &&
				strings.LastIndex(b, `"id":4`) > strings.LastIndex(b, "notifications/progress")
		}},
		{200, "application/json", func(b string) bool { return strings.Contains(b, `"isError":true`) && strings.Contains(b, `"id":5`) }},
		{200, "application/json", func(b string) bool { return strings.Contains(b, `"code":-32602`) && strings.Contains(b, `"id":6`) }},
	}
	var sid string
	for i, ex := range capt.Exchanges {
		hdr := map[string]string{}
		for k, v := range ex.Request.Headers {
			switch k {
			case "Transfer-Encoding":
			case HeaderSessionID:
				hdr[k] = sid // ours, not the recorded one
			default:
				hdr[k] = v
			}
		}
		body := ""
		if len(ex.Request.Body) > 0 && string(ex.Request.Body) != "null" {
			body = string(ex.Request.Body)
		}
		resp := hs.request(ctx, ex.Request.Method, hdr, body)
		w := wants[i]
		if resp.StatusCode != w.status || resp.Header.Get("Content-Type") != w.ct {
			t.Fatalf("%s: %d %q, want %d %q", ex.Note, resp.StatusCode, resp.Header.Get("Content-Type"), w.status, w.ct)
		}
		if i == 0 {
			sid = resp.Header.Get(HeaderSessionID)
		}
		if ex.Request.Method == http.MethodGet {
			resp.Body.Close() // the stream stays open until the client leaves
			continue
		}
		if b := readBody(t, resp); w.check != nil && !w.check(b) {
			t.Errorf("%s: unexpected body %s", ex.Note, b)
		}
	}
}
