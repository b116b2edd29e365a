package host

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
)

// SamplingOptions configure a SamplingHandler.
type SamplingOptions struct {
	// Approve, when set, is asked before each request reaches the model;
	// false refuses it (the server gets an error). Nil approves every request.
	Approve func(ctx context.Context, cs *mcp.ClientSession, p *protocol.CreateMessageParams) (bool, error)
	// OnResponse, when set, sees each answer (to count its tokens, say).
	OnResponse func(*llm.Response)
}

// CodeSamplingRefused is the JSON-RPC error code of a sampling request the
// user refused: the one the specification's example uses.
const CodeSamplingRefused = -1

// SamplingHandler returns a handler for mcp.ClientOptions.CreateMessageHandler
// that answers servers' sampling/createMessage requests with model: the
// messages (text, images, audio, and since 2025-11-25 tool_use and
// tool_result blocks), system prompt, maxTokens, temperature, stop sequences,
// and tools with their tool choice are passed on; the answer comes back as
// text and tool_use blocks with the model's name and the stop reason. Set
// ClientOptions.SamplingWithTools to let servers send tools.
func SamplingHandler(p llm.Provider, model string, opts *SamplingOptions) func(context.Context, *mcp.ClientSession, *protocol.CreateMessageParams) (*protocol.CreateMessageResult, error) {
	var o SamplingOptions
	if opts != nil {
		o = *opts
	}
	return func(ctx context.Context, cs *mcp.ClientSession, params *protocol.CreateMessageParams) (*protocol.CreateMessageResult, error) {
		if o.Approve != nil {
			ok, err := o.Approve(ctx, cs, params)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, jsonrpc.NewError(CodeSamplingRefused, "the user refused the sampling request")
			}
		}
		req, names, err := samplingRequest(model, params)
		if err != nil {
			return nil, jsonrpc.NewError(jsonrpc.CodeInvalidParams, "%s", err.Error())
		}
		resp, err := llm.Generate(ctx, p, req, nil)
		if err != nil {
			return nil, fmt.Errorf("host: sampling: %w", err)
		}
		if o.OnResponse != nil {
			o.OnResponse(resp)
		}
		return samplingResult(resp, model, names), nil
	}
}

// samplingRequest converts a sampling request. names maps the model's tool
// names back to the server's.
func samplingRequest(model string, p *protocol.CreateMessageParams) (*llm.Request, map[string]string, error) {
	req := &llm.Request{Model: model, System: p.SystemPrompt, MaxTokens: int(p.MaxTokens), Temperature: p.Temperature,
		StopSequences: p.StopSequences}
	toModel := map[string]string{}
	names := map[string]string{}
	if len(p.Tools) > 0 {
		orig := make([]string, len(p.Tools))
		for i, t := range p.Tools {
			orig[i] = t.Name
		}
		for i, n := range llm.ModelToolNames(orig) {
			toModel[orig[i]] = n
			names[n] = orig[i]
			req.Tools = append(req.Tools, llm.ToolFromMCP(&p.Tools[i], n))
		}
		if p.ToolChoice != nil {
			req.ToolChoice = llm.ToolChoice(p.ToolChoice.Mode)
		}
	}
	for i, m := range p.Messages {
		msg := llm.Message{Role: llm.Role(m.Role)}
		if msg.Role != llm.RoleUser && msg.Role != llm.RoleAssistant {
			return nil, nil, fmt.Errorf("message %d: unknown role %q", i, m.Role)
		}
		for j := range m.Content {
			part, err := samplingPart(&m.Content[j], toModel)
			if err != nil {
				return nil, nil, fmt.Errorf("message %d: %w", i, err)
			}
			msg.Parts = append(msg.Parts, part)
		}
		req.Messages = append(req.Messages, msg)
	}
	return req, names, nil
}

// samplingPart converts one block of a sampling message.
func samplingPart(c *protocol.Content, toModel map[string]string) (llm.Part, error) {
	switch c.Type {
	case protocol.ContentTypeText:
		return llm.Part{Type: llm.PartText, Text: c.Text}, nil
	case protocol.ContentTypeImage:
		return llm.Part{Type: llm.PartImage, MimeType: c.MimeType, Data: c.Data}, nil
	case protocol.ContentTypeAudio:
		return llm.Part{Type: llm.PartAudio, MimeType: c.MimeType, Data: c.Data}, nil
	case protocol.ContentTypeToolUse:
		name := c.Name
		if n, ok := toModel[name]; ok {
			name = n
		}
		return llm.Part{Type: llm.PartToolCall, ToolCall: &llm.ToolCall{ID: c.ID, Name: name, Arguments: string(c.Input)}}, nil
	case protocol.ContentTypeToolResult:
		tr := llm.ToolResultFromMCP(c.ToolUseID, "", &protocol.CallToolResult{Content: c.Content, StructuredContent: c.StructuredContent, IsError: c.IsError})
		return llm.Part{Type: llm.PartToolResult, ToolResult: tr}, nil
	}
	return llm.Part{}, fmt.Errorf("a %q block cannot be sampled", c.Type)
}

// samplingResult converts the model's answer.
func samplingResult(resp *llm.Response, model string, names map[string]string) *protocol.CreateMessageResult {
	res := &protocol.CreateMessageResult{Role: protocol.RoleAssistant, Model: resp.Model}
	if res.Model == "" {
		res.Model = model
	}
	for _, p := range resp.Message.Parts {
		switch p.Type {
		case llm.PartText:
			res.Content = append(res.Content, protocol.NewTextContent(p.Text))
		case llm.PartToolCall:
			name := p.ToolCall.Name
			if n, ok := names[name]; ok {
				name = n
			}
			args, problem := checkArguments(p.ToolCall.Arguments)
			if problem != "" {
				args = json.RawMessage("{}")
			}
			res.Content = append(res.Content, protocol.NewToolUseContent(p.ToolCall.ID, name, args))
		}
	}
	if len(res.Content) == 0 {
		res.Content = protocol.SamplingContent{protocol.NewTextContent("")}
	}
	switch resp.StopReason {
	case llm.StopEndTurn:
		res.StopReason = protocol.StopReasonEndTurn
	case llm.StopToolUse:
		res.StopReason = protocol.StopReasonToolUse
	case llm.StopMaxTokens:
		res.StopReason = protocol.StopReasonMaxTokens
	case llm.StopSequence:
		res.StopReason = protocol.StopReasonStopSequence
	default:
		res.StopReason = string(resp.StopReason)
	}
	return res
}
