package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// samplingModel is the model name mcpkit's sampling handler reports to the server.
const samplingModel = "mcpkit-interop-model"

// TestMcpkitClientAgainstServerEverything drives the reference server
// @modelcontextprotocol/server-everything with mcpkit's client. The client declares
// roots, sampling and elicitation, so the server registers its tools that need them
// after initialize (announcing it with notifications/tools/list_changed) and asks
// for the roots on its own; the test answers through ClientOptions handlers.
//
// It runs once for each protocol version that uses initialize, with mcpkit asking for
// that version, and checks mcpkit's messages against that version's schema.
func TestMcpkitClientAgainstServerEverything(t *testing.T) {
	node := requirePeers(t)
	entry := packageBin(t, "@modelcontextprotocol/server-everything")
	for _, version := range legacyVersions {
		t.Run(version, func(t *testing.T) { testServerEverything(t, node, entry, version) })
	}
}

func testServerEverything(t *testing.T, node, entry, version string) {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()

	rootURI := (&url.URL{Scheme: "file", Path: t.TempDir()}).String()
	events := newEventLog() // notifications and requests from the server, one line each
	var (
		mu          sync.Mutex
		samplingReq *protocol.CreateMessageParams
		elicitReq   *protocol.ElicitParams
	)
	client := mcp.NewClient(protocol.Implementation{Name: "mcpkit-interop", Version: "1.0.0"}, &mcp.ClientOptions{
		ProtocolVersion: version,
		Roots:           []protocol.Root{{URI: rootURI, Name: "interop"}},
		RequestTimeout:  testTimeout / 3,
		CreateMessageHandler: func(ctx context.Context, cs *mcp.ClientSession, p *protocol.CreateMessageParams) (*protocol.CreateMessageResult, error) {
			mu.Lock()
			samplingReq = p
			mu.Unlock()
			var prompt string
			if len(p.Messages) > 0 && len(p.Messages[0].Content) > 0 {
				prompt = p.Messages[0].Content[0].Text
			}
			return &protocol.CreateMessageResult{
				Role:       protocol.RoleAssistant,
				Content:    protocol.SamplingContent{protocol.NewTextContent("sampled: " + prompt)},
				Model:      samplingModel,
				StopReason: "endTurn",
			}, nil
		},
		ElicitationHandler: func(ctx context.Context, cs *mcp.ClientSession, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
			mu.Lock()
			elicitReq = p
			mu.Unlock()
			return &protocol.ElicitResult{Action: protocol.ElicitActionAccept, Content: map[string]any{"name": "Ada Lovelace", "check": true, "integer": 7}}, nil
		},
		LoggingMessageHandler: func(ctx context.Context, cs *mcp.ClientSession, p *protocol.LoggingMessageParams) {
			events.add(fmt.Sprintf("log %s %v", p.Level, p.Data))
		},
		ToolListChangedHandler: func(ctx context.Context, cs *mcp.ClientSession) {
			events.add("tools/list_changed")
		},
	})
	stderr := newEventLog()
	cs, wire := startNodeServer(ctx, t, node, client, stderr, entry, "stdio")

	t.Run("initialize", func(t *testing.T) {
		init := cs.InitializeResult()
		if init.ProtocolVersion != version {
			t.Errorf("negotiated %q, want %q (both sides support it)", init.ProtocolVersion, version)
		}
		if init.ServerInfo.Name != "mcp-servers/everything" {
			t.Errorf("serverInfo.name = %q", init.ServerInfo.Name)
		}
		caps := init.Capabilities
		if caps.Tools == nil || caps.Resources == nil || caps.Prompts == nil || caps.Logging == nil {
			t.Errorf("capabilities lack tools, resources, prompts or logging: %+v", caps)
		}
		if init.Instructions == "" {
			t.Error("no instructions")
		}
		if err := cs.Ping(ctx); err != nil {
			t.Errorf("ping: %v", err)
		}
	})

	// After initialized the server registers the tools that need roots, sampling or
	// elicitation (announcing each with tools/list_changed), then asks for the roots
	// and logs how many it got. Wait for both before listing.
	if _, err := events.waitCount(ctx, "tools/list_changed", 1); err != nil {
		t.Fatalf("the server never announced its conditional tools: %v; events %q", err, events.snapshot())
	}
	if _, err := events.waitCount(ctx, "Roots updated: 1 root(s) received from client", 1); err != nil {
		t.Fatalf("the server never took our roots: %v; events %q", err, events.snapshot())
	}

	t.Run("tools", func(t *testing.T) {
		names := toolNames(ctx, t, cs)
		requireAll(t, "tools/list", names,
			"echo", "get-sum", "get-structured-content", "get-tiny-image", "trigger-long-running-operation",
			// registered only because the client declared roots and sampling
			"get-roots-list", "trigger-sampling-request")
		// Elicitation exists from 2025-06-18: mcpkit declares it only there, and the
		// server offers its elicitation tool only to clients that declare it.
		if protocol.HasElicitation(version) {
			requireAll(t, "tools/list", names, "trigger-elicitation-request")
		} else if slices.Contains(names, "trigger-elicitation-request") {
			t.Errorf("%s: the server offers elicitation, so mcpkit declared it; the version has none", version)
		}

		if got := textOf(callTool(ctx, t, cs, "echo", map[string]string{"message": "hi"}).Content); got != "Echo: hi" {
			t.Errorf("echo {message: hi} = %q, want \"Echo: hi\"", got)
		}
		// A line far over 64 KiB in both directions.
		big := strings.Repeat("é\u2028🙂\n", 50000) + strings.Repeat("x", 300000)
		if got := textOf(callTool(ctx, t, cs, "echo", map[string]string{"message": big}).Content); got != "Echo: "+big {
			t.Errorf("echo of a %d-byte message came back as %d bytes, not equal", len(big), len(got))
		}
		if got := textOf(callTool(ctx, t, cs, "get-sum", map[string]float64{"a": 2, "b": 3.5}).Content); got != "The sum of 2 and 3.5 is 5.5." {
			t.Errorf("get-sum {a: 2, b: 3.5} = %q", got)
		}

		res := callTool(ctx, t, cs, "get-structured-content", map[string]string{"location": "Chicago"})
		want := map[string]any{"temperature": 36.0, "conditions": "Light rain / drizzle", "humidity": 82.0}
		if !reflect.DeepEqual(res.StructuredContent, want) {
			t.Errorf("get-structured-content {location: Chicago}: structuredContent %#v, want %#v", res.StructuredContent, want)
		}

		res = callTool(ctx, t, cs, "get-tiny-image", map[string]any{})
		var image *protocol.Content
		for i := range res.Content {
			if res.Content[i].Type == "image" {
				image = &res.Content[i]
			}
		}
		if image == nil || image.MimeType != "image/png" || !strings.HasPrefix(string(image.Data), "\x89PNG") {
			t.Errorf("get-tiny-image: no decoded PNG image block in %d blocks", len(res.Content))
		}

		// The server rejects an unknown tool with an isError result (the TypeScript
		// SDK's McpServer wraps its -32602 error), not with a JSON-RPC error.
		res, err := cs.CallTool(ctx, "no-such-tool", nil)
		if err != nil {
			t.Errorf("unknown tool: %v", err)
		} else if !res.IsError || !strings.Contains(textOf(res.Content), "no-such-tool") {
			t.Errorf("unknown tool: %+v, want an isError result naming the tool", res)
		}
	})

	t.Run("progress", func(t *testing.T) {
		var progress []protocol.ProgressParams
		res := callTool(ctx, t, cs, "trigger-long-running-operation", map[string]float64{"duration": 0.3, "steps": 3},
			mcp.WithProgress(func(p *protocol.ProgressParams) { progress = append(progress, *p) }))
		if got := textOf(res.Content); !strings.Contains(got, "Long running operation completed") {
			t.Errorf("trigger-long-running-operation = %q", got)
		}
		var values []float64
		for _, p := range progress {
			values = append(values, p.Progress)
			if p.Total != 3 {
				t.Errorf("progress %+v: total %v, want 3", p, p.Total)
			}
		}
		if !reflect.DeepEqual(values, []float64{1, 2, 3}) {
			t.Errorf("progress values %v, want [1 2 3] in order, all before the result", values)
		}
	})

	t.Run("roots", func(t *testing.T) {
		got := textOf(callTool(ctx, t, cs, "get-roots-list", map[string]any{}).Content)
		if !strings.Contains(got, "URI: "+rootURI) || !strings.Contains(got, "1 total") {
			t.Errorf("get-roots-list = %q, want our one root %s", got, rootURI)
		}
	})

	t.Run("sampling", func(t *testing.T) {
		got := textOf(callTool(ctx, t, cs, "trigger-sampling-request", map[string]any{"prompt": "say hi", "maxTokens": 20}).Content)
		// The tool answers with the JSON of our result.
		if !strings.Contains(got, `"model": "`+samplingModel+`"`) || !strings.Contains(got, "sampled: Resource trigger-sampling-request context: say hi") {
			t.Errorf("trigger-sampling-request = %q, want our sampled answer", got)
		}
		mu.Lock()
		req := samplingReq
		mu.Unlock()
		if req == nil {
			t.Fatal("the sampling handler was not called")
		}
		if req.MaxTokens != 20 || req.SystemPrompt != "You are a helpful test server." || req.Temperature == nil || *req.Temperature != 0.7 {
			t.Errorf("sampling/createMessage params decoded as %+v", req)
		}
	})

	t.Run("elicitation", func(t *testing.T) {
		if !protocol.HasElicitation(version) {
			t.Skipf("%s has no elicitation", version)
		}
		got := textOf(callTool(ctx, t, cs, "trigger-elicitation-request", map[string]any{}).Content)
		for _, want := range []string{"- Name: Ada Lovelace", "- Agreed to terms: true", "- Favorite Integer: 7"} {
			if !strings.Contains(got, want) {
				t.Errorf("trigger-elicitation-request = %q, want it to contain %q", got, want)
			}
		}
		mu.Lock()
		req := elicitReq
		mu.Unlock()
		if req == nil {
			t.Fatal("the elicitation handler was not called")
		}
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(req.RequestedSchema, &schema); err != nil || schema.Type != "object" || schema.Properties["name"] == nil {
			t.Errorf("elicitation/create requestedSchema decoded as %s (%v)", req.RequestedSchema, err)
		}
	})

	t.Run("resources", func(t *testing.T) {
		var uris []string
		for r, err := range cs.Resources(ctx) {
			if err != nil {
				t.Fatalf("resources/list: %v", err)
			}
			uris = append(uris, r.URI)
		}
		const doc = "demo://resource/static/document/instructions.md"
		requireAll(t, "resources/list", uris, doc)
		res, err := cs.ReadResource(ctx, doc)
		if err != nil {
			t.Fatalf("resources/read %s: %v", doc, err)
		}
		if len(res.Contents) != 1 || res.Contents[0].MimeType != "text/markdown" || res.Contents[0].Text == "" {
			t.Errorf("resources/read %s = %+v", doc, res.Contents)
		}

		var templates []string
		for tmpl, err := range cs.ResourceTemplates(ctx) {
			if err != nil {
				t.Fatalf("resources/templates/list: %v", err)
			}
			templates = append(templates, tmpl.URITemplate)
		}
		requireAll(t, "resources/templates/list", templates,
			"demo://resource/dynamic/text/{resourceId}", "demo://resource/dynamic/blob/{resourceId}")

		res, err = cs.ReadResource(ctx, "demo://resource/dynamic/text/7")
		if err != nil {
			t.Fatalf("resources/read text/7: %v", err)
		}
		if len(res.Contents) != 1 || !strings.HasPrefix(res.Contents[0].Text, "Resource 7: This is a plaintext resource") {
			t.Errorf("resources/read text/7 = %+v", res.Contents)
		}
		res, err = cs.ReadResource(ctx, "demo://resource/dynamic/blob/3")
		if err != nil {
			t.Fatalf("resources/read blob/3: %v", err)
		}
		if len(res.Contents) != 1 || !res.Contents[0].IsBlob() || !strings.HasPrefix(string(res.Contents[0].Blob), "Resource 3: This is a base64 blob") {
			t.Errorf("resources/read blob/3 = %+v, want the decoded blob", res.Contents)
		}
	})

	t.Run("prompts", func(t *testing.T) {
		var names []string
		for p, err := range cs.Prompts(ctx) {
			if err != nil {
				t.Fatalf("prompts/list: %v", err)
			}
			names = append(names, p.Name)
		}
		requireAll(t, "prompts/list", names, "simple-prompt", "args-prompt", "completable-prompt")
		res, err := cs.GetPrompt(ctx, "args-prompt", map[string]string{"city": "Paris", "state": "Texas"})
		if err != nil {
			t.Fatalf("prompts/get args-prompt: %v", err)
		}
		if len(res.Messages) != 1 || res.Messages[0].Content.Text != "What's weather in Paris, Texas?" {
			t.Errorf("prompts/get args-prompt = %+v", res.Messages)
		}
		comp, err := cs.Complete(ctx, &protocol.CompleteParams{
			Ref:      protocol.CompleteReference{Type: protocol.RefTypePrompt, Name: "completable-prompt"},
			Argument: protocol.CompleteArgument{Name: "department", Value: "S"},
		})
		if err != nil {
			t.Fatalf("completion/complete: %v", err)
		}
		if !reflect.DeepEqual(comp.Completion.Values, []string{"Sales", "Support"}) {
			t.Errorf("completing department from \"S\" = %q, want [Sales Support]", comp.Completion.Values)
		}
	})

	t.Run("schema", func(t *testing.T) { checkSessionSchema(t, cs.ProtocolVersion(), wire.snapshot()) })
}
