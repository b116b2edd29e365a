package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpkit/mcpkit/protocol"
)

// PromptRequest is a prompts/get as a prompt handler sees it. Required arguments
// have already been checked.
type PromptRequest struct {
	Request
	Params *protocol.GetPromptParams
}

// PromptHandler renders a prompt.
type PromptHandler func(ctx context.Context, req *PromptRequest) (*protocol.GetPromptResult, error)

type serverPrompt struct {
	prompt  protocol.Prompt
	handler PromptHandler
}

// AddPrompt registers a prompt. Registering a name again replaces it.
func (s *Server) AddPrompt(p *protocol.Prompt, h PromptHandler) error {
	if p.Name == "" {
		return fmt.Errorf("mcp: a prompt needs a name")
	}
	s.mu.Lock()
	s.prompts.add(p.Name, &serverPrompt{prompt: *p, handler: h})
	s.mu.Unlock()
	s.notifyAll(protocol.NotificationPromptsListChanged, nil)
	return nil
}

// RemovePrompts unregisters prompts by name.
func (s *Server) RemovePrompts(names ...string) {
	s.mu.Lock()
	removed := false
	for _, n := range names {
		removed = s.prompts.remove(n) || removed
	}
	s.mu.Unlock()
	if removed {
		s.notifyAll(protocol.NotificationPromptsListChanged, nil)
	}
}

func listPrompts(ctx context.Context, r *Request, raw json.RawMessage) (any, error) {
	v := r.ProtocolVersion()
	prompts, next, err := listPage(ctx, r, raw, FeaturePrompt, &r.server().prompts, func(sp *serverPrompt) protocol.Prompt { return *sp.prompt.ForVersion(v) })
	if err != nil {
		return nil, err
	}
	return &protocol.ListPromptsResult{Prompts: prompts, NextCursor: next}, nil
}

func getPrompt(ctx context.Context, r *Request, raw json.RawMessage) (any, error) {
	var p protocol.GetPromptParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	s := r.server()
	s.mu.RLock()
	sp, ok := s.prompts.get(p.Name)
	s.mu.RUnlock()
	if !ok {
		return nil, errorf(CodeInvalidParams, "Unknown prompt: '%s'", p.Name)
	}
	if err := s.hidden(ctx, r, FeaturePrompt, p.Name); err != nil {
		return nil, err
	}
	for _, a := range sp.prompt.Arguments {
		if _, given := p.Arguments[a.Name]; a.Required && !given {
			return nil, errorf(CodeInvalidParams, "invalid params: prompt %q requires argument %q", p.Name, a.Name)
		}
	}
	r.Meta = p.Meta
	if r.stateless != nil {
		args, err := json.Marshal(p.Arguments)
		if err != nil {
			return nil, errorf(CodeInvalidParams, "invalid params: %v", err)
		}
		r.bind(ctx, p.Name, args, p.RequestState, p.InputResponses)
	}
	res, err := sp.handler(ctx, &PromptRequest{Request: *r, Params: &p})
	if err != nil {
		return nil, err
	}
	if res == nil {
		res = &protocol.GetPromptResult{}
	}
	return res.ForVersion(r.ProtocolVersion()), nil
}
