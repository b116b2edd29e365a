package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// samplingInput is test_sampling's input.
type samplingInput struct {
	Prompt string `json:"prompt" jsonschema:"The prompt to send to the LLM"`
}

// elicitationInput is test_elicitation's input.
type elicitationInput struct {
	Message string `json:"message" jsonschema:"The message to show the user"`
}

// The requested schemas of the elicitation fixtures.
var (
	// elicitUserSchema asks for a username and an email (tools-call-elicitation).
	elicitUserSchema = json.RawMessage(`{"type":"object","properties":{` +
		`"username":{"type":"string","description":"User's response"},` +
		`"email":{"type":"string","description":"User's email address"}},` +
		`"required":["username","email"]}`)

	// elicitDefaultsSchema gives every primitive type a default (SEP-1034).
	elicitDefaultsSchema = json.RawMessage(`{"type":"object","properties":{` +
		`"name":{"type":"string","description":"User name","default":"John Doe"},` +
		`"age":{"type":"integer","description":"User age","default":30},` +
		`"score":{"type":"number","description":"User score","default":95.5},` +
		`"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},` +
		`"verified":{"type":"boolean","description":"Verification status","default":true}},` +
		`"required":[]}`)

	// elicitEnumsSchema holds the five enum forms of SEP-1330: untitled and titled
	// single choice, the legacy enumNames form, and untitled and titled multiple
	// choice.
	elicitEnumsSchema = json.RawMessage(`{"type":"object","properties":{` +
		`"untitledSingle":{"type":"string","description":"Select one option","enum":["option1","option2","option3"]},` +
		`"titledSingle":{"type":"string","description":"Select one option with titles","oneOf":[` +
		`{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},` +
		`"legacyEnum":{"type":"string","description":"Select one option (legacy)","enum":["opt1","opt2","opt3"],` +
		`"enumNames":["Option One","Option Two","Option Three"]},` +
		`"untitledMulti":{"type":"array","description":"Select multiple options","minItems":1,"maxItems":3,` +
		`"items":{"type":"string","enum":["option1","option2","option3"]}},` +
		`"titledMulti":{"type":"array","description":"Select multiple options with titles","minItems":1,"maxItems":3,` +
		`"items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}},` +
		`"required":[]}`)
)

// addConformanceClientTools adds the tools that send requests to the client:
// sampling and the three elicitation forms. A client that lacks the capability gets
// an isError result saying so.
func addConformanceClientTools(s *mcp.Server) error {
	elicit := func(ctx context.Context, req *mcp.ToolRequest, message string, schema json.RawMessage, prefix string) (string, error) {
		res, err := req.Elicit(ctx, &protocol.ElicitParams{Message: message, RequestedSchema: schema})
		if err != nil {
			return "", err
		}
		content := res.Content
		if content == nil {
			content = map[string]any{}
		}
		raw, err := json.Marshal(content)
		if err != nil {
			return "", fmt.Errorf("encoding the elicited content: %w", err)
		}
		return fmt.Sprintf("%s: action=%s, content=%s", prefix, res.Action, raw), nil
	}
	return errors.Join(
		// tools-call-sampling
		mcp.AddTool(s, &protocol.Tool{Name: "test_sampling", Description: "Asks the client's LLM to answer the prompt (conformance: tools-call-sampling)."},
			func(ctx context.Context, req *mcp.ToolRequest, in samplingInput) (string, error) {
				res, err := req.CreateMessage(ctx, &protocol.CreateMessageParams{
					Messages:  []protocol.SamplingMessage{{Role: protocol.RoleUser, Content: protocol.SamplingContent{protocol.NewTextContent(in.Prompt)}}},
					MaxTokens: 100,
				})
				if err != nil {
					return "", err
				}
				return "LLM response: " + textOf(res.Content), nil
			}),
		// tools-call-elicitation
		mcp.AddTool(s, &protocol.Tool{Name: "test_elicitation", Description: "Asks the user for a username and an email (conformance: tools-call-elicitation)."},
			func(ctx context.Context, req *mcp.ToolRequest, in elicitationInput) (string, error) {
				return elicit(ctx, req, in.Message, elicitUserSchema, "User response")
			}),
		// elicitation-sep1034-defaults
		mcp.AddTool(s, &protocol.Tool{Name: "test_elicitation_sep1034_defaults", Description: "Elicits a form whose fields all have defaults (conformance: elicitation-sep1034-defaults)."},
			func(ctx context.Context, req *mcp.ToolRequest, _ noArgs) (string, error) {
				return elicit(ctx, req, "Please review and update the form fields with defaults", elicitDefaultsSchema, "Elicitation completed")
			}),
		// elicitation-sep1330-enums
		mcp.AddTool(s, &protocol.Tool{Name: "test_elicitation_sep1330_enums", Description: "Elicits a form with every enum form (conformance: elicitation-sep1330-enums)."},
			func(ctx context.Context, req *mcp.ToolRequest, _ noArgs) (string, error) {
				return elicit(ctx, req, "Please select options from the enum fields", elicitEnumsSchema, "Elicitation completed")
			}),
	)
}

// addConformanceResources adds the static resources, the template and its
// completion (resources-* scenarios).
func addConformanceResources(s *mcp.Server) error {
	static := func(r *protocol.Resource, contents *protocol.ResourceContents) error {
		return s.AddResource(r, func(ctx context.Context, req *mcp.ResourceRequest) (*protocol.ReadResourceResult, error) {
			return &protocol.ReadResourceResult{Contents: []*protocol.ResourceContents{contents}}, nil
		})
	}
	s.AddTemplateCompletion(conformanceTemplate, "id", prefixCompleter("1", "123", "42"))
	return errors.Join(
		// resources-read-text
		static(&protocol.Resource{URI: conformanceStaticTextURI, Name: "static-text", Title: "Static Text Resource", Description: "A static text resource (conformance: resources-read-text)", MimeType: "text/plain"},
			protocol.NewTextResourceContents(conformanceStaticTextURI, "text/plain", "This is the content of the static text resource.")),
		// resources-read-binary
		static(&protocol.Resource{URI: conformanceStaticBinaryURI, Name: "static-binary", Title: "Static Binary Resource", Description: "A static binary resource, a PNG (conformance: resources-read-binary)", MimeType: "image/png"},
			protocol.NewBlobResourceContents(conformanceStaticBinaryURI, "image/png", logoPNG)),
		// resources-subscribe, resources-unsubscribe
		static(&protocol.Resource{URI: conformanceWatchedURI, Name: "watched-resource", Title: "Watched Resource", Description: "A resource to subscribe to (conformance: resources-subscribe)", MimeType: "text/plain"},
			protocol.NewTextResourceContents(conformanceWatchedURI, "text/plain", "Watched resource content")),
		// resources-templates-read: the id is substituted into the content.
		s.AddResourceTemplate(&protocol.ResourceTemplate{URITemplate: conformanceTemplate, Name: "template", Title: "Resource Template", Description: "Data for any id (conformance: resources-templates-read)", MimeType: "application/json"},
			func(ctx context.Context, req *mcp.ResourceRequest) (*protocol.ReadResourceResult, error) {
				id := req.Vars["id"]
				raw, err := json.Marshal(struct {
					ID           string `json:"id"`
					TemplateTest bool   `json:"templateTest"`
					Data         string `json:"data"`
				}{id, true, "Data for ID: " + id})
				if err != nil {
					return nil, fmt.Errorf("encoding template data: %w", err)
				}
				return &protocol.ReadResourceResult{Contents: []*protocol.ResourceContents{
					protocol.NewTextResourceContents(req.Params.URI, "application/json", string(raw)),
				}}, nil
			}),
	)
}

// prefixCompleter suggests the candidates that start with what the user typed.
func prefixCompleter(candidates ...string) mcp.CompleteFunc {
	return func(ctx context.Context, req *mcp.CompleteRequest) ([]string, error) {
		out := []string{}
		for _, c := range candidates {
			if strings.HasPrefix(c, req.Params.Argument.Value) {
				out = append(out, c)
			}
		}
		return out, nil
	}
}

// addConformancePrompts adds the prompts-* fixtures and the completions of
// test_prompt_with_arguments (completion-complete).
func addConformancePrompts(s *mcp.Server) error {
	user := func(c protocol.Content) protocol.PromptMessage {
		return protocol.PromptMessage{Role: protocol.RoleUser, Content: c}
	}
	fixed := func(p *protocol.Prompt, msgs ...protocol.PromptMessage) error {
		return s.AddPrompt(p, func(ctx context.Context, req *mcp.PromptRequest) (*protocol.GetPromptResult, error) {
			return &protocol.GetPromptResult{Messages: msgs}, nil
		})
	}
	s.AddPromptCompletion("test_prompt_with_arguments", "arg1", prefixCompleter("paris", "park", "party", "test", "testValue1"))
	s.AddPromptCompletion("test_prompt_with_arguments", "arg2", prefixCompleter("testValue2", "world"))
	return errors.Join(
		// prompts-get-simple
		fixed(&protocol.Prompt{Name: "test_simple_prompt", Title: "Simple Test Prompt", Description: "A prompt without arguments (conformance: prompts-get-simple)"},
			user(protocol.NewTextContent("This is a simple prompt for testing."))),
		// prompts-get-with-args
		s.AddPrompt(&protocol.Prompt{Name: "test_prompt_with_arguments", Title: "Prompt With Arguments", Description: "A prompt with two required arguments (conformance: prompts-get-with-args)",
			Arguments: []protocol.PromptArgument{
				{Name: "arg1", Description: "First test argument", Required: true},
				{Name: "arg2", Description: "Second test argument", Required: true},
			}},
			func(ctx context.Context, req *mcp.PromptRequest) (*protocol.GetPromptResult, error) {
				a := req.Params.Arguments
				return &protocol.GetPromptResult{Messages: []protocol.PromptMessage{
					user(protocol.NewTextContent(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", a["arg1"], a["arg2"]))),
				}}, nil
			}),
		// prompts-get-embedded-resource
		s.AddPrompt(&protocol.Prompt{Name: "test_prompt_with_embedded_resource", Title: "Prompt With Embedded Resource", Description: "A prompt that embeds the resource it is given (conformance: prompts-get-embedded-resource)",
			Arguments: []protocol.PromptArgument{{Name: "resourceUri", Description: "URI of the resource to embed", Required: true}}},
			func(ctx context.Context, req *mcp.PromptRequest) (*protocol.GetPromptResult, error) {
				return &protocol.GetPromptResult{Messages: []protocol.PromptMessage{
					user(protocol.NewEmbeddedResource(protocol.NewTextResourceContents(req.Params.Arguments["resourceUri"], "text/plain", "Embedded resource content for testing."))),
					user(protocol.NewTextContent("Please process the embedded resource above.")),
				}}, nil
			}),
		// prompts-get-with-image
		fixed(&protocol.Prompt{Name: "test_prompt_with_image", Title: "Prompt With Image", Description: "A prompt with an image (conformance: prompts-get-with-image)"},
			user(protocol.NewImageContent(logoPNG, "image/png")),
			user(protocol.NewTextContent("Please analyze the image above."))),
	)
}
