// Package demo is mcpkit's "everything" demo server: one small server that exercises
// every feature, so each can be tried by hand (`mcpkit serve`) and tested end to end.
//
// Its first four tools are those of the C# SDK server in the wire capture
// internal/testkit/testdata/wire/csharp-streamable-http-2025-06-18.json: echo, count,
// test_throw and echo_ip.
package demo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/mcpkit/mcpkit/mcp"
	"github.com/mcpkit/mcpkit/protocol"
	"github.com/mcpkit/mcpkit/requeststate"
	"github.com/mcpkit/mcpkit/transport"
)

// Version is the demo server's version as it reports it.
const Version = "0.1.0"

// Options tune the demo server.
type Options struct {
	// CountInterval is the pause between the count tool's steps. Zero means 100 ms.
	CountInterval time.Duration
	// Logger receives the server's diagnostics; nil means slog.Default().
	Logger *slog.Logger
	// Keyring seals the requestState of stateless input-required round trips;
	// replicas of the demo server share one. Nil means a random key per process.
	Keyring *requeststate.Keyring
	// Changes and Tasks are the server's mcp.ServerOptions of those names:
	// replicas share a change feed and a task store (on Redis, say). Nil
	// means in-process ones.
	Changes mcp.ChangeFeed
	Tasks   *mcp.TaskOptions
	// StateUse is the server's mcp.ServerOptions.StateUse: nil keeps
	// requestStates reusable until they expire.
	StateUse mcp.StateUse
	// OmitConformanceFixtures leaves out the tools, resources and prompts the
	// official conformance suite calls (test_*, test://...): a shorter list for
	// people ("mcpkit serve" omits them unless --conformance).
	OmitConformanceFixtures bool
	// Middleware is the server's mcp.ServerOptions.Middleware (the CLI's
	// per-tool rate limits, say).
	Middleware []mcp.Middleware
}

// NewServer returns the demo server with all its tools, resources and prompts.
func NewServer(opts *Options) (*mcp.Server, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.CountInterval == 0 {
		o.CountInterval = 100 * time.Millisecond
	}
	so := &mcp.ServerOptions{
		Instructions: "A demo server: try the echo tool, the count tool for progress, and the greet prompt.",
		Logger:       o.Logger,
		Keyring:      o.Keyring,
		Changes:      o.Changes,
		Tasks:        o.Tasks, // non-nil declares tasks, which the demo does anyway (its task fixtures)
		StateUse:     o.StateUse,
		Middleware:   o.Middleware,
	}
	s := mcp.NewServer(protocol.Implementation{Name: "mcpkit-demo", Title: "mcpkit demo server", Version: Version}, so)
	adds := []func(*mcp.Server, *Options) error{addTools, addInteractiveTools, addResources, addPrompts}
	if !o.OmitConformanceFixtures {
		adds = append(adds, addConformanceFixtures)
	}
	for _, add := range adds {
		if err := add(s, &o); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// EchoInput is the echo tool's input.
type EchoInput struct {
	Message string `json:"message" jsonschema:"the text to echo back"`
}

// CountInput is the count tool's input.
type CountInput struct {
	N int `json:"n" jsonschema:"how far to count; one progress notification per step"`
}

// AddInput is the add tool's input.
type AddInput struct {
	A float64 `json:"a" jsonschema:"the first number"`
	B float64 `json:"b" jsonschema:"the second number"`
}

// AddOutput is the add tool's structured output.
type AddOutput struct {
	Sum float64 `json:"sum" jsonschema:"a + b"`
}

// errThrown is what test_throw fails with.
var errThrown = errors.New("test_throw always fails: this is the error a failing tool reports")

func addTools(s *mcp.Server, o *Options) error {
	return errors.Join(
		mcp.AddTool(s, &protocol.Tool{Name: "echo", Description: "Echoes the message back to the client."},
			func(ctx context.Context, req *mcp.ToolRequest, in EchoInput) (string, error) {
				return "hello " + in.Message, nil
			}),
		mcp.AddTool(s, &protocol.Tool{Name: "count", Description: "Counts from 0 to n, reporting progress at each step."},
			func(ctx context.Context, req *mcp.ToolRequest, in CountInput) (string, error) {
				if in.N < 0 || in.N > 10000 {
					return "", fmt.Errorf("n must be between 0 and 10000, got %d", in.N)
				}
				t := time.NewTicker(o.CountInterval)
				defer t.Stop()
				for i := range in.N {
					if err := req.ReportProgress(ctx, float64(i), float64(in.N), fmt.Sprintf("Step %d of %d", i, in.N)); err != nil {
						return "", err
					}
					select {
					case <-t.C:
					case <-ctx.Done():
						return "", ctx.Err()
					}
				}
				return strconv.Itoa(in.N), nil
			}),
		mcp.AddTool(s, &protocol.Tool{Name: "test_throw", Description: "Throws an exception for testing purposes."},
			func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
				// A failing tool reports its error; a panic would tell the
				// client only "internal error" (its internals go to the log).
				return "", errThrown
			}),
		mcp.AddTool(s, &protocol.Tool{Name: "echo_ip", Description: "Returns the IP address of the client."},
			func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
				if addr := req.Session.RemoteAddr(); addr != "" {
					return addr, nil
				}
				return "unknown: this transport (stdio) has no client address", nil
			}),
		mcp.AddTool(s, &protocol.Tool{Name: "whoami", Description: "Returns the authenticated principal (mcpkit serve --http --auth-issuer), or says there is none."},
			func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
				if p := transport.PrincipalFrom(ctx); p != "" {
					return p, nil
				}
				return "anonymous: no authenticated principal", nil
			}),
		mcp.AddTool(s, &protocol.Tool{Name: "add", Title: "Add two numbers", Description: "Adds two numbers and returns structured output.",
			Annotations: &protocol.ToolAnnotations{ReadOnlyHint: ptr(true)}},
			func(ctx context.Context, req *mcp.ToolRequest, in AddInput) (AddOutput, error) {
				return AddOutput{Sum: in.A + in.B}, nil
			}),
		mcp.AddTool(s, &protocol.Tool{Name: "log", Description: "Sends one log message at each level; the client sees those at or above the level it set."},
			func(ctx context.Context, req *mcp.ToolRequest, in struct{}) (string, error) {
				for _, l := range []protocol.LoggingLevel{protocol.LevelDebug, protocol.LevelInfo, protocol.LevelWarning, protocol.LevelError} {
					if err := req.Log(ctx, l, "demo", map[string]string{"level": string(l)}); err != nil {
						return "", err
					}
				}
				return "logged", nil
			}),
	)
}

func ptr[T any](v T) *T { return &v }
