package main

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcpkit/mcpkit/internal/ratelimit"
	"github.com/mcpkit/mcpkit/mcp"
)

// rateFlags are the rate limits of `mcpkit serve` and `mcpkit gateway`: token
// buckets per client (its principal, else its address) over HTTP, and per
// client and tool for tools/call on any transport.
type rateFlags struct {
	client  string   // --rate-limit
	tools   []string // --tool-rate-limit NAME=SPEC
	maxKeys int      // --rate-limit-clients
}

func (f *rateFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.client, "rate-limit", "", "with --http: each client's (principal's, else address's) budget of HTTP requests, as N/s, N/m or N/h[:BURST]; beyond it 429 with Retry-After")
	fl.StringArrayVar(&f.tools, "tool-rate-limit", nil, "each client's budget of calls of a tool, as TOOL=N/s[:BURST] (repeatable); beyond it a JSON-RPC error naming the limit")
	fl.IntVar(&f.maxKeys, "rate-limit-clients", ratelimit.DefaultMaxKeys, "most clients whose budgets are remembered (the least recently seen is forgotten first)")
}

// httpMiddleware returns the per-client limit over HTTP, or nil.
func (f *rateFlags) httpMiddleware() (func(http.Handler) http.Handler, error) {
	if f.client == "" {
		return nil, nil
	}
	l, err := ratelimit.ParseLimit(f.client)
	if err != nil {
		return nil, fmt.Errorf("--rate-limit: %w", err)
	}
	return ratelimit.Middleware(ratelimit.NewKeyed(l, f.maxKeys), nil), nil
}

// toolMiddleware returns the per-tool limits as server middleware (nil
// without any).
func (f *rateFlags) toolMiddleware() ([]mcp.Middleware, error) {
	if len(f.tools) == 0 {
		return nil, nil
	}
	tools := map[string]*ratelimit.Keyed{}
	for _, t := range f.tools {
		name, spec, ok := strings.Cut(t, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("--tool-rate-limit %q: want TOOL=N/s[:BURST]", t)
		}
		l, err := ratelimit.ParseLimit(spec)
		if err != nil {
			return nil, fmt.Errorf("--tool-rate-limit %s: %w", name, err)
		}
		tools[name] = ratelimit.NewKeyed(l, f.maxKeys)
	}
	return []mcp.Middleware{ratelimit.ToolMiddleware(tools, nil)}, nil
}
