package mcp

import (
	"context"
	"encoding/json"

	"github.com/mcpkit/mcpkit/internal/rpcshared"
	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
)

// featureFunc answers one method for a feature. It knows the request, not the transport.
type featureFunc func(ctx context.Context, r *Request, params json.RawMessage) (any, error)

// serverMethod is one entry of the server's dispatch table.
type serverMethod struct {
	fn         featureFunc
	beforeInit bool // allowed before initialize (initialize itself, ping)
}

func (m serverMethod) handle(ctx context.Context, ss *ServerSession, params json.RawMessage) (any, error) {
	return m.fn(ctx, &Request{Session: ss}, params)
}

// serverMethods is the legacy-era dispatch table: method name → handler.
func serverMethods() map[string]serverMethod {
	return map[string]serverMethod{
		protocol.MethodInitialize:             {fn: initialize, beforeInit: true},
		protocol.MethodPing:                   {fn: ping, beforeInit: true},
		protocol.NotificationInitialized:      {fn: initializedNotification},
		protocol.NotificationCancelled:        {fn: cancelledNotification, beforeInit: true},
		protocol.NotificationRootsListChanged: {fn: rootsChangedNotification},
		protocol.MethodLoggingSetLevel:        {fn: setLevel},
		protocol.MethodToolsList:              {fn: listTools},
		protocol.MethodToolsCall:              {fn: callTool},
		protocol.MethodResourcesList:          {fn: listResources},
		protocol.MethodResourcesTemplatesList: {fn: listResourceTemplates},
		protocol.MethodResourcesRead:          {fn: readResource},
		protocol.MethodResourcesSubscribe:     {fn: subscribe},
		protocol.MethodResourcesUnsubscribe:   {fn: unsubscribe},
		protocol.MethodPromptsList:            {fn: listPrompts},
		protocol.MethodPromptsGet:             {fn: getPrompt},
		protocol.MethodCompletionComplete:     {fn: complete},
		protocol.MethodTasksGet:               {fn: getSessionTask},
		protocol.MethodTasksResult:            {fn: sessionTaskResult},
		protocol.MethodTasksList:              {fn: listSessionTasks},
		protocol.MethodTasksCancel:            {fn: cancelSessionTask},
	}
}

func init() {
	names := make([]string, 0, 32)
	for m := range serverMethods() {
		names = append(names, m)
	}
	names = append(names, protocol.NotificationProgress, protocol.NotificationMessage,
		protocol.NotificationToolsListChanged, protocol.NotificationResourcesListChanged,
		protocol.NotificationPromptsListChanged, protocol.NotificationResourcesUpdated,
		protocol.MethodSamplingCreateMessage, protocol.MethodElicitationCreate, protocol.MethodRootsList)
	rpcshared.RegisterMethodNames(names...)
}

func initialize(ctx context.Context, r *Request, raw json.RawMessage) (any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		// Unlike other methods' params, initialize's are required: they carry the
		// protocol version, the client's capabilities and its name.
		return nil, errorf(CodeInvalidParams, "invalid params: initialize requires params (protocolVersion, capabilities, clientInfo)")
	}
	var p protocol.InitializeParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	ss := r.Session
	st := &sessionState{version: protocol.Negotiate(p.ProtocolVersion), clientInfo: p.ClientInfo, clientCaps: p.Capabilities}
	st = ss.server.states.share(raw, st) // the same params negotiate the same state
	if !ss.state.CompareAndSwap(nil, st) {
		return nil, errorf(CodeInvalidRequest, "invalid request: the session is already initialized")
	}
	if err := ss.saveState(ctx); err != nil {
		return nil, err
	}
	s := ss.server
	return &protocol.InitializeResult{
		ProtocolVersion: st.version,
		Capabilities:    *s.capabilitiesFor(st.version),
		ServerInfo:      *s.info.ForVersion(st.version),
		Instructions:    s.instructions(ctx),
	}, nil
}

func ping(context.Context, *Request, json.RawMessage) (any, error) {
	return &protocol.EmptyResult{}, nil
}

func initializedNotification(ctx context.Context, r *Request, _ json.RawMessage) (any, error) {
	if !r.Session.ready.CompareAndSwap(false, true) {
		return nil, nil
	}
	// A notification has no answer: a failed save is logged, and another
	// replica serves the session as not yet ready.
	_ = r.Session.saveState(ctx)
	if r.Session.server.opts.InitializedHandler != nil {
		r.Session.server.opts.InitializedHandler(ctx, r.Session)
	}
	return nil, nil
}

func cancelledNotification(ctx context.Context, r *Request, raw json.RawMessage) (any, error) {
	var p protocol.CancelledParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	switch id := p.RequestID.(type) {
	case string:
		r.Session.conn.CancelIncoming(jsonrpc.StringID(id))
	case int64:
		r.Session.conn.CancelIncoming(jsonrpc.Int64ID(id))
	}
	return nil, nil
}

func rootsChangedNotification(ctx context.Context, r *Request, _ json.RawMessage) (any, error) {
	if h := r.Session.server.opts.RootsListChangedHandler; h != nil {
		h(ctx, r.Session)
	}
	return nil, nil
}

func setLevel(ctx context.Context, r *Request, raw json.RawMessage) (any, error) {
	var p protocol.SetLevelParams
	if err := decodeParams(raw, &p); err != nil {
		return nil, err
	}
	if p.Level.Severity() < 0 {
		return nil, errorf(CodeInvalidParams, "invalid params: unknown logging level %q", p.Level)
	}
	r.Session.mu.Lock()
	r.Session.logLevel = p.Level
	r.Session.mu.Unlock()
	if err := r.Session.saveState(ctx); err != nil {
		return nil, err
	}
	return &protocol.EmptyResult{}, nil
}
