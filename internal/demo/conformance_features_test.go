package demo

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// tools-call-sampling
func TestConformanceSamplingTool(t *testing.T) {
	var got *protocol.CreateMessageParams
	cs := connectFixtures(t, &mcp.ClientOptions{CreateMessageHandler: func(ctx context.Context, cs *mcp.ClientSession, p *protocol.CreateMessageParams) (*protocol.CreateMessageResult, error) {
		got = p
		return &protocol.CreateMessageResult{Role: protocol.RoleAssistant, Model: "test-model", StopReason: "endTurn",
			Content: protocol.SamplingContent{protocol.NewTextContent("This is a test response from the client")}}, nil
	}})
	res := callFixture(t, cs, "test_sampling", map[string]any{"prompt": "Test prompt for sampling"})
	if res.IsError || textOf(res.Content) != "LLM response: This is a test response from the client" {
		t.Errorf("test_sampling = %+v", res)
	}
	if got == nil {
		t.Fatal("the server did not ask the client to sample")
	}
	if got.MaxTokens != 100 || len(got.Messages) != 1 || got.Messages[0].Role != protocol.RoleUser ||
		len(got.Messages[0].Content) != 1 || got.Messages[0].Content[0].Text != "Test prompt for sampling" {
		t.Errorf("sampling request = %+v", got)
	}
	if res := callFixture(t, cs, "test_sampling", nil); !res.IsError {
		t.Errorf("test_sampling without its required prompt = %+v", res)
	}
}

// A client without the sampling capability gets an isError result, not a hang.
func TestConformanceSamplingToolWithoutCapability(t *testing.T) {
	res := callFixture(t, connectFixtures(t, nil), "test_sampling", map[string]any{"prompt": "p"})
	if !res.IsError || !strings.Contains(textOf(res.Content), "sampling") {
		t.Errorf("test_sampling without sampling = %+v", res)
	}
}

// elicitingClient answers every elicitation with reply and records the requests.
func elicitingClient(t *testing.T, reply map[string]any) (*mcp.ClientSession, *[]*protocol.ElicitParams) {
	t.Helper()
	var got []*protocol.ElicitParams
	cs := connectFixtures(t, &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, cs *mcp.ClientSession, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
		got = append(got, p)
		return &protocol.ElicitResult{Action: protocol.ElicitActionAccept, Content: reply}, nil
	}})
	return cs, &got
}

// requestedProperties decodes the properties of an elicitation's requested schema.
func requestedProperties(t *testing.T, p *protocol.ElicitParams) (map[string]map[string]any, []string) {
	t.Helper()
	var s struct {
		Type       string                    `json:"type"`
		Properties map[string]map[string]any `json:"properties"`
		Required   []string                  `json:"required"`
	}
	if err := json.Unmarshal(p.RequestedSchema, &s); err != nil || s.Type != "object" {
		t.Fatalf("requested schema %s: %v", p.RequestedSchema, err)
	}
	return s.Properties, s.Required
}

// tools-call-elicitation
func TestConformanceElicitationTool(t *testing.T) {
	cs, got := elicitingClient(t, map[string]any{"username": "testuser", "email": "test@example.com"})
	res := callFixture(t, cs, "test_elicitation", map[string]any{"message": "Please provide your information"})
	want := `User response: action=accept, content={"email":"test@example.com","username":"testuser"}`
	if res.IsError || textOf(res.Content) != want {
		t.Errorf("test_elicitation = %q, want %q", textOf(res.Content), want)
	}
	if len(*got) != 1 || (*got)[0].Message != "Please provide your information" {
		t.Fatalf("elicitation requests = %+v", *got)
	}
	props, required := requestedProperties(t, (*got)[0])
	if props["username"]["type"] != "string" || props["email"]["type"] != "string" || !slices.Equal(required, []string{"username", "email"}) {
		t.Errorf("requested schema = %s", (*got)[0].RequestedSchema)
	}
}

// A declined elicitation is reported, with empty content.
func TestConformanceElicitationDeclined(t *testing.T) {
	cs := connectFixtures(t, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ClientSession, *protocol.ElicitParams) (*protocol.ElicitResult, error) {
		return &protocol.ElicitResult{Action: protocol.ElicitActionDecline}, nil
	}})
	res := callFixture(t, cs, "test_elicitation", map[string]any{"message": "m"})
	if res.IsError || textOf(res.Content) != "User response: action=decline, content={}" {
		t.Errorf("declined elicitation = %+v", res)
	}
}

// elicitation-sep1034-defaults
func TestConformanceElicitationDefaultsTool(t *testing.T) {
	cs, got := elicitingClient(t, map[string]any{"name": "Jane Smith", "age": 25, "score": 88.0, "status": "inactive", "verified": false})
	res := callFixture(t, cs, "test_elicitation_sep1034_defaults", nil)
	if res.IsError || !strings.HasPrefix(textOf(res.Content), "Elicitation completed: action=accept, content={") {
		t.Errorf("result = %+v", res)
	}
	if len(*got) != 1 {
		t.Fatalf("%d elicitation requests", len(*got))
	}
	props, _ := requestedProperties(t, (*got)[0])
	for field, want := range map[string]struct {
		typ string
		def any
	}{
		"name": {"string", "John Doe"}, "age": {"integer", 30.0}, "score": {"number", 95.5},
		"status": {"string", "active"}, "verified": {"boolean", true},
	} {
		p := props[field]
		if def, ok := p["default"]; p["type"] != want.typ || !ok || def != want.def {
			t.Errorf("%s = %v, want type %s default %v", field, p, want.typ, want.def)
		}
	}
	enum, _ := props["status"]["enum"].([]any)
	if !slices.Contains(enum, any("active")) || len(enum) != 3 {
		t.Errorf("status enum %v does not hold its default", props["status"]["enum"])
	}
}

// elicitation-sep1330-enums
func TestConformanceElicitationEnumsTool(t *testing.T) {
	cs, got := elicitingClient(t, map[string]any{"untitledSingle": "option1", "titledSingle": "value1", "legacyEnum": "opt1",
		"untitledMulti": []any{"option1", "option2"}, "titledMulti": []any{"value1", "value2"}})
	res := callFixture(t, cs, "test_elicitation_sep1330_enums", nil)
	if res.IsError || !strings.Contains(textOf(res.Content), `"titledMulti":["value1","value2"]`) {
		t.Errorf("result = %+v", res)
	}
	if len(*got) != 1 {
		t.Fatalf("%d elicitation requests", len(*got))
	}
	props, _ := requestedProperties(t, (*got)[0])
	titled := func(list any) bool {
		items, ok := list.([]any)
		for _, it := range items {
			m, _ := it.(map[string]any)
			c, cok := m["const"].(string)
			ti, tok := m["title"].(string)
			ok = ok && cok && tok && c != "" && ti != ""
		}
		return ok && len(items) > 0
	}
	has := func(m map[string]any, k string) bool { _, ok := m[k]; return ok }

	if p := props["untitledSingle"]; p["type"] != "string" || !has(p, "enum") || has(p, "oneOf") || has(p, "enumNames") {
		t.Errorf("untitledSingle = %v", p)
	}
	if p := props["titledSingle"]; p["type"] != "string" || !titled(p["oneOf"]) || has(p, "enum") {
		t.Errorf("titledSingle = %v", p)
	}
	if p := props["legacyEnum"]; p["type"] != "string" || len(asSlice(p["enum"])) == 0 || len(asSlice(p["enumNames"])) != len(asSlice(p["enum"])) {
		t.Errorf("legacyEnum = %v", p)
	}
	if p := props["untitledMulti"]; p["type"] != "array" {
		t.Errorf("untitledMulti = %v", p)
	} else if items, _ := p["items"].(map[string]any); items["type"] != "string" || !has(items, "enum") || has(items, "anyOf") {
		t.Errorf("untitledMulti items = %v", items)
	}
	if p := props["titledMulti"]; p["type"] != "array" {
		t.Errorf("titledMulti = %v", p)
	} else if items, _ := p["items"].(map[string]any); !titled(items["anyOf"]) || has(items, "enum") {
		t.Errorf("titledMulti items = %v", items)
	}
}

func asSlice(v any) []any { s, _ := v.([]any); return s }

// A client without elicitation gets an isError result.
func TestConformanceElicitationWithoutCapability(t *testing.T) {
	cs := connectFixtures(t, nil)
	for _, tool := range []string{"test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums"} {
		if res := callFixture(t, cs, tool, nil); !res.IsError {
			t.Errorf("%s without elicitation = %+v", tool, res)
		}
	}
}

// resources-list, -read-text, -read-binary, -templates-read, -subscribe, -unsubscribe
func TestConformanceResources(t *testing.T) {
	cs := connectFixtures(t, nil)
	ctx := context.Background()
	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range list.Resources {
		if r.URI == "" || r.Name == "" || r.Description == "" {
			t.Errorf("resource %+v lacks a uri, name or description", r)
		}
		uris = append(uris, r.URI)
	}
	for _, want := range []string{"test://static-text", "test://static-binary", "test://watched-resource"} {
		if !slices.Contains(uris, want) {
			t.Errorf("resources/list lacks %s: %v", want, uris)
		}
	}

	text, err := cs.ReadResource(ctx, "test://static-text")
	if err != nil || len(text.Contents) != 1 {
		t.Fatalf("static-text: %+v %v", text, err)
	}
	if c := text.Contents[0]; c.URI != "test://static-text" || c.MimeType != "text/plain" || c.Text != "This is the content of the static text resource." {
		t.Errorf("static-text = %+v", c)
	}

	bin, err := cs.ReadResource(ctx, "test://static-binary")
	if err != nil || len(bin.Contents) != 1 {
		t.Fatalf("static-binary: %+v %v", bin, err)
	}
	if c := bin.Contents[0]; c.URI != "test://static-binary" || c.MimeType != "image/png" || len(c.Blob) == 0 {
		t.Errorf("static-binary = %+v", c)
	}
	assertPNG(t, protocol.NewImageContent(bin.Contents[0].Blob, "image/png"))

	tmpl, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || !slices.ContainsFunc(tmpl.ResourceTemplates, func(rt protocol.ResourceTemplate) bool { return rt.URITemplate == "test://template/{id}/data" }) {
		t.Errorf("resources/templates/list = %+v %v", tmpl, err)
	}
	data, err := cs.ReadResource(ctx, "test://template/123/data")
	if err != nil || len(data.Contents) != 1 {
		t.Fatalf("template read: %+v %v", data, err)
	}
	var decoded struct {
		ID           string `json:"id"`
		TemplateTest bool   `json:"templateTest"`
		Data         string `json:"data"`
	}
	if c := data.Contents[0]; c.URI != "test://template/123/data" || c.MimeType != "application/json" || json.Unmarshal([]byte(c.Text), &decoded) != nil ||
		decoded.ID != "123" || !decoded.TemplateTest || decoded.Data != "Data for ID: 123" {
		t.Errorf("template read = %+v", c)
	}

	if err := cs.Subscribe(ctx, &protocol.SubscribeParams{URI: "test://watched-resource"}); err != nil {
		t.Errorf("subscribe: %v", err)
	}
	if err := cs.Unsubscribe(ctx, &protocol.UnsubscribeParams{URI: "test://watched-resource"}); err != nil {
		t.Errorf("unsubscribe: %v", err)
	}
	watched, err := cs.ReadResource(ctx, "test://watched-resource")
	if err != nil || watched.Contents[0].Text != "Watched resource content" {
		t.Errorf("watched resource: %+v %v", watched, err)
	}
}

// prompts-list, -get-simple, -get-with-args, -get-embedded-resource, -get-with-image
func TestConformancePrompts(t *testing.T) {
	cs := connectFixtures(t, nil)
	ctx := context.Background()
	list, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range list.Prompts {
		if p.Description == "" {
			t.Errorf("prompt %s has no description", p.Name)
		}
		names = append(names, p.Name)
	}
	slices.Sort(names)
	if want := []string{"test_input_required_result_prompt", "test_prompt_with_arguments", "test_prompt_with_embedded_resource", "test_prompt_with_image", "test_simple_prompt"}; !slices.Equal(names, want) {
		t.Errorf("prompts = %v, want %v", names, want)
	}

	get := func(name string, args map[string]string) []protocol.PromptMessage {
		t.Helper()
		res, err := cs.GetPrompt(ctx, name, args)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, m := range res.Messages {
			if m.Role != protocol.RoleUser {
				t.Errorf("%s message %d has role %q", name, i, m.Role)
			}
		}
		return res.Messages
	}
	if m := get("test_simple_prompt", nil); len(m) != 1 || m[0].Content.Text != "This is a simple prompt for testing." {
		t.Errorf("test_simple_prompt = %+v", m)
	}
	if m := get("test_prompt_with_arguments", map[string]string{"arg1": "testValue1", "arg2": "testValue2"}); len(m) != 1 ||
		m[0].Content.Text != "Prompt with arguments: arg1='testValue1', arg2='testValue2'" {
		t.Errorf("test_prompt_with_arguments = %+v", m)
	}
	_, err = cs.GetPrompt(ctx, "test_prompt_with_arguments", map[string]string{"arg1": "x"})
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != mcp.CodeInvalidParams {
		t.Errorf("missing arg2: error %v, want invalid params", err)
	}
	m := get("test_prompt_with_embedded_resource", map[string]string{"resourceUri": "test://example-resource"})
	if len(m) != 2 || m[0].Content.Type != "resource" || m[0].Content.Resource.URI != "test://example-resource" ||
		m[0].Content.Resource.Text == "" || m[1].Content.Type != "text" {
		t.Errorf("test_prompt_with_embedded_resource = %+v", m)
	}
	m = get("test_prompt_with_image", nil)
	if len(m) != 2 || m[1].Content.Type != "text" {
		t.Fatalf("test_prompt_with_image = %+v", m)
	}
	assertPNG(t, m[0].Content)
}

// completion-complete
func TestConformanceCompletion(t *testing.T) {
	cs := connectFixtures(t, nil)
	complete := func(ref protocol.CompleteReference, arg, value string) []string {
		t.Helper()
		res, err := cs.Complete(context.Background(), &protocol.CompleteParams{Ref: ref, Argument: protocol.CompleteArgument{Name: arg, Value: value}})
		if err != nil {
			t.Fatalf("complete %s=%q: %v", arg, value, err)
		}
		if res.Completion.Values == nil {
			t.Fatalf("complete %s=%q: values is null, want an array", arg, value)
		}
		return res.Completion.Values
	}
	prompt := protocol.CompleteReference{Type: protocol.RefTypePrompt, Name: "test_prompt_with_arguments"}
	if got := complete(prompt, "arg1", "par"); !slices.Equal(got, []string{"paris", "park", "party"}) {
		t.Errorf("arg1 'par' = %v", got)
	}
	if got := complete(prompt, "arg1", "test"); !slices.Equal(got, []string{"test", "testValue1"}) {
		t.Errorf("arg1 'test' = %v", got)
	}
	if got := complete(prompt, "arg2", "zzz"); len(got) != 0 {
		t.Errorf("arg2 'zzz' = %v, want none", got)
	}
	tmpl := protocol.CompleteReference{Type: protocol.RefTypeResource, URI: "test://template/{id}/data"}
	if got := complete(tmpl, "id", "1"); !slices.Equal(got, []string{"1", "123"}) {
		t.Errorf("template id '1' = %v", got)
	}
}
