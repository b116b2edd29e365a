package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport"
)

// inflight is one request of a gateway client being forwarded to a server: the
// server's requests for sampling, elicitation and roots, and its log messages,
// go back to that client.
type inflight struct {
	u    *upServer
	req  *mcp.Request
	seq  uint64
	ctx  callContext // the client request's context, carrying the inflight itself (see callKey)
	cs   *mcp.ClientSession
	opts []mcp.RequestOption
}

// callContext is the context of a forwarded request: the client request's,
// with the inflight as the value of callKey. It is part of the inflight, so
// that marking the context allocates nothing of its own.
type callContext struct {
	context.Context
	c *inflight
}

// Value returns the inflight for callKey, else the client request's value.
func (x *callContext) Value(key any) any {
	if _, ok := key.(callKey); ok {
		return x.c
	}
	return x.Context.Value(key)
}

// context returns the context to forward the request with.
func (c *inflight) context() context.Context { return &c.ctx }

// callKey marks the context of a forwarded request. In the stateless era a
// server asks for input inside the result of the very request, and the client
// answers through its handlers with that request's context: the mark then
// says exactly whom to ask.
type callKey struct{}

// begin starts forwarding req to u: it gets the server's session (an error
// saying why when the server is down), registers the call, and prepares the
// request options (progress when the client asked for it, the server's
// timeout). end must follow. method and name (the server's own) are for the
// debug log, which names the caller's principal (transport.PrincipalFrom).
func (g *Gateway) begin(ctx context.Context, u *upServer, req *mcp.Request, method, name string) (*inflight, error) {
	if g.log.Enabled(ctx, slog.LevelDebug) {
		g.log.DebugContext(ctx, "gateway: forwarding", "server", u.name, "method", method, "name", name, "principal", transport.PrincipalFrom(ctx))
	}
	cs, err := g.sup.Session(ctx, u.name)
	if err != nil {
		return nil, err
	}
	c := &inflight{u: u, req: req, cs: cs}
	c.ctx = callContext{ctx, c}
	if _, ok := req.Meta.ProgressToken(); ok {
		c.opts = append(c.opts, mcp.WithProgress(func(p *protocol.ProgressParams) {
			_ = req.ReportProgress(ctx, p.Progress, p.Total, p.Message)
		}))
	}
	if t := u.cfg.Timeout; t > 0 {
		c.opts = append(c.opts, mcp.WithTimeout(t))
	}
	if level, ok := req.Meta.LogLevel(); ok {
		// A stateless client asks for log messages in each request: the
		// servers are asked for that level, as a legacy client's
		// logging/setLevel would.
		g.mu.Lock()
		changed := level != g.logLevel
		g.mu.Unlock()
		if changed {
			g.setLogLevel(ctx, level)
		}
	}
	u.mu.Lock()
	u.seq++
	c.seq = u.seq
	u.calls = append(u.calls, c)
	u.mu.Unlock()
	return c, nil
}

// end unregisters the call.
func (c *inflight) end() {
	u := c.u
	u.mu.Lock()
	for i, x := range u.calls {
		if x == c {
			last := len(u.calls) - 1
			u.calls[i] = u.calls[last]
			u.calls[last] = nil
			u.calls = u.calls[:last]
			break
		}
	}
	u.mu.Unlock()
}

// pick returns the client request a server's request or message belongs to:
// the one marked in ctx (stateless era), else, among the calls to the server in
// flight, the latest whose client has what want asks for (the latest of all
// when none has it, so that the client's refusal is what the server hears),
// else nil. A legacy server's request carries nothing that ties it to the call
// that caused it: with several calls in flight from different clients, the
// latest one is asked.
func (u *upServer) pick(ctx context.Context, want func(protocol.ClientCapabilities) bool) *inflight {
	if c, ok := ctx.Value(callKey{}).(*inflight); ok && c.u == u {
		return c
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	var best, any *inflight
	for _, c := range u.calls {
		if any == nil || c.seq > any.seq {
			any = c
		}
		if want != nil && want(c.req.ClientCapabilities()) && (best == nil || c.seq > best.seq) {
			best = c
		}
	}
	if best != nil {
		return best
	}
	return any
}

// errNoClient answers a server's request that no client request is waiting on.
var errNoClient = errors.New("no client request of the gateway is in progress on this server to ask")

// clientOptions are the options of the client that talks to the server name:
// its sampling, elicitation and roots requests and its log messages are
// passed to the gateway's clients.
func (g *Gateway) clientOptions(name string) *mcp.ClientOptions {
	u := g.upServers()[name]
	return &mcp.ClientOptions{
		Middleware:        g.upMW,
		Extensions:        upstreamExtensions(),
		SamplingWithTools: true,
		URLElicitation:    true,
		CreateMessageHandler: func(ctx context.Context, _ *mcp.ClientSession, p *protocol.CreateMessageParams) (*protocol.CreateMessageResult, error) {
			c := u.pick(ctx, func(caps protocol.ClientCapabilities) bool { return caps.Sampling != nil })
			if c == nil {
				return nil, errNoClient
			}
			return c.req.CreateMessage(ctx, p)
		},
		ElicitationHandler: func(ctx context.Context, _ *mcp.ClientSession, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
			c := u.pick(ctx, func(caps protocol.ClientCapabilities) bool { return caps.Elicitation != nil })
			if c == nil {
				return nil, errNoClient
			}
			return c.req.Elicit(ctx, p)
		},
		RootsHandler: func(ctx context.Context, _ *mcp.ClientSession) (*protocol.ListRootsResult, error) {
			return g.roots(ctx, u)
		},
		LoggingMessageHandler: func(ctx context.Context, _ *mcp.ClientSession, p *protocol.LoggingMessageParams) {
			g.forwardLog(ctx, u, p)
		},
	}
}

// roots answers a server's roots/list: the roots of the client whose request
// is in flight, else the union of the roots of every connected client that has
// roots (none: an empty list).
func (g *Gateway) roots(ctx context.Context, u *upServer) (*protocol.ListRootsResult, error) {
	if c := u.pick(ctx, func(caps protocol.ClientCapabilities) bool { return caps.Roots != nil }); c != nil && c.req.ClientCapabilities().Roots != nil {
		return c.req.ListRoots(ctx)
	}
	out := &protocol.ListRootsResult{Roots: []protocol.Root{}}
	seen := map[string]bool{}
	for _, ss := range g.srv.Sessions() {
		if ss.ClientCapabilities().Roots == nil {
			continue
		}
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		res, err := ss.ListRoots(rctx)
		cancel()
		if err != nil {
			g.log.Debug("gateway: roots/list of a client", "error", err)
			continue
		}
		for _, r := range res.Roots {
			if !seen[r.URI] {
				seen[r.URI] = true
				out.Roots = append(out.Roots, r)
			}
		}
	}
	return out, nil
}

// rootsChanged tells every legacy server that the roots changed.
func (g *Gateway) rootsChanged(ctx context.Context) {
	for _, name := range sortedServerNames(g.upServers()) {
		cs, err := g.sup.Session(ctx, name)
		if err != nil || cs.IsStateless() {
			continue
		}
		_ = cs.SetRoots(ctx, []protocol.Root{})
	}
}

// forwardLog passes a server's log message on, its logger prefixed with the
// server's name: to the client whose request is in flight, else to every
// client that asked for messages of its level.
func (g *Gateway) forwardLog(ctx context.Context, u *upServer, p *protocol.LoggingMessageParams) {
	logger := u.name
	if p.Logger != "" {
		logger += "/" + p.Logger
	}
	if c := u.pick(ctx, nil); c != nil {
		_ = c.req.Log(ctx, p.Level, logger, p.Data)
		return
	}
	for _, ss := range g.srv.Sessions() {
		_ = ss.Log(ctx, p.Level, logger, p.Data)
	}
}

// toolHandler forwards calls of a server's tool.
func (g *Gateway) toolHandler(u *upServer, original string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.ToolRequest) (*protocol.CallToolResult, error) {
		c, err := g.begin(ctx, u, &req.Request, "tools/call", original)
		if err != nil {
			return protocol.NewToolResultError(err.Error()), nil
		}
		defer c.end()
		var res *protocol.CallToolResult
		forwarded := false
		if req.InTask() {
			res, forwarded, err = g.callAsTask(c, req, original)
		}
		if !forwarded {
			// The server's result goes to the client as the server wrote
			// it, unless it may hold URIs the gateway rewrites.
			p := &protocol.CallToolParams{Name: original, Arguments: req.Params.Arguments, Meta: passMeta(req.Params.Meta)}
			var raw json.RawMessage
			if raw, err = c.cs.CallToolRaw(c.context(), p, c.opts...); err == nil {
				if !u.mayRewrite(raw) {
					if res, err = req.RawResult(raw); err == nil {
						return res, nil
					}
				} else {
					res = new(protocol.CallToolResult)
					err = json.Unmarshal(raw, res)
				}
			}
		}
		if err != nil {
			if errors.Is(err, mcp.ErrInputRequired) {
				return nil, err
			}
			return nil, u.failure(u.cutOff(ctx, err))
		}
		res.ResultType, res.Meta = "", ownMeta(res.Meta)
		u.rewriteContent(res.Content)
		return res, nil
	}
}

// promptHandler forwards prompts/get of a server's prompt.
func (g *Gateway) promptHandler(u *upServer, original string) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.PromptRequest) (*protocol.GetPromptResult, error) {
		c, err := g.begin(ctx, u, &req.Request, "prompts/get", original)
		if err != nil {
			return nil, err
		}
		defer c.end()
		res, err := c.cs.GetPromptParams(c.context(), &protocol.GetPromptParams{Name: original, Arguments: req.Params.Arguments, Meta: passMeta(req.Params.Meta)}, c.opts...)
		if err != nil {
			return nil, u.cutOff(ctx, err)
		}
		res.ResultType, res.Meta = "", ownMeta(res.Meta)
		if u.renames.Load() != nil {
			for i := range res.Messages {
				u.rewriteBlock(&res.Messages[i].Content)
			}
		}
		return res, nil
	}
}

// resourceHandler forwards resources/read of a server's resource: original is
// the server's URI of a static resource, "" for a template (the URI read is
// then turned into the server's).
func (g *Gateway) resourceHandler(u *upServer, original string) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ResourceRequest) (*protocol.ReadResourceResult, error) {
		uri := original
		if uri == "" {
			uri = u.upstreamURI(req.Params.URI)
		}
		c, err := g.begin(ctx, u, &req.Request, "resources/read", uri)
		if err != nil {
			return nil, err
		}
		defer c.end()
		res, err := c.cs.ReadResourceParams(c.context(), &protocol.ReadResourceParams{URI: uri, Meta: passMeta(req.Params.Meta)}, c.opts...)
		if err != nil {
			return nil, u.cutOff(ctx, err)
		}
		res.ResultType, res.CacheHint, res.Meta = "", protocol.CacheHint{}, ownMeta(res.Meta)
		for i := range res.Contents {
			res.Contents[i].URI = u.gatewayURI(res.Contents[i].URI)
		}
		return res, nil
	}
}

// completer forwards completion/complete for an argument of a server's prompt
// or template.
func (g *Gateway) completer(u *upServer, ref protocol.CompleteReference) mcp.CompleteFunc {
	return func(ctx context.Context, req *mcp.CompleteRequest) ([]string, error) {
		c, err := g.begin(ctx, u, &req.Request, "completion/complete", ref.Name)
		if err != nil {
			return nil, err
		}
		defer c.end()
		p := protocol.CompleteParams{Ref: ref, Argument: req.Params.Argument, Context: req.Params.Context}
		res, err := c.cs.Complete(c.context(), &p, c.opts...)
		if err != nil {
			return nil, u.cutOff(ctx, err)
		}
		return res.Completion.Values, nil
	}
}

// cutOff returns err, the error of a forwarded request, said as what it is
// when the server's "timeout" cut the request off (it was cancelled on the
// server). ctx is the client's request: when it ended first, the client
// cancelled or timed out itself, and err stays as it is.
func (u *upServer) cutOff(ctx context.Context, err error) error {
	t := u.cfg.Timeout
	if t <= 0 || ctx.Err() != nil || !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("server %q did not answer within %v (its \"timeout\" in the configuration), so the request was cancelled: %w", u.name, t, err)
}

// failure words the error of a call for the gateway's client: it names the
// server, and the configuration's secrets are redacted (a transport's error
// may quote the server's URL, a server's its environment).
func (u *upServer) failure(err error) error {
	msg := err.Error()
	if prefix := fmt.Sprintf("server %q", u.name); !strings.HasPrefix(msg, prefix) {
		msg = prefix + ": " + msg
	}
	return &redactedError{msg: u.cfg.Redact(msg), err: err}
}

// redactedError is an error with its message redacted; errors.Is and As still
// see the original.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// passMeta returns the _meta members a server should see: not the progress
// token (the gateway's client has its own), nor the stateless era's envelope
// (the gateway's client writes its own).
func passMeta(m protocol.Meta) protocol.Meta {
	var out protocol.Meta
	for k, v := range m {
		if k == "progressToken" || strings.HasPrefix(k, "io.modelcontextprotocol/") {
			continue
		}
		if out == nil {
			out = make(protocol.Meta, len(m))
		}
		out[k] = v
	}
	return out
}

// ownMeta returns a result's _meta without what describes the server's own
// answer (its serverInfo in the stateless era): the gateway's engine writes its
// own. It changes m in place, which the caller owns.
func ownMeta(m protocol.Meta) protocol.Meta {
	if _, ok := m[protocol.MetaKeyServerInfo]; ok {
		delete(m, protocol.MetaKeyServerInfo)
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// middleware sees every request of the gateway's clients: it passes logging/setLevel,
// resources/subscribe and unsubscribe, and the resources of
// subscriptions/listen on to the servers (subs.go).
func (g *Gateway) middleware(next mcp.Invoker) mcp.Invoker {
	return func(ctx context.Context, call *mcp.Call) (any, error) {
		if call.Direction != mcp.Incoming {
			return next(ctx, call)
		}
		switch call.Method {
		case protocol.MethodLoggingSetLevel:
			res, err := next(ctx, call)
			var p protocol.SetLevelParams
			if err == nil && json.Unmarshal(call.Params, &p) == nil {
				g.setLogLevel(ctx, p.Level)
			}
			return res, err
		case protocol.MethodResourcesSubscribe, protocol.MethodResourcesUnsubscribe:
			res, err := next(ctx, call)
			var p protocol.SubscribeParams
			ss, ok := call.Session.(*mcp.ServerSession)
			if err == nil && ok && json.Unmarshal(call.Params, &p) == nil {
				if call.Method == protocol.MethodResourcesSubscribe {
					g.legacySubscribe(ctx, ss, p.URI)
				} else {
					g.legacyUnsubscribe(ss, p.URI)
				}
			}
			return res, err
		case protocol.MethodSubscriptionsListen:
			return g.listenThrough(ctx, call, next)
		case protocol.MethodToolsCall:
			g.aliasCall(call) // a server's own tool name, called by an app's view
		}
		return next(ctx, call)
	}
}

// setLogLevel asks every connected server for messages at level (the level a
// client asked for last); servers that connect later are asked too.
func (g *Gateway) setLogLevel(ctx context.Context, level protocol.LoggingLevel) {
	g.mu.Lock()
	g.logLevel = level
	g.mu.Unlock()
	for _, name := range sortedServerNames(g.upServers()) {
		cs, err := g.sup.Session(ctx, name)
		if err != nil {
			continue
		}
		if err := cs.SetLogLevel(ctx, level); err != nil {
			g.log.Debug("gateway: logging/setLevel", "server", name, "error", err)
		}
	}
}
