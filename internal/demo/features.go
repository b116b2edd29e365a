package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// SampleInput is the sample tool's input.
type SampleInput struct {
	Prompt    string `json:"prompt" jsonschema:"what to ask the client's language model"`
	MaxTokens int    `json:"maxTokens,omitempty" jsonschema:"the most tokens to sample (default 100)"`
}

// addInteractiveTools adds the tools that call back into the client: sampling,
// elicitation and roots.
func addInteractiveTools(s *mcp.Server, _ *Options) error {
	return errors.Join(
		mcp.AddTool(s, &protocol.Tool{Name: "sample", Description: "Asks the client's language model to answer a prompt (sampling/createMessage)."},
			func(ctx context.Context, req *mcp.ToolRequest, in SampleInput) (string, error) {
				max := int64(in.MaxTokens)
				if max == 0 {
					max = 100
				}
				res, err := req.CreateMessage(ctx, &protocol.CreateMessageParams{
					Messages:  []protocol.SamplingMessage{{Role: protocol.RoleUser, Content: protocol.SamplingContent{protocol.NewTextContent(in.Prompt)}}},
					MaxTokens: max,
				})
				if err != nil {
					return "", err
				}
				var parts []string
				for _, c := range res.Content {
					parts = append(parts, c.Text)
				}
				return fmt.Sprintf("%s (model %s)", strings.Join(parts, ""), res.Model), nil
			}),
		mcp.AddTool(s, &protocol.Tool{Name: "ask_name", Description: "Asks the user for their name through the client (elicitation/create, form mode)."},
			func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
				res, err := req.Elicit(ctx, &protocol.ElicitParams{
					Mode:            protocol.ElicitModeForm,
					Message:         "What is your name?",
					RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","description":"Your name"}},"required":["name"]}`),
				})
				if err != nil {
					return "", err
				}
				if res.Action != protocol.ElicitActionAccept {
					return "the user chose to " + string(res.Action), nil
				}
				return fmt.Sprintf("hello %v", res.Content["name"]), nil
			}),
		mcp.AddTool(s, &protocol.Tool{Name: "list_roots", Description: "Lists the client's roots (roots/list)."},
			func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
				res, err := req.ListRoots(ctx)
				if err != nil {
					return "", err
				}
				if len(res.Roots) == 0 {
					return "no roots", nil
				}
				var b strings.Builder
				for _, r := range res.Roots {
					fmt.Fprintf(&b, "%s %s\n", r.URI, r.Name)
				}
				return strings.TrimSuffix(b.String(), "\n"), nil
			}),
	)
}

// TouchInput is the touch tool's input.
type TouchInput struct {
	URI string `json:"uri" jsonschema:"the resource to report as updated"`
}

// logoPNG is a 1×1 transparent PNG.
var logoPNG = []byte{0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00, 0x00, 0x00,
	0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00, 0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00,
	0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82}

// items are what the demo://items/{id} template serves.
var items = map[string]string{"1": "the first item", "2": "the second item", "3": "the third item", "42": "the answer"}

const (
	readmeURI    = "demo://readme"
	logoURI      = "demo://logo.png"
	itemTemplate = "demo://items/{id}"
)

func addResources(s *mcp.Server, _ *Options) error {
	ids := make([]string, 0, len(items))
	for id := range items {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	s.AddTemplateCompletion(itemTemplate, "id", func(ctx context.Context, req *mcp.CompleteRequest) ([]string, error) {
		var out []string
		for _, id := range ids {
			if strings.HasPrefix(id, req.Params.Argument.Value) {
				out = append(out, id)
			}
		}
		return out, nil
	})
	return errors.Join(
		s.AddResource(&protocol.Resource{URI: readmeURI, Name: "readme", Title: "Read me", Description: "What this server is", MimeType: "text/plain"},
			func(ctx context.Context, req *mcp.ResourceRequest) (*protocol.ReadResourceResult, error) {
				return &protocol.ReadResourceResult{Contents: []*protocol.ResourceContents{
					protocol.NewTextResourceContents(readmeURI, "text/plain", "mcpkit demo server: every MCP feature in one place."),
				}}, nil
			}),
		s.AddResource(&protocol.Resource{URI: logoURI, Name: "logo", Description: "A 1x1 PNG (a blob resource)", MimeType: "image/png"},
			func(ctx context.Context, req *mcp.ResourceRequest) (*protocol.ReadResourceResult, error) {
				return &protocol.ReadResourceResult{Contents: []*protocol.ResourceContents{
					protocol.NewBlobResourceContents(logoURI, "image/png", logoPNG),
				}}, nil
			}),
		s.AddResourceTemplate(&protocol.ResourceTemplate{URITemplate: itemTemplate, Name: "item", Description: "An item by id (1, 2, 3 or 42)", MimeType: "text/plain"},
			func(ctx context.Context, req *mcp.ResourceRequest) (*protocol.ReadResourceResult, error) {
				text, ok := items[req.Vars["id"]]
				if !ok {
					return nil, mcp.ResourceNotFound(req.Params.URI)
				}
				return &protocol.ReadResourceResult{Contents: []*protocol.ResourceContents{
					protocol.NewTextResourceContents(req.Params.URI, "text/plain", text),
				}}, nil
			}),
		mcp.AddTool(s, &protocol.Tool{Name: "touch", Description: "Reports a resource as updated to its subscribers (notifications/resources/updated)."},
			func(ctx context.Context, req *mcp.ToolRequest, in TouchInput) (string, error) {
				s.NotifyResourceUpdated(ctx, in.URI)
				return "updated " + in.URI, nil
			}),
	)
}

var greetStyles = []string{"casual", "formal", "pirate"}

func addPrompts(s *mcp.Server, _ *Options) error {
	s.AddPromptCompletion("greet", "style", func(ctx context.Context, req *mcp.CompleteRequest) ([]string, error) {
		var out []string
		for _, st := range greetStyles {
			if strings.HasPrefix(st, req.Params.Argument.Value) {
				out = append(out, st)
			}
		}
		return out, nil
	})
	return errors.Join(
		s.AddPrompt(&protocol.Prompt{Name: "greet", Title: "Greeting", Description: "Greets someone in a style", Arguments: []protocol.PromptArgument{
			{Name: "name", Description: "who to greet", Required: true},
			{Name: "style", Description: "casual, formal or pirate"},
		}}, func(ctx context.Context, req *mcp.PromptRequest) (*protocol.GetPromptResult, error) {
			name, style := req.Params.Arguments["name"], req.Params.Arguments["style"]
			if style == "" {
				style = "casual"
			}
			return &protocol.GetPromptResult{Description: "a " + style + " greeting", Messages: []protocol.PromptMessage{
				{Role: protocol.RoleUser, Content: protocol.NewTextContent(fmt.Sprintf("Greet %s in a %s style.", name, style))},
			}}, nil
		}),
		s.AddPrompt(&protocol.Prompt{Name: "describe_logo", Description: "A prompt with an embedded resource and an image"},
			func(ctx context.Context, req *mcp.PromptRequest) (*protocol.GetPromptResult, error) {
				return &protocol.GetPromptResult{Messages: []protocol.PromptMessage{
					{Role: protocol.RoleUser, Content: protocol.NewEmbeddedResource(protocol.NewTextResourceContents(readmeURI, "text/plain", "mcpkit demo server"))},
					{Role: protocol.RoleUser, Content: protocol.NewImageContent(logoPNG, "image/png")},
					{Role: protocol.RoleUser, Content: protocol.NewTextContent("Describe this server and its logo.")},
				}}, nil
			}),
	)
}
