package demo

// The fixtures of the 2026-07-28 server scenarios of the official conformance suite
// (@modelcontextprotocol/conformance 0.2.0-alpha.12, `--requirements 2026-07-28`):
// the input-required round trips of SEP-2322, the diagnostic tools of
// server-stateless (SEP-2575) and a tool with an x-mcp-header parameter (SEP-2243).
// Names, input keys and texts are the suite's; the code is ours.
//
// Every fixture is one handler for both protocol eras. The input it needs comes from
// Request.Input (or Elicit, CreateMessage), which sends real requests to a client
// that began with initialize, and answers a stateless client with an
// InputRequiredResult whose sealed requestState carries the answers so far; the
// retry runs the handler again from the start with them. So the handlers below ask
// first and act after, and never keep state of their own between rounds.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// The input keys the scenarios look for in inputRequests (and answer under).
const (
	keyUserName    = "user_name"
	keyCapital     = "capital_question"
	keyClientRoots = "client_roots"
	keyConfirm     = "confirm"
	keyGreeting    = "greeting"
	keyStep1       = "step1"
	keyStep2       = "step2"
	keyUserContext = "user_context"
)

// Forms the fixtures elicit: flat object schemas, one field each.
var (
	nameForm    = json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)
	confirmForm = json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`)
	colorForm   = json.RawMessage(`{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}`)
	contextForm = json.RawMessage(`{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}`)
)

// askForm is an elicitation input request for a form.
func askForm(message string, form json.RawMessage) protocol.InputRequest {
	return protocol.NewElicitInputRequest(&protocol.ElicitParams{Message: message, RequestedSchema: form})
}

// askModel is a sampling input request: one user message.
func askModel(text string, maxTokens int64) protocol.InputRequest {
	return protocol.NewCreateMessageInputRequest(&protocol.CreateMessageParams{
		Messages:  []protocol.SamplingMessage{{Role: protocol.RoleUser, Content: protocol.SamplingContent{protocol.NewTextContent(text)}}},
		MaxTokens: maxTokens,
	})
}

// askRoots is a roots/list input request.
func askRoots() protocol.InputRequest { return protocol.NewListRootsInputRequest() }

// formField returns field of the form answered under key, or why there is none
// (the user declined or cancelled).
func formField(got protocol.InputResponses, key, field string) (string, error) {
	var res protocol.ElicitResult
	if _, err := got.Decode(key, &res); err != nil {
		return "", err
	}
	if res.Action != protocol.ElicitActionAccept {
		return "", fmt.Errorf("the user chose to %s the %q form", res.Action, key)
	}
	v, ok := res.Content[field]
	if !ok {
		return "", fmt.Errorf("the %q form came back without %q", key, field)
	}
	return fmt.Sprint(v), nil
}

// sampledText returns the text the model answered under key.
func sampledText(got protocol.InputResponses, key string) (string, error) {
	var res protocol.CreateMessageResult
	if _, err := got.Decode(key, &res); err != nil {
		return "", err
	}
	return textOf(res.Content), nil
}

// rootsText lists the roots answered under key.
func rootsText(got protocol.InputResponses, key string) (string, error) {
	var res protocol.ListRootsResult
	if _, err := got.Decode(key, &res); err != nil {
		return "", err
	}
	if len(res.Roots) == 0 {
		return "no roots", nil
	}
	parts := make([]string, len(res.Roots))
	for i, r := range res.Roots {
		parts[i] = r.URI
		if r.Name != "" {
			parts[i] += " (" + r.Name + ")"
		}
	}
	return strings.Join(parts, ", "), nil
}

// addConformanceStatelessFixtures registers the fixtures of the 2026-07-28 scenarios.
func addConformanceStatelessFixtures(s *mcp.Server) error {
	return errors.Join(
		addInputRequiredTools(s),
		addInputRequiredPrompt(s),
		addStatelessDiagnostics(s),
		addListChangeTriggers(s),
		addParamHeaderTool(s),
	)
}

// addInputRequiredTools adds the tools of the input-required-result-* scenarios.
func addInputRequiredTools(s *mcp.Server) error {
	tool := func(name, description string, h mcp.TypedToolHandler[noArgs, string]) error {
		return mcp.AddTool(s, &protocol.Tool{Name: name, Description: description}, h)
	}
	return errors.Join(
		// input-required-result-basic-elicitation (and -result-type,
		// -missing-input-response, -ignore-extra-params, -validate-input).
		tool("test_input_required_result_elicitation", "Asks the user's name, then greets them (conformance: input-required-result-basic-elicitation).",
			func(ctx context.Context, req *mcp.ToolRequest, _ noArgs) (string, error) {
				got, err := req.Input(ctx, map[string]protocol.InputRequest{keyUserName: askForm("What is your name?", nameForm)})
				if err != nil {
					return "", err
				}
				name, err := formField(got, keyUserName, "name")
				if err != nil {
					return "", err
				}
				return "Hello, " + name + "!", nil
			}),
		// input-required-result-basic-sampling
		tool("test_input_required_result_sampling", "Asks the client's model a question and returns its answer (conformance: input-required-result-basic-sampling).",
			func(ctx context.Context, req *mcp.ToolRequest, _ noArgs) (string, error) {
				got, err := req.Input(ctx, map[string]protocol.InputRequest{keyCapital: askModel("What is the capital of France?", 100)})
				if err != nil {
					return "", err
				}
				text, err := sampledText(got, keyCapital)
				if err != nil {
					return "", err
				}
				return "LLM response: " + text, nil
			}),
		// input-required-result-basic-list-roots
		tool("test_input_required_result_list_roots", "Asks the client for its roots and lists them (conformance: input-required-result-basic-list-roots).",
			func(ctx context.Context, req *mcp.ToolRequest, _ noArgs) (string, error) {
				got, err := req.Input(ctx, map[string]protocol.InputRequest{keyClientRoots: askRoots()})
				if err != nil {
					return "", err
				}
				roots, err := rootsText(got, keyClientRoots)
				if err != nil {
					return "", err
				}
				return "Client roots: " + roots, nil
			}),
		// input-required-result-request-state
		tool("test_input_required_result_request_state", "Asks for a confirmation and says whether the requestState came back (conformance: input-required-result-request-state).",
			func(ctx context.Context, req *mcp.ToolRequest, _ noArgs) (string, error) {
				return confirm(ctx, req)
			}),
		// input-required-result-tampered-state: the SDK rejects a requestState
		// that fails its integrity check before this handler runs again.
		tool("test_input_required_result_tampered_state", "Asks for a confirmation; a tampered requestState is refused (conformance: input-required-result-tampered-state).",
			func(ctx context.Context, req *mcp.ToolRequest, _ noArgs) (string, error) {
				return confirm(ctx, req)
			}),
		// input-required-result-multiple-input-requests
		tool("test_input_required_result_multiple_inputs", "Asks for a name, a greeting from the model and the roots, all at once (conformance: input-required-result-multiple-input-requests).",
			func(ctx context.Context, req *mcp.ToolRequest, _ noArgs) (string, error) {
				got, err := req.Input(ctx, map[string]protocol.InputRequest{
					keyUserName:    askForm("What is your name?", nameForm),
					keyGreeting:    askModel("Generate a greeting", 50),
					keyClientRoots: askRoots(),
				})
				if err != nil {
					return "", err
				}
				name, err := formField(got, keyUserName, "name")
				if err != nil {
					return "", err
				}
				greeting, err := sampledText(got, keyGreeting)
				if err != nil {
					return "", err
				}
				roots, err := rootsText(got, keyClientRoots)
				if err != nil {
					return "", err
				}
				return fmt.Sprintf("%s %s! Your roots: %s", greeting, name, roots), nil
			}),
		// input-required-result-multi-round: the second question is asked only
		// once the first is answered.
		tool("test_input_required_result_multi_round", "Asks a name, then a favourite colour, in two rounds (conformance: input-required-result-multi-round).",
			func(ctx context.Context, req *mcp.ToolRequest, _ noArgs) (string, error) {
				got, err := req.Input(ctx, map[string]protocol.InputRequest{keyStep1: askForm("Step 1: What is your name?", nameForm)})
				if err != nil {
					return "", err
				}
				name, err := formField(got, keyStep1, "name")
				if err != nil {
					return "", err
				}
				got, err = req.Input(ctx, map[string]protocol.InputRequest{keyStep2: askForm("Step 2: What is your favorite color?", colorForm)})
				if err != nil {
					return "", err
				}
				color, err := formField(got, keyStep2, "color")
				if err != nil {
					return "", err
				}
				return fmt.Sprintf("%s's favorite color is %s.", name, color), nil
			}),
		// input-required-result-capability-check
		tool("test_input_required_result_capabilities", "Asks only for what the client declared it can answer: sampling, elicitation, roots (conformance: input-required-result-capability-check).",
			askWhatTheClientCan),
	)
}

// confirm asks for a yes/no confirmation. Its text says "state-ok" when the answer
// came back through a verified requestState (stateless era) or on a session (legacy
// era, where nothing needs carrying).
func confirm(ctx context.Context, req *mcp.ToolRequest) (string, error) {
	got, err := req.Input(ctx, map[string]protocol.InputRequest{keyConfirm: askForm("Please confirm", confirmForm)})
	if err != nil {
		return "", err
	}
	ok, err := formField(got, keyConfirm, "ok")
	if err != nil {
		return "", err
	}
	if req.IsStateless() && req.Params.RequestState == "" {
		return "confirmed: " + ok + " (answered without the requestState)", nil
	}
	return "state-ok: confirmed " + ok, nil
}

// askWhatTheClientCan is test_input_required_result_capabilities: one input request
// per capability the client declared, none for the others.
func askWhatTheClientCan(ctx context.Context, req *mcp.ToolRequest, _ noArgs) (string, error) {
	caps := req.ClientCapabilities()
	reqs := map[string]protocol.InputRequest{}
	if caps.Sampling != nil {
		reqs[keyCapital] = askModel("What is the capital of France?", 100)
	}
	if e := caps.Elicitation; e != nil && (e.Form != nil || e.URL == nil) { // {} means form mode
		reqs[keyUserName] = askForm("What is your name?", nameForm)
	}
	if caps.Roots != nil {
		reqs[keyClientRoots] = askRoots()
	}
	if len(reqs) == 0 {
		return "The client declared none of sampling, elicitation (form) and roots: nothing to ask.", nil
	}
	got, err := req.Input(ctx, reqs)
	if err != nil {
		return "", err
	}
	var parts []string
	if _, ok := reqs[keyCapital]; ok {
		text, err := sampledText(got, keyCapital)
		if err != nil {
			return "", err
		}
		parts = append(parts, "model: "+text)
	}
	if _, ok := reqs[keyUserName]; ok {
		name, err := formField(got, keyUserName, "name")
		if err != nil {
			return "", err
		}
		parts = append(parts, "name: "+name)
	}
	if _, ok := reqs[keyClientRoots]; ok {
		roots, err := rootsText(got, keyClientRoots)
		if err != nil {
			return "", err
		}
		parts = append(parts, "roots: "+roots)
	}
	return strings.Join(parts, "; "), nil
}

// addInputRequiredPrompt adds test_input_required_result_prompt
// (input-required-result-non-tool-request): prompts/get may ask for input too.
func addInputRequiredPrompt(s *mcp.Server) error {
	return s.AddPrompt(&protocol.Prompt{Name: "test_input_required_result_prompt", Title: "Prompt That Asks For Context",
		Description: "Asks the user what context to use, then renders it (conformance: input-required-result-non-tool-request)"},
		func(ctx context.Context, req *mcp.PromptRequest) (*protocol.GetPromptResult, error) {
			got, err := req.Input(ctx, map[string]protocol.InputRequest{keyUserContext: askForm("What context should the prompt use?", contextForm)})
			if err != nil {
				return nil, err
			}
			var res protocol.ElicitResult
			if _, err := got.Decode(keyUserContext, &res); err != nil {
				return nil, err
			}
			text := "Answer without extra context: the user chose to " + string(res.Action) + " the form."
			if res.Action == protocol.ElicitActionAccept {
				text = fmt.Sprintf("Answer using this context: %v", res.Content["context"])
			}
			return &protocol.GetPromptResult{Description: "a prompt rendered with the user's context", Messages: []protocol.PromptMessage{
				{Role: protocol.RoleUser, Content: protocol.NewTextContent(text)},
			}}, nil
		})
}

// addStatelessDiagnostics adds the tools server-stateless calls to exercise what
// a stateless server must and must not do.
func addStatelessDiagnostics(s *mcp.Server) error {
	return errors.Join(
		// sep-2575-server-rejects-undeclared-capability: needs sampling, so a
		// client that did not declare it gets -32021 (stateless era) or an
		// isError result (legacy era).
		mcp.AddTool(s, &protocol.Tool{Name: "test_missing_capability", Description: "Needs the client's sampling capability (conformance: server-stateless, -32021 when it is not declared)."},
			func(ctx context.Context, req *mcp.ToolRequest, _ noArgs) (string, error) {
				res, err := req.CreateMessage(ctx, &protocol.CreateMessageParams{
					Messages:  []protocol.SamplingMessage{{Role: protocol.RoleUser, Content: protocol.SamplingContent{protocol.NewTextContent("Say hello")}}},
					MaxTokens: 20,
				})
				if err != nil {
					return "", err
				}
				return "LLM response: " + textOf(res.Content), nil
			}),
		// sep-2575-http-server-no-independent-requests-on-stream: reports
		// progress, then elicits; a stateless client gets the elicitation in an
		// InputRequiredResult, never as a request of its own on the stream.
		mcp.AddTool(s, &protocol.Tool{Name: "test_streaming_elicitation", Description: "Reports progress, then asks the user's name (conformance: server-stateless)."},
			func(ctx context.Context, req *mcp.ToolRequest, _ noArgs) (string, error) {
				if err := req.ReportProgress(ctx, 0, 1, "asking for a name"); err != nil {
					return "", err
				}
				res, err := req.Elicit(ctx, &protocol.ElicitParams{Message: "What is your name?", RequestedSchema: nameForm})
				if err != nil {
					return "", err
				}
				if err := req.ReportProgress(ctx, 1, 1, "answered"); err != nil {
					return "", err
				}
				if res.Action != protocol.ElicitActionAccept {
					return "the user chose to " + string(res.Action), nil
				}
				return fmt.Sprintf("Hello, %v!", res.Content["name"]), nil
			}),
		// sep-2575-server-no-log-without-loglevel: logs at four levels; a
		// stateless client hears only those at or above the logLevel its
		// request's _meta names, and nothing without one.
		mcp.AddTool(s, &protocol.Tool{Name: "test_logging_tool", Description: "Logs at debug, info, warning and error (conformance: server-stateless)."},
			func(ctx context.Context, req *mcp.ToolRequest, _ noArgs) (string, error) {
				for _, l := range []protocol.LoggingLevel{protocol.LevelDebug, protocol.LevelInfo, protocol.LevelWarning, protocol.LevelError} {
					if err := req.Log(ctx, l, "test_logging_tool", "a "+string(l)+" message"); err != nil {
						return "", fmt.Errorf("logging at %s: %w", l, err)
					}
				}
				return "Logged at debug, info, warning and error; the client hears those at or above the level it asked for.", nil
			}),
	)
}

// Names of what the list-change triggers add and remove.
const (
	dynamicToolName   = "test_dynamic_tool"
	dynamicPromptName = "test_dynamic_prompt"
)

// addListChangeTriggers adds test_trigger_tool_change and test_trigger_prompt_change
// (server-stateless, list_changed on subscriptions/listen streams): each call adds
// its dynamic tool or prompt when absent and removes it when present, so every call
// really changes the list.
func addListChangeTriggers(s *mcp.Server) error {
	var mu sync.Mutex
	toolPresent, promptPresent := false, false
	return errors.Join(
		mcp.AddTool(s, &protocol.Tool{Name: "test_trigger_tool_change", Description: "Adds or removes " + dynamicToolName + ", changing the tool list (conformance: server-stateless)."},
			func(ctx context.Context, req *mcp.ToolRequest, _ noArgs) (string, error) {
				mu.Lock()
				defer mu.Unlock()
				if toolPresent {
					s.RemoveTools(dynamicToolName)
					toolPresent = false
					return "removed " + dynamicToolName, nil
				}
				err := mcp.AddTool(s, &protocol.Tool{Name: dynamicToolName, Description: "Comes and goes with test_trigger_tool_change."},
					func(ctx context.Context, req *mcp.ToolRequest, _ noArgs) (string, error) {
						return "still here", nil
					})
				if err != nil {
					return "", err
				}
				toolPresent = true
				return "added " + dynamicToolName, nil
			}),
		mcp.AddTool(s, &protocol.Tool{Name: "test_trigger_prompt_change", Description: "Adds or removes " + dynamicPromptName + ", changing the prompt list (conformance: server-stateless)."},
			func(ctx context.Context, req *mcp.ToolRequest, _ noArgs) (string, error) {
				mu.Lock()
				defer mu.Unlock()
				if promptPresent {
					s.RemovePrompts(dynamicPromptName)
					promptPresent = false
					return "removed " + dynamicPromptName, nil
				}
				err := s.AddPrompt(&protocol.Prompt{Name: dynamicPromptName, Description: "Comes and goes with test_trigger_prompt_change."},
					func(ctx context.Context, req *mcp.PromptRequest) (*protocol.GetPromptResult, error) {
						return &protocol.GetPromptResult{Messages: []protocol.PromptMessage{
							{Role: protocol.RoleUser, Content: protocol.NewTextContent("still here")},
						}}, nil
					})
				if err != nil {
					return "", err
				}
				promptPresent = true
				return "added " + dynamicPromptName, nil
			}),
	)
}

// paramHeaderSchema declares one string parameter that clients mirror into the
// Mcp-Param-Region header of a 2026-07-28 tools/call.
var paramHeaderSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"region":{"type":"string","description":"Where to run; mirrored in the Mcp-Param-Region header","x-mcp-header":"Region"}},` +
	`"required":["region"]}`)

// addParamHeaderTool adds test_param_header (http-custom-header-server-validation,
// a pending scenario): the transport compares its Mcp-Param-Region header with
// the region argument; the tool only echoes the argument.
func addParamHeaderTool(s *mcp.Server) error {
	return s.AddRawTool(&protocol.Tool{Name: "test_param_header", Description: "Echoes its region, which clients also send as the Mcp-Param-Region header (conformance: http-custom-header-server-validation).",
		InputSchema: paramHeaderSchema},
		func(ctx context.Context, req *mcp.ToolRequest) (*protocol.CallToolResult, error) {
			var in struct {
				Region string `json:"region"`
			}
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, fmt.Errorf("decoding the arguments: %w", err)
			}
			return protocol.NewToolResultText("region: " + in.Region), nil
		})
}
