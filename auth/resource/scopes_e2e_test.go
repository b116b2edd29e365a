package resource_test

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit"
	"github.com/mcpkit/mcpkit/auth/authtest"
	"github.com/mcpkit/mcpkit/auth/resource"
	"github.com/mcpkit/mcpkit/internal/sse"
	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// guarded is a server whose tool "admin" needs scope mcp:admin, served on both
// HTTP transports behind the middleware as `mcpkit serve` wires it.
type guarded struct {
	base  string       // http://host:port
	ran   atomic.Int32 // calls of the tool admin
	as    *authtest.Server
	read  string // a token with mcp:read
	admin string // a token with mcp:read mcp:admin, for the same principal
}

func newGuarded(t *testing.T) *guarded {
	t.Helper()
	g := &guarded{as: authtest.New(t, authtest.Options{})}
	discard := slog.New(slog.DiscardHandler)
	srv := mcp.NewServer(protocol.Implementation{Name: "guarded", Version: "1"}, &mcp.ServerOptions{Logger: discard})
	if err := mcp.AddTool(srv, &protocol.Tool{Name: "admin"}, func(context.Context, *mcp.ToolRequest, struct{}) (string, error) {
		g.ran.Add(1)
		return "admin ran", nil
	}); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g.base = "http://" + ln.Addr().String()
	mw := resource.Middleware(resource.Options{
		Verifier:   &resource.JWTVerifier{Issuer: g.as.Issuer, Audience: g.base, JWKSURL: g.as.Issuer + "/jwks"},
		Scopes:     []string{"mcp:read"},
		ToolScopes: map[string][]string{"admin": {"mcp:admin"}},
	})
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- mcpkit.Serve(ctx, ln, srv, &mcpkit.HTTPOptions{Middleware: mw, Logger: discard}) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	issue := func(scope string) string {
		tok, err := g.as.Issue(authtest.Claims{Subject: "alice", ClientID: "app", Audience: g.base, Scope: scope, TTL: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	g.read, g.admin = issue("mcp:read"), issue("mcp:read mcp:admin")
	return g
}

// post sends body to path with token and the extra header fields; it returns
// the status, the response's header and its body.
func (g *guarded) post(t *testing.T, path, token string, header map[string]string, body string) (int, http.Header, string) {
	t.Helper()
	h := map[string]string{"Authorization": "Bearer " + token}
	for k, v := range header {
		h[k] = v
	}
	resp, data := testkit.PostMCP(t, t.Context(), g.base+path, h, body)
	return resp.StatusCode, resp.Header, data
}

const (
	callAdmin = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"admin","arguments":{}}}`
	spoofed   = "Mcp-Method"
)

func initialize(version string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
}

// In a legacy Streamable HTTP session, neither headers that name a harmless
// method or tool nor a batch get a tool called without its scope; the same
// calls with the scope run it (so the refusals are the middleware's).
func TestToolScopesHoldInLegacySessions(t *testing.T) {
	g := newGuarded(t)
	for _, version := range []string{"2025-03-26", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			before := g.ran.Load() // and one more for each call with the scope
			start := before
			status, h, body := g.post(t, "/mcp", g.read, nil, initialize(version))
			sid := h.Get("Mcp-Session-Id")
			if status != 200 || sid == "" {
				t.Fatalf("initialize: %d %q", status, body)
			}
			session := map[string]string{"Mcp-Session-Id": sid, "MCP-Protocol-Version": version}
			if status, _, body := g.post(t, "/mcp", g.read, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); status != 202 {
				t.Fatalf("initialized: %d %q", status, body)
			}
			attempts := map[string]struct {
				header map[string]string
				body   string
			}{
				"spoofed method header": {map[string]string{spoofed: "tools/list"}, callAdmin},
				"spoofed name header":   {map[string]string{spoofed: "tools/call", "Mcp-Name": "echo"}, callAdmin},
			}
			if version == "2025-03-26" { // the version that allows batches
				attempts["batch"] = struct {
					header map[string]string
					body   string
				}{nil, "[" + callAdmin + "]"}
			}
			for name, a := range attempts {
				h := map[string]string{}
				for k, v := range session {
					h[k] = v
				}
				for k, v := range a.header {
					h[k] = v
				}
				status, hdr, body := g.post(t, "/mcp", g.read, h, a.body)
				if status != http.StatusForbidden || !strings.Contains(hdr.Get("WWW-Authenticate"), "mcp:admin") {
					t.Errorf("%s with mcp:read: %d %q (%s), want 403 asking for mcp:admin", name, status, body, hdr.Get("WWW-Authenticate"))
				}
				if n := g.ran.Load() - before; n != 0 {
					t.Fatalf("%s: the tool ran without its scope", name)
				}
				status, _, body = g.post(t, "/mcp", g.admin, h, a.body)
				if status != 200 || !strings.Contains(body, "admin ran") {
					t.Errorf("%s with mcp:admin: %d %q, want the tool's result", name, status, body)
				}
				before++ // the call with the scope
			}
			if n, want := g.ran.Load()-start, int32(len(attempts)); n != want {
				t.Errorf("the tool ran %d times, want %d (once per call with the scope)", n, want)
			}
		})
	}
}

// The HTTP+SSE transport's posts (/messages) are guarded as well: a spoofed
// header or a batch is refused without the scope; the same post with it is
// delivered and the tool's result arrives on the stream.
func TestToolScopesHoldOverHTTPSSE(t *testing.T) {
	g := newGuarded(t)
	resp := testkit.OpenMCP(t, t.Context(), http.MethodGet, g.base+"/sse", map[string]string{"Authorization": "Bearer " + g.read}, "")
	if resp.StatusCode != 200 {
		t.Fatalf("GET /sse: %d", resp.StatusCode)
	}
	events := sse.NewDecoder(resp.Body)
	endpoint := nextEvent(t, events, "endpoint")
	if !strings.HasPrefix(endpoint, "/messages?") {
		t.Fatalf("endpoint %q", endpoint)
	}
	if status, _, body := g.post(t, endpoint, g.read, nil, initialize("2024-11-05")); status != 202 {
		t.Fatalf("initialize: %d %q", status, body)
	}
	if msg := nextEvent(t, events, "message"); !strings.Contains(msg, `"protocolVersion"`) {
		t.Fatalf("initialize answered %q", msg)
	}
	if status, _, body := g.post(t, endpoint, g.read, nil, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); status != 202 {
		t.Fatalf("initialized: %d %q", status, body)
	}
	for name, a := range map[string]struct {
		header map[string]string
		body   string
	}{
		"spoofed method header": {map[string]string{spoofed: "tools/list"}, callAdmin},
		"batch":                 {nil, "[" + callAdmin + "]"},
	} {
		status, hdr, body := g.post(t, endpoint, g.read, a.header, a.body)
		if status != http.StatusForbidden || !strings.Contains(hdr.Get("WWW-Authenticate"), "mcp:admin") {
			t.Errorf("%s with mcp:read: %d %q, want 403 asking for mcp:admin", name, status, body)
		}
	}
	if status, _, body := g.post(t, endpoint, g.admin, map[string]string{spoofed: "tools/list"}, callAdmin); status != 202 {
		t.Fatalf("with mcp:admin: %d %q", status, body)
	}
	if msg := nextEvent(t, events, "message"); !strings.Contains(msg, "admin ran") {
		t.Errorf("the call with the scope answered %q", msg)
	}
	if n := g.ran.Load(); n != 1 {
		t.Errorf("the tool ran %d times, want once (the call with the scope)", n)
	}
}

// nextEvent reads events from an SSE stream until one of type typ, and returns
// its data.
func nextEvent(t *testing.T, d *sse.Decoder, typ string) string {
	t.Helper()
	for {
		ev, err := d.Next()
		if err != nil {
			t.Fatalf("reading the stream for a %s event: %v", typ, err)
		}
		if ev.Type == typ || (typ == "message" && ev.Type == "") {
			return string(ev.Data)
		}
	}
}
