// Package anthropic is an llm.Provider for the Anthropic Messages API: POST
// {BaseURL}/v1/messages with "stream": true, the answer read as the
// server-sent events message_start, content_block_start / content_block_delta
// (text_delta, input_json_delta) / content_block_stop, message_delta and
// message_stop; tool calls are tool_use blocks and their results tool_result
// blocks.
//
// Like llm/openai it is written on net/http and the repository's sse decoder
// instead of the official SDK, whose generated surface and dependencies are
// far larger than the one streaming endpoint a host uses.
package anthropic

import (
	"context"
	"iter"
	"net/http"

	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/llm/internal/wire"
)

// DefaultBaseURL is Anthropic's API.
const DefaultBaseURL = "https://api.anthropic.com"

// APIVersion is the anthropic-version header the client sends.
const APIVersion = "2023-06-01"

// DefaultMaxTokens is the max_tokens sent when Request.MaxTokens is zero
// (the API requires the field); every current model can write this many.
const DefaultMaxTokens = 4096

// DefaultMaxRetries is how many times a request refused for load is retried
// when Options.MaxRetries is zero.
const DefaultMaxRetries = 2

// Options configure a Client.
type Options struct {
	// BaseURL is the API's base, without /v1 (a trailing /v1 is accepted);
	// empty means DefaultBaseURL.
	BaseURL string
	// APIKey is sent in the x-api-key header.
	APIKey string
	// HTTPClient sends the requests; nil means http.DefaultClient.
	HTTPClient *http.Client
	// Header is added to every request (anthropic-beta, say).
	Header http.Header
	// MaxRetries is how many times a request refused for load (429, 5xx,
	// 529 overloaded) is retried; zero means DefaultMaxRetries, negative
	// never.
	MaxRetries int
}

// Client is an llm.Provider speaking the Messages API.
type Client struct {
	ep wire.Endpoint
}

// New returns a client configured by opts.
func New(opts Options) *Client {
	base := opts.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	return &Client{ep: wire.NewEndpoint("anthropic", wire.JoinURL(base, "/v1", "/v1/messages"), opts.HTTPClient, opts.Header,
		map[string]string{"X-Api-Key": opts.APIKey, "Anthropic-Version": APIVersion}, opts.MaxRetries, DefaultMaxRetries)}
}

// Stream implements llm.Provider.
func (c *Client) Stream(ctx context.Context, req *llm.Request) iter.Seq2[llm.Event, error] {
	body, err := encodeRequest(req)
	if err != nil {
		return func(yield func(llm.Event, error) bool) { yield(llm.Event{}, err) }
	}
	return wire.Stream(ctx, &c.ep, body, &decoder{blocks: map[int]*blockState{}})
}
