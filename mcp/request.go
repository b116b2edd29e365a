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
//
// The same handler serves both protocol eras. In the legacy era (a session that
// began with initialize) the client's identity and capabilities come from the
// session; in the stateless era (2026-07-28) from the request's own _meta
// ([Request.IsStateless]). The input methods ([Request.Elicit],
// [Request.CreateMessage], [Request.ListRoots], [Request.Input]) send requests to
// the client in the legacy era, and in the stateless era return [ErrInputRequired]
// until the client's retry brings the answers.
type Request struct {
	// Session is the connection the request arrived on. In the stateless era it
	// is not initialized: use the methods of Request for the client's version,
	// identity and capabilities.
	Session *ServerSession
	// Meta is the request's _meta object (may be nil).
	Meta protocol.Meta

	stateless   *statelessCall // nil in the legacy era
	sessionTask *taskRun       // the 2025-11-25 task the handler runs in, if any
}

// IsStateless reports whether the request belongs to the stateless era
// (2026-07-28 and later): no session, everything in the request itself.
func (r *Request) IsStateless() bool { return r.stateless != nil }

// ProtocolVersion returns the protocol version the request is served at.
func (r *Request) ProtocolVersion() string {
	if r.stateless != nil {
		return r.stateless.version
	}
	return r.Session.ProtocolVersion()
}

// ClientCapabilities returns what the client declared: in this request's _meta
// (stateless era) or in initialize (legacy era).
func (r *Request) ClientCapabilities() protocol.ClientCapabilities {
	if r.stateless != nil {
		return r.stateless.caps
	}
	return r.Session.ClientCapabilities()
}

// ClientInfo returns the client's name and version as it sent them (zero when
// a stateless request did not say).
func (r *Request) ClientInfo() protocol.Implementation {
	if r.stateless != nil {
		if r.stateless.info != nil {
			return *r.stateless.info
		}
		return protocol.Implementation{}
	}
	return r.Session.ClientInfo()
}

func (r *Request) server() *Server { return r.Session.server }

// ReportProgress sends notifications/progress for this request, if the client asked
// for progress (by sending a progressToken); otherwise it does nothing. total and
// message may be zero values when unknown.
func (r *Request) ReportProgress(ctx context.Context, progress, total float64, message string) error {
	token, ok := r.Meta.ProgressToken()
	if !ok || r.Session == nil {
		return nil
	}
	p := &protocol.ProgressParams{ProgressToken: token, Progress: progress, Total: total}
	if protocol.HasProgressMessage(r.ProtocolVersion()) {
		p.Message = message
	}
	return r.Session.notify(ctx, protocol.NotificationProgress, p)
}

// Log sends a log message to the client if level is at or above the level the
// client asked for: with logging/setLevel on the session (legacy era) or in this
// request's _meta (stateless era). Until the client asks, nothing is sent.
func (r *Request) Log(ctx context.Context, level protocol.LoggingLevel, logger string, data any) error {
	if r.Session == nil {
		return nil
	}
	if r.stateless == nil {
		return r.Session.Log(ctx, level, logger, data)
	}
	min := r.stateless.logLevel
	if min == "" || level.Severity() < min.Severity() {
		return nil
	}
	return r.Session.notify(ctx, protocol.NotificationMessage, &protocol.LoggingMessageParams{Level: level, Logger: logger, Data: data})
}

// CreateMessage asks the client to sample from its language model. It fails with
// an error matching ErrCapabilityNotSupported when the client did not declare
// sampling (or, when the params carry tools, sampling with tools). In the
// stateless era it returns ErrInputRequired until the client's retry brings the
// answer (see Input).
func (r *Request) CreateMessage(ctx context.Context, p *protocol.CreateMessageParams) (*protocol.CreateMessageResult, error) {
	if r.stateless == nil {
		if r.sessionTask != nil {
			return r.taskCreateMessage(ctx, p)
		}
		return r.Session.CreateMessage(ctx, p)
	}
	var res protocol.CreateMessageResult
	if err := r.askOne(ctx, "sampling", protocol.NewCreateMessageInputRequest(p), &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Elicit asks the client to collect input from its user, with a form or (2025-11-25
// and later) by sending the user to a URL. It fails with an error matching
// ErrCapabilityNotSupported when the client did not declare the elicitation mode.
// In the stateless era it returns ErrInputRequired until the client's retry
// brings the answer (see Input).
func (r *Request) Elicit(ctx context.Context, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
	if r.stateless == nil {
		if r.sessionTask != nil {
			return r.taskElicit(ctx, p)
		}
		return r.Session.Elicit(ctx, p)
	}
	var res protocol.ElicitResult
	if err := r.askOne(ctx, "elicitation", protocol.NewElicitInputRequest(p), &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// ListRoots asks the client for its roots. It fails with an error matching
// ErrCapabilityNotSupported when the client did not declare roots. In the
// stateless era it returns ErrInputRequired until the client's retry brings the
// answer (see Input).
func (r *Request) ListRoots(ctx context.Context) (*protocol.ListRootsResult, error) {
	if r.stateless == nil {
		if r.sessionTask != nil {
			return r.taskListRoots(ctx)
		}
		return r.Session.ListRoots(ctx)
	}
	var res protocol.ListRootsResult
	if err := r.askOne(ctx, "roots", protocol.NewListRootsInputRequest(), &res); err != nil {
		return nil, err
	}
	return &res, nil
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
	return ss.listRoots(ctx, nil)
}

// listRoots sends roots/list with params (nil for none).
func (ss *ServerSession) listRoots(ctx context.Context, p *protocol.ListRootsParams) (*protocol.ListRootsResult, error) {
	if ss.ClientCapabilities().Roots == nil {
		return nil, fmt.Errorf("roots/list: %w (roots)", ErrCapabilityNotSupported)
	}
	var params any
	if p != nil {
		params = p
	}
	var res protocol.ListRootsResult
	if err := ss.call(ctx, protocol.MethodRootsList, params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Log sends notifications/message to the client if level is at or above the level
// the client set with logging/setLevel; until it sets one, nothing is sent.
func (ss *ServerSession) Log(ctx context.Context, level protocol.LoggingLevel, logger string, data any) error {
	ss.mu.Lock()
	ss.syncSharedLocked()
	min := ss.logLevel
	ss.mu.Unlock()
	if min == "" || level.Severity() < min.Severity() {
		return nil
	}
	return ss.notify(ctx, protocol.NotificationMessage, &protocol.LoggingMessageParams{Level: level, Logger: logger, Data: data})
}
