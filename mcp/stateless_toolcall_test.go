package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
)

// toolCallPathsAgree runs params through the one-pass stateless tools/call
// path and through the general one (parseStatelessMeta, then the params decoded
// again). Whenever the one-pass path accepts a request, the general path must
// accept it too, with the same declarations and the same params.
func toolCallPathsAgree(t *testing.T, ss *ServerSession, params []byte) (fast bool) {
	t.Helper()
	tc := ss.decodeStatelessToolCall(params)
	var mc statelessCall
	metaErr := ss.server.parseStatelessMetaGeneral(&mc, protocol.MethodToolsCall, params)
	var p protocol.CallToolParams
	paramsErr := decodeParams(params, &p)
	if tc == nil {
		return false
	}
	if metaErr != nil || paramsErr != nil {
		t.Fatalf("%s: one-pass path accepted, general path: _meta %v, params %v", params, metaErr, paramsErr)
	}
	got := tc.call
	if got.version != mc.version || got.logLevel != mc.logLevel || got.method != mc.method {
		t.Fatalf("%s: one-pass %q %q %q, general %q %q %q", params, got.version, got.logLevel, got.method, mc.version, mc.logLevel, mc.method)
	}
	if !reflect.DeepEqual(got.caps, mc.caps) {
		t.Fatalf("%s: capabilities\none-pass %#v\ngeneral  %#v", params, got.caps, mc.caps)
	}
	gotInfo, wantInfo := (&Request{stateless: &got}).ClientInfo(), (&Request{stateless: &mc}).ClientInfo()
	if !reflect.DeepEqual(gotInfo, wantInfo) {
		t.Fatalf("%s: client info\none-pass %#v\ngeneral  %#v", params, gotInfo, wantInfo)
	}
	if !reflect.DeepEqual(tc.tool.params, p) {
		t.Fatalf("%s: params\none-pass %#v\ngeneral  %#v", params, tc.tool.params, p)
	}
	if tc.call.input != &tc.input || tc.tool.stateless != &tc.call || tc.tool.Session != ss {
		t.Fatalf("%s: the request is not wired to its own parts", params)
	}
	return true
}

const (
	metaMin  = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	metaFull = `"_meta":{"progressToken":7,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}},"sampling":{}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/logLevel":"info"}`
)

// fastToolCalls are common requests: the one-pass path must take them.
var fastToolCalls = []string{
	`{"name":"echo","arguments":{"message":"world"},` + metaMin + `}`,
	`{"name":"echo","arguments":{"message":"world"},` + metaFull + `}`,
	`{` + metaMin + `,"name":"echo"}`,
	`{"name":"echo","arguments":{"message":null},` + metaMin + `}`,
	`{"name":"echo",` + metaFull[:len(metaFull)-1] + `,"io.modelcontextprotocol/logLevel":null,"io.modelcontextprotocol/clientInfo":null}}`,
	benchToolCalls[2].params, // the gateway's envelope: capabilities with an extension's settings
}

// otherToolCalls must be refused, or answered by the general path exactly.
var otherToolCalls = []string{
	`{"name":"echo"}`, `{"name":"echo","_meta":null}`, `{"name":"echo","_meta":{}}`,
	`{"name":"echo",` + metaMin + `,"_meta":null}`,
	`{"name":"echo",` + metaMin + `,"_META":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`,
	`{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}`,
	`{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":null,"io.modelcontextprotocol/clientCapabilities":{}}}`,
	`{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":null}}`,
	`{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientCapabilities":null}}`,
	`{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":""}}`,
	`{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"loud"}}`,
	`{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"IO.modelcontextprotocol/protocolVersion":"1"}}`,
	`{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-\u0032\u0038","io.modelcontextprotocol/clientCapabilities":{"roots":{}}}}`,
	`{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}}`,
	`{"name":5,` + metaMin + `}`, `{"NAME":"echo",` + metaMin + `}`, `[]`, `null`, `{`, ``,
}

func TestStatelessToolCallPathsAgree(t *testing.T) {
	ss := newServerSession(benchEchoServer(t), nil)
	for _, s := range fastToolCalls {
		if !toolCallPathsAgree(t, ss, []byte(s)) {
			t.Errorf("%s: the one-pass path declined a common request", s)
		}
	}
	for _, s := range otherToolCalls {
		toolCallPathsAgree(t, ss, []byte(s))
	}
}

func FuzzStatelessToolCallPaths(f *testing.F) {
	for _, s := range append(append([]string{}, fastToolCalls...), otherToolCalls...) {
		f.Add([]byte(s))
	}
	ss := newServerSession(benchEchoServer(f), nil)
	f.Fuzz(func(t *testing.T, params []byte) {
		toolCallPathsAgree(t, ss, params)
	})
}

// TestStampedToolResultEncodesLikeFinishStateless checks that the spliced-in
// _meta of the one-pass path gives the bytes finishStateless's copy gives, for
// server identities and texts that need escaping.
func TestStampedToolResultEncodesLikeFinishStateless(t *testing.T) {
	for _, info := range []protocol.Implementation{
		{Name: "s", Version: "1"},
		{Name: "<s&b>", Title: "T\u2028", Version: "1\n", Description: "d\xff", WebsiteURL: "https://x", Icons: []protocol.Icon{{Src: "data:,"}}},
	} {
		srv := NewServer(info, nil)
		for _, text := range []string{"hello world", "", "quote \" <tag> & \u2029 \xfe"} {
			var req ToolRequest
			res := req.textResult(text)
			want, err := encodeResult(nil, srv.finishStateless(res))
			if err != nil {
				t.Fatal(err)
			}
			res.ResultType = protocol.ResultTypeComplete
			stamped := &stampedToolResult{result: res, serverInfo: srv.infoJSON}
			got, err := encodeResult(nil, stamped)
			if err != nil || string(got) != string(want) {
				t.Fatalf("AppendJSON = %s, %v\nwant          %s", got, err, want)
			}
			if got, err = stamped.MarshalJSON(); err != nil || string(got) != string(want) {
				t.Fatalf("MarshalJSON = %s, %v\nwant          %s", got, err, want)
			}
		}
	}
}

// TestStatelessToolCallAnswer checks what the one-pass path answers: the
// stamped text result for a typed tool, and finishStateless's copy for a result
// the handler made itself (which must not be modified).
func TestStatelessToolCallAnswer(t *testing.T) {
	srv := benchEchoServer(t)
	kept := protocol.NewToolResultText("kept")
	if err := srv.AddRawTool(&protocol.Tool{Name: "raw"}, func(context.Context, *ToolRequest) (*protocol.CallToolResult, error) {
		return kept, nil
	}); err != nil {
		t.Fatal(err)
	}
	ss := newServerSession(srv, nil)
	ctx := context.Background()
	handle := func(params string) any {
		t.Helper()
		res, err := ss.Handle(ctx, &jsonrpc.Message{ID: jsonrpc.Int64ID(1), Method: protocol.MethodToolsCall, Params: json.RawMessage(params)})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res := handle(`{"name":"echo","arguments":{"message":"world"},` + metaMin + `}`)
	st, ok := res.(*stampedToolResult)
	if !ok || st.result.ResultType != protocol.ResultTypeComplete || st.result.Content[0].Text != "hello world" {
		t.Fatalf("echo answered %#v", res)
	}
	res = handle(`{"name":"raw",` + metaMin + `}`)
	c, ok := res.(*protocol.CallToolResult)
	if !ok || c == kept || c.ResultType != protocol.ResultTypeComplete || c.Meta[protocol.MetaKeyServerInfo] == nil {
		t.Fatalf("raw answered %#v", res)
	}
	if kept.ResultType != "" || kept.Meta != nil {
		t.Fatalf("the handler's own result was modified: %#v", kept)
	}
}

// TestStatelessToolCallThroughMiddleware: behind middleware, a stateless
// tools/call whose params a middleware passes on unchanged is served from
// the params decoded on arrival (not decoded again: fewer allocations than
// when the middleware passes on equal bytes of its own), and params a
// middleware changes are the ones served.
func TestStatelessToolCallThroughMiddleware(t *testing.T) {
	params := []byte(benchToolCalls[2].params) // the gateway's envelope, "world"
	var mode string
	mw := func(next Invoker) Invoker {
		return func(ctx context.Context, c *Call) (any, error) {
			switch mode {
			case "copy":
				c.Params = append(json.RawMessage(nil), c.Params...)
			case "change":
				c.Params = json.RawMessage(bytes.Replace(c.Params, []byte(`"world"`), []byte(`"changed"`), 1))
			}
			return next(ctx, c)
		}
	}
	srv := benchEchoServer(t)
	srv.opts.Middleware = []Middleware{mw}
	srv.legacyChain, srv.statelessChain = chain(srv.opts.Middleware, invokeLegacy), chain(srv.opts.Middleware, invokeStateless)
	ss := newServerSession(srv, nil)
	call := func() string {
		res, err := ss.Handle(context.Background(), &jsonrpc.Message{ID: jsonrpc.Int64ID(2), Method: protocol.MethodToolsCall, Params: params})
		if err != nil {
			t.Fatal(err)
		}
		b, err := encodeResult(nil, res)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, m := range []struct{ mode, want string }{{"", "hello world"}, {"copy", "hello world"}, {"change", "hello changed"}} {
		mode = m.mode
		if got := call(); !strings.Contains(got, `"text":"`+m.want+`"`) {
			t.Errorf("middleware %q: result %s, want the text %q", m.mode, got, m.want)
		}
	}
	mode = ""
	same := testing.AllocsPerRun(50, func() { call() })
	mode = "copy"
	copied := testing.AllocsPerRun(50, func() { call() }) - 1 // the copy itself
	if same >= copied {
		t.Errorf("unchanged params: %.0f allocations, as many as params decoded again (%.0f)", same, copied)
	}
}

// TestHasNull checks hasNull against bytes.Contains on every string of up to
// seven bytes over the letters of null and one other, and on the envelope of
// a gateway's request with and without a null in it.
func TestHasNull(t *testing.T) {
	const letters = "nulx"
	var walk func(b []byte)
	walk = func(b []byte) {
		if got, want := hasNull(b), bytes.Contains(b, []byte("null")); got != want {
			t.Fatalf("hasNull(%q) = %v, want %v", b, got, want)
		}
		if len(b) == 7 {
			return
		}
		for i := range len(letters) {
			walk(append(b, letters[i]))
		}
	}
	walk(nil)
	envelope := `{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}},"roots":{},"sampling":{"tools":{}},"elicitation":{"form":{},"url":{}}},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"echo","arguments":{"message":"unull"}}`
	if !hasNull([]byte(envelope)) {
		t.Errorf("hasNull missed the null of %s", envelope)
	}
	if hasNull([]byte(strings.ReplaceAll(envelope, "unull", "nul"))) {
		t.Errorf("hasNull found a null without one")
	}
}
