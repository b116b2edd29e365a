package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/internal/testkit"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

func resourceServer(t *testing.T) *mcp.Server {
	srv := newServer(t, nil)
	must(t, srv.AddResource(&protocol.Resource{URI: "file:///a.txt", Name: "a", MimeType: "text/plain"},
		func(ctx context.Context, req *mcp.ResourceRequest) (*protocol.ReadResourceResult, error) {
			return &protocol.ReadResourceResult{Contents: []*protocol.ResourceContents{protocol.NewTextResourceContents(req.Params.URI, "text/plain", "")}}, nil
		}))
	must(t, srv.AddResource(&protocol.Resource{URI: "file:///b.bin", Name: "b"},
		func(ctx context.Context, req *mcp.ResourceRequest) (*protocol.ReadResourceResult, error) {
			return &protocol.ReadResourceResult{Contents: []*protocol.ResourceContents{protocol.NewBlobResourceContents(req.Params.URI, "application/octet-stream", []byte{0, 1, 2})}}, nil
		}))
	must(t, srv.AddResourceTemplate(&protocol.ResourceTemplate{URITemplate: "users://{org}/{name}{?fields}", Name: "user"},
		func(ctx context.Context, req *mcp.ResourceRequest) (*protocol.ReadResourceResult, error) {
			if req.Vars["name"] == "ghost" {
				return nil, mcp.ResourceNotFound(req.Params.URI)
			}
			body := req.Vars["org"] + "/" + req.Vars["name"] + "?" + req.Vars["fields"]
			return &protocol.ReadResourceResult{Contents: []*protocol.ResourceContents{protocol.NewTextResourceContents(req.Params.URI, "text/plain", body)}}, nil
		}))
	srv.AddTemplateCompletion("users://{org}/{name}{?fields}", "name", func(ctx context.Context, req *mcp.CompleteRequest) ([]string, error) {
		if req.Params.Context != nil && req.Params.Context.Arguments["org"] == "acme" {
			return []string{"alice", "anna"}, nil
		}
		return []string{"bob"}, nil
	})
	return srv
}

func TestResourcesListAndRead(t *testing.T) {
	cs, _ := connect(t, resourceServer(t), nil)
	ctx := testkit.Context(t)
	list, err := cs.ListResources(ctx, nil)
	must(t, err)
	if len(list.Resources) != 2 || list.Resources[0].URI != "file:///a.txt" {
		t.Fatalf("resources = %+v", list.Resources)
	}
	tmpls, err := cs.ListResourceTemplates(ctx, nil)
	must(t, err)
	if len(tmpls.ResourceTemplates) != 1 {
		t.Fatalf("templates = %+v", tmpls)
	}
	res, err := cs.ReadResource(ctx, "file:///a.txt")
	must(t, err)
	if len(res.Contents) != 1 || res.Contents[0].Text != "" || res.Contents[0].Blob != nil {
		t.Errorf("empty text resource = %+v", res.Contents)
	}
	res, err = cs.ReadResource(ctx, "file:///b.bin")
	must(t, err)
	if string(res.Contents[0].Blob) != "\x00\x01\x02" {
		t.Errorf("blob = %v", res.Contents[0].Blob)
	}
	res, err = cs.ReadResource(ctx, "users://acme/alice?fields=email")
	must(t, err)
	if res.Contents[0].Text != "acme/alice?email" {
		t.Errorf("template read = %q", res.Contents[0].Text)
	}
	for _, uri := range []string{"file:///missing", "users://acme/ghost"} {
		_, err = cs.ReadResource(ctx, uri)
		var e *jsonrpc.Error
		if !errors.As(err, &e) || e.Code != protocol.CodeResourceNotFound || !strings.Contains(string(e.Data), uri) {
			t.Errorf("read %s: %v", uri, err)
		}
	}
}

func TestResourceSubscriptions(t *testing.T) {
	srv := resourceServer(t)
	updated := make(chan string, 4)
	cs, _ := connect(t, srv, &mcp.ClientOptions{ResourceUpdatedHandler: func(ctx context.Context, cs *mcp.ClientSession, p *protocol.ResourceUpdatedParams) {
		updated <- p.URI
	}})
	ctx := testkit.Context(t)
	must(t, cs.Subscribe(ctx, &protocol.SubscribeParams{URI: "file:///a.txt"}))
	srv.NotifyResourceUpdated(ctx, "file:///b.bin") // not subscribed: nothing
	srv.NotifyResourceUpdated(ctx, "file:///a.txt")
	if got := testkit.Receive(t, updated); got != "file:///a.txt" {
		t.Fatalf("updated %s", got)
	}
	must(t, cs.Unsubscribe(ctx, &protocol.UnsubscribeParams{URI: "file:///a.txt"}))
	must(t, cs.Subscribe(ctx, &protocol.SubscribeParams{URI: "file:///b.bin"}))
	srv.NotifyResourceUpdated(ctx, "file:///a.txt") // unsubscribed: nothing
	srv.NotifyResourceUpdated(ctx, "file:///b.bin")
	if got := testkit.Receive(t, updated); got != "file:///b.bin" {
		t.Fatalf("after unsubscribe got %s first", got)
	}
}

func promptServer(t *testing.T) *mcp.Server {
	srv := newServer(t, nil)
	must(t, srv.AddPrompt(&protocol.Prompt{Name: "greet", Arguments: []protocol.PromptArgument{{Name: "name", Required: true}, {Name: "style"}}},
		func(ctx context.Context, req *mcp.PromptRequest) (*protocol.GetPromptResult, error) {
			return &protocol.GetPromptResult{Messages: []protocol.PromptMessage{
				{Role: protocol.RoleUser, Content: protocol.NewTextContent("hi " + req.Params.Arguments["name"])},
				{Role: protocol.RoleUser, Content: protocol.NewImageContent([]byte{1, 2}, "image/png")},
				{Role: protocol.RoleAssistant, Content: protocol.NewEmbeddedResource(protocol.NewTextResourceContents("file:///x", "text/plain", "x"))},
			}}, nil
		}))
	srv.AddPromptCompletion("greet", "style", func(ctx context.Context, req *mcp.CompleteRequest) ([]string, error) {
		var out []string
		for i := range 150 {
			out = append(out, req.Params.Argument.Value+strings.Repeat("x", i))
		}
		return out, nil
	})
	return srv
}

func TestPrompts(t *testing.T) {
	cs, _ := connect(t, promptServer(t), nil)
	ctx := testkit.Context(t)
	list, err := cs.ListPrompts(ctx, nil)
	must(t, err)
	if len(list.Prompts) != 1 || len(list.Prompts[0].Arguments) != 2 {
		t.Fatalf("prompts = %+v", list)
	}
	res, err := cs.GetPrompt(ctx, "greet", map[string]string{"name": "Ada"})
	must(t, err)
	if len(res.Messages) != 3 || res.Messages[0].Content.Text != "hi Ada" || res.Messages[1].Content.Type != protocol.ContentTypeImage || res.Messages[2].Content.Resource == nil {
		t.Errorf("messages = %+v", res.Messages)
	}
	for _, name := range []string{"greet", "nope"} { // a missing argument; an unknown prompt
		_, err = cs.GetPrompt(ctx, name, nil)
		var e *jsonrpc.Error
		if !errors.As(err, &e) || e.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("GetPrompt(%q) = %v", name, err)
		}
	}
}

func TestCompletion(t *testing.T) {
	srv := promptServer(t)
	cs, _ := connect(t, srv, nil)
	ctx := testkit.Context(t)
	res, err := cs.Complete(ctx, &protocol.CompleteParams{Ref: protocol.CompleteReference{Type: protocol.RefTypePrompt, Name: "greet"}, Argument: protocol.CompleteArgument{Name: "style", Value: "f"}})
	must(t, err)
	if len(res.Completion.Values) != 100 || !res.Completion.HasMore || res.Completion.Total == nil || *res.Completion.Total != 150 || res.Completion.Values[0] != "f" {
		t.Errorf("completion = %+v", res.Completion)
	}
	res, err = cs.Complete(ctx, &protocol.CompleteParams{Ref: protocol.CompleteReference{Type: protocol.RefTypePrompt, Name: "greet"}, Argument: protocol.CompleteArgument{Name: "name", Value: "A"}})
	must(t, err)
	if len(res.Completion.Values) != 0 {
		t.Errorf("argument without completer = %+v", res.Completion)
	}

	rs, _ := connect(t, resourceServer(t), nil)
	ref := protocol.CompleteReference{Type: protocol.RefTypeResource, URI: "users://{org}/{name}{?fields}"}
	res, err = rs.Complete(ctx, &protocol.CompleteParams{Ref: ref, Argument: protocol.CompleteArgument{Name: "name", Value: "a"}, Context: &protocol.CompleteContext{Arguments: map[string]string{"org": "acme"}}})
	must(t, err)
	if strings.Join(res.Completion.Values, ",") != "alice,anna" {
		t.Errorf("completion with context = %+v", res.Completion)
	}
	_, err = rs.Complete(ctx, &protocol.CompleteParams{Ref: protocol.CompleteReference{Type: protocol.RefTypePrompt, Name: "missing"}, Argument: protocol.CompleteArgument{Name: "x"}})
	if err == nil {
		t.Error("completion of an unknown prompt succeeded")
	}
}

func TestLoggingFollowsSetLevel(t *testing.T) {
	srv := newServer(t, nil)
	must(t, mcp.AddTool(srv, &protocol.Tool{Name: "log"}, func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
		for _, l := range []protocol.LoggingLevel{protocol.LevelDebug, protocol.LevelInfo, protocol.LevelWarning, protocol.LevelError} {
			if err := req.Log(ctx, l, "test", string(l)); err != nil {
				return "", err
			}
		}
		return "ok", nil
	}))
	got := make(chan string, 16)
	cs, _ := connect(t, srv, &mcp.ClientOptions{LoggingMessageHandler: func(ctx context.Context, cs *mcp.ClientSession, p *protocol.LoggingMessageParams) {
		got <- string(p.Level)
	}})
	ctx := testkit.Context(t)
	_, err := cs.CallTool(ctx, "log", nil)
	must(t, err)
	if len(got) != 0 {
		t.Fatalf("%d log messages before setLevel", len(got))
	}
	must(t, cs.SetLogLevel(ctx, protocol.LevelWarning))
	_, err = cs.CallTool(ctx, "log", nil)
	must(t, err)
	// Notifications are handled in order before the result, so both are here now.
	if len(got) != 2 || <-got != "warning" || <-got != "error" {
		t.Fatalf("log levels received: %d", len(got))
	}
}

func interactiveServer(t *testing.T) *mcp.Server {
	srv := newServer(t, nil)
	must(t, mcp.AddTool(srv, &protocol.Tool{Name: "sample"}, func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
		res, err := req.CreateMessage(ctx, &protocol.CreateMessageParams{MaxTokens: 10, Messages: []protocol.SamplingMessage{
			{Role: protocol.RoleUser, Content: protocol.SamplingContent{protocol.NewTextContent("2+2?")}}}})
		if err != nil {
			return "", err
		}
		return res.Content[0].Text + " from " + res.Model, nil
	}))
	must(t, mcp.AddTool(srv, &protocol.Tool{Name: "elicit"}, func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
		res, err := req.Elicit(ctx, &protocol.ElicitParams{Message: "name?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`)})
		if err != nil {
			return "", err
		}
		return string(res.Action) + " " + res.Content["name"].(string), nil
	}))
	must(t, mcp.AddTool(srv, &protocol.Tool{Name: "roots"}, func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
		res, err := req.ListRoots(ctx)
		if err != nil {
			return "", err
		}
		var uris []string
		for _, r := range res.Roots {
			uris = append(uris, r.URI)
		}
		return strings.Join(uris, ","), nil
	}))
	return srv
}

func TestServerToClientRequests(t *testing.T) {
	cs, _ := connect(t, interactiveServer(t), &mcp.ClientOptions{
		ProtocolVersion: protocol.Version20250618,
		CreateMessageHandler: func(ctx context.Context, cs *mcp.ClientSession, p *protocol.CreateMessageParams) (*protocol.CreateMessageResult, error) {
			return &protocol.CreateMessageResult{Role: protocol.RoleAssistant, Model: "test-model", Content: protocol.SamplingContent{protocol.NewTextContent("4")}}, nil
		},
		ElicitationHandler: func(ctx context.Context, cs *mcp.ClientSession, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
			return &protocol.ElicitResult{Action: protocol.ElicitActionAccept, Content: map[string]any{"name": "Ada"}}, nil
		},
		Roots: []protocol.Root{{URI: "file:///work", Name: "work"}},
	})
	ctx := testkit.Context(t)
	for tool, want := range map[string]string{"sample": "4 from test-model", "elicit": "accept Ada", "roots": "file:///work"} {
		res, err := cs.CallTool(ctx, tool, nil)
		must(t, err)
		if res.IsError || text(t, res) != want {
			t.Errorf("%s = %+v, want %q", tool, res, want)
		}
	}
	must(t, cs.SetRoots(ctx, []protocol.Root{{URI: "file:///other"}}))
	res, err := cs.CallTool(ctx, "roots", nil)
	must(t, err)
	if text(t, res) != "file:///other" {
		t.Errorf("roots after SetRoots = %q", text(t, res))
	}
}

func TestUndeclaredCapabilitiesAreNeverUsed(t *testing.T) {
	cs, _ := connect(t, interactiveServer(t), nil) // the client declares nothing
	ctx := testkit.Context(t)
	for _, tool := range []string{"sample", "elicit", "roots"} {
		res, err := cs.CallTool(ctx, tool, nil)
		must(t, err)
		if !res.IsError || !strings.Contains(text(t, res), "did not declare") {
			t.Errorf("%s without the capability = %+v", tool, res)
		}
	}
}

func TestRootsListChangedReachesServer(t *testing.T) {
	changed := make(chan string, 1)
	srv := newServer(t, &mcp.ServerOptions{RootsListChangedHandler: func(ctx context.Context, ss *mcp.ServerSession) {
		changed <- ss.ClientInfo().Name
	}})
	cs, _ := connect(t, srv, &mcp.ClientOptions{Roots: []protocol.Root{}})
	must(t, cs.SetRoots(testkit.Context(t), []protocol.Root{{URI: "file:///a"}}))
	if got := testkit.Receive(t, changed); got != "test-client" {
		t.Fatalf("handler saw client %q", got)
	}
}

func TestClientDeclaresOnlyWhatTheVersionKnows(t *testing.T) {
	handlerOpts := func(v string) *mcp.ClientOptions {
		return &mcp.ClientOptions{
			ProtocolVersion: v, Roots: []protocol.Root{}, SamplingWithTools: true, URLElicitation: true,
			CreateMessageHandler: func(context.Context, *mcp.ClientSession, *protocol.CreateMessageParams) (*protocol.CreateMessageResult, error) {
				return nil, errors.New("unused")
			},
			ElicitationHandler: func(context.Context, *mcp.ClientSession, *protocol.ElicitParams) (*protocol.ElicitResult, error) {
				return nil, errors.New("unused")
			},
		}
	}
	srv := newServer(t, nil)
	for _, tc := range []struct {
		version                          string
		elicitation, modes, samplingTool bool
	}{
		{protocol.Version20241105, false, false, false},
		{protocol.Version20250618, true, false, false},
		{protocol.Version20251125, true, true, true},
	} {
		_, ss := connect(t, srv, handlerOpts(tc.version))
		caps := ss.ClientCapabilities()
		if (caps.Elicitation != nil) != tc.elicitation || (caps.Elicitation != nil && (caps.Elicitation.URL != nil) != tc.modes) ||
			(caps.Sampling.Tools != nil) != tc.samplingTool || caps.Roots == nil {
			t.Errorf("%s: declared %+v", tc.version, caps)
		}
	}
}

func TestURLElicitationAndSamplingToolsNeedTheirCapability(t *testing.T) {
	srv := newServer(t, nil)
	must(t, mcp.AddTool(srv, &protocol.Tool{Name: "url"}, func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
		res, err := req.Elicit(ctx, &protocol.ElicitParams{Mode: protocol.ElicitModeURL, Message: "sign in", URL: "https://example.com/auth", ElicitationID: "e1"})
		if err != nil {
			return "", err
		}
		return string(res.Action), nil
	}))
	must(t, mcp.AddTool(srv, &protocol.Tool{Name: "sample_tools"}, func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
		_, err := req.CreateMessage(ctx, &protocol.CreateMessageParams{MaxTokens: 5, Tools: []protocol.Tool{{Name: "t"}},
			Messages: []protocol.SamplingMessage{{Role: protocol.RoleUser, Content: protocol.SamplingContent{protocol.NewTextContent("x")}}}})
		if err != nil {
			return "", err
		}
		return "sampled", nil
	}))
	opts := func(capable bool) *mcp.ClientOptions {
		return &mcp.ClientOptions{
			URLElicitation: capable, SamplingWithTools: capable,
			ElicitationHandler: func(ctx context.Context, cs *mcp.ClientSession, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
				if p.Mode != protocol.ElicitModeURL || p.URL == "" {
					return nil, errors.New("not a url elicitation")
				}
				return &protocol.ElicitResult{Action: protocol.ElicitActionAccept}, nil
			},
			CreateMessageHandler: func(ctx context.Context, cs *mcp.ClientSession, p *protocol.CreateMessageParams) (*protocol.CreateMessageResult, error) {
				return &protocol.CreateMessageResult{Role: protocol.RoleAssistant, Model: "m", Content: protocol.SamplingContent{protocol.NewTextContent("ok")}}, nil
			},
		}
	}
	ctx := testkit.Context(t)
	capable, _ := connect(t, srv, opts(true))
	for tool, want := range map[string]string{"url": "accept", "sample_tools": "sampled"} {
		res, err := capable.CallTool(ctx, tool, nil)
		must(t, err)
		if res.IsError || text(t, res) != want {
			t.Errorf("%s with the capability: %+v", tool, res)
		}
	}
	limited, _ := connect(t, srv, opts(false))
	for _, tool := range []string{"url", "sample_tools"} {
		res, err := limited.CallTool(ctx, tool, nil)
		must(t, err)
		if !res.IsError || !strings.Contains(text(t, res), "did not declare") {
			t.Errorf("%s without the capability: %+v", tool, res)
		}
	}
}
