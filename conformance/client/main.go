// Command client is the MCP client that the official conformance suite
// (@modelcontextprotocol/conformance, client mode) drives. It is built on mcpkit's
// client (package mcp) and its Streamable HTTP transport.
//
// The suite starts a test server per scenario and runs
//
//	client <server URL>
//
// with the scenario's name in the environment variable MCP_CONFORMANCE_SCENARIO (and,
// for some scenarios, data in MCP_CONFORMANCE_CONTEXT). The client plays the scenario
// and exits 0 when it could; the suite judges what it saw. The client detects the
// server's era itself, as any mcpkit client does: the 2026-07-28 scenarios meet a
// stateless server, the others a legacy one.
//
// Scenarios of the released protocol versions (suite 0.1.16): initialize, tools_call,
// elicitation-sep1034-client-defaults, sse-retry. Of 2026-07-28 (suite
// 0.2.0-alpha.12): tools_call, request-metadata, sep-2322-client-request-state,
// http-standard-headers, http-custom-headers, http-invalid-tool-headers,
// json-schema-ref-no-deref, json-schema-2020-12-preservation (see scenarios_2026.go).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// runTimeout bounds a whole scenario; the suite kills a client after 30 s.
const runTimeout = 25 * time.Second

func main() {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: MCP_CONFORMANCE_SCENARIO=<scenario> client <server URL>")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	err := run(ctx, os.Getenv("MCP_CONFORMANCE_SCENARIO"), os.Args[len(os.Args)-1], logger)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance client:", err)
		os.Exit(1)
	}
}

// scenario plays one conformance scenario over an initialized session.
type scenario struct {
	// options adjust the client and its transport for the scenario.
	options func(c *mcp.ClientOptions, t *streamable.ClientOptions)
	// play runs the scenario; sc holds MCP_CONFORMANCE_CONTEXT.
	play func(ctx context.Context, cs *mcp.ClientSession, sc *scenarioContext) error
}

// scenarioContext is the JSON the suite passes in MCP_CONFORMANCE_CONTEXT.
type scenarioContext struct {
	authContext
	// ToolCalls are the calls a scenario wants made, in order.
	ToolCalls []struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"toolCalls"`
}

// readContext decodes MCP_CONFORMANCE_CONTEXT (empty when unset).
func readContext() (*scenarioContext, error) {
	var sc scenarioContext
	if v := os.Getenv("MCP_CONFORMANCE_CONTEXT"); v != "" {
		if err := json.Unmarshal([]byte(v), &sc); err != nil {
			return nil, fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
	}
	return &sc, nil
}

// ignoreContext adapts a play function that needs no scenario context.
func ignoreContext(f func(ctx context.Context, cs *mcp.ClientSession) error) func(context.Context, *mcp.ClientSession, *scenarioContext) error {
	return func(ctx context.Context, cs *mcp.ClientSession, _ *scenarioContext) error { return f(ctx, cs) }
}

// scenarios maps the suite's scenario names to what the client does in each.
var scenarios = map[string]scenario{
	// initialize: connect, list the tools, disconnect.
	"initialize": {play: ignoreContext(listTools)},
	// tools_call: call add_numbers with two numbers and check the sum.
	"tools_call": {play: ignoreContext(callAddNumbers)},
	// elicitation-sep1034-client-defaults: accept the server's form with every field
	// left at its default.
	"elicitation-sep1034-client-defaults": {
		options: func(c *mcp.ClientOptions, _ *streamable.ClientOptions) {
			c.ElicitationHandler = acceptDefaults
		},
		play: ignoreContext(func(ctx context.Context, cs *mcp.ClientSession) error {
			return callListedTool(ctx, cs, "test_client_elicitation_defaults")
		}),
	},
	// sse-retry: the server cuts the tool call's SSE stream after a priming event with
	// a retry field; the transport must wait that long, then resume the stream with
	// GET and Last-Event-ID, and receive the result there. The standalone GET stream
	// stays closed: the test server answers any GET with the pending result, so an
	// early standalone GET would race with the resumption the scenario measures.
	"sse-retry": {
		options: func(_ *mcp.ClientOptions, t *streamable.ClientOptions) {
			t.DisableStandaloneStream = true
		},
		play: ignoreContext(func(ctx context.Context, cs *mcp.ClientSession) error {
			res, err := cs.CallTool(ctx, "test_reconnection", nil)
			if err != nil {
				return fmt.Errorf("calling test_reconnection: %w", err)
			}
			if res.IsError {
				return fmt.Errorf("test_reconnection failed: %s", contentText(res.Content))
			}
			return nil
		}),
	},
}

func init() {
	for name, sc := range scenarios2026 {
		scenarios[name] = sc
	}
}

// run connects to url, plays the named scenario and disconnects.
func run(ctx context.Context, name, url string, logger *slog.Logger) error {
	sc, ok := scenarios[name]
	if !ok && isAuthScenario(name) {
		sc, ok = scenario{play: playAuth}, true
	}
	if !ok {
		return fmt.Errorf("unknown scenario %q (MCP_CONFORMANCE_SCENARIO)", name)
	}
	data, err := readContext()
	if err != nil {
		return err
	}
	copts := &mcp.ClientOptions{RequestTimeout: runTimeout, Logger: logger}
	topts := &streamable.ClientOptions{Logger: logger}
	if isAuthScenario(name) {
		if topts.HTTPClient, err = authHTTPClient(name, &data.authContext, logger); err != nil {
			return err
		}
	}
	if sc.options != nil {
		sc.options(copts, topts)
	}
	conn, err := streamable.NewClientConn(ctx, url, topts)
	if err != nil {
		return err
	}
	cs, err := mcp.NewClient(protocol.Implementation{Name: "mcpkit-conformance-client", Version: "1.0.0"}, copts).Connect(ctx, conn)
	if err != nil {
		_ = conn.Close()
		return fmt.Errorf("connecting to %s: %w", url, err)
	}
	logger.Info("connected", "scenario", name, "protocolVersion", cs.ProtocolVersion(), "stateless", cs.IsStateless(), "session", conn.SessionID())
	err = sc.play(ctx, cs, data)
	if cerr := cs.Close(); cerr != nil {
		logger.Warn("closing the session", "error", cerr)
	}
	return err
}

// listTools lists the server's tools.
func listTools(ctx context.Context, cs *mcp.ClientSession) error {
	_, err := cs.ListTools(ctx, nil)
	if err != nil {
		return fmt.Errorf("listing tools: %w", err)
	}
	return nil
}

// callAddNumbers finds add_numbers among the server's tools and checks that it adds.
func callAddNumbers(ctx context.Context, cs *mcp.ClientSession) error {
	if err := requireTool(ctx, cs, "add_numbers"); err != nil {
		return err
	}
	res, err := cs.CallTool(ctx, "add_numbers", map[string]any{"a": 5, "b": 3})
	if err != nil {
		return fmt.Errorf("calling add_numbers: %w", err)
	}
	if text := contentText(res.Content); res.IsError || !strings.Contains(text, "8") {
		return fmt.Errorf("add_numbers(5, 3) answered %q (isError %v), want the sum 8", text, res.IsError)
	}
	return nil
}

// callListedTool checks that the server lists the tool, then calls it without
// arguments.
func callListedTool(ctx context.Context, cs *mcp.ClientSession, name string) error {
	if err := requireTool(ctx, cs, name); err != nil {
		return err
	}
	res, err := cs.CallTool(ctx, name, nil)
	if err != nil {
		return fmt.Errorf("calling %s: %w", name, err)
	}
	if res.IsError {
		return fmt.Errorf("%s failed: %s", name, contentText(res.Content))
	}
	return nil
}

// requireTool fails unless the server lists a tool with that name.
func requireTool(ctx context.Context, cs *mcp.ClientSession, name string) error {
	var names []string
	for tool, err := range cs.Tools(ctx) {
		if err != nil {
			return fmt.Errorf("listing tools: %w", err)
		}
		if tool.Name == name {
			return nil
		}
		names = append(names, tool.Name)
	}
	return fmt.Errorf("the server does not list the tool %s (it lists %v)", name, names)
}

// acceptDefaults answers a form elicitation as a user who submits the form without
// changing anything: every field takes its schema default (SEP-1034).
func acceptDefaults(ctx context.Context, cs *mcp.ClientSession, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
	if p.IsURL() {
		return &protocol.ElicitResult{Action: protocol.ElicitActionDecline}, nil
	}
	content, err := applyDefaults(p.RequestedSchema, map[string]any{})
	if err != nil {
		return nil, err
	}
	return &protocol.ElicitResult{Action: protocol.ElicitActionAccept, Content: content}, nil
}

// applyDefaults fills each property of the form schema that content lacks with the
// property's default, if it has one, and returns content.
func applyDefaults(schema json.RawMessage, content map[string]any) (map[string]any, error) {
	var s struct {
		Properties map[string]struct {
			Default json.RawMessage `json:"default"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("reading the requested schema: %w", err)
	}
	if content == nil {
		content = map[string]any{}
	}
	var errs []error
	for name, prop := range s.Properties {
		if _, given := content[name]; given || len(prop.Default) == 0 {
			continue
		}
		var v any
		if err := json.Unmarshal(prop.Default, &v); err != nil {
			errs = append(errs, fmt.Errorf("default of %s: %w", name, err))
			continue
		}
		content[name] = v
	}
	return content, errors.Join(errs...)
}

// contentText joins the text blocks of content.
func contentText(content []protocol.Content) string {
	var b strings.Builder
	for _, c := range content {
		b.WriteString(c.Text)
	}
	return b.String()
}
