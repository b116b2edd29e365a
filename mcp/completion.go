package mcp

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpkit/mcpkit/protocol"
)

// CompleteRequest is a completion/complete as a completer sees it.
type CompleteRequest struct {
	Request
	Params *protocol.CompleteParams
}

// CompleteFunc suggests values for one prompt argument or template variable, given
// what the user typed so far (req.Params.Argument.Value) and, from 2025-06-18, the
// arguments already chosen (req.Params.Context). The server sends at most 100 values
// and reports how many there were in all.
type CompleteFunc func(ctx context.Context, req *CompleteRequest) ([]string, error)

type completionKey struct {
	refType string // "ref/prompt" or "ref/resource"
	ref     string // prompt name or URI template
	arg     string
}

// AddPromptCompletion registers a completer for argument arg of prompt name.
func (s *Server) AddPromptCompletion(name, arg string, f CompleteFunc) {
	s.addCompletion(completionKey{protocol.RefTypePrompt, name, arg}, f)
}

// AddTemplateCompletion registers a completer for variable v of the resource template
// uriTemplate.
func (s *Server) AddTemplateCompletion(uriTemplate, v string, f CompleteFunc) {
	s.addCompletion(completionKey{protocol.RefTypeResource, uriTemplate, v}, f)
}

func (s *Server) addCompletion(k completionKey, f CompleteFunc) {
	s.mu.Lock()
	s.completions[k] = f
	s.mu.Unlock()
}

// maxCompletionValues is the specification's cap on values in one completion result.
const maxCompletionValues = 100

func complete(ctx context.Context, r *Request, raw json.RawMessage) (any, error) {
	var p protocol.CompleteParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	k := completionKey{refType: p.Ref.Type, arg: p.Argument.Name}
	switch p.Ref.Type {
	case protocol.RefTypePrompt:
		k.ref = p.Ref.Name
	case protocol.RefTypeResource:
		k.ref = p.Ref.URI
	default:
		return nil, errorf(CodeInvalidParams, "invalid params: unknown reference type %q", p.Ref.Type)
	}
	s := r.server()
	s.mu.RLock()
	f, ok := s.completions[k]
	var known bool
	if k.refType == protocol.RefTypePrompt {
		_, known = s.prompts.get(k.ref)
	} else {
		_, known = s.templates.get(k.ref)
	}
	s.mu.RUnlock()
	if !known {
		return nil, errorf(CodeInvalidParams, "invalid params: no %s named %q", p.Ref.Type, k.ref)
	}
	res := &protocol.CompleteResult{Completion: protocol.Completion{Values: []string{}}}
	if !ok {
		return res, nil // nothing to suggest for this argument
	}
	r.Meta = p.Meta
	values, err := f(ctx, &CompleteRequest{Request: *r, Params: &p})
	if err != nil {
		return nil, fmt.Errorf("completing %s: %w", p.Argument.Name, err)
	}
	total := len(values)
	if total > maxCompletionValues {
		values = values[:maxCompletionValues]
		res.Completion.HasMore = true
	}
	if values != nil {
		res.Completion.Values = values
	}
	res.Completion.Total = &total
	return res, nil
}
