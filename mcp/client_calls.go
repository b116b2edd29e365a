package mcp

import (
	"context"
	"iter"
	"time"

	"github.com/mcpkit/mcpkit/protocol"
)

// RequestOption adjusts one request made by a ClientSession.
type RequestOption func(*requestConfig)

type requestConfig struct {
	progress func(*protocol.ProgressParams)
	timeout  time.Duration
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

// request sends a request with its options applied. meta is the params' _meta field,
// which receives the progress token when progress is asked for.
func (cs *ClientSession) request(ctx context.Context, method string, params any, meta *protocol.Meta, result any, opts []RequestOption) error {
	var cfg requestConfig
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.timeout == 0 {
		cfg.timeout = cs.client.opts.RequestTimeout
	}
	if cfg.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.timeout)
		defer cancel()
	}
	if cfg.progress != nil && meta != nil {
		token := cs.nextToken.Add(1)
		*meta = meta.Clone().SetProgressToken(token)
		cs.mu.Lock()
		cs.progress[token] = cfg.progress
		cs.mu.Unlock()
		defer func() {
			cs.mu.Lock()
			delete(cs.progress, token)
			cs.mu.Unlock()
		}()
	}
	return cs.call(ctx, method, params, result)
}

// Ping checks that the server answers.
func (cs *ClientSession) Ping(ctx context.Context, opts ...RequestOption) error {
	return cs.request(ctx, protocol.MethodPing, nil, nil, nil, opts)
}

// CallTool calls a tool. A tool that ran and failed returns a result with IsError
// set, not an error; an error means the call could not be made (unknown tool,
// invalid params, connection lost).
func (cs *ClientSession) CallTool(ctx context.Context, p *protocol.CallToolParams, opts ...RequestOption) (*protocol.CallToolResult, error) {
	params := *p
	var res protocol.CallToolResult
	if err := cs.request(ctx, protocol.MethodToolsCall, &params, &params.Meta, &res, opts); err != nil {
		return nil, err
	}
	return &res, nil
}

// ListTools returns one page of tools.
func (cs *ClientSession) ListTools(ctx context.Context, p *protocol.ListToolsParams, opts ...RequestOption) (*protocol.ListToolsResult, error) {
	var res protocol.ListToolsResult
	return &res, cs.request(ctx, protocol.MethodToolsList, orEmpty(p), nil, &res, opts)
}

// Tools iterates over every tool, fetching pages as needed.
func (cs *ClientSession) Tools(ctx context.Context) iter.Seq2[protocol.Tool, error] {
	return pages(func(cursor string) ([]protocol.Tool, string, error) {
		res, err := cs.ListTools(ctx, &protocol.ListToolsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return res.Tools, res.NextCursor, nil
	})
}

// ListResources returns one page of resources.
func (cs *ClientSession) ListResources(ctx context.Context, p *protocol.ListResourcesParams, opts ...RequestOption) (*protocol.ListResourcesResult, error) {
	var res protocol.ListResourcesResult
	return &res, cs.request(ctx, protocol.MethodResourcesList, orEmpty(p), nil, &res, opts)
}

// Resources iterates over every resource, fetching pages as needed.
func (cs *ClientSession) Resources(ctx context.Context) iter.Seq2[protocol.Resource, error] {
	return pages(func(cursor string) ([]protocol.Resource, string, error) {
		res, err := cs.ListResources(ctx, &protocol.ListResourcesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return res.Resources, res.NextCursor, nil
	})
}

// ListResourceTemplates returns one page of resource templates.
func (cs *ClientSession) ListResourceTemplates(ctx context.Context, p *protocol.ListResourceTemplatesParams, opts ...RequestOption) (*protocol.ListResourceTemplatesResult, error) {
	var res protocol.ListResourceTemplatesResult
	return &res, cs.request(ctx, protocol.MethodResourcesTemplatesList, orEmpty(p), nil, &res, opts)
}

// ResourceTemplates iterates over every resource template, fetching pages as needed.
func (cs *ClientSession) ResourceTemplates(ctx context.Context) iter.Seq2[protocol.ResourceTemplate, error] {
	return pages(func(cursor string) ([]protocol.ResourceTemplate, string, error) {
		res, err := cs.ListResourceTemplates(ctx, &protocol.ListResourceTemplatesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return res.ResourceTemplates, res.NextCursor, nil
	})
}

// ReadResource reads a resource.
func (cs *ClientSession) ReadResource(ctx context.Context, p *protocol.ReadResourceParams, opts ...RequestOption) (*protocol.ReadResourceResult, error) {
	params := *p
	var res protocol.ReadResourceResult
	return &res, cs.request(ctx, protocol.MethodResourcesRead, &params, &params.Meta, &res, opts)
}

// Subscribe asks to be told (ClientOptions.ResourceUpdatedHandler) when a resource changes.
func (cs *ClientSession) Subscribe(ctx context.Context, p *protocol.SubscribeParams, opts ...RequestOption) error {
	return cs.request(ctx, protocol.MethodResourcesSubscribe, p, nil, nil, opts)
}

// Unsubscribe cancels a Subscribe.
func (cs *ClientSession) Unsubscribe(ctx context.Context, p *protocol.UnsubscribeParams, opts ...RequestOption) error {
	return cs.request(ctx, protocol.MethodResourcesUnsubscribe, p, nil, nil, opts)
}

// ListPrompts returns one page of prompts.
func (cs *ClientSession) ListPrompts(ctx context.Context, p *protocol.ListPromptsParams, opts ...RequestOption) (*protocol.ListPromptsResult, error) {
	var res protocol.ListPromptsResult
	return &res, cs.request(ctx, protocol.MethodPromptsList, orEmpty(p), nil, &res, opts)
}

// Prompts iterates over every prompt, fetching pages as needed.
func (cs *ClientSession) Prompts(ctx context.Context) iter.Seq2[protocol.Prompt, error] {
	return pages(func(cursor string) ([]protocol.Prompt, string, error) {
		res, err := cs.ListPrompts(ctx, &protocol.ListPromptsParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return res.Prompts, res.NextCursor, nil
	})
}

// GetPrompt renders a prompt with arguments.
func (cs *ClientSession) GetPrompt(ctx context.Context, p *protocol.GetPromptParams, opts ...RequestOption) (*protocol.GetPromptResult, error) {
	params := *p
	var res protocol.GetPromptResult
	return &res, cs.request(ctx, protocol.MethodPromptsGet, &params, &params.Meta, &res, opts)
}

// Complete asks for completions of a prompt argument or template variable.
func (cs *ClientSession) Complete(ctx context.Context, p *protocol.CompleteParams, opts ...RequestOption) (*protocol.CompleteResult, error) {
	var res protocol.CompleteResult
	return &res, cs.request(ctx, protocol.MethodCompletionComplete, p, nil, &res, opts)
}

// SetLogLevel asks the server to send log messages at level and above.
func (cs *ClientSession) SetLogLevel(ctx context.Context, level protocol.LoggingLevel, opts ...RequestOption) error {
	return cs.request(ctx, protocol.MethodLoggingSetLevel, &protocol.SetLevelParams{Level: level}, nil, nil, opts)
}

// orEmpty sends {} for absent params, which every version's schema accepts.
func orEmpty[T any](p *T) *T {
	if p == nil {
		return new(T)
	}
	return p
}

// pages turns a page fetcher into an iterator over all items.
func pages[T any](fetch func(cursor string) ([]T, string, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		cursor := ""
		for {
			items, next, err := fetch(cursor)
			if err != nil {
				var zero T
				yield(zero, err)
				return
			}
			for _, it := range items {
				if !yield(it, nil) {
					return
				}
			}
			if next == "" {
				return
			}
			cursor = next
		}
	}
}
