package mcp

import (
	"context"
	"fmt"

	"github.com/mcpkit/mcpkit/protocol"
)

// Request is what every feature handler (tool, resource, prompt, completion) gets
// besides its own params: who is asking, and the means to talk back to them while
// the request runs — progress, log messages, and requests to the client for
// sampling, elicitation and roots.
type Request struct {
	// Session is the client session the request arrived on.
	Session *ServerSession
	// Meta is the request's _meta object (may be nil).
	Meta protocol.Meta
}

// ReportProgress sends notifications/progress for this request, if the client asked
// for progress (by sending a progressToken); otherwise it does nothing. total and
// message may be zero values when unknown.
func (r *Request) ReportProgress(ctx context.Context, progress, total float64, message string) error {
	token, ok := r.Meta.ProgressToken()
	if !ok || r.Session == nil {
		return nil
	}
	p := &protocol.ProgressParams{ProgressToken: token, Progress: progress, Total: total}
	if protocol.HasProgressMessage(r.Session.ProtocolVersion()) {
		p.Message = message
	}
	return r.Session.notify(ctx, protocol.NotificationProgress, p)
}

// Log sends a log message to the client if level is at or above the level the
// client asked for with logging/setLevel. Until the client asks, nothing is sent.
func (r *Request) Log(ctx context.Context, level protocol.LoggingLevel, logger string, data any) error {
	if r.Session == nil {
		return nil
	}
	return r.Session.Log(ctx, level, logger, data)
}

// CreateMessage asks the client to sample from its language model. It fails with
// ErrCapabilityNotSupported when the client did not declare sampling (or, when the
// params carry tools, sampling with tools).
func (r *Request) CreateMessage(ctx context.Context, p *protocol.CreateMessageParams) (*protocol.CreateMessageResult, error) {
	return r.Session.CreateMessage(ctx, p)
}

// Elicit asks the client to collect input from its user, with a form or (2025-11-25)
// by sending the user to a URL. It fails with ErrCapabilityNotSupported when the client
// did not declare the elicitation mode.
func (r *Request) Elicit(ctx context.Context, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
	return r.Session.Elicit(ctx, p)
}

// ListRoots asks the client for its roots. It fails with ErrCapabilityNotSupported
// when the client did not declare roots.
func (r *Request) ListRoots(ctx context.Context) (*protocol.ListRootsResult, error) {
	return r.Session.ListRoots(ctx)
}

// CreateMessage asks the client to sample from its language model.
func (ss *ServerSession) CreateMessage(ctx context.Context, p *protocol.CreateMessageParams) (*protocol.CreateMessageResult, error) {
	caps := ss.ClientCapabilities()
	if caps.Sampling == nil {
		return nil, fmt.Errorf("sampling/createMessage: %w (sampling)", ErrCapabilityNotSupported)
	}
	if len(p.Tools) > 0 && caps.Sampling.Tools == nil {
		return nil, fmt.Errorf("sampling/createMessage with tools: %w (sampling.tools)", ErrCapabilityNotSupported)
	}
	var res protocol.CreateMessageResult
	if err := ss.call(ctx, protocol.MethodSamplingCreateMessage, p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Elicit asks the client to collect input from its user.
func (ss *ServerSession) Elicit(ctx context.Context, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
	caps := ss.ClientCapabilities().Elicitation
	if caps == nil || !protocol.HasElicitation(ss.ProtocolVersion()) {
		return nil, fmt.Errorf("elicitation/create: %w (elicitation)", ErrCapabilityNotSupported)
	}
	if p.Mode == protocol.ElicitModeURL {
		if caps.URL == nil || !protocol.HasURLElicitation(ss.ProtocolVersion()) {
			return nil, fmt.Errorf("elicitation/create in url mode: %w (elicitation.url)", ErrCapabilityNotSupported)
		}
	} else if caps.Form == nil && caps.URL != nil {
		// An empty elicitation capability means form mode; one that lists only url does not.
		return nil, fmt.Errorf("elicitation/create in form mode: %w (elicitation.form)", ErrCapabilityNotSupported)
	}
	var res protocol.ElicitResult
	if err := ss.call(ctx, protocol.MethodElicitationCreate, p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// ListRoots asks the client for its roots.
func (ss *ServerSession) ListRoots(ctx context.Context) (*protocol.ListRootsResult, error) {
	if ss.ClientCapabilities().Roots == nil {
		return nil, fmt.Errorf("roots/list: %w (roots)", ErrCapabilityNotSupported)
	}
	var res protocol.ListRootsResult
	if err := ss.call(ctx, protocol.MethodRootsList, nil, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Log sends notifications/message to the client if level is at or above the level
// the client set with logging/setLevel; until it sets one, nothing is sent.
func (ss *ServerSession) Log(ctx context.Context, level protocol.LoggingLevel, logger string, data any) error {
	ss.mu.Lock()
	min := ss.logLevel
	ss.mu.Unlock()
	if min == "" || level.Severity() < min.Severity() {
		return nil
	}
	return ss.notify(ctx, protocol.NotificationMessage, &protocol.LoggingMessageParams{Level: level, Logger: logger, Data: data})
}
