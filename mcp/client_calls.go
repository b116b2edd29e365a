package mcp

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/mcpkit/mcpkit/protocol"
)

// RequestOption adjusts one request made by a ClientSession.
type RequestOption func(*requestConfig)

type requestConfig struct {
	progress   func(*protocol.ProgressParams)
	timeout    time.Duration
	skipOutput bool // SkipOutputValidation
}

// WithProgress asks the server for progress notifications and passes each one to f,
// in order, before the call returns.
func WithProgress(f func(*protocol.ProgressParams)) RequestOption {
	return func(c *requestConfig) { c.progress = f }
}

// WithTimeout bounds this request; when it expires the client tells the server to
// cancel it (notifications/cancelled) and the call returns context.DeadlineExceeded.
func WithTimeout(d time.Duration) RequestOption {
	return func(c *requestConfig) { c.timeout = d }
}

// applyOptions returns the configuration opts make. The options see a
// configuration on the heap (they are unknown functions), so the common call
// without options allocates nothing.
func applyOptions(opts []RequestOption) requestConfig {
	if len(opts) == 0 {
		return requestConfig{}
	}
	c := new(requestConfig)
	for _, o := range opts {
		o(c)
	}
	return *c
}

// request sends out with its options applied, in the session's era.
func (cs *ClientSession) request(ctx context.Context, out *outgoing, result any, opts []RequestOption) error {
	cfg := applyOptions(opts)
	if cfg.timeout == 0 {
		cfg.timeout = cs.client.opts.RequestTimeout
	}
	if cfg.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.timeout)
		defer cancel()
	}
	if cfg.progress != nil && out.meta != nil {
		token := cs.nextToken.Add(1)
		*out.meta = out.meta.Clone().SetProgressToken(token)
		cs.mu.Lock()
		cs.progress[token] = cfg.progress
		cs.mu.Unlock()
		defer func() {
			cs.mu.Lock()
			delete(cs.progress, token)
			cs.mu.Unlock()
		}()
	}
	if cs.stateless != nil {
		return cs.statelessCall(ctx, out, result, statelessRetries{})
	}
	return cs.call(ctx, out.method, out.params, result)
}

// Ping checks that the server answers. The stateless era has no ping: there it
// sends server/discover, bypassing the cache.
func (cs *ClientSession) Ping(ctx context.Context, opts ...RequestOption) error {
	if cs.stateless != nil {
		p := &protocol.DiscoverParams{}
		return cs.request(ctx, &outgoing{method: protocol.MethodServerDiscover, params: p, meta: &p.Meta}, nil, opts)
	}
	return cs.request(ctx, &outgoing{method: protocol.MethodPing}, nil, opts)
}

// ListTools returns one page of tools. In the stateless era, tools whose
// x-mcp-header declarations are invalid are left out (with a warning in the log),
// as the specification requires, and the page may come from the cache. The
// output schemas of the listed tools are compiled, for checking their results
// (see [OutputError]).
func (cs *ClientSession) ListTools(ctx context.Context, p *protocol.ListToolsParams, opts ...RequestOption) (*protocol.ListToolsResult, error) {
	res, err := fetchPage[protocol.ListToolsResult](ctx, cs, protocol.MethodToolsList, p, opts)
	if err == nil && cs.stateless != nil {
		res.Tools = cs.keepValidTools(res.Tools)
	}
	if err == nil {
		cs.learnTools(res.Tools)
	}
	return res, err
}

// Tools iterates over every tool, fetching pages with [ClientSession.ListTools] as needed.
func (cs *ClientSession) Tools(ctx context.Context) iter.Seq2[protocol.Tool, error] {
	return pages(ctx, cs.ListTools, func(r *protocol.ListToolsResult) ([]protocol.Tool, string) { return r.Tools, r.NextCursor })
}

// ListResources returns one page of resources.
func (cs *ClientSession) ListResources(ctx context.Context, p *protocol.ListResourcesParams, opts ...RequestOption) (*protocol.ListResourcesResult, error) {
	return fetchPage[protocol.ListResourcesResult](ctx, cs, protocol.MethodResourcesList, p, opts)
}

// Resources iterates over every resource, fetching pages with [ClientSession.ListResources] as needed.
func (cs *ClientSession) Resources(ctx context.Context) iter.Seq2[protocol.Resource, error] {
	return pages(ctx, cs.ListResources, func(r *protocol.ListResourcesResult) ([]protocol.Resource, string) { return r.Resources, r.NextCursor })
}

// ListResourceTemplates returns one page of resource templates.
func (cs *ClientSession) ListResourceTemplates(ctx context.Context, p *protocol.ListResourceTemplatesParams, opts ...RequestOption) (*protocol.ListResourceTemplatesResult, error) {
	return fetchPage[protocol.ListResourceTemplatesResult](ctx, cs, protocol.MethodResourcesTemplatesList, p, opts)
}

// ResourceTemplates iterates over every resource template, fetching pages with
// [ClientSession.ListResourceTemplates] as needed.
func (cs *ClientSession) ResourceTemplates(ctx context.Context) iter.Seq2[protocol.ResourceTemplate, error] {
	return pages(ctx, cs.ListResourceTemplates, func(r *protocol.ListResourceTemplatesResult) ([]protocol.ResourceTemplate, string) {
		return r.ResourceTemplates, r.NextCursor
	})
}

// ReadResource reads the resource at uri. In the stateless era the server's
// requests for input are answered as for [ClientSession.CallTool], and a fresh
// cached answer is reused. [ClientSession.ReadResourceParams] sends params the
// caller builds.
func (cs *ClientSession) ReadResource(ctx context.Context, uri string, opts ...RequestOption) (*protocol.ReadResourceResult, error) {
	return cs.readResource(ctx, protocol.ReadResourceParams{URI: uri}, opts)
}

// ReadResourceParams is [ClientSession.ReadResource] with params the caller
// builds (a _meta, the answers to input requests).
func (cs *ClientSession) ReadResourceParams(ctx context.Context, p *protocol.ReadResourceParams, opts ...RequestOption) (*protocol.ReadResourceResult, error) {
	return cs.readResource(ctx, *p, opts)
}

func (cs *ClientSession) readResource(ctx context.Context, params protocol.ReadResourceParams, opts []RequestOption) (*protocol.ReadResourceResult, error) {
	var res protocol.ReadResourceResult
	out := &outgoing{method: protocol.MethodResourcesRead, params: &params, meta: &params.Meta,
		responses: &params.InputResponses, state: &params.RequestState}
	if len(params.InputResponses) == 0 && params.RequestState == "" {
		out.cacheKey = cacheable(params.Meta, protocol.MethodResourcesRead, params.URI)
	}
	return &res, cs.request(ctx, out, &res, opts)
}

// Subscribe asks to be told (ClientOptions.ResourceUpdatedHandler) when a resource
// changes. The stateless era replaced it with Listen: there it returns
// ErrLegacyOnly.
func (cs *ClientSession) Subscribe(ctx context.Context, p *protocol.SubscribeParams, opts ...RequestOption) error {
	if cs.stateless != nil {
		return fmt.Errorf("%w: resources/subscribe (use Listen)", ErrLegacyOnly)
	}
	return cs.request(ctx, &outgoing{method: protocol.MethodResourcesSubscribe, params: p}, nil, opts)
}

// Unsubscribe cancels a Subscribe (ErrLegacyOnly in the stateless era).
func (cs *ClientSession) Unsubscribe(ctx context.Context, p *protocol.UnsubscribeParams, opts ...RequestOption) error {
	if cs.stateless != nil {
		return fmt.Errorf("%w: resources/unsubscribe (close the Listen subscription)", ErrLegacyOnly)
	}
	return cs.request(ctx, &outgoing{method: protocol.MethodResourcesUnsubscribe, params: p}, nil, opts)
}

// ListPrompts returns one page of prompts.
func (cs *ClientSession) ListPrompts(ctx context.Context, p *protocol.ListPromptsParams, opts ...RequestOption) (*protocol.ListPromptsResult, error) {
	return fetchPage[protocol.ListPromptsResult](ctx, cs, protocol.MethodPromptsList, p, opts)
}

// Prompts iterates over every prompt, fetching pages with [ClientSession.ListPrompts] as needed.
func (cs *ClientSession) Prompts(ctx context.Context) iter.Seq2[protocol.Prompt, error] {
	return pages(ctx, cs.ListPrompts, func(r *protocol.ListPromptsResult) ([]protocol.Prompt, string) { return r.Prompts, r.NextCursor })
}

// GetPrompt renders the prompt name with args (nil for none). In the
// stateless era the server's requests for input are answered as for
// [ClientSession.CallTool]. [ClientSession.GetPromptParams] sends params the
// caller builds.
func (cs *ClientSession) GetPrompt(ctx context.Context, name string, args map[string]string, opts ...RequestOption) (*protocol.GetPromptResult, error) {
	return cs.getPrompt(ctx, protocol.GetPromptParams{Name: name, Arguments: args}, opts)
}

// GetPromptParams is [ClientSession.GetPrompt] with params the caller builds
// (a _meta, the answers to input requests).
func (cs *ClientSession) GetPromptParams(ctx context.Context, p *protocol.GetPromptParams, opts ...RequestOption) (*protocol.GetPromptResult, error) {
	return cs.getPrompt(ctx, *p, opts)
}

func (cs *ClientSession) getPrompt(ctx context.Context, params protocol.GetPromptParams, opts []RequestOption) (*protocol.GetPromptResult, error) {
	var res protocol.GetPromptResult
	return &res, cs.request(ctx, &outgoing{method: protocol.MethodPromptsGet, params: &params, meta: &params.Meta,
		responses: &params.InputResponses, state: &params.RequestState}, &res, opts)
}

// Complete asks for completions of a prompt argument or template variable.
func (cs *ClientSession) Complete(ctx context.Context, p *protocol.CompleteParams, opts ...RequestOption) (*protocol.CompleteResult, error) {
	params := *p
	var res protocol.CompleteResult
	return &res, cs.request(ctx, &outgoing{method: protocol.MethodCompletionComplete, params: &params, meta: &params.Meta}, &res, opts)
}

// SetLogLevel asks the server to send log messages at level and above. In the
// stateless era there is no such request: every later request carries the level
// in its _meta instead (and no request is sent now).
func (cs *ClientSession) SetLogLevel(ctx context.Context, level protocol.LoggingLevel, opts ...RequestOption) error {
	if m := cs.stateless; m != nil {
		if level.Severity() < 0 {
			return fmt.Errorf("mcp: %q is not a logging level", level)
		}
		m.mu.Lock()
		m.logLevel = level
		m.mu.Unlock()
		return nil
	}
	return cs.request(ctx, &outgoing{method: protocol.MethodLoggingSetLevel, params: &protocol.SetLevelParams{Level: level}}, nil, opts)
}

// orEmpty sends {} for absent params, which every version's schema accepts.
func orEmpty[T any](p *T) *T {
	if p == nil {
		return new(T)
	}
	return p
}

// fetchPage requests one page of a list method; R is its result type.
func fetchPage[R any](ctx context.Context, cs *ClientSession, method string, p *protocol.PaginatedParams, opts []RequestOption) (*R, error) {
	params := *orEmpty(p)
	res := new(R)
	return res, cs.request(ctx, &outgoing{method: method, params: &params, meta: &params.Meta,
		cacheKey: cacheable(params.Meta, method, params.Cursor)}, res, opts)
}

// pages iterates over the items of every page list returns, following the
// cursors items reads from each page.
func pages[R, T any](ctx context.Context, list func(context.Context, *protocol.PaginatedParams, ...RequestOption) (*R, error),
	items func(*R) ([]T, string)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		var p protocol.PaginatedParams // each list call copies it
		for {
			res, err := list(ctx, &p)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			all, next := items(res)
			for _, it := range all {
				if !yield(it, nil) {
					return
				}
			}
			if next == "" {
				return
			}
			p.Cursor = next
		}
	}
}
