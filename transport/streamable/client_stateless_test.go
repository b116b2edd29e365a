package streamable

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/transport"
)

// statelessMeta is the _meta of a 2026-07-28 request.
const statelessMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

func TestClientStatelessRequestHeaders(t *testing.T) {
	f := newClientFake(t, clientBasic(nil))
	c := clientDial(t, f.URL, &ClientOptions{Header: http.Header{"Mcp-Method": {"forged"}, "Authorization": {"Bearer t"}}})
	ctx := testkit.Context(t)
	extra := http.Header{"Mcp-Param-Region": {"eu-west"}, "Mcp-Name": {"forged"}}
	for i, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + statelessMeta + `,"name":"get weather","arguments":{"region":"eu-west"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"file:///a%20b.txt",` + statelessMeta + `}}`,
		`{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{` + statelessMeta + `,"name":"Grüße"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"server/discover","params":{` + statelessMeta + `}}`,
	} {
		wctx := ctx
		if i == 0 {
			wctx = transport.WithHeader(ctx, extra)
		}
		clientWrite(t, wctx, c, msg)
		if m := clientReadMsg(t, ctx, c); m.Error != nil {
			t.Fatalf("answer %+v", m)
		}
	}
	want := []struct{ method, name, param string }{
		{"tools/call", "get weather", "eu-west"},
		{"resources/read", "file:///a%20b.txt", ""},
		{"prompts/get", "=?base64?R3LDvMOfZQ==?=", ""},
		{"server/discover", "", ""},
	}
	posts := f.requests(http.MethodPost)
	if len(posts) != len(want) {
		t.Fatalf("%d POSTs, want %d", len(posts), len(want))
	}
	for i, w := range want {
		h := posts[i].Header
		if h.Get("Mcp-Method") != w.method || len(h.Values("Mcp-Method")) != 1 || h.Get("Mcp-Name") != w.name || len(h.Values("Mcp-Name")) > 1 {
			t.Errorf("%s: Mcp-Method %q, Mcp-Name %q; want %q, %q", w.method, h.Values("Mcp-Method"), h.Values("Mcp-Name"), w.method, w.name)
		}
		if h.Get("Mcp-Protocol-Version") != "2026-07-28" || h.Get(HeaderSessionID) != "" {
			t.Errorf("%s: version header %q, session header %q", w.method, h.Get("Mcp-Protocol-Version"), h.Get(HeaderSessionID))
		}
		if h.Get("Mcp-Param-Region") != w.param || h.Get("Authorization") != "Bearer t" {
			t.Errorf("%s: Mcp-Param-Region %q, Authorization %q", w.method, h.Get("Mcp-Param-Region"), h.Get("Authorization"))
		}
	}
	// No session was started, so none is ended, and no GET stream was opened.
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(f.requests(http.MethodDelete)) + len(f.requests(http.MethodGet)); n != 0 {
		t.Errorf("%d GET/DELETE requests for a stateless exchange", n)
	}
}

func TestClientLegacyRequestsCarryNoStatelessHeaders(t *testing.T) {
	f := newClientFake(t, clientBasic(nil))
	c := clientDial(t, f.URL, &ClientOptions{DisableStandaloneStream: true})
	ctx := testkit.Context(t)
	clientHandshake(t, ctx, c)
	clientWrite(t, ctx, c, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x"}}`)
	clientReadMsg(t, ctx, c)
	for _, p := range f.requests(http.MethodPost) {
		if p.Header.Get("Mcp-Method") != "" || p.Header.Get("Mcp-Name") != "" {
			t.Errorf("legacy %s carries Mcp-Method %q, Mcp-Name %q", p.Msg.Method, p.Header.Get("Mcp-Method"), p.Header.Get("Mcp-Name"))
		}
	}
	if got := f.posts("tools/call")[0].Header.Get(HeaderSessionID); got != clientTestSession {
		t.Errorf("the legacy call lost its session: %q", got)
	}
}

func TestClientStatelessCancelClosesTheStream(t *testing.T) {
	started, gone := make(chan struct{}), make(chan struct{})
	f := newClientFake(t, func(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
		if msg != nil && msg.Method == "tools/call" {
			clientStartSSE(w)
			close(started)
			clientWaitClosed(r)
			close(gone)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	})
	c := clientDial(t, f.URL, nil)
	ctx := testkit.Context(t)
	clientWrite(t, ctx, c, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{`+statelessMeta+`,"name":"slow"}}`)
	// Write returns once the request is written, which may be before the
	// server reads it; cancelled then, it may never reach the handler (a
	// correct cancellation, but not the one this test is about).
	testkit.Receive(t, started)
	clientWrite(t, ctx, c, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"enough"}}`)
	select {
	case <-gone:
	case <-ctx.Done():
		t.Fatal("the server never saw the stream close")
	}
	if n := len(f.posts("notifications/cancelled")); n != 0 {
		t.Errorf("notifications/cancelled was POSTed %d times; a stateless request is cancelled by closing its stream", n)
	}
}

func TestClientStatelessStreamIsNotResumed(t *testing.T) {
	f := newClientFake(t, func(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
		if r.Method == http.MethodGet {
			t.Error("the client tried to resume a stateless stream")
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		clientStartSSE(w)
		clientEvent(w, "id: e1\nretry: 1\ndata:")
	})
	c := clientDial(t, f.URL, nil)
	ctx := testkit.Context(t)
	clientWrite(t, ctx, c, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{`+statelessMeta+`,"name":"cut"}}`)
	m := clientReadMsg(t, ctx, c)
	if m.ID != jsonrpc.Int64ID(3) || m.Error == nil || !strings.Contains(m.Error.Message, "cannot be resumed") {
		t.Errorf("got %+v, want an error response for the cut stream", m)
	}
}

func TestClientStatelessErrorStatusCarriesTheServersError(t *testing.T) {
	f := newClientFake(t, func(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"Unsupported protocol version","data":{"supported":["2026-07-28"],"requested":"2026-07-28"}}}`))
	})
	c := clientDial(t, f.URL, nil)
	ctx := testkit.Context(t)
	clientWrite(t, ctx, c, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+statelessMeta+`}}`)
	m := clientReadMsg(t, ctx, c)
	if m.Error == nil || m.Error.Code != -32022 || !strings.Contains(string(m.Error.Data), "supported") {
		t.Errorf("got %+v, want the -32022 error with its data", m)
	}
}

// TestStatelessHeadersShared: the request metadata headers of the same
// (version, method, name) are one map, made once; adding a writer's headers
// to them makes a map of the message's own and leaves the shared one as it
// was; and however many distinct names a client calls, at most
// sharedHeadersMax are kept.
func TestStatelessHeadersShared(t *testing.T) {
	call := func(name string) *jsonrpc.Message {
		return &jsonrpc.Message{ID: jsonrpc.Int64ID(1), Method: "tools/call", Params: []byte(`{"name":"` + name + `",` + statelessMeta + `}`)}
	}
	a, okA := messageStatelessHeader(call("shared-test"))
	b, okB := messageStatelessHeader(call("shared-test"))
	if !okA || !okB || reflect.ValueOf(a).UnsafePointer() != reflect.ValueOf(b).UnsafePointer() {
		t.Fatalf("the same tool's headers are two maps (%v %v)", okA, okB)
	}
	if a.Get("Mcp-Name") != "shared-test" || a.Get("Mcp-Method") != "tools/call" || a.Get(HeaderProtocolVersion) != "2026-07-28" {
		t.Fatalf("headers %v", a)
	}
	ctx := transport.WithHeader(testkit.Context(t), http.Header{"Mcp-Param-Region": {"eu"}})
	h := messageHeader(ctx, &clientOutgoing{header: a})
	if h.Get("Mcp-Param-Region") != "eu" || h.Get("Mcp-Name") != "shared-test" {
		t.Errorf("merged headers %v", h)
	}
	if len(a) != 3 || a.Get("Mcp-Param-Region") != "" {
		t.Errorf("the shared headers were changed: %v", a)
	}
	for i := range 2 * sharedHeadersMax {
		if _, ok := messageStatelessHeader(call(fmt.Sprintf("tool-%d", i))); !ok {
			t.Fatal("no headers")
		}
		if n := len(sharedRequestHeaders.Load()); n > sharedHeadersMax {
			t.Fatalf("%d headers kept, at most %d expected", n, sharedHeadersMax)
		}
	}
}

// messageStatelessHeader is clientStatelessHeader of m's method and params.
func messageStatelessHeader(m *jsonrpc.Message) (http.Header, bool) {
	return clientStatelessHeader(m.Method, m.Params)
}
