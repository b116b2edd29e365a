// Package openai is an llm.Provider for the OpenAI Chat Completions API and
// every endpoint compatible with it (Ollama, vLLM, LM Studio, llama.cpp
// server, OpenRouter, ...): POST {BaseURL}/chat/completions with "stream":
// true, the answer read as server-sent events of chat.completion.chunk
// objects, tool-call arguments assembled from their fragments, usage taken
// from the last chunk (stream_options.include_usage), up to the DONE sentinel.
//
// It is written on net/http and the repository's sse decoder rather than on
// the official Go SDK: the SDK brings a large generated API surface and its
// own dependencies for the one endpoint a host needs, and its types would
// leak into the provider-neutral llm package.
package openai

import (
	"context"
	"iter"
	"net/http"
	"net/url"

	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/llm/internal/wire"
)

// DefaultBaseURL is OpenAI's API.
const DefaultBaseURL = "https://api.openai.com/v1"

// DefaultMaxRetries is how many times a request refused for load is retried
// when Options.MaxRetries is zero.
const DefaultMaxRetries = 2

// Options configure a Client. The zero value talks to OpenAI without a key.
type Options struct {
	// BaseURL is the API's base, up to and including /v1; empty means
	// DefaultBaseURL. For Ollama: http://localhost:11434/v1.
	BaseURL string
	// APIKey is sent as "Authorization: Bearer KEY"; empty sends no
	// Authorization header (local servers need none).
	APIKey string
	// HTTPClient sends the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
	// Header is added to every request (OpenAI-Organization, say).
	Header http.Header
	// MaxRetries is how many times a request refused for load (429, 5xx) is
	// retried; zero means DefaultMaxRetries, negative never.
	MaxRetries int
	// MaxTokensField names the field Request.MaxTokens is sent in:
	// "max_completion_tokens" (what OpenAI's newer models require) or
	// "max_tokens" (what most compatible servers read). Empty chooses the
	// first for api.openai.com and the second elsewhere.
	MaxTokensField string
	// NoMedia describes the images, audio and files of tool results in text
	// instead of attaching them to the conversation, for models that take
	// text only.
	NoMedia bool
}

// Client is an llm.Provider speaking Chat Completions.
type Client struct {
	ep        wire.Endpoint
	maxField  string
	withMedia bool
}

// New returns a client configured by opts.
func New(opts Options) *Client {
	base := opts.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	field := opts.MaxTokensField
	if field == "" {
		field = "max_tokens"
		if u, err := url.Parse(base); err == nil && u.Hostname() == "api.openai.com" {
			field = "max_completion_tokens"
		}
	}
	var auth string
	if opts.APIKey != "" {
		auth = "Bearer " + opts.APIKey
	}
	return &Client{
		ep: wire.NewEndpoint("openai", wire.JoinURL(base, "", "/chat/completions"), opts.HTTPClient, opts.Header,
			map[string]string{"Authorization": auth}, opts.MaxRetries, DefaultMaxRetries),
		maxField:  field,
		withMedia: !opts.NoMedia,
	}
}

// Stream implements llm.Provider.
func (c *Client) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	body, err := c.encodeRequest(req)
	if err != nil {
		return func(yield func(llm.Event, error) bool) { yield(llm.Event{}, err) }
	}
	return wire.Stream(ctx, &c.ep, body, &decoder{})
}
