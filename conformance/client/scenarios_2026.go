package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/streamable"
)

// scenarios2026 are the client scenarios of the 2026-07-28 requirements (suite
// 0.2.0-alpha.12). The client needs no scenario-specific protocol code: era
// detection, the per-request _meta, the HTTP request headers, input-required
// round trips and the x-mcp-header checks are the SDK's. The plays only make the
// requests each scenario watches.
var scenarios2026 = map[string]scenario{
	// request-metadata: every request carries _meta and MCP-Protocol-Version; the
	// first one is refused with UnsupportedProtocolVersion and retried. The client
	// declares roots, sampling and elicitation, so their shape is checked too.
	"request-metadata": {
		options: func(c *mcp.ClientOptions, _ *streamable.ClientOptions) {
			c.Roots = []protocol.Root{{URI: "file:///conformance", Name: "conformance"}}
			c.CreateMessageHandler = declineSampling
			c.ElicitationHandler = declineElicitation
		},
		play: ignoreContext(func(ctx context.Context, cs *mcp.ClientSession) error {
			return callEveryTool(ctx, cs)
		}),
	},
	// sep-2322-client-request-state: the server's tools answer input_required; the
	// client answers the elicitation and retries with the state, echoed exactly.
	"sep-2322-client-request-state": {
		options: func(c *mcp.ClientOptions, _ *streamable.ClientOptions) {
			c.ElicitationHandler = confirm
		},
		play: ignoreContext(callEveryTool),
	},
	// http-standard-headers: Mcp-Method and Mcp-Name on every kind of request.
	"http-standard-headers": {play: ignoreContext(useEverything)},
	// http-custom-headers: the calls the scenario lists, whose arguments the tools
	// declare as Mcp-Param headers.
	"http-custom-headers": {play: callListedCalls},
	// http-invalid-tool-headers: tools with invalid x-mcp-header declarations are
	// left out of the list; the valid one is called.
	"http-invalid-tool-headers": {play: ignoreContext(callEveryTool)},
	// json-schema-ref-no-deref: listing a tool whose schema holds a network $ref
	// must not fetch it (the client never dereferences schemas).
	"json-schema-ref-no-deref": {play: ignoreContext(listTools)},
	// json-schema-2020-12-preservation: the focal tool's inputSchema goes back,
	// untouched, to the echo tool.
	"json-schema-2020-12-preservation": {play: ignoreContext(echoSchema)},
}

// declineSampling and declineElicitation answer as a user who declines; the
// request-metadata scenario only looks at the declared capabilities.
func declineSampling(ctx context.Context, _ *mcp.ClientSession, _ *protocol.CreateMessageParams) (*protocol.CreateMessageResult, error) {
	return nil, errors.New("this client samples no model")
}

func declineElicitation(ctx context.Context, _ *mcp.ClientSession, _ *protocol.ElicitParams) (*protocol.ElicitResult, error) {
	return &protocol.ElicitResult{Action: protocol.ElicitActionDecline}, nil
}

// confirm accepts a form, setting every boolean property of its schema to true.
func confirm(ctx context.Context, _ *mcp.ClientSession, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
	if p.IsURL() {
		return &protocol.ElicitResult{Action: protocol.ElicitActionDecline}, nil
	}
	var s struct {
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(p.RequestedSchema, &s)
	content := map[string]any{}
	for name, prop := range s.Properties {
		if prop.Type == "boolean" {
			content[name] = true
		}
	}
	return &protocol.ElicitResult{Action: protocol.ElicitActionAccept, Content: content}, nil
}

// callEveryTool calls each listed tool once, with arguments made up from the
// required properties of its input schema.
func callEveryTool(ctx context.Context, cs *mcp.ClientSession) error {
	var tools []protocol.Tool
	for tool, err := range cs.Tools(ctx) {
		if err != nil {
			return fmt.Errorf("listing tools: %w", err)
		}
		tools = append(tools, tool)
	}
	for _, tool := range tools {
		if _, err := cs.CallTool(ctx, tool.Name, sampleArguments(tool.InputSchema)); err != nil {
			return fmt.Errorf("calling %s: %w", tool.Name, err)
		}
	}
	return nil
}

// sampleArguments returns arguments with a plausible value for each required
// property of schema.
func sampleArguments(schema json.RawMessage) map[string]any {
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	args := map[string]any{}
	if json.Unmarshal(schema, &s) != nil {
		return args
	}
	for _, name := range s.Required {
		switch s.Properties[name].Type {
		case "integer", "number":
			args[name] = 1
		case "boolean":
			args[name] = true
		case "object":
			args[name] = map[string]any{}
		case "array":
			args[name] = []any{}
		default:
			args[name] = "us-west1"
		}
	}
	return args
}

// useEverything makes one request of each kind a server offers: it lists and calls
// the tools, lists and reads the resources, lists and gets the prompts.
func useEverything(ctx context.Context, cs *mcp.ClientSession) error {
	if err := callEveryTool(ctx, cs); err != nil {
		return err
	}
	for res, err := range cs.Resources(ctx) {
		if err != nil {
			return fmt.Errorf("listing resources: %w", err)
		}
		if _, err := cs.ReadResource(ctx, res.URI); err != nil {
			return fmt.Errorf("reading %s: %w", res.URI, err)
		}
	}
	for p, err := range cs.Prompts(ctx) {
		if err != nil {
			return fmt.Errorf("listing prompts: %w", err)
		}
		if _, err := cs.GetPrompt(ctx, p.Name, nil); err != nil {
			return fmt.Errorf("getting %s: %w", p.Name, err)
		}
	}
	return nil
}

// callListedCalls lists the tools (which teaches the client their x-mcp-header
// declarations), then makes the calls the scenario context lists.
func callListedCalls(ctx context.Context, cs *mcp.ClientSession, sc *scenarioContext) error {
	if len(sc.ToolCalls) == 0 {
		return errors.New("MCP_CONFORMANCE_CONTEXT lists no toolCalls")
	}
	if err := listTools(ctx, cs); err != nil {
		return err
	}
	for _, call := range sc.ToolCalls {
		if _, err := cs.CallTool(ctx, call.Name, call.Arguments); err != nil {
			return fmt.Errorf("calling %s: %w", call.Name, err)
		}
	}
	return nil
}

// The tools of json-schema-2020-12-preservation.
const (
	schemaFocalTool = "json_schema_2020_12_tool"
	schemaEchoTool  = "json_schema_echo"
)

// echoSchema sends the focal tool's inputSchema, as received, to the echo tool.
func echoSchema(ctx context.Context, cs *mcp.ClientSession) error {
	var schema json.RawMessage
	for tool, err := range cs.Tools(ctx) {
		if err != nil {
			return fmt.Errorf("listing tools: %w", err)
		}
		if tool.Name == schemaFocalTool {
			schema = tool.InputSchema
		}
	}
	if schema == nil {
		return fmt.Errorf("the server does not list %s", schemaFocalTool)
	}
	if _, err := cs.CallTool(ctx, schemaEchoTool, map[string]json.RawMessage{"schema": schema}); err != nil {
		return fmt.Errorf("calling %s: %w", schemaEchoTool, err)
	}
	return nil
}
