package otelmcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/otelmcp"
	"github.com/mcpkit/mcpkit/protocol"
)

type echoIn struct {
	Text string `json:"text"`
}

// echoServer has an echo tool that records the span context its handler sees, a
// fail tool whose result has isError: true, a prompt and a resource.
func echoServer(t *testing.T, srv *mcp.Server, seen chan<- trace.SpanContext) {
	t.Helper()
	err := errors.Join(
		mcp.AddTool(srv, &protocol.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.ToolRequest, in echoIn) (string, error) {
			if seen != nil {
				seen <- trace.SpanContextFromContext(ctx)
			}
			return in.Text, nil
		}),
		mcp.AddTool(srv, &protocol.Tool{Name: "fail"}, func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
			return "", errors.New("the tool broke")
		}),
		srv.AddPrompt(&protocol.Prompt{Name: "review"}, func(ctx context.Context, req *mcp.PromptRequest) (*protocol.GetPromptResult, error) {
			return &protocol.GetPromptResult{Messages: []protocol.PromptMessage{{Role: "user", Content: protocol.NewTextContent("hi")}}}, nil
		}),
		srv.AddResource(&protocol.Resource{URI: "file:///notes.txt", Name: "notes"}, func(ctx context.Context, req *mcp.ResourceRequest) (*protocol.ReadResourceResult, error) {
			return &protocol.ReadResourceResult{Contents: []*protocol.ResourceContents{{URI: "file:///notes.txt", Text: "n"}}}, nil
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
}

func TestToolCallServerSpanIsChildOfClientSpan(t *testing.T) {
	tp, rec := recorder(t)
	seen := make(chan trace.SpanContext, 1)
	srv := newServer(tp, nil)
	echoServer(t, srv, seen)
	cs, _ := connect(t, srv, tracedClient(tp, nil), nil)

	// The application's own span is the parent of the client span.
	ctx, app := tp.Tracer("app").Start(testkit.Context(t), "agent step")
	res, err := cs.CallTool(ctx, "echo", map[string]any{"text": "hi"})
	app.End()
	if err != nil || res.IsError || res.Content[0].Text != "hi" {
		t.Fatalf("CallTool = %+v, %v", res, err)
	}
	handlerSpan := testkit.Receive(t, seen)

	appSpan := findSpan(t, rec, "agent step", trace.SpanKindInternal)
	client := findSpan(t, rec, "tools/call echo", trace.SpanKindClient)
	server := findSpan(t, rec, "tools/call echo", trace.SpanKindServer)
	wantChild(t, client, appSpan)
	wantChild(t, server, client)
	if !server.Parent().IsRemote() {
		t.Error("the server span's parent is not marked remote")
	}
	if !handlerSpan.Equal(server.SpanContext()) {
		t.Errorf("the handler's context holds span %s, want the server span %s", handlerSpan.SpanID(), server.SpanContext().SpanID())
	}
	common := map[string]string{
		"mcp.method.name":       "tools/call",
		"gen_ai.tool.name":      "echo",
		"gen_ai.operation.name": "execute_tool",
		"mcp.protocol.version":  cs.ProtocolVersion(),
	}
	wantAttrs(t, client, common)
	wantAttrs(t, server, common)
	if id, ok := attr(server, "jsonrpc.request.id"); !ok || id == "" || strings.Contains(id, `"`) {
		t.Errorf("server span jsonrpc.request.id = %q, %v", id, ok)
	}
	if client.Status().Code != codes.Unset || server.Status().Code != codes.Unset {
		t.Errorf("statuses %v / %v, want unset", client.Status(), server.Status())
	}
	if _, ok := attr(server, "error.type"); ok {
		t.Error("error.type set on a successful call")
	}
}

func TestBaggageReachesTheHandler(t *testing.T) {
	tp, _ := recorder(t)
	got := make(chan string, 1)
	srv := newServer(tp, nil)
	if err := mcp.AddTool(srv, &protocol.Tool{Name: "who"}, func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
		got <- baggage.FromContext(ctx).Member("user").Value()
		return "", nil
	}); err != nil {
		t.Fatal(err)
	}
	cs, _ := connect(t, srv, tracedClient(tp, nil), nil)

	m, err := baggage.NewMember("user", "alice")
	if err != nil {
		t.Fatal(err)
	}
	bag, err := baggage.New(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(baggage.ContextWithBaggage(testkit.Context(t), bag), "who", nil); err != nil {
		t.Fatal(err)
	}
	if user := testkit.Receive(t, got); user != "alice" {
		t.Errorf("baggage user = %q, want alice", user)
	}
}

func TestToolErrorResultMarksSpans(t *testing.T) {
	tp, rec := recorder(t)
	srv := newServer(tp, nil)
	echoServer(t, srv, nil)
	cs, _ := connect(t, srv, tracedClient(tp, nil), nil)

	res, err := cs.CallTool(testkit.Context(t), "fail", nil)
	if err != nil || !res.IsError {
		t.Fatalf("CallTool = %+v, %v; want an isError result", res, err)
	}
	for _, kind := range []trace.SpanKind{trace.SpanKindClient, trace.SpanKindServer} {
		s := findSpan(t, rec, "tools/call fail", kind)
		if s.Status().Code != codes.Error {
			t.Errorf("%s span status %v, want Error", kind, s.Status())
		}
		wantAttrs(t, s, map[string]string{"error.type": "tool_error"})
		if _, ok := attr(s, "rpc.response.status_code"); ok {
			t.Errorf("%s span has rpc.response.status_code for a successful JSON-RPC call", kind)
		}
	}
}

// TestRawToolErrorResultMarksSpans: a handler's raw result with isError
// marks the server's span as a tool error too.
func TestRawToolErrorResultMarksSpans(t *testing.T) {
	tp, rec := recorder(t)
	srv := newServer(tp, nil)
	if err := srv.AddRawTool(&protocol.Tool{Name: "rawfail"}, func(ctx context.Context, req *mcp.ToolRequest) (*protocol.CallToolResult, error) {
		return req.RawResult(json.RawMessage(`{"content":[{"type":"text","text":"no"}],"isError":true}`))
	}); err != nil {
		t.Fatal(err)
	}
	cs, _ := connect(t, srv, tracedClient(tp, nil), nil)
	if res, err := cs.CallTool(testkit.Context(t), "rawfail", nil); err != nil || !res.IsError {
		t.Fatalf("CallTool = %+v, %v; want an isError result", res, err)
	}
	s := findSpan(t, rec, "tools/call rawfail", trace.SpanKindServer)
	if s.Status().Code != codes.Error {
		t.Errorf("server span status %v, want Error", s.Status())
	}
	wantAttrs(t, s, map[string]string{"error.type": "tool_error"})
}

func TestJSONRPCErrorMarksSpans(t *testing.T) {
	tp, rec := recorder(t)
	srv := newServer(tp, nil)
	echoServer(t, srv, nil)
	cs, _ := connect(t, srv, tracedClient(tp, nil), nil)

	_, err := cs.CallTool(testkit.Context(t), "nope", nil)
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("CallTool error %v, want -32602", err)
	}
	for _, kind := range []trace.SpanKind{trace.SpanKindClient, trace.SpanKindServer} {
		s := findSpan(t, rec, "tools/call nope", kind)
		if s.Status().Code != codes.Error || s.Status().Description != rpcErr.Message {
			t.Errorf("%s span status %v, want Error %q", kind, s.Status(), rpcErr.Message)
		}
		wantAttrs(t, s, map[string]string{"error.type": "-32602", "rpc.response.status_code": "-32602"})
	}
}

func TestRequestWithoutTraceContextStartsRootSpan(t *testing.T) {
	tp, rec := recorder(t)
	srv := newServer(tp, nil)
	echoServer(t, srv, nil)
	cs, _ := connect(t, srv, nil, nil) // the client does not trace: no traceparent

	if _, err := cs.CallTool(testkit.Context(t), "echo", map[string]any{"text": "x"}); err != nil {
		t.Fatal(err)
	}
	s := findSpan(t, rec, "tools/call echo", trace.SpanKindServer)
	if s.Parent().IsValid() {
		t.Errorf("server span has parent %s, want a root span", s.Parent().SpanID())
	}
	if !s.SpanContext().IsValid() {
		t.Error("server span context is invalid")
	}
	if len(s.Links()) != 0 {
		t.Errorf("root span has links %v", s.Links())
	}
}

func TestAmbientContextIsLinked(t *testing.T) {
	tp, rec := recorder(t)
	srv := newServer(tp, nil)
	echoServer(t, srv, nil)
	// The server's connection context carries a span, as an HTTP server span would.
	connCtx, ambient := tp.Tracer("transport").Start(testkit.Context(t), "POST /mcp")
	defer ambient.End()
	cs, _ := connect(t, srv, tracedClient(tp, nil), connCtx)

	if _, err := cs.CallTool(testkit.Context(t), "echo", map[string]any{"text": "x"}); err != nil {
		t.Fatal(err)
	}
	client := findSpan(t, rec, "tools/call echo", trace.SpanKindClient)
	server := findSpan(t, rec, "tools/call echo", trace.SpanKindServer)
	wantChild(t, server, client) // _meta wins over the ambient span
	links := server.Links()
	if len(links) != 1 || links[0].SpanContext.SpanID() != ambient.SpanContext().SpanID() {
		t.Errorf("server span links %v, want the ambient span %s", links, ambient.SpanContext().SpanID())
	}
}

func TestExistingMetaKeysArePreserved(t *testing.T) {
	tp, _ := recorder(t)
	metas := make(chan protocol.Meta, 1)
	srv := newServer(tp, nil)
	if err := mcp.AddTool(srv, &protocol.Tool{Name: "work"}, func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
		metas <- req.Meta
		_ = req.ReportProgress(ctx, 1, 2, "")
		return "done", nil
	}); err != nil {
		t.Fatal(err)
	}
	cs, _ := connect(t, srv, tracedClient(tp, nil), nil)

	progressed := 0
	ctx, app := tp.Tracer("app").Start(testkit.Context(t), "app")
	defer app.End()
	_, err := cs.CallToolParams(ctx, &protocol.CallToolParams{Name: "work", Meta: protocol.Meta{"com.example/tag": "x"}},
		mcp.WithProgress(func(*protocol.ProgressParams) { progressed++ }))
	if err != nil {
		t.Fatal(err)
	}
	meta := testkit.Receive(t, metas)
	if meta["com.example/tag"] != "x" {
		t.Errorf("com.example/tag lost: %v", meta)
	}
	if _, ok := meta.ProgressToken(); !ok {
		t.Errorf("progressToken lost: %v", meta)
	}
	tp1, _ := meta["traceparent"].(string)
	if !strings.Contains(tp1, app.SpanContext().TraceID().String()) {
		t.Errorf("traceparent %q does not carry trace %s", tp1, app.SpanContext().TraceID())
	}
	if progressed != 1 {
		t.Errorf("%d progress notifications reached the caller, want 1", progressed)
	}
}

// A request the server sends while handling one (roots/list from a tool) continues
// the same trace: client → server → server's client span → client's server span.
func TestNestedServerToClientRequest(t *testing.T) {
	tp, rec := recorder(t)
	srv := newServer(tp, nil)
	if err := mcp.AddTool(srv, &protocol.Tool{Name: "roots"}, func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
		res, err := req.ListRoots(ctx)
		if err != nil {
			return "", err
		}
		return res.Roots[0].URI, nil
	}); err != nil {
		t.Fatal(err)
	}
	opts := tracedClient(tp, nil)
	opts.Roots = []protocol.Root{{URI: "file:///work"}}
	cs, _ := connect(t, srv, opts, nil)

	res, err := cs.CallTool(testkit.Context(t), "roots", nil)
	if err != nil || res.IsError || res.Content[0].Text != "file:///work" {
		t.Fatalf("CallTool = %+v, %v", res, err)
	}
	outer := findSpan(t, rec, "tools/call roots", trace.SpanKindClient)
	tool := findSpan(t, rec, "tools/call roots", trace.SpanKindServer)
	ask := findSpan(t, rec, "roots/list", trace.SpanKindClient)
	answer := findSpan(t, rec, "roots/list", trace.SpanKindServer)
	wantChild(t, tool, outer)
	wantChild(t, ask, tool)
	wantChild(t, answer, ask)
	if outer.Parent().IsValid() {
		t.Error("the first client span should be a root")
	}
}

func TestNotifications(t *testing.T) {
	tp, rec := recorder(t)
	progressDone := make(chan *mcp.Call, 4)
	initializedDone := make(chan *mcp.Call, 1)
	// The server traces incoming notifications only by default: not at all.
	srv := mcp.NewServer(protocol.Implementation{Name: "s", Version: "1"}, &mcp.ServerOptions{Middleware: []mcp.Middleware{
		afterCall(protocol.NotificationInitialized, initializedDone),
		otelmcp.Middleware(&otelmcp.Options{TracerProvider: tp}),
	}})
	if err := mcp.AddTool(srv, &protocol.Tool{Name: "work"}, func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
		return "", req.ReportProgress(ctx, 1, 1, "")
	}); err != nil {
		t.Fatal(err)
	}
	// The client traces them.
	clientOpts := &mcp.ClientOptions{ProtocolVersion: protocol.LatestLegacy, Middleware: []mcp.Middleware{
		afterCall(protocol.NotificationProgress, progressDone),
		otelmcp.Middleware(&otelmcp.Options{TracerProvider: tp, TraceIncomingNotifications: true}),
	}}
	cs, _ := connect(t, srv, clientOpts, nil)

	if _, err := cs.CallTool(testkit.Context(t), "work", nil, mcp.WithProgress(func(*protocol.ProgressParams) {})); err != nil {
		t.Fatal(err)
	}
	testkit.Receive(t, initializedDone)
	call := testkit.Receive(t, progressDone)

	if n := countSpans(rec, protocol.NotificationInitialized); n != 0 {
		t.Errorf("%d spans for an incoming notification with tracing of notifications off", n)
	}
	if strings.Contains(string(call.Params), "traceparent") == false {
		t.Errorf("progress notification without traceparent: %s", call.Params)
	}
	tool := findSpan(t, rec, "tools/call work", trace.SpanKindServer)
	progress := findSpan(t, rec, protocol.NotificationProgress, trace.SpanKindServer)
	wantChild(t, progress, tool)
	wantAttrs(t, progress, map[string]string{"mcp.method.name": protocol.NotificationProgress})
	if _, ok := attr(progress, "jsonrpc.request.id"); ok {
		t.Error("a notification span has jsonrpc.request.id")
	}
	if n := countSpans(rec, protocol.NotificationProgress); n != 1 {
		t.Errorf("%d progress spans, want 1 (outgoing notifications get none)", n)
	}
}

func TestPromptAndResourceAttributes(t *testing.T) {
	tp, rec := recorder(t)
	srv := newServer(tp, nil)
	echoServer(t, srv, nil)
	cs, _ := connect(t, srv, tracedClient(tp, nil), nil)
	ctx := testkit.Context(t)

	if _, err := cs.GetPrompt(ctx, "review", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ReadResource(ctx, "file:///notes.txt"); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []trace.SpanKind{trace.SpanKindClient, trace.SpanKindServer} {
		p := findSpan(t, rec, "prompts/get review", kind)
		wantAttrs(t, p, map[string]string{"mcp.method.name": "prompts/get", "gen_ai.prompt.name": "review"})
		if _, ok := attr(p, "gen_ai.operation.name"); ok {
			t.Error("gen_ai.operation.name set on prompts/get")
		}
		// The URI is an attribute, not part of the name (it is not low-cardinality).
		r := findSpan(t, rec, "resources/read", kind)
		wantAttrs(t, r, map[string]string{"mcp.method.name": "resources/read", "mcp.resource.uri": "file:///notes.txt"})
	}
}

func TestFilterSkipsCalls(t *testing.T) {
	tp, rec := recorder(t)
	srv := newServer(tp, nil)
	skipPing := &otelmcp.Options{Filter: func(ctx context.Context, call *mcp.Call) bool { return call.Method != protocol.MethodPing }}
	cs, _ := connect(t, srv, tracedClient(tp, skipPing), nil)

	if err := cs.Ping(testkit.Context(t)); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListTools(testkit.Context(t), nil); err != nil {
		t.Fatal(err)
	}
	// The filtered ping got no client span and carried no context: the server's
	// ping span is a root. tools/list was traced as usual.
	server := findSpan(t, rec, "ping", trace.SpanKindServer)
	if server.Parent().IsValid() {
		t.Error("the filtered ping carried trace context")
	}
	if n := countSpans(rec, "ping"); n != 1 {
		t.Errorf("%d ping spans, want only the server's", n)
	}
	wantChild(t, findSpan(t, rec, "tools/list", trace.SpanKindServer), findSpan(t, rec, "tools/list", trace.SpanKindClient))
}

func TestHandlerPanicEndsSpanWithError(t *testing.T) {
	tp, rec := recorder(t)
	srv := newServer(tp, nil)
	if err := srv.AddPrompt(&protocol.Prompt{Name: "boom"}, func(ctx context.Context, req *mcp.PromptRequest) (*protocol.GetPromptResult, error) {
		panic("boom")
	}); err != nil {
		t.Fatal(err)
	}
	cs, _ := connect(t, srv, tracedClient(tp, nil), nil)

	if _, err := cs.GetPrompt(testkit.Context(t), "boom", nil); err == nil {
		t.Fatal("GetPrompt succeeded")
	}
	s := findSpan(t, rec, "prompts/get boom", trace.SpanKindServer)
	if s.Status().Code != codes.Error {
		t.Errorf("status %v, want Error", s.Status())
	}
	// The connection answers a panic with an internal error.
	wantAttrs(t, s, map[string]string{"error.type": "-32603", "rpc.response.status_code": "-32603"})
}

func TestTimeoutMarksClientSpan(t *testing.T) {
	tp, rec := recorder(t)
	srv := newServer(tp, nil)
	if err := mcp.AddTool(srv, &protocol.Tool{Name: "slow"}, func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
		<-ctx.Done() // until the client gives up and cancels
		return "", ctx.Err()
	}); err != nil {
		t.Fatal(err)
	}
	cs, _ := connect(t, srv, tracedClient(tp, nil), nil)

	_, err := cs.CallTool(testkit.Context(t), "slow", nil, mcp.WithTimeout(20*time.Millisecond))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("CallTool error %v, want a timeout", err)
	}
	s := findSpan(t, rec, "tools/call slow", trace.SpanKindClient)
	if s.Status().Code != codes.Error {
		t.Errorf("status %v, want Error", s.Status())
	}
	wantAttrs(t, s, map[string]string{"error.type": "timeout"})
	if _, ok := attr(s, "rpc.response.status_code"); ok {
		t.Error("rpc.response.status_code set though no response came")
	}
}

func TestLongNameStaysOutOfSpanName(t *testing.T) {
	tp, rec := recorder(t)
	srv := newServer(tp, nil)
	cs, _ := connect(t, srv, tracedClient(tp, nil), nil)

	long := strings.Repeat("x", 200)
	if _, err := cs.CallTool(testkit.Context(t), long, nil); err == nil {
		t.Fatal("unknown tool accepted")
	}
	s := findSpan(t, rec, "tools/call", trace.SpanKindServer)
	wantAttrs(t, s, map[string]string{"gen_ai.tool.name": long})
}

// A propagator other than the default decides what goes into _meta.
func TestCustomPropagator(t *testing.T) {
	tp, rec := recorder(t)
	srv := newServer(tp, &otelmcp.Options{Propagator: fixedPropagator{}})
	echoServer(t, srv, nil)
	cs, _ := connect(t, srv, tracedClient(tp, &otelmcp.Options{Propagator: fixedPropagator{}}), nil)

	if _, err := cs.CallTool(testkit.Context(t), "echo", map[string]any{"text": "x"}); err != nil {
		t.Fatal(err)
	}
	s := findSpan(t, rec, "tools/call echo", trace.SpanKindServer)
	if got, want := s.Parent().SpanID(), fixedParent.SpanID(); got != want {
		t.Errorf("server span parent %s, want %s (from the custom key)", got, want)
	}
}

var fixedParent = trace.NewSpanContext(trace.SpanContextConfig{
	TraceID:    trace.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
	SpanID:     trace.SpanID{1, 2, 3, 4, 5, 6, 7, 8},
	TraceFlags: trace.FlagsSampled,
	Remote:     true,
})

// fixedPropagator writes "com.example/trace": "yes" and reads it as fixedParent.
type fixedPropagator struct{}

func (fixedPropagator) Inject(ctx context.Context, c propagation.TextMapCarrier) {
	c.Set("com.example/trace", "yes")
}

func (fixedPropagator) Extract(ctx context.Context, c propagation.TextMapCarrier) context.Context {
	if c.Get("com.example/trace") != "yes" {
		return ctx
	}
	return trace.ContextWithRemoteSpanContext(ctx, fixedParent)
}

func (fixedPropagator) Fields() []string { return []string{"com.example/trace"} }
