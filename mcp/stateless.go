package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/mcpkit/mcpkit/jsonrpc"
	"github.com/mcpkit/mcpkit/protocol"
)

// This file is the stateless (2026-07-28) engine: every request carries its
// protocol version and the client's capabilities in _meta, there is no
// initialize and no session. A ServerSession that has not been initialized
// serves such requests one by one; an initialize selects the legacy engine for
// the rest of the connection instead.

// statelessMethods is the 2026-07-28 dispatch table. Methods removed in 2026-07-28
// (initialize, ping, logging/setLevel, resources/subscribe, ...) are absent:
// with stateless _meta they are unknown methods.
func statelessMethods() map[string]featureFunc {
	return map[string]featureFunc{
		protocol.MethodServerDiscover:         discover,
		protocol.MethodToolsList:              listTools,
		protocol.MethodToolsCall:              callTool,
		protocol.MethodResourcesList:          listResources,
		protocol.MethodResourcesTemplatesList: listResourceTemplates,
		protocol.MethodResourcesRead:          readResource,
		protocol.MethodPromptsList:            listPrompts,
		protocol.MethodPromptsGet:             getPrompt,
		protocol.MethodCompletionComplete:     complete,
		protocol.MethodSubscriptionsListen:    listen,
		protocol.MethodTasksGet:               getTaskStateless,
		protocol.MethodTasksUpdate:            updateTaskStateless,
		protocol.MethodTasksCancel:            cancelTaskStateless,
	}
}

// StatelessVersions are the stateless protocol versions a Server serves without
// initialize.
var statelessVersions = []string{protocol.Version20260728}

// statelessCall is what a 2026-07-28 request declared about itself in _meta.
type statelessCall struct {
	version  string
	caps     protocol.ClientCapabilities
	info     *protocol.Implementation
	logLevel protocol.LoggingLevel // "" = no log notifications
	method   string
	input    *inputRound // non-nil for the methods that may ask for input
}

// isStatelessRequest reports whether an incoming message on a session that has not
// been initialized belongs to the stateless engine: server/discover, or any
// request whose _meta names a protocol version. It only looks for the key, so
// the common legacy path pays one byte search.
func isStatelessRequest(msg *jsonrpc.Message) bool {
	if msg.IsNotification() {
		return false
	}
	if msg.Method == protocol.MethodServerDiscover {
		return true
	}
	return hasVersionKey(msg.Params)
}

// hasVersionKey reports whether params contain the quoted protocolVersion
// _meta key (head+tail, checked against the constant by a test). It looks for
// the key's capital V, which JSON rarely holds (a gateway's whole envelope has
// only that one), and then checks what is around it: a search for the whole
// key would stop at every quote, one for its tail at every '/' of the
// envelope's other keys.
func hasVersionKey(params []byte) bool {
	const (
		head = `"io.modelcontextprotocol/protocol`
		tail = `Version"`
	)
	for i := len(head); i <= len(params)-len(tail); i++ {
		j := bytes.IndexByte(params[i:len(params)-len(tail)+1], 'V')
		if j < 0 {
			return false
		}
		if i += j; string(params[i:i+len(tail)]) == tail && string(params[i-len(head):i]) == head {
			return true
		}
	}
	return false
}

// requestMetaMember finds a request's _meta in its params as encoding/json
// finds a struct field: by name up to case, the last one winning.
type requestMetaMember struct {
	Meta json.RawMessage `json:"_meta"`
}

// parseStatelessMeta checks the required _meta of a 2026-07-28 request and fills
// mc from it: a missing field is -32602, an unsupported version -32022 naming
// the supported ones. _meta keys are matched exactly, the last one winning,
// as protocol.Meta decodes them; a null value counts as absent.
//
// The common request is read in one pass (fromParams); whatever that path
// declines — errors included — parseStatelessMetaGeneral reads and answers.
func (s *Server) parseStatelessMeta(mc *statelessCall, method string, params json.RawMessage) error {
	if mc.fromParams(params) {
		mc.method = method
		return nil
	}
	*mc = statelessCall{}
	return s.parseStatelessMetaGeneral(mc, method, params)
}

// fromParams fills mc from the _meta of a request's params with the fast
// decoders (the params walked once by jsonscan, which checks their syntax, and
// _meta by protocol.Meta's decoder, which types the protocol's keys), and
// reports whether that is exactly what parseStatelessMetaGeneral would fill in
// and accept (see fromMeta). On false, mc may be partly filled.
func (mc *statelessCall) fromParams(params []byte) bool {
	raw, ok := lastMember(params, "_meta")
	if !ok || raw == nil {
		return false
	}
	var meta protocol.Meta
	if meta.UnmarshalJSON(raw) != nil {
		return false
	}
	return mc.fromMeta(params, meta)
}

// parseStatelessMetaGeneral is parseStatelessMeta through encoding/json: the
// reference the one-pass path must agree with.
func (s *Server) parseStatelessMetaGeneral(mc *statelessCall, method string, params json.RawMessage) error {
	var rm requestMetaMember
	if len(params) > 0 {
		if err := json.Unmarshal(params, &rm); err != nil {
			return errorf(CodeInvalidParams, "invalid params: _meta: %v", err)
		}
	}
	var fields map[string]json.RawMessage
	if !isNull(rm.Meta) {
		if err := json.Unmarshal(rm.Meta, &fields); err != nil {
			return errorf(CodeInvalidParams, "invalid params: _meta: %v", err)
		}
	}
	mc.method = method
	raw := fields[protocol.MetaKeyProtocolVersion]
	if isNull(raw) {
		return errorf(CodeInvalidParams, "invalid params: _meta must carry %s", protocol.MetaKeyProtocolVersion)
	}
	if err := json.Unmarshal(raw, &mc.version); err != nil {
		return errorf(CodeInvalidParams, "invalid params: _meta: %s: %v", protocol.MetaKeyProtocolVersion, err)
	}
	if !isStatelessVersion(mc.version) {
		return unsupportedVersion(mc.version)
	}
	if raw = fields[protocol.MetaKeyClientCapabilities]; isNull(raw) {
		return errorf(CodeInvalidParams, "invalid params: _meta must carry %s (an object)", protocol.MetaKeyClientCapabilities)
	}
	if err := json.Unmarshal(raw, &mc.caps); err != nil {
		return errorf(CodeInvalidParams, "invalid params: _meta: %s: %v", protocol.MetaKeyClientCapabilities, err)
	}
	if raw = fields[protocol.MetaKeyClientInfo]; !isNull(raw) {
		mc.info = new(protocol.Implementation)
		if err := json.Unmarshal(raw, mc.info); err != nil {
			return errorf(CodeInvalidParams, "invalid params: _meta: %s: %v", protocol.MetaKeyClientInfo, err)
		}
	}
	if raw = fields[protocol.MetaKeyLogLevel]; !isNull(raw) {
		if err := json.Unmarshal(raw, &mc.logLevel); err != nil || mc.logLevel.Severity() < 0 {
			return errorf(CodeInvalidParams, "invalid params: %s must be a logging level", protocol.MetaKeyLogLevel)
		}
	}
	return nil
}

// isNull reports whether a raw JSON value is absent or null.
func isNull(raw json.RawMessage) bool { return len(raw) == 0 || string(raw) == "null" }

func isStatelessVersion(v string) bool {
	for _, m := range statelessVersions {
		if v == m {
			return true
		}
	}
	return false
}

// supportedVersions lists what the server speaks: the stateless versions, then
// the legacy ones reached through initialize.
func supportedVersions() []string {
	out := make([]string, 0, len(statelessVersions)+len(legacyVersions))
	out = append(out, statelessVersions...)
	return append(out, legacyVersions...)
}

// legacyVersions are protocol.LegacyVersions, read once.
var legacyVersions = protocol.LegacyVersions()

func unsupportedVersion(requested string) *jsonrpc.Error {
	return (&jsonrpc.Error{Code: protocol.CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version"}).
		WithData(protocol.UnsupportedProtocolVersionData{Requested: requested, Supported: supportedVersions()})
}

// missingCapability is the -32021 error naming what the client must declare.
func missingCapability(caps protocol.ClientCapabilities, what string) *jsonrpc.Error {
	return (&jsonrpc.Error{Code: protocol.CodeMissingClientCapability,
		Message: "Missing required client capability: " + what}).
		WithData(protocol.MissingClientCapabilityData{RequiredCapabilities: caps})
}

// statelessRequest is what one stateless request allocates up front, in one
// piece: the Request its handler sees, what its _meta declared, and its input
// round (used by the methods that may ask the client for input).
type statelessRequest struct {
	req   Request
	call  statelessCall
	input inputRound
}

// handleStateless serves one 2026-07-28 request.
func (ss *ServerSession) handleStateless(ctx context.Context, msg *jsonrpc.Message) (any, error) {
	s := ss.server
	if msg.Method == protocol.MethodToolsCall {
		if tc := ss.decodeStatelessToolCall(msg.Params); tc != nil {
			if len(s.opts.Middleware) == 0 {
				return statelessError(tc.answer(ctx, s))
			}
			if fn := s.stateless[msg.Method]; fn != nil {
				// The middleware sees the call as on the general path; the
				// params decoded here serve it unless one changes them.
				call := &Call{Direction: Incoming, Method: msg.Method, Params: msg.Params, Session: statelessSession{ss, tc.call.version},
					fn: fn, req: &tc.tool.Request, toolRaw: msg.Params, tool: tc}
				return statelessError(s.statelessChain(ctx, call))
			}
		}
	}
	mr, fn, err := ss.statelessFor(msg.Method, msg.Params)
	if err != nil {
		return nil, err
	}
	if fn == nil {
		if cm := s.custom.get(msg.Method); cm != nil {
			return ss.statelessCustom(ctx, msg, cm, mr)
		}
		return nil, errorf(CodeMethodNotFound, "Method not found: %s", msg.Method)
	}
	r := &mr.req
	if len(s.opts.Middleware) == 0 {
		res, err := fn(ctx, r, msg.Params)
		return statelessError(s.completeStateless(r, res, err))
	}
	call := &Call{Direction: Incoming, Method: msg.Method, Params: msg.Params, Session: statelessSession{ss, mr.call.version}, fn: fn, req: r}
	return statelessError(s.statelessChain(ctx, call))
}

// statelessFor reads the _meta of a stateless request for method with params
// and, when method is one of the server's own, returns its handler with the
// request wired to the session (fn is nil for any other method: a custom one
// or none).
func (ss *ServerSession) statelessFor(method string, params json.RawMessage) (mr *statelessRequest, fn featureFunc, err error) {
	s := ss.server
	mr = &statelessRequest{}
	mc := &mr.call
	if err := s.parseStatelessMeta(mc, method, params); err != nil {
		return nil, nil, err
	}
	if fn = s.stateless[method]; fn == nil {
		return mr, nil, nil
	}
	switch method {
	case protocol.MethodToolsCall, protocol.MethodPromptsGet, protocol.MethodResourcesRead:
		mc.input = &mr.input
	}
	mr.req.Session, mr.req.stateless = ss, mc
	return mr, fn, nil
}

// completeStateless turns a handler's outcome into the answer to a stateless
// request: an InputRequiredResult when the handler is waiting for input, the
// result stamped by finishStateless otherwise.
func (s *Server) completeStateless(r *Request, res any, err error) (any, error) {
	if in := r.stateless.input; in != nil {
		if res, err = in.finish(s, r, res, err); err != nil {
			return nil, err
		}
	}
	if err != nil {
		return nil, err
	}
	return s.finishStateless(res), nil
}

// statelessError rewrites legacy error codes a handler may return into their
// 2026-07-28 form: "resource not found" is -32602 there (and -32002 must not
// be sent).
func statelessError(res any, err error) (any, error) {
	if err == nil {
		return res, nil
	}
	var je *jsonrpc.Error
	if errors.As(err, &je) && je.Code == protocol.CodeResourceNotFound {
		c := *je
		c.Code = CodeInvalidParams
		return nil, &c
	}
	return res, err
}

// statelessSession is what middleware sees as the Session of a stateless request:
// the connection, reporting the request's own protocol version.
type statelessSession struct {
	*ServerSession
	version string
}

// ProtocolVersion returns the version the request declared.
func (m statelessSession) ProtocolVersion() string { return m.version }

// CacheHint is a caching hint for results a 2026-07-28 client may cache (discover,
// the list results and resources/read): how long they stay fresh, and whether a
// shared cache may hold them.
type CacheHint struct {
	// TTL is how long the client may reuse the result; zero means immediately stale.
	TTL time.Duration
	// Scope is who may share it; empty means protocol.CacheScopePrivate.
	Scope protocol.CacheScope
}

// CacheOptions sets the caching hints per feature. The zero value marks every
// result immediately stale and private — the safe choice for a server whose
// features change or differ per user; set a TTL when they do not.
type CacheOptions struct {
	Discover          CacheHint
	Tools             CacheHint // tools/list
	Prompts           CacheHint // prompts/list
	Resources         CacheHint // resources/list
	ResourceTemplates CacheHint // resources/templates/list
	// Read is the default for resources/read; a handler may set its own hint in
	// the result it returns (ReadResourceResult.SetCache).
	Read CacheHint
}

func (h CacheHint) apply(c *protocol.CacheHint) {
	if c.TTLMs != nil && c.CacheScope != "" {
		return // the handler chose
	}
	scope := h.Scope
	if scope == "" {
		scope = protocol.CacheScopePrivate
	}
	if c.TTLMs != nil {
		c.CacheScope = scope
		return
	}
	c.SetCache(h.TTL, scope)
}

// finishStateless stamps a result for a 2026-07-28 client: resultType, the server's
// identity in _meta, and caching hints where the protocol requires them. It
// copies what it changes, so results a handler keeps and returns again are not
// modified.
func (s *Server) finishStateless(res any) any {
	r, ok := res.(protocol.StatelessResult)
	if !ok {
		return res // a tasks extension result, stamped where it is made
	}
	out := r.Stamped(s.resultMeta(r.ResultMeta()))
	if c, ok := out.(interface{ CacheFields() *protocol.CacheHint }); ok {
		s.opts.Cache.hintFor(out).apply(c.CacheFields())
	}
	return out
}

// hintFor returns the option that sets the caching hint of a cacheable result.
// TestEveryCacheableResultHasAnOption makes sure every cacheable result type
// of protocol has one.
func (co *CacheOptions) hintFor(res any) CacheHint {
	switch res.(type) {
	case *protocol.DiscoverResult:
		return co.Discover
	case *protocol.ListToolsResult:
		return co.Tools
	case *protocol.ListPromptsResult:
		return co.Prompts
	case *protocol.ListResourcesResult:
		return co.Resources
	case *protocol.ListResourceTemplatesResult:
		return co.ResourceTemplates
	case *protocol.ReadResourceResult:
		return co.Read
	}
	return CacheHint{} // immediately stale and private, the safe hint
}

// resultMeta returns a copy of m with the server's identity added. The
// identity is the server's own *protocol.Implementation (the type clients
// decode it into), shared by every result: storing a pointer in the map costs
// no allocation, and the result encoders write it without encoding/json.
func (s *Server) resultMeta(m protocol.Meta) protocol.Meta {
	out := make(protocol.Meta, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	out[protocol.MetaKeyServerInfo] = s.info.ForVersion(protocol.Version20260728)
	return out
}

// discover answers server/discover: versions, capabilities, identity.
func discover(ctx context.Context, r *Request, _ json.RawMessage) (any, error) {
	s := r.server()
	return &protocol.DiscoverResult{
		SupportedVersions: supportedVersions(),
		Capabilities:      *s.capabilitiesFor(r.ProtocolVersion()),
		Instructions:      s.instructions(ctx),
	}, nil
}
