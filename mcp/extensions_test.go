package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/internal/testkit/mcptest"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

type echoParams struct {
	Text string `json:"text"`
}

type echoResult struct {
	Echo    string `json:"echo"`
	Version string `json:"version"`
}

const acmeExt = "com.example/acme"

// eras connects a client to srv once per era: a legacy session (initialize at
// the newest legacy version) and a 2026-07-28 one.
func eras(t *testing.T, srv *mcp.Server, opts mcp.ClientOptions, f func(t *testing.T, cs *mcp.ClientSession)) {
	for _, v := range []string{protocol.LatestLegacy, protocol.Version20260728} {
		t.Run(v, func(t *testing.T) {
			o := opts
			o.ProtocolVersion = v
			cs, err := connectAuto(t, srv, &o)
			if err != nil {
				t.Fatal(err)
			}
			if cs.ProtocolVersion() != v {
				t.Fatalf("session at %s, want %s", cs.ProtocolVersion(), v)
			}
			f(t, cs)
		})
	}
}

func rpcError(t *testing.T, err error) *jsonrpc.Error {
	t.Helper()
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		t.Fatalf("want a JSON-RPC error, got %v", err)
	}
	return je
}

func TestCustomRequestBothEras(t *testing.T) {
	rec := &recorder{}
	srv := newServer(t, &mcp.ServerOptions{Middleware: []mcp.Middleware{rec.middleware}})
	must(t, srv.AddRawTool(&protocol.Tool{Name: "noop"}, func(ctx context.Context, r *mcp.ToolRequest) (*protocol.CallToolResult, error) {
		return &protocol.CallToolResult{}, nil
	}))
	srv.AddExtension(acmeExt, map[string]any{"level": 2})
	mcp.AddRequestHandler(srv, "acme/echo", func(ctx context.Context, r *mcp.Request, p *echoParams) (*echoResult, error) {
		return &echoResult{Echo: p.Text, Version: r.ProtocolVersion()}, nil
	}, nil)
	eras(t, srv, mcp.ClientOptions{}, func(t *testing.T, cs *mcp.ClientSession) {
		ctx := testkit.Context(t)
		var res echoResult
		if err := cs.Call(ctx, "acme/echo", echoParams{Text: "hi"}, &res); err != nil {
			t.Fatal(err)
		}
		if res.Echo != "hi" || res.Version != cs.ProtocolVersion() {
			t.Fatalf("result %+v", res)
		}
		if !slices.Contains(rec.methods(), "acme/echo") {
			t.Fatal("the middleware did not see the custom method")
		}
		// Declared next to the inferred capabilities, not instead of them.
		settings, ok := cs.ServerExtension(acmeExt)
		if !ok || settings["level"] != float64(2) {
			t.Fatalf("server extension %v %v", settings, ok)
		}
		if cs.InitializeResult().Capabilities.Tools == nil || cs.InitializeResult().Capabilities.Logging == nil {
			t.Fatalf("inferred capabilities lost: %+v", cs.InitializeResult().Capabilities)
		}
		// The raw result of a stateless custom method is stamped like every other.
		var raw json.RawMessage
		if err := cs.Call(ctx, "acme/echo", map[string]any{"text": "x"}, &raw); err != nil {
			t.Fatal(err)
		}
		if cs.IsStateless() != strings.Contains(string(raw), `"resultType":"complete"`) {
			t.Fatalf("resultType stamping in era %s: %s", cs.ProtocolVersion(), raw)
		}
	})
}

func TestUnknownAndMalformedCustomMethods(t *testing.T) {
	srv := newServer(t, nil)
	mcp.AddRequestHandler(srv, "acme/echo", func(ctx context.Context, r *mcp.Request, p *echoParams) (*echoResult, error) {
		return &echoResult{Echo: p.Text}, nil
	}, nil)
	mcp.AddNotificationHandler(srv, "acme/poke", func(ctx context.Context, r *mcp.Request, p *struct{}) {}, nil)
	eras(t, srv, mcp.ClientOptions{}, func(t *testing.T, cs *mcp.ClientSession) {
		ctx := testkit.Context(t)
		err := cs.Call(ctx, "acme/unknown", nil, nil)
		if je := rpcError(t, err); je.Code != protocol.CodeMethodNotFound {
			t.Fatalf("unknown method: %v, want -32601", err)
		}
		err = cs.Call(ctx, "acme/echo", map[string]any{"text": 5}, nil)
		if je := rpcError(t, err); je.Code != protocol.CodeInvalidParams || !strings.Contains(je.Message, "text") {
			t.Fatalf("wrong params: %v, want -32602 naming the member", err)
		}
		err = cs.Call(ctx, "acme/poke", nil, nil)
		if je := rpcError(t, err); je.Code != protocol.CodeMethodNotFound {
			t.Fatalf("a request to a notification: %v, want -32601", err)
		}
		if err := cs.Call(ctx, "acme/echo", []int{1}, nil); err == nil || !strings.Contains(err.Error(), "JSON object") {
			t.Fatalf("array params: %v", err)
		}
	})
	srv.RemoveMethod("acme/echo")
	eras(t, srv, mcp.ClientOptions{}, func(t *testing.T, cs *mcp.ClientSession) {
		err := cs.Call(testkit.Context(t), "acme/echo", echoParams{}, nil)
		if je := rpcError(t, err); je.Code != protocol.CodeMethodNotFound {
			t.Fatalf("removed method: %v, want -32601", err)
		}
	})
}

func TestExtensionMethodNeedsTheClientsDeclaration(t *testing.T) {
	srv := newServer(t, nil)
	srv.AddExtension(acmeExt, nil)
	mcp.AddRequestHandler(srv, "acme/secret", func(ctx context.Context, r *mcp.Request, p *struct{}) (map[string]any, error) {
		settings, _ := r.ClientExtension(acmeExt)
		return map[string]any{"clientSettings": settings}, nil
	}, &mcp.MethodOptions{Extension: acmeExt})
	eras(t, srv, mcp.ClientOptions{}, func(t *testing.T, cs *mcp.ClientSession) {
		err := cs.Call(testkit.Context(t), "acme/secret", nil, nil)
		je := rpcError(t, err)
		if je.Code != protocol.CodeMissingClientCapability || !strings.Contains(je.Message, acmeExt) {
			t.Fatalf("undeclared extension: %v, want -32021 naming it", err)
		}
		var data protocol.MissingClientCapabilityData
		if err := json.Unmarshal(je.Data, &data); err != nil {
			t.Fatal(err)
		}
		if _, ok := data.RequiredCapabilities.Extensions[acmeExt]; !ok {
			t.Fatalf("requiredCapabilities %s", je.Data)
		}
	})
	opts := mcp.ClientOptions{Extensions: map[string]map[string]any{acmeExt: {"mode": "full"}}}
	eras(t, srv, opts, func(t *testing.T, cs *mcp.ClientSession) {
		var res struct {
			ClientSettings map[string]any `json:"clientSettings"`
		}
		if err := cs.Call(testkit.Context(t), "acme/secret", nil, &res); err != nil {
			t.Fatal(err)
		}
		if res.ClientSettings["mode"] != "full" {
			t.Fatalf("the handler saw the client's settings as %v", res.ClientSettings)
		}
	})
}

func TestCustomNotificationsBothWays(t *testing.T) {
	srv := newServer(t, nil)
	got := make(chan string, 4)
	mcp.AddNotificationHandler(srv, "acme/ping", func(ctx context.Context, r *mcp.Request, p *echoParams) {
		got <- r.ProtocolVersion() + ":" + p.Text
	}, nil)
	mcp.AddRequestHandler(srv, "acme/tick", func(ctx context.Context, r *mcp.Request, p *struct{}) (map[string]any, error) {
		// Travels with the request (its reply stream over HTTP), in both eras.
		return map[string]any{}, r.Session.Notify(ctx, "acme/ticked", map[string]any{"n": 1})
	}, nil)
	ticks := make(chan float64, 4)
	eras(t, srv, mcp.ClientOptions{}, func(t *testing.T, cs *mcp.ClientSession) {
		ctx := testkit.Context(t)
		err := cs.Notify(ctx, "acme/ping", echoParams{Text: "hello"})
		if cs.IsStateless() {
			// 2026-07-28 defines no client notifications.
			if !errors.Is(err, mcp.ErrLegacyOnly) {
				t.Fatalf("a stateless client's notification: %v, want ErrLegacyOnly", err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		select {
		case s := <-got:
			if s != cs.ProtocolVersion()+":hello" {
				t.Fatalf("server got %q", s)
			}
		case <-ctx.Done():
			t.Fatal("the server never received the notification")
		}
	})
	// A 2026-07-28 peer's notification on a connection that carries it (its
	// _meta names the version) reaches the handler too.
	conn := rawConn(t, srv)
	note := `{"jsonrpc":"2.0","method":"acme/ping","params":{"text":"raw","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	if err := conn.Write(testkit.Context(t), []byte(note)); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-got:
		if s != "2026-07-28:raw" {
			t.Fatalf("server got %q", s)
		}
	case <-testkit.Context(t).Done():
		t.Fatal("the stateless notification was not served")
	}
	for _, v := range []string{protocol.LatestLegacy, protocol.Version20260728} {
		c := mcptest.NewClient(&mcp.ClientOptions{ProtocolVersion: v})
		mcp.AddClientNotificationHandler(c, "acme/ticked", func(ctx context.Context, cs *mcp.ClientSession, p *struct {
			N float64 `json:"n"`
		}) {
			ticks <- p.N
		}, nil)
		cs, _ := mcptest.Connect(t, srv, c, nil)
		if err := cs.Call(testkit.Context(t), "acme/tick", nil, nil); err != nil {
			t.Fatal(err)
		}
		select {
		case n := <-ticks:
			if n != 1 {
				t.Fatalf("tick %v", n)
			}
		case <-testkit.Context(t).Done():
			t.Fatalf("%s: the client never received the server's notification", v)
		}
	}
}

func TestServerCallsClientCustomMethod(t *testing.T) {
	srv := newServer(t, nil)
	srv.AddExtension(acmeExt, nil)
	c := mcptest.NewClient(&mcp.ClientOptions{ProtocolVersion: protocol.LatestLegacy})
	mcp.AddClientRequestHandler(c, "acme/ask", func(ctx context.Context, cs *mcp.ClientSession, p *echoParams) (*echoResult, error) {
		return &echoResult{Echo: strings.ToUpper(p.Text)}, nil
	}, &mcp.MethodOptions{Extension: acmeExt})
	mcp.AddClientRequestHandler(c, "acme/other", func(ctx context.Context, cs *mcp.ClientSession, p *struct{}) (map[string]any, error) {
		return map[string]any{}, nil
	}, &mcp.MethodOptions{Extension: "com.example/undeclared"})
	_, ss := mcptest.Connect(t, srv, c, nil)
	ctx := testkit.Context(t)
	var res echoResult
	if err := ss.Call(ctx, "acme/ask", echoParams{Text: "up"}, &res); err != nil || res.Echo != "UP" {
		t.Fatalf("server → client custom request: %+v %v", res, err)
	}
	err := ss.Call(ctx, "acme/ask", map[string]any{"text": true}, nil)
	if je := rpcError(t, err); je.Code != protocol.CodeInvalidParams {
		t.Fatalf("wrong params: %v", err)
	}
	err = ss.Call(ctx, "acme/other", nil, nil)
	if je := rpcError(t, err); je.Code != protocol.CodeMissingClientCapability || !strings.Contains(je.Message, "com.example/undeclared") {
		t.Fatalf("an extension the server did not declare: %v", err)
	}
	err = ss.Call(ctx, "acme/nothing", nil, nil)
	if je := rpcError(t, err); je.Code != protocol.CodeMethodNotFound {
		t.Fatalf("unknown client method: %v", err)
	}
}

func TestServerCallIsLegacyOnly(t *testing.T) {
	srv := newServer(t, nil)
	var callErr error
	mcp.AddRequestHandler(srv, "acme/back", func(ctx context.Context, r *mcp.Request, p *struct{}) (map[string]any, error) {
		callErr = r.Session.Call(ctx, "acme/ask", nil, nil)
		return map[string]any{}, nil
	}, nil)
	cs, err := connectAuto(t, srv, &mcp.ClientOptions{ProtocolVersion: protocol.Version20260728})
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.Call(testkit.Context(t), "acme/back", nil, nil); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(callErr, mcp.ErrLegacyOnly) {
		t.Fatalf("a server request in the stateless era: %v, want ErrLegacyOnly", callErr)
	}
}

func TestBuiltinMethodsCannotBeReplaced(t *testing.T) {
	for _, f := range []func(){
		func() {
			mcp.AddRequestHandler(newServer(t, nil), protocol.MethodToolsCall, func(context.Context, *mcp.Request, *struct{}) (any, error) { return nil, nil }, nil)
		},
		func() {
			mcp.AddNotificationHandler(newServer(t, nil), protocol.NotificationInitialized, func(context.Context, *mcp.Request, *struct{}) {}, nil)
		},
		func() {
			mcp.AddClientRequestHandler(mcptest.NewClient(nil), protocol.MethodRootsList, func(context.Context, *mcp.ClientSession, *struct{}) (any, error) { return nil, nil }, nil)
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("registering a built-in method did not panic")
				}
			}()
			f()
		}()
	}
}

func TestExtensionsWithExplicitCapabilities(t *testing.T) {
	srv := newServer(t, &mcp.ServerOptions{Capabilities: &protocol.ServerCapabilities{Prompts: &protocol.PromptsCapability{}}})
	srv.AddExtension(acmeExt, map[string]any{"x": true})
	eras(t, srv, mcp.ClientOptions{}, func(t *testing.T, cs *mcp.ClientSession) {
		caps := cs.InitializeResult().Capabilities
		if caps.Prompts == nil || caps.Extensions[acmeExt]["x"] != true {
			t.Fatalf("capabilities %+v", caps)
		}
	})
	srv.RemoveExtension(acmeExt)
	eras(t, srv, mcp.ClientOptions{}, func(t *testing.T, cs *mcp.ClientSession) {
		if _, ok := cs.ServerExtension(acmeExt); ok {
			t.Fatal("a removed extension is still declared")
		}
	})
}
