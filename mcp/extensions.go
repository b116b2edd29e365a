package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
)

// This file is the server side of extensions (SEP-2133): declaring an
// extension next to the capabilities the server infers, and serving the
// custom methods an extension (or a vendor) adds. Custom methods are looked up
// only after the built-in tables miss, so the built-in methods' request path
// is unchanged; they run through the same Middleware, in both eras.

// MethodOptions configures a custom method registered with
// [AddRequestHandler], [AddNotificationHandler], [AddClientRequestHandler] or
// [AddClientNotificationHandler].
type MethodOptions struct {
	// Extension, when set, names the extension the method belongs to: a peer
	// that did not declare that extension in its capabilities is refused with
	// [protocol.CodeMissingClientCapability] (-32021), as the reference SDKs do,
	// naming the extension in the error (and, from a server, in its
	// requiredCapabilities data). A notification is dropped instead. Leave it
	// empty for methods any peer may call (an extension whose spec lets clients
	// call without declaring it, such as Skills).
	Extension string
}

// customMethod is one custom method: its handler, taking raw params, and what
// it requires of the peer.
type customMethod struct {
	extension    string
	notification bool
	// serve answers the method; for a notification its result is ignored.
	serve func(ctx context.Context, peer any, r *Request, params json.RawMessage) (any, error)
}

// customMethods is a copy-on-write table of custom methods: readers load it
// without a lock, writers (rare) copy it under mu.
type customMethods struct {
	mu    sync.Mutex
	table atomic.Pointer[map[string]*customMethod]
}

func (t *customMethods) get(method string) *customMethod {
	if m := t.table.Load(); m != nil {
		return (*m)[method]
	}
	return nil
}

func (t *customMethods) set(method string, cm *customMethod) {
	t.mu.Lock()
	defer t.mu.Unlock()
	next := make(map[string]*customMethod)
	if m := t.table.Load(); m != nil {
		maps.Copy(next, *m)
	}
	if cm == nil {
		delete(next, method)
	} else {
		next[method] = cm
	}
	t.table.Store(&next)
}

// builtinServerMethod reports whether method is one the Server answers itself
// in either era.
func builtinServerMethod(s *Server, method string) bool {
	if _, ok := s.methods[method]; ok {
		return true
	}
	_, ok := s.stateless[method]
	return ok
}

// AddRequestHandler registers h to answer the custom request method in both
// eras, its params decoded into a P (absent params decode as the zero P;
// params that do not fit are refused with -32602 before h runs). The result h
// returns is encoded as the answer; to a 2026-07-28 client it is stamped with
// resultType "complete" (when it is a JSON object without one) and the
// server's identity in _meta, like every stateless result. The method passes
// through [ServerOptions].Middleware like the built-in ones. Registering it
// again replaces the handler; registering a method the Server implements
// itself (tools/call, ...) panics. Methods may be added while sessions are
// connected.
func AddRequestHandler[P, R any](s *Server, method string, h func(ctx context.Context, r *Request, params *P) (R, error), opts *MethodOptions) {
	s.addCustom(method, opts, false, func(ctx context.Context, _ any, r *Request, raw json.RawMessage) (any, error) {
		p := new(P)
		if err := decodeParams(raw, p); err != nil {
			return nil, err
		}
		return h(ctx, r, p)
	})
}

// AddNotificationHandler registers h to receive the custom notification
// method from legacy sessions (and from a 2026-07-28 peer that sends one on a
// connection that carries it, such as stdio, recognized by the protocol
// version in its _meta: that protocol defines no client notifications, and
// its HTTP transport drops them). Params that do not decode into a P are
// dropped (a notification has no answer), as are notifications of an
// extension the client did not declare (see [MethodOptions]). Registering a
// method the Server implements itself panics.
func AddNotificationHandler[P any](s *Server, method string, h func(ctx context.Context, r *Request, params *P), opts *MethodOptions) {
	s.addCustom(method, opts, true, func(ctx context.Context, _ any, r *Request, raw json.RawMessage) (any, error) {
		p := new(P)
		if err := decodeParams(raw, p); err != nil {
			return nil, err
		}
		h(ctx, r, p)
		return nil, nil
	})
}

// RemoveMethod unregisters a custom method; later calls of it are answered
// with -32601 (Method not found).
func (s *Server) RemoveMethod(method string) { s.custom.set(method, nil) }

func (s *Server) addCustom(method string, opts *MethodOptions, notification bool, serve func(context.Context, any, *Request, json.RawMessage) (any, error)) {
	if method == "" {
		panic("mcp: a custom method needs a name")
	}
	if builtinServerMethod(s, method) {
		panic(fmt.Sprintf("mcp: %s is implemented by the Server and cannot be registered as a custom method", method))
	}
	cm := &customMethod{notification: notification, serve: serve}
	if opts != nil {
		cm.extension = opts.Extension
	}
	s.custom.set(method, cm)
}

// AddExtension declares the extension id with its settings (nil for none,
// sent as {}) in the server's capabilities.extensions, next to everything the
// server infers (or, when [ServerOptions].Capabilities is set, next to those).
// It is declared in both eras: in server/discover to 2026-07-28 clients and in
// the initialize result to legacy ones. Declaring id again replaces its
// settings. The settings are copied; a value inside them must not be changed
// afterwards.
func (s *Server) AddExtension(id string, settings map[string]any) {
	if settings == nil {
		settings = map[string]any{}
	} else {
		settings = maps.Clone(settings)
	}
	s.mu.Lock()
	if s.extensions == nil {
		s.extensions = make(map[string]map[string]any)
	}
	s.extensions[id] = settings
	s.mu.Unlock()
}

// RemoveExtension withdraws the declaration of extension id.
func (s *Server) RemoveExtension(id string) {
	s.mu.Lock()
	delete(s.extensions, id)
	s.mu.Unlock()
}

// declareExtensionsLocked adds the declared extensions to caps.Extensions
// (a fresh map: caps may be the caller's ServerOptions.Capabilities).
func (s *Server) declareExtensionsLocked(caps *protocol.ServerCapabilities) {
	if len(s.extensions) == 0 {
		return
	}
	out := make(map[string]map[string]any, len(caps.Extensions)+len(s.extensions))
	maps.Copy(out, caps.Extensions)
	maps.Copy(out, s.extensions)
	caps.Extensions = out
}

// capabilitiesFor returns what the server declares to a client at version:
// the capabilities that version knows, plus the declared extensions, which
// legacy versions carry as well (SEP-2133 negotiates extensions in initialize;
// the tasks extension, whose legacy form is the tasks capability, stays out).
func (s *Server) capabilitiesFor(version string) *protocol.ServerCapabilities {
	caps := s.capabilities()
	out := caps.ForVersion(version)
	if protocol.IsStateless(version) || out.Extensions != nil {
		return out
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(s.extensions) == 0 {
		return out
	}
	c := *out
	c.Extensions = maps.Clone(s.extensions)
	return &c
}

// ClientExtension returns the settings the client declared for extension id
// (in this request's _meta in the stateless era, in initialize in the legacy
// era), and whether it declared it at all.
func (r *Request) ClientExtension(id string) (map[string]any, bool) {
	caps := r.ClientCapabilities()
	settings, ok := caps.Extensions[id]
	return settings, ok
}

// missingExtension is the -32021 error refusing a method of extension id to a
// client that did not declare it.
func missingExtension(method, id string) *jsonrpc.Error {
	e := missingCapability(protocol.ClientCapabilities{Extensions: map[string]map[string]any{id: {}}}, "extension "+id)
	e.Message += fmt.Sprintf(" (%s belongs to it; declare it in capabilities.extensions)", method)
	return e
}

// handleCustom serves a custom method on a legacy session (or a notification
// on a connection that has not been initialized).
func (ss *ServerSession) handleCustom(ctx context.Context, msg *jsonrpc.Message, cm *customMethod) (any, error) {
	if !ss.initialized() {
		if msg.IsNotification() {
			if hasVersionKey(msg.Params) {
				_, _ = ss.statelessCustom(ctx, msg, cm, nil)
			}
			return nil, nil // before initialize, and not a stateless one
		}
		return nil, errorf(CodeInvalidRequest, "invalid request: %s before initialize", msg.Method)
	}
	if msg.IsNotification() != cm.notification {
		return mismatchedKind(msg)
	}
	r := &Request{Session: ss}
	return ss.runCustom(ctx, msg, cm, r, ss)
}

// statelessCustom serves a custom method of a 2026-07-28 request (or
// notification), whose _meta mr holds when the caller parsed it already (nil
// otherwise).
func (ss *ServerSession) statelessCustom(ctx context.Context, msg *jsonrpc.Message, cm *customMethod, mr *statelessRequest) (any, error) {
	if mr == nil {
		mr = &statelessRequest{}
		if err := ss.server.parseStatelessMeta(&mr.call, msg.Method, msg.Params); err != nil {
			return nil, err
		}
	}
	if msg.IsNotification() != cm.notification {
		return mismatchedKind(msg)
	}
	r := &mr.req
	r.Session, r.stateless = ss, &mr.call
	res, err := ss.runCustom(ctx, msg, cm, r, statelessSession{ss, mr.call.version})
	if err != nil || msg.IsNotification() {
		return res, err
	}
	return ss.server.stampCustom(res)
}

// mismatchedKind answers a request sent to a notification's name (-32601); a
// notification sent to a request's name is dropped.
func mismatchedKind(msg *jsonrpc.Message) (any, error) {
	if msg.IsNotification() {
		return nil, nil
	}
	return nil, errorf(CodeMethodNotFound, "Method not found: %s (it is a notification)", msg.Method)
}

// runCustom runs cm through the middleware, refusing a client that did not
// declare the method's extension.
func (ss *ServerSession) runCustom(ctx context.Context, msg *jsonrpc.Message, cm *customMethod, r *Request, sess Session) (any, error) {
	last := func(ctx context.Context, c *Call) (any, error) {
		if cm.extension != "" {
			if _, ok := r.ClientExtension(cm.extension); !ok {
				if c.Notification {
					return nil, nil
				}
				return nil, missingExtension(c.Method, cm.extension)
			}
		}
		r.Meta = paramsMeta(c.Params)
		return cm.serve(ctx, ss, r, c.Params)
	}
	mws := ss.server.opts.Middleware
	if len(mws) == 0 {
		return last(ctx, &Call{Direction: Incoming, Method: msg.Method, Params: msg.Params, Notification: msg.IsNotification(), Session: sess})
	}
	call := &Call{Direction: Incoming, Method: msg.Method, Params: msg.Params, Notification: msg.IsNotification(), Session: sess}
	return chain(mws, last)(ctx, call)
}

// paramsMeta returns the _meta of raw params (nil when absent or malformed:
// the handler's own decoding reports malformed params).
func paramsMeta(raw json.RawMessage) protocol.Meta {
	if len(raw) == 0 {
		return nil
	}
	var m struct {
		Meta protocol.Meta `json:"_meta"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m.Meta
}

// stampCustom gives a custom method's result the members every 2026-07-28
// result carries: resultType "complete" unless it has a resultType, and the
// server's identity in _meta. A result that is not a JSON object is sent as
// it is.
func (s *Server) stampCustom(res any) (any, error) {
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, fmt.Errorf("mcp: encoding the result: %w", err)
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil || obj == nil {
		return json.RawMessage(raw), nil
	}
	if _, ok := obj["resultType"]; !ok {
		obj["resultType"] = json.RawMessage(`"` + protocol.ResultTypeComplete + `"`)
	}
	meta := map[string]json.RawMessage{}
	if m, ok := obj["_meta"]; ok && !isNull(m) {
		if json.Unmarshal(m, &meta) != nil {
			return json.RawMessage(raw), nil // not ours to repair
		}
	}
	if _, ok := meta[protocol.MetaKeyServerInfo]; !ok {
		meta[protocol.MetaKeyServerInfo] = s.infoJSON
	}
	if obj["_meta"], err = json.Marshal(meta); err != nil {
		return nil, err
	}
	out, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(out), nil
}
