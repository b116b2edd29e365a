package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
)

// headerConn records the requests the client writes, with the HTTP headers
// it asks the transport to add to each (transport.WithHeader).
type headerConn struct {
	transport.Conn
	mu   sync.Mutex
	sent []sentRequest
}

// sentRequest is one request a client wrote: its method, params and the
// headers it asked the transport to add (Mcp-Param-{Name}).
type sentRequest struct {
	Method string
	Params string
	Header http.Header
}

func (c *headerConn) Write(ctx context.Context, msg []byte) error {
	if m, err := jsonrpc.Decode(msg); err == nil && m.IsRequest() {
		c.mu.Lock()
		c.sent = append(c.sent, sentRequest{m.Method, string(m.Params), transport.HeaderFromContext(ctx)})
		c.mu.Unlock()
	}
	return c.Conn.Write(ctx, msg)
}

// of returns the headers of the requests of method written so far.
func (c *headerConn) of(method string) []http.Header {
	c.mu.Lock()
	defer c.mu.Unlock()
	var hs []http.Header
	for _, r := range c.sent {
		if r.Method == method {
			hs = append(hs, r.Header)
		}
	}
	return hs
}

// take returns the requests written since the last take.
func (c *headerConn) take() []sentRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.sent
	c.sent = nil
	return s
}

// headerTools is a tools/list page: valid tools (one mirroring arguments into
// headers) and tools whose x-mcp-header declarations break the rules.
const headerTools = `{"resultType":"complete","ttlMs":0,"cacheScope":"private","tools":[
 {"name":"plain","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}},
 {"name":"regional","inputSchema":{"type":"object","properties":{
   "region":{"type":"string","x-mcp-header":"Region"},
   "limits":{"type":"object","properties":{"max":{"type":"integer","x-mcp-header":"Max"}}},
   "note":{"type":"string"}}}},
 {"name":"bad_empty","inputSchema":{"type":"object","properties":{"v":{"type":"string","x-mcp-header":""}}}},
 {"name":"bad_number","inputSchema":{"type":"object","properties":{"v":{"type":"number","x-mcp-header":"V"}}}},
 {"name":"bad_duplicate","inputSchema":{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Dup"},"b":{"type":"string","x-mcp-header":"dup"}}}},
 {"name":"bad_space","inputSchema":{"type":"object","properties":{"v":{"type":"string","x-mcp-header":"My Region"}}}},
 {"name":"bad_items","inputSchema":{"type":"object","properties":{"l":{"type":"array","items":{"type":"string","x-mcp-header":"Item"}}}}},
 {"name":"bad_escaped","inputSchema":{"type":"object","properties":{"v":{"type":"object","x\u002dmcp-header":"Obj"}}}}
]}`

// lockedBuffer is a log sink safe for the client's goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestClientDropsToolsWithInvalidHeaderDeclarations(t *testing.T) {
	conn := &headerConn{Conn: scripted(t, func(m *jsonrpc.Message) (any, *jsonrpc.Error) {
		switch m.Method {
		case protocol.MethodServerDiscover:
			return discoverResult(protocol.Version20260728), nil
		case protocol.MethodToolsList:
			return json.RawMessage(headerTools), nil
		}
		return map[string]any{"resultType": "complete", "content": []any{}}, nil
	})}
	var logs lockedBuffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	cs, err := connectTo(t, conn, &mcp.ClientOptions{Logger: logger})
	must(t, err)
	ctx := testkit.Context(t)
	var names []string
	for tool, err := range cs.Tools(ctx) {
		must(t, err)
		names = append(names, tool.Name)
	}
	if !slices.Equal(names, []string{"plain", "regional"}) {
		t.Errorf("listed tools %v, want only the valid ones", names)
	}
	for _, bad := range []string{"bad_empty", "bad_number", "bad_duplicate", "bad_space", "bad_items", "bad_escaped"} {
		if !strings.Contains(logs.String(), "tool="+bad) {
			t.Errorf("no warning names %s:\n%s", bad, logs.String())
		}
	}

	// A call of the mirroring tool asks the transport for its Mcp-Param headers:
	// present arguments only, converted and encoded.
	_, err = cs.CallTool(ctx, "regional", map[string]any{"region": "Zürich", "limits": map[string]any{"max": 42}, "note": "n"})
	must(t, err)
	_, err = cs.CallTool(ctx, "regional", map[string]any{"region": nil})
	must(t, err)
	_, err = cs.CallTool(ctx, "plain", map[string]any{"q": "x"})
	must(t, err)
	calls := conn.of(protocol.MethodToolsCall)
	if len(calls) != 3 {
		t.Fatalf("%d tools/call written", len(calls))
	}
	want := http.Header{"Mcp-Param-Region": {"=?base64?WsO8cmljaA==?="}, "Mcp-Param-Max": {"42"}}
	if !equalHeader(calls[0], want) {
		t.Errorf("headers of the first call = %v, want %v", calls[0], want)
	}
	if len(calls[1]) != 0 || len(calls[2]) != 0 {
		t.Errorf("headers for a null argument %v, for a tool without declarations %v; want none", calls[1], calls[2])
	}
	// An argument that cannot be mirrored (an object where a string is declared)
	// fails the call before it is sent.
	if _, err := cs.CallTool(ctx, "regional", map[string]any{"region": map[string]any{"a": 1}}); err == nil {
		t.Error("a call whose declared argument is an object was sent")
	}
}

func equalHeader(a, b http.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range b {
		if !slices.Equal(a[k], v) {
			return false
		}
	}
	return true
}

func TestClientRelistsToolsOnHeaderMismatch(t *testing.T) {
	// The client calls a tool it never listed; the server refuses the call for
	// its missing header; the client lists the tools and retries with it.
	var mu sync.Mutex
	var calls []string
	conn := &headerConn{Conn: scripted(t, func(m *jsonrpc.Message) (any, *jsonrpc.Error) {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, m.Method)
		switch m.Method {
		case protocol.MethodServerDiscover:
			return discoverResult(protocol.Version20260728), nil
		case protocol.MethodToolsList:
			return json.RawMessage(headerTools), nil
		}
		if n := len(slices.DeleteFunc(slices.Clone(calls), func(s string) bool { return s != protocol.MethodToolsCall })); n == 1 {
			return nil, jsonrpc.NewError(protocol.CodeHeaderMismatch, "Header mismatch: Mcp-Param-Region header missing")
		}
		return map[string]any{"resultType": "complete", "content": []any{}}, nil
	})}
	cs, err := connectTo(t, conn, nil)
	must(t, err)
	_, err = cs.CallTool(testkit.Context(t), "regional", map[string]any{"region": "eu"})
	must(t, err)
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"server/discover", "tools/call", "tools/list", "tools/call"}; !slices.Equal(calls, want) {
		t.Errorf("requests %v, want %v", calls, want)
	}
	if h := conn.of(protocol.MethodToolsCall); len(h) != 2 || h[1].Get("Mcp-Param-Region") != "eu" {
		t.Errorf("headers of the calls = %v", h)
	}
}
