package host_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcpkit/mcpkit/host"
	"github.com/mcpkit/mcpkit/internal/demo"
	"github.com/mcpkit/mcpkit/internal/llmtest"
	"github.com/mcpkit/mcpkit/llm"
	"github.com/mcpkit/mcpkit/llm/anthropic"
	"github.com/mcpkit/mcpkit/llm/openai"
	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/transport/memory"
)

// provider is one provider's wire format in these tests: a scripted endpoint,
// its stream fixtures, a client, and a reader of the tool results a request
// carries.
type provider struct {
	name   string
	serve  func(t *testing.T, replies ...llmtest.Reply) *llmtest.Server
	stream func(text string, calls ...llmtest.Call) string
	client func(srv *llmtest.Server) llm.Provider
	// results reads the tool results of a request body, by call id.
	results func(body map[string]any) map[string]toolResult
}

// toolResult is a tool result as a provider received it.
type toolResult struct {
	text    string
	isError bool
	images  int // images attached to the result (or, for OpenAI, after it)
}

var providers = []provider{
	{
		name: "openai",
		serve: func(t *testing.T, replies ...llmtest.Reply) *llmtest.Server {
			return llmtest.NewOpenAI(t, "sk-test", replies...)
		},
		stream: llmtest.OpenAI,
		client: func(srv *llmtest.Server) llm.Provider {
			return openai.New(openai.Options{BaseURL: srv.BaseURL(), APIKey: "sk-test", MaxRetries: -1})
		},
		results: func(body map[string]any) map[string]toolResult {
			out := map[string]toolResult{}
			for _, m := range llmtest.Messages(body) {
				switch m["role"] {
				case "tool":
					text, _ := m["content"].(string)
					id, _ := m["tool_call_id"].(string)
					out[id] = toolResult{text: strings.TrimPrefix(text, "Error: "), isError: strings.HasPrefix(text, "Error: ")}
				case "user":
					// Attachments follow a text naming their call.
					var of string
					parts, _ := m["content"].([]any)
					for _, p := range parts {
						pm, _ := p.(map[string]any)
						if text, _ := pm["text"].(string); strings.HasPrefix(text, "Attachments returned by tool call ") {
							of, _, _ = strings.Cut(strings.TrimPrefix(text, "Attachments returned by tool call "), " ")
						}
						if pm["type"] == "image_url" && of != "" {
							r := out[of]
							r.images++
							out[of] = r
						}
					}
				}
			}
			return out
		},
	},
	{
		name: "anthropic",
		serve: func(t *testing.T, replies ...llmtest.Reply) *llmtest.Server {
			return llmtest.NewAnthropic(t, "sk-ant-test", replies...)
		},
		stream: llmtest.Anthropic,
		client: func(srv *llmtest.Server) llm.Provider {
			return anthropic.New(anthropic.Options{BaseURL: srv.BaseURL(), APIKey: "sk-ant-test", MaxRetries: -1})
		},
		results: func(body map[string]any) map[string]toolResult {
			out := map[string]toolResult{}
			for _, m := range llmtest.Messages(body) {
				blocks, _ := m["content"].([]any)
				for _, b := range blocks {
					bm, _ := b.(map[string]any)
					if bm["type"] != "tool_result" {
						continue
					}
					var r toolResult
					r.isError, _ = bm["is_error"].(bool)
					inner, _ := bm["content"].([]any)
					var texts []string
					for _, c := range inner {
						cm, _ := c.(map[string]any)
						switch cm["type"] {
						case "text":
							texts = append(texts, cm["text"].(string))
						case "image":
							r.images++
						}
					}
					r.text = strings.Join(texts, "\n")
					out[bm["tool_use_id"].(string)] = r
				}
			}
			return out
		},
	},
}

// eachProvider runs f once per provider.
func eachProvider(t *testing.T, f func(t *testing.T, p provider)) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) { f(t, p) })
	}
}

// connect serves srv over the in-memory transport and returns a client
// session to it, closed when the test ends.
func connect(t *testing.T, srv *mcp.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	c, s := memory.NewPair()
	if _, err := srv.Connect(t.Context(), s); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(protocol.Implementation{Name: "host-test", Version: "1"}, opts).Connect(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// demoSession is a session to the demo server whose sampling requests the
// model behind p answers.
func demoSession(t *testing.T, p llm.Provider) *mcp.ClientSession {
	t.Helper()
	srv, err := demo.NewServer(&demo.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return connect(t, srv, &mcp.ClientOptions{CreateMessageHandler: host.SamplingHandler(p, "test-model", nil), SamplingWithTools: true})
}

// recorder keeps a run's events.
type recorder struct{ events []host.Event }

func (r *recorder) on(ev host.Event) { r.events = append(r.events, ev) }

// results returns the EventToolResult events by tool name.
func (r *recorder) results() map[string][]*protocol.CallToolResult {
	out := map[string][]*protocol.CallToolResult{}
	for _, ev := range r.events {
		if ev.Type == host.EventToolResult {
			out[ev.Call.Name] = append(out[ev.Call.Name], ev.Result)
		}
	}
	return out
}

// newAgent is an agent over the demo server with p's scripted model.
func newAgent(t *testing.T, p provider, srv *llmtest.Server, opts host.Options) (*host.Agent, *recorder) {
	t.Helper()
	model := p.client(srv)
	cs := demoSession(t, model)
	rec := &recorder{}
	opts.Provider, opts.Model, opts.OnEvent = model, "test-model", rec.on
	return host.New(host.NewSessionSource(host.Server{Name: "demo", Session: fixedSession(cs)}), opts), rec
}

func resultText(r *protocol.CallToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == protocol.ContentTypeText {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// fixedSession is a host.Server's Session that always returns cs.
func fixedSession(cs *mcp.ClientSession) func(context.Context) (*mcp.ClientSession, error) {
	return func(context.Context) (*mcp.ClientSession, error) { return cs, nil }
}
