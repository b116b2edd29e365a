package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpkit/mcpkit/internal/testkit"

	"github.com/mcpkit/mcpkit/internal/demo"
	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/memory"
	"github.com/mcpkit/mcpkit/transport/stdio"
	"github.com/mcpkit/mcpkit/upstream"
)

// serverEnv makes the test binary serve on stdio instead of running the tests:
// "demo" is mcpkit's demo server, "probe" the small server of probeServer;
// "leaky" prints $API_TOKEN on stderr and exits.
const serverEnv = "GATEWAY_TEST_SERVER"

func TestMain(m *testing.M) {
	switch os.Getenv(serverEnv) {
	case "":
		os.Exit(m.Run())
	case "demo":
		srv, err := demo.NewServer(&demo.Options{CountInterval: 20 * time.Millisecond})
		if err == nil {
			err = srv.Run(context.Background(), stdio.NewProcessServerConn(nil))
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	case "probe":
		if err := probeServer().Run(context.Background(), stdio.NewProcessServerConn(nil)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	case "doubling": // a tool whose schema doubles at each of 40 references
		srv := mcp.NewServer(protocol.Implementation{Name: "doubling", Version: "1"}, nil)
		_ = srv.AddForwardedTool(&protocol.Tool{Name: "doubling", InputSchema: doublingSchema(40)},
			func(context.Context, *mcp.ToolRequest) (*protocol.CallToolResult, error) {
				return protocol.NewToolResultText("ok"), nil
			})
		if err := srv.Run(context.Background(), stdio.NewProcessServerConn(nil)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	case "app": // an MCP App (a view, a tool for both, an app-only tool) and skills
		if err := appServer().Run(context.Background(), stdio.NewProcessServerConn(nil)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	case "leaky": // a server that prints its token and dies
		fmt.Fprintf(os.Stderr, "fatal: token %s refused\n", os.Getenv("API_TOKEN"))
		os.Exit(1)
	}
	os.Exit(0)
}

// probeServer has the tools that let a test see what reached the server:
// grow (adds the tool "new"), block (reports progress, then waits to be
// cancelled), cancelled (waits until a block call was cancelled, and says how
// many were) and "read.me" (a name the gateway must sanitize).
func probeServer() *mcp.Server {
	srv := mcp.NewServer(protocol.Implementation{Name: "probe", Version: "1"}, &mcp.ServerOptions{Instructions: "probe instructions"})
	var cancelled atomic.Int32
	cancelledCh := make(chan struct{}, 16)
	type none struct{}
	_ = mcp.AddTool(srv, &protocol.Tool{Name: "grow"}, func(ctx context.Context, req *mcp.ToolRequest, _ none) (string, error) {
		return "grown", mcp.AddTool(srv, &protocol.Tool{Name: "new"}, func(ctx context.Context, req *mcp.ToolRequest, _ none) (string, error) { return "new", nil })
	})
	_ = mcp.AddTool(srv, &protocol.Tool{Name: "block"}, func(ctx context.Context, req *mcp.ToolRequest, _ none) (string, error) {
		_ = req.ReportProgress(ctx, 1, 0, "started")
		<-ctx.Done()
		cancelled.Add(1)
		cancelledCh <- struct{}{}
		return "", ctx.Err()
	})
	_ = mcp.AddTool(srv, &protocol.Tool{Name: "cancelled"}, func(ctx context.Context, req *mcp.ToolRequest, _ none) (string, error) {
		if cancelled.Load() == 0 {
			select {
			case <-cancelledCh:
			case <-time.After(10 * time.Second):
			}
		}
		return fmt.Sprint(cancelled.Load()), nil
	})
	_ = mcp.AddTool(srv, &protocol.Tool{Name: "read.me"}, func(ctx context.Context, req *mcp.ToolRequest, _ none) (string, error) { return "read", nil })
	// A schema this SDK cannot compile, as a server in another language may
	// advertise; the tool answers with the arguments it got.
	_ = srv.AddForwardedTool(&protocol.Tool{Name: "lookbehind", InputSchema: json.RawMessage(lookbehindSchema)},
		func(ctx context.Context, req *mcp.ToolRequest) (*protocol.CallToolResult, error) {
			return protocol.NewToolResultText(string(req.Params.Arguments)), nil
		})
	return srv
}

// testServer is a configuration entry that runs the test binary as a server.
func testServer(name, kind string) *upstream.ServerConfig {
	return &upstream.ServerConfig{Name: name, Transport: upstream.TransportStdio, Command: os.Args[0],
		Args: []string{"-test.run=^$"}, Env: map[string]string{serverEnv: kind}}
}

var quiet = slog.New(slog.DiscardHandler)

// startGateway runs a gateway over servers until the test ends, and waits for
// their first connection.
func startGateway(t testing.TB, sopts *upstream.Options, servers ...*upstream.ServerConfig) *Gateway {
	t.Helper()
	return startGatewayWith(t, sopts, quiet, servers...)
}

// startGatewayLogged is startGateway with the gateway's logger.
func startGatewayLogged(t *testing.T, logger *slog.Logger, servers ...*upstream.ServerConfig) *Gateway {
	t.Helper()
	return startGatewayWith(t, nil, logger, servers...)
}

func startGatewayWith(t testing.TB, sopts *upstream.Options, logger *slog.Logger, servers ...*upstream.ServerConfig) *Gateway {
	t.Helper()
	o := &Options{Logger: logger}
	if sopts != nil {
		o.Supervisor = *sopts
	}
	return startGatewayOptions(t, o, servers...)
}

// startGatewayOptions is startGateway with the gateway's options.
func startGatewayOptions(t testing.TB, o *Options, servers ...*upstream.ServerConfig) *Gateway {
	t.Helper()
	cfg := &upstream.Config{Servers: map[string]*upstream.ServerConfig{}}
	for _, s := range servers {
		cfg.Servers[s.Name] = s
	}
	o.Supervisor.StopTimeout = 500 * time.Millisecond
	gw := New(cfg, o)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	gw.Start(context.WithoutCancel(ctx))
	t.Cleanup(func() { _ = gw.Close() })
	if err := gw.WaitStarted(ctx); err != nil {
		t.Fatal(err)
	}
	return gw
}

// connectClient connects a client to the gateway over an in-memory pair.
func connectClient(t testing.TB, gw *Gateway, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	c, s := memory.NewPair()
	ss, err := gw.Server().Connect(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	if opts == nil {
		opts = &mcp.ClientOptions{}
	}
	cs, err := mcp.NewClient(protocol.Implementation{Name: "gateway-test", Version: "1"}, opts).Connect(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Close() })
	return cs
}

func call(ctx context.Context, t *testing.T, cs *mcp.ClientSession, name string, args any, opts ...mcp.RequestOption) string {
	t.Helper()
	res, err := cs.CallTool(ctx, name, args, opts...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s: isError: %s", name, res.Content[0].Text)
	}
	return res.Content[0].Text
}

func names[T any](t *testing.T, seq func(func(T, error) bool), name func(T) string) []string {
	t.Helper()
	var out []string
	for item, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, name(item))
	}
	return out
}

// TestGatewayAggregates: two servers offer their tools, prompts, resources and
// templates under the gateway's names; the same resource URI on both is
// namespaced, and every call reaches the right server.
func TestGatewayAggregates(t *testing.T) {
	gw := startGateway(t, nil, testServer("a", "demo"), testServer("b", "demo"), testServer("p", "probe"))
	cs := connectClient(t, gw, nil)
	ctx := testkit.Context(t)

	tools := names(t, cs.Tools(ctx), func(x protocol.Tool) string { return x.Name })
	for _, want := range []string{"a__echo", "b__echo", "a__sample", "p__grow", "p__block"} {
		if !slices.Contains(tools, want) {
			t.Errorf("tools/list lacks %s: %v", want, tools)
		}
	}
	// read.me, sanitized: with its hash, a name that never changes
	sanitized := llm.ToolNames([]llm.ToolRef{{Server: "p", Name: "read.me"}})[llm.ToolRef{Server: "p", Name: "read.me"}]
	if !strings.HasPrefix(sanitized, "p__read_me_") {
		t.Fatalf("read.me → %q", sanitized)
	}
	for _, n := range tools {
		if !llm.ValidToolName(n) {
			t.Errorf("tool name %q is not valid for models", n)
		}
	}
	if !slices.Contains(tools, sanitized) {
		t.Fatalf("p's read.me is not offered as %s: %v", sanitized, tools)
	}
	if got := call(ctx, t, cs, sanitized, nil); got != "read" {
		t.Errorf("%s = %q", sanitized, got)
	}
	if got := call(ctx, t, cs, "b__echo", map[string]any{"message": "hi"}); got != "hello hi" {
		t.Errorf("b__echo = %q", got)
	}
	if res, err := cs.CallTool(ctx, "a__echo", map[string]any{"message": 5}); err != nil || !res.IsError {
		t.Errorf("a__echo with a bad argument: %v %+v, want an isError result", err, res)
	}

	prompt, err := cs.GetPrompt(ctx, "a__greet", map[string]string{"name": "Ada", "style": "pirate"})
	if err != nil || !strings.Contains(prompt.Messages[0].Content.Text, "Ada") {
		t.Errorf("a__greet: %v %+v", err, prompt)
	}
	comp, err := cs.Complete(ctx, &protocol.CompleteParams{Ref: protocol.CompleteReference{Type: protocol.RefTypePrompt, Name: "b__greet"}, Argument: protocol.CompleteArgument{Name: "style", Value: "p"}})
	if err != nil || !slices.Equal(comp.Completion.Values, []string{"pirate"}) {
		t.Errorf("completion of b__greet style: %v %+v", err, comp)
	}

	uris := names(t, cs.Resources(ctx), func(x protocol.Resource) string { return x.URI })
	for _, want := range []string{"mcpkit-gateway://a/demo://readme", "mcpkit-gateway://b/demo://readme"} {
		if !slices.Contains(uris, want) {
			t.Errorf("resources/list lacks %s: %v", want, uris)
		}
	}
	read, err := cs.ReadResource(ctx, "mcpkit-gateway://b/demo://items/42")
	if err != nil || read.Contents[0].URI != "mcpkit-gateway://b/demo://items/42" || read.Contents[0].Text != "the answer" {
		t.Errorf("read through b's template: %v %+v", err, read.Contents[0])
	}
	templates := names(t, cs.ResourceTemplates(ctx), func(x protocol.ResourceTemplate) string { return x.URITemplate })
	if !slices.Contains(templates, "mcpkit-gateway://a/demo://items/{id}") {
		t.Errorf("templates: %v", templates)
	}
	if instr := cs.InitializeResult().Instructions; !strings.Contains(instr, "## p\nprobe instructions") || !strings.Contains(instr, "## a\nA demo server") {
		t.Errorf("instructions = %q", instr)
	}
	var found bool
	for _, e := range gw.Entries() {
		if e == (Entry{Kind: "tool", Name: sanitized, Server: "p", Original: "read.me"}) {
			found = true
		}
	}
	if !found {
		t.Errorf("Entries lacks the mapping of read.me: %v", gw.Entries())
	}
}

// eras are the combinations of the gateway's era with its servers and with its
// clients.
var eras = []struct {
	name             string
	upstream, client string // protocol versions ("" detects: stateless with mcpkit)
}{
	{"stateless server, legacy client", "", protocol.LatestLegacy},
	{"stateless server, stateless client", "", protocol.Version20260728},
	{"legacy server, legacy client", protocol.LatestLegacy, protocol.LatestLegacy},
	{"legacy server, stateless client", protocol.LatestLegacy, protocol.Version20260728},
}

// eraServer is testServer speaking version ("" detects the era).
func eraServer(name, kind, version string) *upstream.ServerConfig {
	s := testServer(name, kind)
	s.ProtocolVersion = version
	return s
}

// TestGatewayPassesThroughClientFeatures: progress, sampling, elicitation,
// roots and log messages cross the gateway in every combination of eras.
func TestGatewayPassesThroughClientFeatures(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			gw := startGateway(t, nil, eraServer("a", "demo", era.upstream))
			var logMu sync.Mutex
			var logs []string
			cs := connectClient(t, gw, &mcp.ClientOptions{
				ProtocolVersion: era.client,
				CreateMessageHandler: func(ctx context.Context, cs *mcp.ClientSession, p *protocol.CreateMessageParams) (*protocol.CreateMessageResult, error) {
					return &protocol.CreateMessageResult{Role: protocol.RoleAssistant, Model: "test-model",
						Content: protocol.SamplingContent{protocol.NewTextContent("sampled " + p.Messages[0].Content[0].Text)}}, nil
				},
				ElicitationHandler: func(ctx context.Context, cs *mcp.ClientSession, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
					return &protocol.ElicitResult{Action: protocol.ElicitActionAccept, Content: map[string]any{"name": "Ada"}}, nil
				},
				Roots: []protocol.Root{{URI: "file:///work", Name: "work"}},
				LoggingMessageHandler: func(ctx context.Context, cs *mcp.ClientSession, p *protocol.LoggingMessageParams) {
					logMu.Lock()
					logs = append(logs, fmt.Sprintf("%s %s", p.Level, p.Logger))
					logMu.Unlock()
				},
			})
			ctx := testkit.Context(t)
			if st, _ := gw.Supervisor().Status("a"); (era.upstream == "") != (st.ProtocolVersion == protocol.Version20260728) {
				t.Fatalf("the server speaks %s, want the era %q", st.ProtocolVersion, era.upstream)
			}
			var progress []float64
			if got := call(ctx, t, cs, "a__count", map[string]any{"n": 3}, mcp.WithProgress(func(p *protocol.ProgressParams) {
				progress = append(progress, p.Progress)
			})); got != "3" || !slices.Equal(progress, []float64{0, 1, 2}) {
				t.Errorf("a__count = %q with progress %v, want 3 with [0 1 2]", got, progress)
			}
			if got := call(ctx, t, cs, "a__sample", map[string]any{"prompt": "2+2?"}); got != "sampled 2+2? (model test-model)" {
				t.Errorf("a__sample = %q", got)
			}
			if got := call(ctx, t, cs, "a__ask_name", nil); got != "hello Ada" {
				t.Errorf("a__ask_name = %q", got)
			}
			if got := call(ctx, t, cs, "a__list_roots", nil); got != "file:///work work" {
				t.Errorf("a__list_roots = %q", got)
			}
			if err := cs.SetLogLevel(ctx, protocol.LevelWarning); err != nil {
				t.Fatal(err)
			}
			if got := call(ctx, t, cs, "a__log", nil); got != "logged" {
				t.Errorf("a__log = %q", got)
			}
			logMu.Lock()
			defer logMu.Unlock()
			if !slices.Equal(logs, []string{"warning a/demo", "error a/demo"}) {
				t.Errorf("log messages = %q, want warning and error from a/demo", logs)
			}
		})
	}
}

// TestGatewayListChangedAndCancellation: a tool a server adds reaches the
// gateway's clients with list_changed, and a client that cancels a call
// cancels it on the server.
func TestGatewayListChangedAndCancellation(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			gw := startGateway(t, nil, eraServer("p", "probe", era.upstream))
			changed := make(chan struct{}, 8)
			cs := connectClient(t, gw, &mcp.ClientOptions{
				ProtocolVersion:        era.client,
				ToolListChangedHandler: func(ctx context.Context, cs *mcp.ClientSession) { changed <- struct{}{} },
			})
			if era.client == protocol.Version20260728 {
				sub, err := cs.Listen(testkit.Context(t), protocol.SubscriptionFilter{ToolsListChanged: true})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(sub.Close)
			}
			ctx := testkit.Context(t)
			if got := call(ctx, t, cs, "p__grow", nil); got != "grown" {
				t.Fatalf("p__grow = %q", got)
			}
			select {
			case <-changed:
			case <-ctx.Done():
				t.Fatal("no tools/list_changed after the server added a tool")
			}
			if got := call(ctx, t, cs, "p__new", nil); got != "new" {
				t.Errorf("p__new = %q", got)
			}

			started := make(chan struct{}, 1)
			bctx, cancel := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(bctx, "p__block", nil, mcp.WithProgress(func(*protocol.ProgressParams) {
					select {
					case started <- struct{}{}:
					default:
					}
				}))
				done <- err
			}()
			select {
			case <-started:
			case <-ctx.Done():
				t.Fatal("p__block never reported progress")
			}
			cancel()
			if err := <-done; err == nil {
				t.Error("the cancelled call succeeded")
			}
			if got := call(ctx, t, cs, "p__cancelled", nil); got != "1" {
				t.Errorf("the server saw %s cancelled calls, want 1", got)
			}
		})
	}
}

// TestGatewayServerDownFailsFastThenRecovers: while a crashed server waits to
// be restarted its tools stay listed and calls fail at once saying why; once
// it is back they work again.
func TestGatewayServerDownFailsFastThenRecovers(t *testing.T) {
	gw := startGateway(t, &upstream.Options{InitialBackoff: time.Hour, Logger: quiet}, testServer("a", "demo"))
	cs := connectClient(t, gw, nil)
	ctx := testkit.Context(t)
	sup := gw.Supervisor()
	states := make(chan upstream.Status, 64)
	sup.Subscribe(func(e upstream.Event) {
		if e.Kind == upstream.EventState || e.Kind == upstream.EventConnected {
			states <- e.Status
		}
	})
	waitState := func(what string, match func(upstream.Status) bool) {
		t.Helper()
		for {
			select {
			case st := <-states:
				if match(st) {
					return
				}
			case <-ctx.Done():
				t.Fatalf("waiting for %s: %v", what, ctx.Err())
			}
		}
	}
	st, _ := sup.Status("a")
	p, err := os.FindProcess(st.PID)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Kill(); err != nil {
		t.Fatal(err)
	}
	waitState("the backoff", func(st upstream.Status) bool { return st.State == upstream.StateBackoff })
	res, err := cs.CallTool(ctx, "a__echo", map[string]any{"message": "hi"})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].Text, `server "a" is down, restarting in`) || !strings.Contains(res.Content[0].Text, "signal: killed") {
		t.Fatalf("a call while the server is down: %v %+v, want an isError result saying why", err, res)
	}
	if !slices.Contains(names(t, cs.Tools(ctx), func(x protocol.Tool) string { return x.Name }), "a__echo") {
		t.Error("the tools of a server that is down must stay listed")
	}
	if err := sup.Restart("a"); err != nil {
		t.Fatal(err)
	}
	waitState("the restart", func(st upstream.Status) bool { return st.State == upstream.StateReady && st.Connects == 2 })
	if got := call(ctx, t, cs, "a__echo", map[string]any{"message": "again"}); got != "hello again" {
		t.Errorf("after the restart: %q", got)
	}
}

// TestGatewayToolFilters: allowedTools and excludedTools decide what is offered.
func TestGatewayToolFilters(t *testing.T) {
	a := testServer("a", "demo")
	a.AllowedTools = []string{"ec*", "add", "count"}
	a.ExcludedTools = []string{"count"}
	gw := startGateway(t, nil, a)
	cs := connectClient(t, gw, nil)
	ctx := testkit.Context(t)
	got := names(t, cs.Tools(ctx), func(x protocol.Tool) string { return x.Name })
	if !slices.Equal(got, []string{"a__add", "a__echo", "a__echo_ip"}) {
		t.Errorf("tools = %v, want a__add, a__echo, a__echo_ip", got)
	}
	if _, err := cs.CallTool(ctx, "a__count", map[string]any{"n": 1}); err == nil {
		t.Error("a filtered-out tool could be called")
	}
}

// TestGatewayManyClientsShareOneServer: concurrent calls from several clients,
// in both eras, go through one server process and each gets its own answer.
func TestGatewayManyClientsShareOneServer(t *testing.T) {
	gw := startGateway(t, nil, testServer("a", "demo"))
	ctx := testkit.Context(t)
	var wg sync.WaitGroup
	for i := range 8 {
		version := protocol.LatestLegacy
		if i%2 == 1 {
			version = protocol.Version20260728
		}
		cs := connectClient(t, gw, &mcp.ClientOptions{ProtocolVersion: version})
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 20 {
				msg := fmt.Sprintf("%d-%d", i, j)
				res, err := cs.CallTool(ctx, "a__echo", map[string]any{"message": msg})
				if err != nil || res.Content[0].Text != "hello "+msg {
					t.Errorf("client %d call %d: %v %+v", i, j, err, res)
					return
				}
			}
		}()
	}
	wg.Wait()
	if st, _ := gw.Supervisor().Status("a"); st.Connects != 1 {
		t.Errorf("the server was connected %d times, want 1", st.Connects)
	}
}

// TestGatewayResourceSubscription: a subscription reaches the server, and its
// resources/updated comes back under the gateway's URI.
func TestGatewayResourceSubscription(t *testing.T) {
	srv := testServer("a", "demo")
	srv.ProtocolVersion = protocol.LatestLegacy // subscriptions are a legacy request
	gw := startGateway(t, nil, srv, testServer("b", "demo"))
	updated := make(chan string, 4)
	cs := connectClient(t, gw, &mcp.ClientOptions{
		ProtocolVersion: protocol.LatestLegacy,
		ResourceUpdatedHandler: func(ctx context.Context, cs *mcp.ClientSession, p *protocol.ResourceUpdatedParams) {
			updated <- p.URI
		},
	})
	ctx := testkit.Context(t)
	const uri = "mcpkit-gateway://a/demo://readme"
	if err := cs.Subscribe(ctx, &protocol.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	if got := call(ctx, t, cs, "a__touch", map[string]any{"uri": "demo://readme"}); got != "updated demo://readme" {
		t.Fatalf("a__touch = %q", got)
	}
	select {
	case got := <-updated:
		if got != uri {
			t.Errorf("resources/updated for %q, want %q", got, uri)
		}
	case <-ctx.Done():
		t.Fatal("no resources/updated")
	}
}
